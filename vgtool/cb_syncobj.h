/* cb_syncobj.h: the state the tool keeps about synchronisation objects
 * (cb_syncobj.c), for the client requests of cb_sync.c and the deadlock
 * check of cb_deadlock.c.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CB_SYNCOBJ_H
#define CB_SYNCOBJ_H

#include "cb_global.h"

/* Locks: how deep thread t holds lock (0: not at all).  Only acquisitions
 * the trace records are counted. */
UInt cb_lock_depth(const CbThread *t, Addr lock);
/* A successful acquisition in mode (CB_LOCK_*) by the call returning to
 * caller: True for the first, which makes the LOCK event; False for a
 * nested one (a recursive mutex, a read lock taken again), which makes
 * none. */
Bool cb_lock_acquired(const CbThread *t, Addr lock, UChar mode, Addr caller);
/* A release: True for the last, which makes the UNLOCK event; *mode is set
 * to the mode the lock was held in (left alone when t did not hold it). */
Bool cb_lock_releasing(const CbThread *t, Addr lock, UChar *mode);
/* A release the trace does not record (called from the C runtime, or from
 * code not watched) of a lock t holds: t may no longer hold it. */
void cb_lock_released_unseen(const CbThread *t, Addr lock);
/* Whether t surely holds lock now (cb_deadlock.c): its mode and the
 * caller of the first acquisition.  False when t may have let it go
 * where the tool did not see (cb_lock_released_unseen, or another thread
 * unlocked it). */
Bool cb_lock_surely_held(const CbThread *t, Addr lock, UChar *mode,
                         Addr *caller);
/* A thread that is no longer alive (alive(wid) is False) and surely held
 * lock, in a mode that excludes want (CB_LOCK_*), when it ended: its wid,
 * and the caller of its acquisition; 0 when none.  Such a lock is never
 * released (a robust mutex excepted, which the caller rules out). */
UInt cb_lock_dead_holder(Addr lock, UChar want, Bool (*alive)(UInt wid),
                         Addr *caller);

/* Semaphores (cb_wire.h, SEM_POST/SEM_WAIT). */
void  cb_sem_init(Addr sem, UWord value);
ULong cb_sem_post(Addr sem);  /* the post's number, 1, 2, ... */
ULong cb_sem_take(Addr sem);  /* the post a wait consumed, 0: an initial token */
/* No token can be left: the tool saw its sem_init and every post and wait
 * since (a post counts from before it happens, a wait after it took). */
Bool  cb_sem_surely_empty(Addr sem);

/* Condition variables: signals and broadcasts so far. */
ULong cb_cond_signalled(Addr cv, Bool broadcast); /* one more; the new count */
ULong cb_cond_signals(Addr cv);
/* Announced waits on cv begin and end; whether a signal or broadcast since
 * still owes one of them a wake (a signal wakes one waiter, a broadcast
 * every one; a wait that ended took one). */
void  cb_cond_wait_began(Addr cv);
void  cb_cond_wait_ended(Addr cv, ULong began_at); /* cb_cond_signals then */
Bool  cb_cond_wakes_owed(Addr cv);
/* Signals that may still be on their way (cb_deadlock.c): +1 or -1. */
void  cb_cond_in_flight(Addr cv, Int delta);
Bool  cb_cond_any_in_flight(Addr cv);

/* Barriers: the count of pthread_barrier_init (0: not seen).  enter:
 * one more thread arrives; the round it arrived in, which is over when
 * cb_barrier_round moves past it. */
void  cb_barrier_init(Addr b, UWord count);
UWord cb_barrier_count(Addr b);
ULong cb_barrier_enter(Addr b);
ULong cb_barrier_round(Addr b, UWord *arrived);

/* Objects another process may also use (PTHREAD_PROCESS_SHARED, a shared
 * semaphore): a wait on one may end by that process's hand. */
void  cb_obj_set_shared(Addr obj, Bool shared);
Bool  cb_obj_shared(Addr obj);

/* pthread_once: the routine a thread's pending call will run, and the
 * calls whose routine is running (nested ones too). */
void cb_once_enter(ThreadId tid, Addr once, Addr routine, Addr caller);
Addr cb_once_take(ThreadId tid);                 /* the routine, or 0 */
Addr cb_once_caller(ThreadId tid);  /* the innermost running call's caller */
Bool cb_once_ran(ThreadId tid, Addr *once, Addr *caller);

#endif /* CB_SYNCOBJ_H */
