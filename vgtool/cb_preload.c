/* cb_preload.c: the preload library's pthread wrappers (mutexes, rwlocks,
 * spinlocks, barriers, threads).  They tell the tool about each
 * call by client requests, as Helgrind's hg_intercepts.c does.  glibc 2.34
 * moved libpthread into libc.so.6, so every function is wrapped under both
 * sonames.  In replay mode each wrapper waits its turn (cb_turn) before the
 * real call.  The other families are in cb_preload_*.c: condition
 * variables (cond), semaphores and once (sem), C11 threads (c11),
 * allocation (alloc), calls recorded as unhandled (misc), libc functions
 * with hidden state (libc).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <sched.h>
#include "cb_preload.h"

int cb_turns_free;
int cb_slots_on;

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
