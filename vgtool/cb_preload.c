/* cb_preload.c: the preload library's pthread wrappers (mutexes, rwlocks,
 * spinlocks, conditions, barriers, threads).  They tell the tool about each
 * call by client requests, as Helgrind's hg_intercepts.c does.  glibc 2.34
 * moved libpthread into libc.so.6, so every function is wrapped under both
 * sonames.  In replay mode each wrapper waits its turn (cb_turn) before the
 * real call.  The other families are in cb_preload_*.c: semaphores and
 * once (sem), C11 threads (c11), allocation (alloc), calls recorded as
 * unhandled (misc), libc functions with hidden state (libc).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <sched.h>
#include <threads.h>
#include <time.h>
#include "cb_preload.h"

int cb_turns_free;
int cb_slots_on;

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

/* This thread's lock slot (CB_MAY_I_SLOTS), and whether the tool knows
 * where it is.  Initial-exec: a preloaded library's TLS is static, and a
 * slot must cost a store, not a call of __tls_get_addr. */
static __thread cb_lock_slot cb_slot __attribute__((tls_model("initial-exec")));
static __thread int cb_slot_told __attribute__((tls_model("initial-exec")));

/* ---- locks: LOCK after the lock is held, UNLOCK before release ---- */

UWord cb_mutex_wait_flags(const void *m)
{
   /* __kind is glibc's public field; bits 128 (process-shared), 256 and
    * 512 (lock elision) do not change how a relock behaves; 16 is
    * PTHREAD_MUTEX_ROBUST_NORMAL_NP. */
   int all = ((const pthread_mutex_t *)m)->__data.__kind;
   int kind = all & ~(128 | 256 | 512);
   UWord flags = all & 16 ? CB_WAIT_ROBUST : 0;
   if (kind == PTHREAD_MUTEX_NORMAL || kind == 3 /* ADAPTIVE_NP */)
      flags |= CB_WAIT_SELF_BLOCKS;
   return flags;
}

/* The real call of a one-argument lock function: through Valgrind's
 * no-redirect call of fn, or, from an interposer (cb_preload_interpose.c),
 * a plain call of the C library's function. */
static inline int cb_real1(OrigFn fn, int (*direct)(void *), void *m)
{
   int r;
   if (direct)
      return direct(m);
   CALL_FN_W_W(r, fn, m);
   return r;
}

/* A blocking lock call; sleeps: it waits in a futex wait, which the
 * tool sees, when it blocks (not a spinlock), so that in record mode it
 * says what it waits for in its slot rather than by a request. */
int cb_lock_call(OrigFn fn, int (*direct)(void *), UWord caller, void *m,
                 UWord mode, UWord flags, int sleeps)
{
   int r;
   UWord wait = (1 + mode) | flags;
   if (sleeps && __atomic_load_n(&cb_slots_on, __ATOMIC_RELAXED)) {
      /* A call made inside another one (mtx_lock calls
       * pthread_mutex_lock) leaves the outer call's slot alone: the
       * outer one is the program's. */
      int outer = cb_slot.wait != 0;
      if (!cb_slot_told) {
         cb_slot_told = 1;
         REQ(CB_REQ_LOCK_SLOT, &cb_slot, 0, 0);
      }
      if (!outer) {
         cb_slot.lock = (UWord)m;
         cb_slot.caller = caller;
         cb_slot.wait = wait;
      }
      r = cb_real1(fn, direct, m);
      if (!outer)
         cb_slot.wait = 0;
   } else {
      cb_turn_unless_held(caller, m, 1, wait);
      r = cb_real1(fn, direct, m);
   }
   if (r == 0)
      REQ(CB_REQ_LOCK, m, mode, caller);
   else
      cb_wait_failed();
   return r;
}

int cb_lock(OrigFn fn, UWord caller, void *m, UWord mode, UWord flags)
{
   return cb_lock_call(fn, NULL, caller, m, mode, flags, 1);
}

int cb_trylock(OrigFn fn, UWord caller, void *m, UWord mode)
{
   int r;
   cb_turn_unless_held(caller, m, 1, 0);
   CALL_FN_W_W(r, fn, m);
   if (r == 0)
      REQ(CB_REQ_LOCK, m, mode | 0x100u, caller);
   return r;
}

int cb_timedlock(OrigFn fn, UWord caller, void *m, const void *ts,
                 UWord mode)
{
   int r;
   cb_turn_unless_held(caller, m, 1, 0);
   CALL_FN_W_WW(r, fn, m, ts);
   if (r == 0)
      REQ(CB_REQ_LOCK, m, mode, caller);
   return r;
}

/* pthread_mutex_clocklock, pthread_rwlock_clock*lock: (lock, clock, ts). */
static int cb_clocklock(OrigFn fn, UWord caller, void *m, UWord clock,
                        const void *ts, UWord mode)
{
   int r;
   cb_turn_unless_held(caller, m, 1, 0);
   CALL_FN_W_WWW(r, fn, m, clock, ts);
   if (r == 0)
      REQ(CB_REQ_LOCK, m, mode, caller);
   return r;
}

int cb_unlock_call(OrigFn fn, int (*direct)(void *), UWord caller, void *m,
                   UWord mode)
{
   cb_turn_unless_held(caller, m, 2, 0);
   REQ(CB_REQ_UNLOCK, m, mode, caller);
   return cb_real1(fn, direct, m);
}

int cb_unlock(OrigFn fn, UWord caller, void *m, UWord mode)
{
   return cb_unlock_call(fn, NULL, caller, m, mode);
}

static int cb_mutex_trylock(OrigFn fn, UWord c, pthread_mutex_t *m)
{ return cb_trylock(fn, c, m, CB_LOCK_MUTEX); }
static int cb_mutex_timedlock(OrigFn fn, UWord c, pthread_mutex_t *m,
                              const struct timespec *ts)
{ return cb_timedlock(fn, c, m, ts, CB_LOCK_MUTEX); }
static int cb_rw_rdlock(OrigFn fn, UWord c, pthread_rwlock_t *l)
{ return cb_lock(fn, c, l, CB_LOCK_RD, 0); }
static int cb_rw_wrlock(OrigFn fn, UWord c, pthread_rwlock_t *l)
{ return cb_lock(fn, c, l, CB_LOCK_WR, 0); }
static int cb_rw_tryrdlock(OrigFn fn, UWord c, pthread_rwlock_t *l)
{ return cb_trylock(fn, c, l, CB_LOCK_RD); }
static int cb_rw_trywrlock(OrigFn fn, UWord c, pthread_rwlock_t *l)
{ return cb_trylock(fn, c, l, CB_LOCK_WR); }
static int cb_rw_unlock(OrigFn fn, UWord c, pthread_rwlock_t *l)
{ return cb_unlock(fn, c, l, CB_LOCK_MODE_HELD); }
static int cb_mutex_clocklock(OrigFn fn, UWord c, pthread_mutex_t *m,
                              UWord clk, const struct timespec *ts)
{ return cb_clocklock(fn, c, m, clk, ts, CB_LOCK_MUTEX); }
static int cb_rw_timedrdlock(OrigFn fn, UWord c, pthread_rwlock_t *l,
                             const struct timespec *ts)
{ return cb_timedlock(fn, c, l, ts, CB_LOCK_RD); }
static int cb_rw_timedwrlock(OrigFn fn, UWord c, pthread_rwlock_t *l,
                             const struct timespec *ts)
{ return cb_timedlock(fn, c, l, ts, CB_LOCK_WR); }
static int cb_rw_clockrdlock(OrigFn fn, UWord c, pthread_rwlock_t *l,
                             UWord clk, const struct timespec *ts)
{ return cb_clocklock(fn, c, l, clk, ts, CB_LOCK_RD); }
static int cb_rw_clockwrlock(OrigFn fn, UWord c, pthread_rwlock_t *l,
                             UWord clk, const struct timespec *ts)
{ return cb_clocklock(fn, c, l, clk, ts, CB_LOCK_WR); }
static int cb_spin_lock(OrigFn fn, UWord c, pthread_spinlock_t *l)
{
   return cb_lock_call(fn, NULL, c, (void *)l, CB_LOCK_MUTEX,
                       CB_WAIT_SELF_BLOCKS, 0);
}
static int cb_spin_trylock(OrigFn fn, UWord c, pthread_spinlock_t *l)
{ return cb_trylock(fn, c, (void *)l, CB_LOCK_MUTEX); }

/* glibc's pthread_spin_init and pthread_spin_unlock are one function (both
 * store 0), so one wrapper sees both, as in Helgrind.  A spinlock this
 * thread holds is being unlocked; any other is being initialised, which is
 * no lock operation.
 *
 * When another thread waits to take it, the unlocker yields.  Under
 * Valgrind one thread runs at a time: a waiter spins in glibc only in its
 * own time slice, and a holder that takes the lock again at once (a
 * consumer polling a ring) is nearly always holding it when its slice
 * ends, the more so as the wrappers' requests run inside its critical
 * section.  Blind trial 15's spin-locked ring (a polling consumer, two
 * producers) never let a producer in again after a forced run's release,
 * and every correct forced run was judged hung.  On a machine of several
 * cores the waiter takes the lock the moment it is free; the yield gives
 * it that moment. */
static int cb_spin_init_or_unlock(OrigFn fn, UWord c, pthread_spinlock_t *l,
                                  UWord pshared)
{
   int r;
   if (REQ_EXPR(CB_REQ_LOCK_DEPTH, l, 0) == 0) {
      CALL_FN_W_WW(r, fn, l, pshared);
      return r;
   }
   cb_turn_unless_held(c, (void *)l, 2, 0);
   UWord awaited = VALGRIND_DO_CLIENT_REQUEST_EXPR(
      0, CB_REQ_UNLOCK, (UWord)l, CB_LOCK_MUTEX, c, 0, 0);
   CALL_FN_W_WW(r, fn, l, pshared);
   if (awaited)
      sched_yield();
   return r;
}

/* pthread_mutex_lock and pthread_mutex_unlock are not redirected but
 * interposed (cb_preload_interpose.c): a redirected function's original
 * is reached only by a no-redirect call, two returns to Valgrind's
 * scheduler each. */
CB_WRAP(int, pthreadZumutexZutrylock, cb_mutex_trylock, (pthread_mutex_t *m), m)
CB_WRAP(int, pthreadZumutexZutimedlock, cb_mutex_timedlock,
        (pthread_mutex_t *m, const struct timespec *ts), m, ts)
CB_WRAP(int, pthreadZumutexZuclocklock, cb_mutex_clocklock,
        (pthread_mutex_t *m, UWord clk, const struct timespec *ts), m, clk, ts)
CB_WRAP(int, pthreadZurwlockZurdlock, cb_rw_rdlock, (pthread_rwlock_t *l), l)
CB_WRAP(int, pthreadZurwlockZuwrlock, cb_rw_wrlock, (pthread_rwlock_t *l), l)
CB_WRAP(int, pthreadZurwlockZutryrdlock, cb_rw_tryrdlock, (pthread_rwlock_t *l), l)
CB_WRAP(int, pthreadZurwlockZutrywrlock, cb_rw_trywrlock, (pthread_rwlock_t *l), l)
CB_WRAP(int, pthreadZurwlockZutimedrdlock, cb_rw_timedrdlock,
        (pthread_rwlock_t *l, const struct timespec *ts), l, ts)
CB_WRAP(int, pthreadZurwlockZutimedwrlock, cb_rw_timedwrlock,
        (pthread_rwlock_t *l, const struct timespec *ts), l, ts)
CB_WRAP(int, pthreadZurwlockZuclockrdlock, cb_rw_clockrdlock,
        (pthread_rwlock_t *l, UWord clk, const struct timespec *ts), l, clk, ts)
CB_WRAP(int, pthreadZurwlockZuclockwrlock, cb_rw_clockwrlock,
        (pthread_rwlock_t *l, UWord clk, const struct timespec *ts), l, clk, ts)
CB_WRAP(int, pthreadZurwlockZuunlock, cb_rw_unlock, (pthread_rwlock_t *l), l)
CB_WRAP(int, pthreadZuspinZulock, cb_spin_lock, (pthread_spinlock_t *l), l)
CB_WRAP(int, pthreadZuspinZutrylock, cb_spin_trylock, (pthread_spinlock_t *l), l)
/* Wrapped by the unlock name only: init is the same address, and two
 * redirections of one address would conflict. */
CB_WRAP(int, pthreadZuspinZuunlock, cb_spin_init_or_unlock,
        (pthread_spinlock_t *l, UWord pshared), l, pshared)

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

/* ---- barriers ---- */

static int cb_barrier_init(OrigFn fn, UWord c, pthread_barrier_t *b,
                           const pthread_barrierattr_t *a, unsigned count)
{
   int r, ps = PTHREAD_PROCESS_PRIVATE;
   CALL_FN_W_WWW(r, fn, b, a, count);
   if (r == 0) {
      if (a)
         pthread_barrierattr_getpshared(a, &ps);
      REQ(CB_REQ_BARRIER_INIT, b, count, ps == PTHREAD_PROCESS_SHARED);
   }
   return r;
}

static int cb_barrier_wait(OrigFn fn, UWord c, pthread_barrier_t *b)
{
   int r;
   cb_turn(c);
   REQ(CB_REQ_BARRIER_ENTER, b, c, 0);
   CALL_FN_W_W(r, fn, b);
   cb_turn(c);
   REQ(CB_REQ_BARRIER_LEAVE, b, c, 0);
   return r;
}

CB_WRAP(int, pthreadZubarrierZuinit, cb_barrier_init,
        (pthread_barrier_t *b, const pthread_barrierattr_t *a, unsigned n),
        b, a, n)
CB_WRAP(int, pthreadZubarrierZuwait, cb_barrier_wait, (pthread_barrier_t *b),
        b)

/* ---- threads: the tool emits THREAD_CREATE at low-level creation; the
 * wrapper only says which pthread_t the child got.  Both are gated before
 * the real call whoever calls them, as the tool counts them always. ---- */

/* Parent first (cbtrace record --parent-first, which cbtest uses to record
 * a test again after a recorded run failed): under Valgrind a new thread
 * often runs before its creator goes on, the opposite of a native run,
 * and a test whose creator publishes what the thread reads after the
 * create fails in every recorded run.  The thread then starts in
 * cb_child_start, which yields the CPU a few times (each lets the creator
 * run to its next system call) before it calls its start routine.  A
 * yield is no event, so the trace counts the same events as without it,
 * and replay runs the start routine directly.  The routines wait in a
 * small table, taken by compare-and-swap; when it is full a thread starts
 * directly. */
#define CB_CHILD_SLOTS 64
static struct {
   void *(*start)(void *);
   void *arg;
   UWord yields;
   int used;
} cb_child_slot[CB_CHILD_SLOTS];

static void *cb_child_start(void *slot)
{
   UWord k = (UWord)slot;
   void *(*start)(void *) = cb_child_slot[k].start;
   void *arg = cb_child_slot[k].arg;
   UWord yields = cb_child_slot[k].yields;
   __atomic_store_n(&cb_child_slot[k].used, 0, __ATOMIC_RELEASE);
   for (UWord i = 0; i < yields; i++)
      sched_yield();
   return start(arg);
}

/* A free slot holding start, arg and yields, or -1. */
static long cb_child_take(void *(*start)(void *), void *arg, UWord yields)
{
   for (long k = 0; k < CB_CHILD_SLOTS; k++) {
      int free_ = 0;
      if (__atomic_compare_exchange_n(&cb_child_slot[k].used, &free_, 1, 0,
                                      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
         cb_child_slot[k].start = start;
         cb_child_slot[k].arg = arg;
         cb_child_slot[k].yields = yields;
         return k;
      }
   }
   return -1;
}

static int cb_create(OrigFn fn, UWord c, pthread_t *thr,
                     const pthread_attr_t *attr, void *(*start)(void *),
                     void *arg)
{
   int r;
   int ds = PTHREAD_CREATE_JOINABLE;
   cb_turn(0);
   UWord yields = cb_answer(REQ_EXPR(CB_REQ_PARENT_FIRST, 0, 0));
   long slot = yields ? cb_child_take(start, arg, yields) : -1;
   if (slot >= 0) {
      CALL_FN_W_WWWW(r, fn, thr, attr, cb_child_start, (void *)slot);
      if (r != 0)
         __atomic_store_n(&cb_child_slot[slot].used, 0, __ATOMIC_RELEASE);
   } else {
      CALL_FN_W_WWWW(r, fn, thr, attr, start, arg);
   }
   if (r == 0) {
      /* glibc's thrd_create passes (void *)-1: a C11 thread, joinable. */
      if (attr && attr != (const pthread_attr_t *)-1)
         pthread_attr_getdetachstate(attr, &ds);
      REQ(CB_REQ_CREATED, *thr, ds == PTHREAD_CREATE_DETACHED, arg);
   }
   return r;
}

/* A detached thread is never joined (pthread_join fails at once): the
 * deadlock check must not take a join of it for a wait. */
static int cb_detach(OrigFn fn, UWord c, pthread_t thr)
{
   int r;
   CALL_FN_W_W(r, fn, thr);
   if (r == 0)
      REQ(CB_REQ_DETACHED, thr, 0, 0);
   return r;
}

static int cb_join(OrigFn fn, UWord c, pthread_t thr, void **retval)
{
   int r;
   cb_turn_wait(0, CB_WAIT_JOIN, thr, c);
   CALL_FN_W_WW(r, fn, thr, retval);
   if (r == 0)
      REQ(CB_REQ_JOINED, thr, c, 0);
   else
      cb_wait_failed();
   return r;
}

CB_WRAP(int, pthreadZucreate, cb_create,
        (pthread_t *thr, const pthread_attr_t *attr, void *(*start)(void *),
         void *arg), thr, attr, start, arg)
CB_WRAP(int, pthreadZujoin, cb_join, (pthread_t thr, void **retval), thr,
        retval)
CB_WRAP(int, pthreadZudetach, cb_detach, (pthread_t thr), thr)
