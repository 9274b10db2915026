/* cb_preload_misc.c: calls that synchronise threads in ways cbtools does
 * not model.  Each is recorded as an UNHANDLED event naming the call
 * (cb_wire.h, CB_CALL_*), so that `cbtrace stats` can tell the user that
 * the prediction was blind to it, instead of missing bugs silently.  The
 * calls themselves run untouched and are not gated in replay.
 *
 *   syscall(SYS_futex, ...)        a hand-made lock or wait (other system
 *                                  calls through syscall() are not sync)
 *   pthread_kill, pthread_cancel   one thread acting on another
 *   sigwait, sigwaitinfo, sigtimedwait   waiting for a signal
 *   fork                           the child runs unrecorded
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <sys/syscall.h>
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
   cb_unhandled(CB_CALL_PTHREAD_KILL, 0, sig, c);
   CALL_FN_W_WW(r, fn, t, sig);
   return r;
}

static int cb_pthread_cancel(OrigFn fn, UWord c, pthread_t t)
{
   int r;
   cb_unhandled(CB_CALL_PTHREAD_CANCEL, 0, 0, c);
   CALL_FN_W_W(r, fn, t);
   return r;
}

/* sigwait (set, sig), sigwaitinfo (set, info), sigtimedwait (set, info,
 * ts): the event is made after the wait, when the signal has come. */
static int cb_sigwait_any(OrigFn fn, UWord c, UWord a1, UWord a2, UWord a3)
{
   int r;
   CALL_FN_W_WWW(r, fn, a1, a2, a3);
   cb_unhandled(CB_CALL_SIGWAIT, 0, 0, c);
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
