/* cb_syncobj.h: the state the tool keeps about synchronisation objects
 * (cb_syncobj.c), for the client requests of cb_sync.c.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CB_SYNCOBJ_H
#define CB_SYNCOBJ_H

#include "cb_global.h"

/* Locks: how deep thread t holds lock (0: not at all).  Only acquisitions
 * the trace records are counted. */
UInt cb_lock_depth(const CbThread *t, Addr lock);
/* A successful acquisition in mode (CB_LOCK_*): True for the first, which
 * makes the LOCK event; False for a nested one (a recursive mutex, a read
 * lock taken again), which makes none. */
Bool cb_lock_acquired(const CbThread *t, Addr lock, UChar mode);
/* A release: True for the last, which makes the UNLOCK event; *mode is set
 * to the mode the lock was held in (left alone when t did not hold it). */
Bool cb_lock_releasing(const CbThread *t, Addr lock, UChar *mode);

/* Semaphores (cb_wire.h, SEM_POST/SEM_WAIT). */
void  cb_sem_init(Addr sem, UWord value);
ULong cb_sem_post(Addr sem);  /* the post's number, 1, 2, ... */
ULong cb_sem_take(Addr sem);  /* the post a wait consumed, 0: an initial token */

/* pthread_once: the routine a thread's pending call will run, and the
 * calls whose routine is running (nested ones too). */
void cb_once_enter(ThreadId tid, Addr once, Addr routine, Addr caller);
Addr cb_once_take(ThreadId tid);                 /* the routine, or 0 */
Addr cb_once_caller(ThreadId tid);  /* the innermost running call's caller */
Bool cb_once_ran(ThreadId tid, Addr *once, Addr *caller);

#endif /* CB_SYNCOBJ_H */
