/* cb_preload_cond.c: the preload library's pthread condition variable
 * wrappers (wait, timed wait, clock wait, signal, broadcast, init), and the
 * condition wait's halves that the C11 and GLib wrappers share
 * (cb_preload_c11.c, cb_preload_glib.c).  A wait is told to the tool as
 * UNLOCK(m), the wait, COND_WAIT(c), LOCK(m).  In replay a timed wait does
 * not count the time the forced schedule held the threads back
 * (cb_cond_wait_on), which is why the library's load time is kept here.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <threads.h>
#include <time.h>
#include "cb_preload.h"

/* When the library was loaded, and in replay how long it was until every
 * turn was the process's own (nanoseconds, CLOCK_MONOTONIC): the time the
 * forced schedule ran, which a timed wait does not count
 * (cb_cond_wait_on); 0 in record mode. */
static struct timespec cb_loaded_at;
static long long cb_plan_ns;

__attribute__((constructor)) static void cb_note_loaded(void)
{
   clock_gettime(CLOCK_MONOTONIC, &cb_loaded_at);
}

/* ---- condition variables: UNLOCK(m), the wait, COND_WAIT(c), LOCK(m) ---- */

void cb_cond_wait_enter(UWord c, void *cv, void *m, int untimed)
{
   cb_turn(c);
   REQ(CB_REQ_UNLOCK, m, CB_LOCK_MUTEX, c);
   if (untimed) /* only a signal ends it */
      REQ4(CB_REQ_WAIT, CB_WAIT_COND, cv, m, c);
}

void cb_cond_wait_leave(UWord c, void *cv, void *m, int woken,
                        void (*release)(void *), void (*retake)(void *))
{
   /* The real wait returned holding m.  In replay, waiting for this
    * thread's turn while holding m could block the thread whose turn it is
    * (it may need m, which the recorded run gave it): give m back while
    * waiting, and take it again when the plan reaches this thread's LOCK,
    * where the recorded run had it.  Calls made from here are neither
    * recorded nor gated (their caller is not the program). */
   int gave_back = 0;
   if (!cb_free_running() && !cb_answer(REQ_EXPR(CB_REQ_MAY_I, c, 0))) {
      release(m);
      gave_back = 1;
   }
   if (woken) {
      cb_turn(c);
      REQ(CB_REQ_COND_WAIT, cv, m, c);
      /* The wake-up may have been the last event of this thread's turn:
       * then m goes back as well, or the thread whose turn comes next
       * would wait for m while this one waits for its turn. */
      if (!gave_back && !cb_free_running() &&
          !cb_answer(REQ_EXPR(CB_REQ_MAY_I, c, 0))) {
         release(m);
         gave_back = 1;
      }
   }
   cb_turn(c);
   if (gave_back)
      retake(m);
   REQ(CB_REQ_LOCK, m, CB_LOCK_MUTEX, c);
}

static void cb_pthread_release(void *m) { pthread_mutex_unlock(m); }
static void cb_pthread_retake(void *m) { pthread_mutex_lock(m); }

/* The real wait: untimed (nargs 2), timed (3) or on a clock (4). */
static int cb_cond_call(OrigFn fn, void *cv, void *m, UWord nargs, UWord clock,
                        const void *ts)
{
   int r;
   if (nargs == 4)
      CALL_FN_W_WWWW(r, fn, cv, m, clock, ts);
   else if (nargs == 3)
      CALL_FN_W_WWW(r, fn, cv, m, ts);
   else
      CALL_FN_W_WW(r, fn, cv, m);
   return r;
}

static long long cb_ns_since(const struct timespec *a)
{
   struct timespec now;
   clock_gettime(CLOCK_MONOTONIC, &now);
   return (now.tv_sec - a->tv_sec) * 1000000000LL + (now.tv_nsec - a->tv_nsec);
}

/* ts (a deadline in the condition's own clock, REALTIME or whatever it
 * was made with) moved on by ns. */
static struct timespec cb_deadline_plus(const struct timespec *ts, long long ns)
{
   struct timespec d;
   d.tv_sec = ts->tv_sec + (time_t)(ns / 1000000000LL);
   d.tv_nsec = ts->tv_nsec + (long)(ns % 1000000000LL);
   if (d.tv_nsec >= 1000000000L) {
      d.tv_sec++;
      d.tv_nsec -= 1000000000L;
   }
   return d;
}

static int cb_timed_out(int r) { return r == ETIMEDOUT || r == thrd_timedout; }

/* Signals and broadcasts sent, by condition (hashed; a collision only
 * wakes a wait spuriously): a wait that went on past its deadline takes
 * one sent meanwhile for its wake-up, which it may have missed between
 * two of its steps (cb_cond_wait_on). */
#define CB_SIG_BUCKETS 64
static unsigned cb_sig_seq[CB_SIG_BUCKETS];

static unsigned *cb_sig_bucket(const void *cv)
{
   return &cb_sig_seq[((UWord)cv >> 4) % CB_SIG_BUCKETS];
}

void cb_note_free(int forced)
{
   if (forced)
      __atomic_store_n(&cb_plan_ns, cb_ns_since(&cb_loaded_at), __ATOMIC_RELAXED);
}

/* The time a forced schedule holds threads back is time the program would
 * not have waited natively: a worker whose 1 s deadline passed because
 * the plan held main for 2 s before its broadcast, or held the worker
 * itself between reading the clock and waiting, is no bug of the
 * program's (trial 9's event_reset twin deadlocked so: the worker gave
 * up, and main waited for it to start).  So a timed wait whose deadline
 * passed (r) while the plan runs goes on, a step at a time (a spurious
 * wake-up to the caller, at worst), until the plan lets every thread go;
 * then the wait counts its whole length again from there, and the plan's
 * time, once a thread (a signal of the condition meanwhile ends the wait
 * as a wake-up).  A plan that
 * waits for this very thread meanwhile stalls, and the run is judged
 * infeasible: the recorded run's wait may have been woken by a thread
 * the plan's counts hold at the wrong place (a loop that read a flag
 * more times than recorded), and a timeout there is a path of the
 * plan's making.  In record mode there is no plan, and the wait ends as
 * it did.  The condition's clock (REALTIME, or whatever it was made
 * with) moves on as CLOCK_MONOTONIC does. */
static int cb_cond_wait_on(OrigFn fn, void *cv, void *m, UWord nargs, UWord clock,
                           const struct timespec *ts, unsigned seq0,
                           const struct timespec *began, int r)
{
   struct timespec m0;
   clock_gettime(CLOCK_MONOTONIC, &m0);
   unsigned *seq = cb_sig_bucket(cv);
   while (cb_timed_out(r) && !cb_free_running() &&
          !cb_answer(REQ_EXPR(CB_REQ_TIMEOUT_MAY_FIRE, 0, 0))) {
      if (__atomic_load_n(seq, __ATOMIC_ACQUIRE) != seq0)
         return 0; /* woken: by a signal it may have missed between steps */
      struct timespec later = cb_deadline_plus(ts, cb_ns_since(&m0) + 20000000LL);
      r = cb_cond_call(fn, cv, m, nargs, clock, &later);
   }
   /* Once per thread: a thread that polls with short timeouts would
    * otherwise wait the plan's time again at every poll after it. */
   static __thread int given_back;
   long long plan = __atomic_load_n(&cb_plan_ns, __ATOMIC_RELAXED);
   if (cb_timed_out(r) && cb_free_running() && plan > 1000000LL && !given_back) {
      if (__atomic_load_n(seq, __ATOMIC_ACQUIRE) != seq0)
         return 0; /* a wake-up, which gives back nothing yet */
      given_back = 1;
      /* Its whole length again from here, and the plan's time: under
       * Valgrind on a loaded machine the thread that would wake it may
       * take a while to run after the release (either alone left a
       * correct program's 200 ms wait short in make check). */
      struct timespec later = cb_deadline_plus(ts, cb_ns_since(began) + plan);
      r = cb_cond_call(fn, cv, m, nargs, clock, &later);
   }
   return r;
}

int cb_cond_wait_any(OrigFn fn, UWord c, void *cv, void *m, UWord nargs,
                     UWord clock, const void *ts)
{
   cb_cond_wait_enter(c, cv, m, nargs == 2);
   unsigned seq0 = __atomic_load_n(cb_sig_bucket(cv), __ATOMIC_ACQUIRE);
   struct timespec began = {0, 0};
   if (nargs != 2)
      clock_gettime(CLOCK_MONOTONIC, &began);
   int r = cb_cond_call(fn, cv, m, nargs, clock, ts);
   if (nargs != 2 && cb_timed_out(r))
      r = cb_cond_wait_on(fn, cv, m, nargs, clock, ts, seq0, &began, r);
   cb_cond_wait_leave(c, cv, m, r == 0, cb_pthread_release,
                      cb_pthread_retake);
   return r;
}

static int cb_cond_timedwait(OrigFn fn, UWord c, pthread_cond_t *cv,
                             pthread_mutex_t *m, const struct timespec *ts)
{ return cb_cond_wait_any(fn, c, cv, m, 3, 0, ts); }
static int cb_cond_wait(OrigFn fn, UWord c, pthread_cond_t *cv,
                        pthread_mutex_t *m)
{ return cb_cond_wait_any(fn, c, cv, m, 2, 0, NULL); }
static int cb_cond_clockwait(OrigFn fn, UWord c, pthread_cond_t *cv,
                             pthread_mutex_t *m, UWord clk,
                             const struct timespec *ts)
{ return cb_cond_wait_any(fn, c, cv, m, 4, clk, ts); }

int cb_cond_signal_any(OrigFn fn, UWord c, void *cv, UWord broadcast)
{
   int r;
   cb_turn(c);
   REQ(CB_REQ_COND_SIGNAL, cv, broadcast, c);
   __atomic_fetch_add(cb_sig_bucket(cv), 1, __ATOMIC_RELEASE);
   CALL_FN_W_W(r, fn, cv);
   /* Sent: a wait that begins from now on cannot be woken by it (the
    * deadlock check, cb_deadlock.c). */
   REQ(CB_REQ_WAIT_END, 0, 0, 0);
   return r;
}
/* Whether another process may signal it, for the deadlock check. */
static int cb_cond_init(OrigFn fn, UWord c, pthread_cond_t *cv,
                        const pthread_condattr_t *a)
{
   int r, ps = PTHREAD_PROCESS_PRIVATE;
   CALL_FN_W_WW(r, fn, cv, a);
   if (r == 0) {
      if (a)
         pthread_condattr_getpshared(a, &ps);
      REQ(CB_REQ_COND_INIT, cv, ps == PTHREAD_PROCESS_SHARED, 0);
   }
   return r;
}

static int cb_cond_signal(OrigFn fn, UWord c, pthread_cond_t *cv)
{ return cb_cond_signal_any(fn, c, cv, 0); }
static int cb_cond_broadcast(OrigFn fn, UWord c, pthread_cond_t *cv)
{ return cb_cond_signal_any(fn, c, cv, 1); }

CB_WRAP(int, pthreadZucondZuwait, cb_cond_wait,
        (pthread_cond_t *cv, pthread_mutex_t *m), cv, m)
CB_WRAP(int, pthreadZucondZutimedwait, cb_cond_timedwait,
        (pthread_cond_t *cv, pthread_mutex_t *m, const struct timespec *ts),
        cv, m, ts)
CB_WRAP(int, pthreadZucondZuclockwait, cb_cond_clockwait,
        (pthread_cond_t *cv, pthread_mutex_t *m, UWord clk,
         const struct timespec *ts), cv, m, clk, ts)
CB_WRAP(int, pthreadZucondZusignal, cb_cond_signal, (pthread_cond_t *cv), cv)
CB_WRAP(int, pthreadZucondZuinit, cb_cond_init,
        (pthread_cond_t *cv, const pthread_condattr_t *a), cv, a)
CB_WRAP(int, pthreadZucondZubroadcast, cb_cond_broadcast, (pthread_cond_t *cv),
        cv)
