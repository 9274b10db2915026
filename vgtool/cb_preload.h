/* cb_preload.h: what the preload library's files share (cb_preload*.c):
 * the client-request shorthand, the replay gate and the wrapper macros.
 * The library is preloaded into the user's program, so everything it
 * defines besides the wrappers themselves is hidden: no symbol of ours may
 * interpose on one of the program's.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CB_PRELOAD_H
#define CB_PRELOAD_H

#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include "pub_tool_basics.h"
#include "pub_tool_redir.h"
#include "valgrind.h"
#include "cb_wire.h"
#include "cb_clientreq.h"

#define CB_HIDDEN __attribute__((visibility("hidden")))

#define REQ(r, a, b, c)                                                      \
   VALGRIND_DO_CLIENT_REQUEST_STMT((r), (UWord)(a), (UWord)(b), (UWord)(c), 0, 0)
#define REQ4(r, a, b, c, d)                                                  \
   VALGRIND_DO_CLIENT_REQUEST_STMT((r), (UWord)(a), (UWord)(b), (UWord)(c),  \
                                   (UWord)(d), 0)
#define REQ_EXPR(r, a, b)                                                    \
   VALGRIND_DO_CLIENT_REQUEST_EXPR(0, (r), (UWord)(a), (UWord)(b), 0, 0, 0)

/* Set once the tool answered a turn request with CB_MAY_I_FREE: from then
 * on every turn is this process's, and the requests that only asked for
 * one are not made.  Read and written by every thread, relaxed: it only
 * ever goes from 0 to 1, and a thread that still sees 0 asks once more. */
extern CB_HIDDEN int cb_turns_free;
/* Set with it in record mode when the answer also has CB_MAY_I_SLOTS. */
extern CB_HIDDEN int cb_slots_on;
/* How long the process ran before every turn became its own, when a
 * forced schedule held it (replay; record mode answers with SLOTS): the
 * plan's time, which timed waits do not count (cb_preload_cond.c). */
CB_HIDDEN void cb_note_free(int forced);

static inline int cb_free_running(void)
{
   return __atomic_load_n(&cb_turns_free, __ATOMIC_RELAXED);
}

/* An answer to a turn request: 0 wait, else it may run. */
static inline UWord cb_answer(UWord a)
{
   if (a & CB_MAY_I_SLOTS)
      __atomic_store_n(&cb_slots_on, 1, __ATOMIC_RELAXED);
   if ((a & CB_MAY_I_FREE) && !__atomic_load_n(&cb_turns_free, __ATOMIC_RELAXED) &&
       !__atomic_exchange_n(&cb_turns_free, 1, __ATOMIC_RELAXED))
      cb_note_free(!(a & CB_MAY_I_SLOTS));
   return a;
}

/* Replay: wait until the schedule lets this thread run the event the call
 * makes.  caller 0: the call counts whoever made it.  The loop yields with
 * sched_yield, which releases Valgrind's big lock. */
static inline void cb_turn(UWord caller)
{
   if (cb_free_running())
      return;
   while (!cb_answer(REQ_EXPR(CB_REQ_MAY_I, caller, 0)))
      sched_yield();
}

/* The same for a lock call, unless this thread holds lock at least `depth`
 * deep: re-locking a recursive mutex it holds (depth 1), or releasing one
 * level of several (depth 2), makes no event, and a thread that waits
 * there would wait for a turn it may never get.  wait: 1 + the CB_LOCK_*
 * mode of a call that blocks until it has the lock, 0 for any other (the
 * tool's deadlock check, cb_deadlock.c). */
static inline void cb_turn_unless_held(UWord caller, void *lock, UWord depth,
                                       UWord wait)
{
   /* A blocking lock call still tells the deadlock check what it waits
    * for, turns or not. */
   if (wait == 0 && cb_free_running())
      return;
   while (!cb_answer(VALGRIND_DO_CLIENT_REQUEST_EXPR(
      0, CB_REQ_MAY_I_HELD, caller, (UWord)lock, depth, wait, 0)))
      sched_yield();
}

/* cb_turn for a call that may block until another thread acts: kind
 * CB_WAIT_SEM or CB_WAIT_JOIN on obj; user: the call's caller (join's
 * turn counts whoever calls, with caller 0). */
static inline void cb_turn_wait(UWord caller, UWord kind, UWord obj,
                                UWord user)
{
   while (!cb_answer(VALGRIND_DO_CLIENT_REQUEST_EXPR(
      0, CB_REQ_MAY_I_WAIT, caller, kind, obj, user, 0)))
      sched_yield();
}

/* A blocking call announced to the tool failed: the thread runs on. */
static inline void cb_wait_failed(void)
{
   REQ(CB_REQ_WAIT_END, 0, 0, 0);
}

/* Defines the wrapper of function `zname` (Z-encoded) in soname.  The
 * wrapper fetches the original and its caller (the user's call site), then
 * runs impl. */
#define CB_WRAP_ONE(soname, ret, zname, impl, params, ...)                   \
   ret I_WRAP_SONAME_FNNAME_ZZ(soname, zname) params;                        \
   ret I_WRAP_SONAME_FNNAME_ZZ(soname, zname) params                         \
   {                                                                         \
      OrigFn fn;                                                             \
      VALGRIND_GET_ORIG_FN(fn);                                              \
      return impl(fn, (UWord)__builtin_return_address(0), __VA_ARGS__);      \
   }
/* The same for a function that returns nothing. */
#define CB_WRAP_ONE_VOID(soname, zname, impl, params, ...)                  \
   void I_WRAP_SONAME_FNNAME_ZZ(soname, zname) params;                       \
   void I_WRAP_SONAME_FNNAME_ZZ(soname, zname) params                        \
   {                                                                         \
      OrigFn fn;                                                             \
      VALGRIND_GET_ORIG_FN(fn);                                              \
      impl(fn, (UWord)__builtin_return_address(0), __VA_ARGS__);             \
   }
/* glibc 2.34 moved libpthread into libc.so.6: both sonames. */
#define CB_WRAP(ret, zname, impl, params, ...)                               \
   CB_WRAP_ONE(VG_Z_LIBC_SONAME, ret, zname, impl, params, __VA_ARGS__)      \
   CB_WRAP_ONE(VG_Z_LIBPTHREAD_SONAME, ret, zname, impl, params, __VA_ARGS__)
#define CB_WRAP_LIBC(ret, zname, impl, params, ...)                          \
   CB_WRAP_ONE(VG_Z_LIBC_SONAME, ret, zname, impl, params, __VA_ARGS__)

/* Lock and condition helpers of cb_preload.c and cb_preload_cond.c, shared
 * with the C11 ones (cb_preload_c11.c).  mode: CB_LOCK_*; 0 is success, as thrd_success.
 * flags: CB_WAIT_SELF_BLOCKS, CB_WAIT_ROBUST (cb_mutex_wait_flags).  A
 * lock that sleeps in a futex wait when it blocks (not a spinlock:
 * cb_spin_lock). */
CB_HIDDEN int cb_lock(OrigFn fn, UWord caller, void *m, UWord mode,
                      UWord flags);
/* A pthread_mutex_t's or mtx_t's wait flags: CB_WAIT_SELF_BLOCKS when its
 * owner blocks on it forever when it locks it again (glibc's normal and
 * adaptive kinds: a recursive one nests, an error-checking one fails;
 * robust and priority ones are left alone), CB_WAIT_ROBUST when its
 * owner's death does not block the next locker. */
CB_HIDDEN UWord cb_mutex_wait_flags(const void *m);
CB_HIDDEN int cb_trylock(OrigFn fn, UWord caller, void *m, UWord mode);
CB_HIDDEN int cb_timedlock(OrigFn fn, UWord caller, void *m, const void *ts,
                           UWord mode);
CB_HIDDEN int cb_unlock(OrigFn fn, UWord caller, void *m, UWord mode);
/* cb_lock and cb_unlock with the real call made by a plain call of direct
 * when it is not NULL (an interposer: cb_preload_interpose.c), else
 * through fn; sleeps: the lock waits in a futex wait when it blocks (not
 * a spinlock). */
CB_HIDDEN int cb_lock_call(OrigFn fn, int (*direct)(void *), UWord caller,
                           void *m, UWord mode, UWord flags, int sleeps);
CB_HIDDEN int cb_unlock_call(OrigFn fn, int (*direct)(void *), UWord caller,
                             void *m, UWord mode);
/* A condition wait: UNLOCK(m), the wait, COND_WAIT(cv) if it succeeded,
 * LOCK(m).  nargs: the original's, 2 (cv, m), 3 (+ ts) or 4 (+ clock, ts). */
CB_HIDDEN int cb_cond_wait_any(OrigFn fn, UWord c, void *cv, void *m,
                               UWord nargs, UWord clock, const void *ts);
/* Its two halves, for a wrapper that makes the real call itself (GLib's
 * GCond, cb_preload_glib.c).  enter: before the wait; untimed: only a
 * signal can end it.  leave: after it returned holding m again; woken: it
 * ended by a signal (not a time-out or an error); release and retake
 * unlock and lock m, called from here (not recorded: their caller is not
 * the program). */
CB_HIDDEN void cb_cond_wait_enter(UWord c, void *cv, void *m, int untimed);
CB_HIDDEN void cb_cond_wait_leave(UWord c, void *cv, void *m, int woken,
                                  void (*release)(void *),
                                  void (*retake)(void *));
CB_HIDDEN int cb_cond_signal_any(OrigFn fn, UWord c, void *cv,
                                 UWord broadcast);

#endif /* CB_PRELOAD_H */
