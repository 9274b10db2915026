/* cb_preload_misc.c: signals between threads, and the calls that
 * synchronise threads in ways cbtools does not model.
 *
 * pthread_kill is a RELEASE of the target thread (its pthread_t), and a
 * thread's return from sigwait, sigwaitinfo or sigtimedwait an ACQUIRE of
 * itself: what the killer did before the kill happens before what the
 * woken thread does after.  (A handler that wakes pause() is not seen
 * here: the tool would have to see the delivery.)
 *
 * The others are recorded as UNHANDLED events naming the call (cb_wire.h,
 * CB_CALL_*), so that `cbtrace stats` can tell the user that the prediction
 * was blind to them, instead of missing bugs silently:
 *   syscall(SYS_futex, ...)   a hand-made lock or wait (other system calls
 *                             through syscall() are not synchronisation)
 *   pthread_cancel            one thread ending another (the tool's
 *                             deadlock check learns whom: a wait of the
 *                             cancelled thread may end so)
 *   fork                      the child runs unrecorded
 * None of these is gated in replay: UNHANDLED is not a counted event.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <sys/syscall.h>
#include <time.h>
#include "cb_preload.h"

static inline void cb_unhandled(UWord code, UWord obj, UWord detail,
                                UWord caller)
{
   REQ4(CB_REQ_UNHANDLED, code, obj, detail, caller);
}

static long cb_syscall(OrigFn fn, UWord c, UWord n, UWord a1, UWord a2,
                       UWord a3, UWord a4, UWord a5, UWord a6)
{
   long r;
   if (n == SYS_futex)
      cb_unhandled(CB_CALL_FUTEX, a1, a2, c); /* detail: the futex op */
   CALL_FN_W_7W(r, fn, n, a1, a2, a3, a4, a5, a6);
   return r;
}

static int cb_pthread_kill(OrigFn fn, UWord c, pthread_t t, UWord sig)
{
   int r;
   if (sig != 0) { /* signal 0 only checks that the thread exists */
      cb_turn(c);
      REQ(CB_REQ_RELEASE, t, CB_SYNC_SIGNAL, c);
   }
   CALL_FN_W_WW(r, fn, t, sig);
   return r;
}

/* exit(), and main's return, which calls it: the program's other threads
 * run on first, until each has ended or waits for what nobody will give
 * (the tool says, cb_exit_may_wait), for at most about a second.  A
 * program whose main returns without joining its threads ends them
 * wherever they are; a checker thread that would have failed a moment
 * later never gets to, natively nor in a forced run, and the bug a
 * schedule exposed goes unseen (the recorded run misses the threads
 * that had not started, too).  Holding the exit is one interleaving the
 * program allows: the others were only slow. */
static void cb_exit_hold(UWord at_exit_)
{
   const struct timespec ms = {0, 1000000};
   for (int i = 0; i < 1000 && REQ_EXPR(CB_REQ_EXIT_HOLD, at_exit_, 0); i++)
      nanosleep(&ms, NULL);
}

static void cb_exit(OrigFn fn, UWord c, int status)
{
   (void)c;
   cb_exit_hold(0);
   CALL_FN_v_W(fn, status);
}

/* _exit(), which exit() calls after the atexit handlers: in a forced run
 * whose plan still has steps for other threads, they run first, as at
 * exit() (trial 9's atexit_detached: the handler that tears the logger
 * down was f, the detached flusher's check e1's thread's next step, and
 * exit_group ended the flusher before its turn came).  Outside a plan the
 * tool says no (record mode ends as it did). */
static void cb__exit(OrigFn fn, UWord c, int status)
{
   (void)c;
   cb_exit_hold(1);
   CALL_FN_v_W(fn, status);
}

static int cb_pthread_cancel(OrigFn fn, UWord c, pthread_t t)
{
   int r;
   cb_unhandled(CB_CALL_PTHREAD_CANCEL, 0, (UWord)t, c); /* detail: whom */
   CALL_FN_W_W(r, fn, t);
   return r;
}

/* sigwait (set, sig), sigwaitinfo (set, info), sigtimedwait (set, info,
 * ts): the event is made after the wait, when the signal has come
 * (or the wait failed: an extra edge only orders more, never wrongly). */
static int cb_sigwait_any(OrigFn fn, UWord c, UWord a1, UWord a2, UWord a3)
{
   int r;
   CALL_FN_W_WWW(r, fn, a1, a2, a3);
   cb_turn(c);
   REQ(CB_REQ_ACQUIRE, pthread_self(), CB_SYNC_SIGNAL, c);
   return r;
}

static int cb_fork(OrigFn fn, UWord c, UWord unused)
{
   int r;
   cb_unhandled(CB_CALL_FORK, 0, 0, c);
   CALL_FN_W_v(r, fn);
   return r;
}

CB_WRAP_LIBC(long, syscall, cb_syscall,
             (UWord n, UWord a1, UWord a2, UWord a3, UWord a4, UWord a5,
              UWord a6), n, a1, a2, a3, a4, a5, a6)
CB_WRAP(int, pthreadZukill, cb_pthread_kill, (pthread_t t, UWord sig), t, sig)
CB_WRAP(int, pthreadZucancel, cb_pthread_cancel, (pthread_t t), t)
CB_WRAP_LIBC(int, sigwait, cb_sigwait_any, (UWord a, UWord b), a, b, 0)
CB_WRAP_LIBC(int, sigwaitinfo, cb_sigwait_any, (UWord a, UWord b), a, b, 0)
CB_WRAP_LIBC(int, sigtimedwait, cb_sigwait_any, (UWord a, UWord b, UWord t),
             a, b, t)
CB_WRAP_LIBC(int, fork, cb_fork, (void), 0)
CB_WRAP_ONE_VOID(VG_Z_LIBC_SONAME, exit, cb_exit, (int status), status)
CB_WRAP_ONE_VOID(VG_Z_LIBC_SONAME, Zuexit, cb__exit, (int status), status)
