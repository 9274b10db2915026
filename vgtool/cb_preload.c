/* cb_preload.c: the preload library.  Wraps the pthread synchronisation
 * functions and malloc/free in the program and tells the tool about them by
 * client requests, as Helgrind's hg_intercepts.c does.  glibc 2.34 moved
 * libpthread into libc.so.6, so every function is wrapped under both
 * sonames.  In replay mode each wrapper waits its turn here ("may I?" in a
 * loop with sched_yield, which releases Valgrind's big lock) before the
 * real call.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include "pub_tool_basics.h"
#include "pub_tool_redir.h"
#include "valgrind.h"
#include "cb_wire.h"
#include "cb_clientreq.h"

#define REQ(r, a, b, c)                                                      \
   VALGRIND_DO_CLIENT_REQUEST_STMT((r), (UWord)(a), (UWord)(b), (UWord)(c), 0, 0)

/* Replay: wait until the schedule lets this thread run the event the call
 * makes.  caller 0: the call counts whoever made it. */
static void cb_turn(UWord caller)
{
   for (;;) {
      UWord ok = VALGRIND_DO_CLIENT_REQUEST_EXPR(1, CB_REQ_MAY_I, caller, 0,
                                                 0, 0, 0);
      if (ok)
         return;
      sched_yield();
   }
}

/* Defines the wrapper of function `zname` (Z-encoded) under both sonames.
 * The wrapper fetches the original and its caller (the user's call site),
 * then runs impl. */
#define CB_WRAP_ONE(soname, ret, zname, impl, params, ...)                   \
   ret I_WRAP_SONAME_FNNAME_ZZ(soname, zname) params;                        \
   ret I_WRAP_SONAME_FNNAME_ZZ(soname, zname) params                         \
   {                                                                         \
      OrigFn fn;                                                             \
      VALGRIND_GET_ORIG_FN(fn);                                              \
      return impl(fn, (UWord)__builtin_return_address(0), __VA_ARGS__);      \
   }
#define CB_WRAP(ret, zname, impl, params, ...)                               \
   CB_WRAP_ONE(VG_Z_LIBC_SONAME, ret, zname, impl, params, __VA_ARGS__)      \
   CB_WRAP_ONE(VG_Z_LIBPTHREAD_SONAME, ret, zname, impl, params, __VA_ARGS__)

/* ---- locks: LOCK after the lock is held, UNLOCK before release ---- */

static int cb_lock(OrigFn fn, UWord caller, void *m, UWord mode)
{
   int r;
   cb_turn(caller);
   CALL_FN_W_W(r, fn, m);
   if (r == 0)
      REQ(CB_REQ_LOCK, m, mode, caller);
   return r;
}

static int cb_trylock(OrigFn fn, UWord caller, void *m, UWord mode)
{
   int r;
   cb_turn(caller);
   CALL_FN_W_W(r, fn, m);
   if (r == 0)
      REQ(CB_REQ_LOCK, m, mode | 0x100u, caller);
   return r;
}

static int cb_timedlock(OrigFn fn, UWord caller, void *m, const void *ts,
                        UWord mode)
{
   int r;
   cb_turn(caller);
   CALL_FN_W_WW(r, fn, m, ts);
   if (r == 0)
      REQ(CB_REQ_LOCK, m, mode, caller);
   return r;
}

static int cb_unlock(OrigFn fn, UWord caller, void *m, UWord mode)
{
   int r;
   cb_turn(caller);
   REQ(CB_REQ_UNLOCK, m, mode, caller);
   CALL_FN_W_W(r, fn, m);
   return r;
}

static int cb_mutex_lock(OrigFn fn, UWord c, pthread_mutex_t *m)
{ return cb_lock(fn, c, m, CB_LOCK_MUTEX); }
static int cb_mutex_trylock(OrigFn fn, UWord c, pthread_mutex_t *m)
{ return cb_trylock(fn, c, m, CB_LOCK_MUTEX); }
static int cb_mutex_timedlock(OrigFn fn, UWord c, pthread_mutex_t *m,
                              const struct timespec *ts)
{ return cb_timedlock(fn, c, m, ts, CB_LOCK_MUTEX); }
static int cb_mutex_unlock(OrigFn fn, UWord c, pthread_mutex_t *m)
{ return cb_unlock(fn, c, m, CB_LOCK_MUTEX); }
static int cb_rw_rdlock(OrigFn fn, UWord c, pthread_rwlock_t *l)
{ return cb_lock(fn, c, l, CB_LOCK_RD); }
static int cb_rw_wrlock(OrigFn fn, UWord c, pthread_rwlock_t *l)
{ return cb_lock(fn, c, l, CB_LOCK_WR); }
static int cb_rw_tryrdlock(OrigFn fn, UWord c, pthread_rwlock_t *l)
{ return cb_trylock(fn, c, l, CB_LOCK_RD); }
static int cb_rw_trywrlock(OrigFn fn, UWord c, pthread_rwlock_t *l)
{ return cb_trylock(fn, c, l, CB_LOCK_WR); }
static int cb_rw_unlock(OrigFn fn, UWord c, pthread_rwlock_t *l)
{ return cb_unlock(fn, c, l, CB_LOCK_MODE_HELD); }
static int cb_spin_lock(OrigFn fn, UWord c, pthread_spinlock_t *l)
{ return cb_lock(fn, c, (void *)l, CB_LOCK_MUTEX); }
static int cb_spin_unlock(OrigFn fn, UWord c, pthread_spinlock_t *l)
{ return cb_unlock(fn, c, (void *)l, CB_LOCK_MUTEX); }

CB_WRAP(int, pthreadZumutexZulock, cb_mutex_lock, (pthread_mutex_t *m), m)
CB_WRAP(int, pthreadZumutexZutrylock, cb_mutex_trylock, (pthread_mutex_t *m), m)
CB_WRAP(int, pthreadZumutexZutimedlock, cb_mutex_timedlock,
        (pthread_mutex_t *m, const struct timespec *ts), m, ts)
CB_WRAP(int, pthreadZumutexZuunlock, cb_mutex_unlock, (pthread_mutex_t *m), m)
CB_WRAP(int, pthreadZurwlockZurdlock, cb_rw_rdlock, (pthread_rwlock_t *l), l)
CB_WRAP(int, pthreadZurwlockZuwrlock, cb_rw_wrlock, (pthread_rwlock_t *l), l)
CB_WRAP(int, pthreadZurwlockZutryrdlock, cb_rw_tryrdlock, (pthread_rwlock_t *l), l)
CB_WRAP(int, pthreadZurwlockZutrywrlock, cb_rw_trywrlock, (pthread_rwlock_t *l), l)
CB_WRAP(int, pthreadZurwlockZuunlock, cb_rw_unlock, (pthread_rwlock_t *l), l)
CB_WRAP(int, pthreadZuspinZulock, cb_spin_lock, (pthread_spinlock_t *l), l)
CB_WRAP(int, pthreadZuspinZuunlock, cb_spin_unlock, (pthread_spinlock_t *l), l)

/* ---- condition variables: UNLOCK(m), the wait, COND_WAIT(c), LOCK(m) ---- */

static int cb_cond_timedwait(OrigFn fn, UWord c, pthread_cond_t *cv,
                             pthread_mutex_t *m, const struct timespec *ts)
{
   int r;
   cb_turn(c);
   REQ(CB_REQ_UNLOCK, m, CB_LOCK_MUTEX, c);
   if (ts)
      CALL_FN_W_WWW(r, fn, cv, m, ts);
   else
      CALL_FN_W_WW(r, fn, cv, m);
   if (r == 0) {
      cb_turn(c);
      REQ(CB_REQ_COND_WAIT, cv, m, c);
   }
   cb_turn(c);
   REQ(CB_REQ_LOCK, m, CB_LOCK_MUTEX, c);
   return r;
}
static int cb_cond_wait(OrigFn fn, UWord c, pthread_cond_t *cv,
                        pthread_mutex_t *m)
{ return cb_cond_timedwait(fn, c, cv, m, NULL); }

static int cb_cond_signal_any(OrigFn fn, UWord c, pthread_cond_t *cv,
                              UWord broadcast)
{
   int r;
   cb_turn(c);
   REQ(CB_REQ_COND_SIGNAL, cv, broadcast, c);
   CALL_FN_W_W(r, fn, cv);
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
CB_WRAP(int, pthreadZucondZusignal, cb_cond_signal, (pthread_cond_t *cv), cv)
CB_WRAP(int, pthreadZucondZubroadcast, cb_cond_broadcast, (pthread_cond_t *cv),
        cv)

/* ---- barriers ---- */

static int cb_barrier_init(OrigFn fn, UWord c, pthread_barrier_t *b,
                           const pthread_barrierattr_t *a, unsigned count)
{
   int r;
   CALL_FN_W_WWW(r, fn, b, a, count);
   if (r == 0)
      REQ(CB_REQ_BARRIER_INIT, b, count, 0);
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

static int cb_create(OrigFn fn, UWord c, pthread_t *thr,
                     const pthread_attr_t *attr, void *(*start)(void *),
                     void *arg)
{
   int r;
   cb_turn(0);
   CALL_FN_W_WWWW(r, fn, thr, attr, start, arg);
   if (r == 0)
      REQ(CB_REQ_CREATED, *thr, 0, 0);
   return r;
}

static int cb_join(OrigFn fn, UWord c, pthread_t thr, void **retval)
{
   int r;
   cb_turn(0);
   CALL_FN_W_WW(r, fn, thr, retval);
   if (r == 0)
      REQ(CB_REQ_JOINED, thr, c, 0);
   return r;
}

CB_WRAP(int, pthreadZucreate, cb_create,
        (pthread_t *thr, const pthread_attr_t *attr, void *(*start)(void *),
         void *arg), thr, attr, start, arg)
CB_WRAP(int, pthreadZujoin, cb_join, (pthread_t thr, void **retval), thr,
        retval)

/* ---- allocation: ALLOC after, FREE before (the block may be reused by
 * another thread as soon as it is freed) ---- */

static void *cb_malloc(OrigFn fn, UWord c, size_t n)
{
   void *p;
   CALL_FN_W_W(p, fn, n);
   if (p)
      REQ(CB_REQ_ALLOC, p, n, c);
   return p;
}

static void *cb_calloc(OrigFn fn, UWord c, size_t n, size_t size)
{
   void *p;
   CALL_FN_W_WW(p, fn, n, size);
   if (p)
      REQ(CB_REQ_ALLOC, p, n * size, c);
   return p;
}

static void *cb_realloc(OrigFn fn, UWord c, void *old, size_t n)
{
   void *p;
   if (old)
      REQ(CB_REQ_FREE, old, c, 0);
   CALL_FN_W_WW(p, fn, old, n);
   if (p)
      REQ(CB_REQ_ALLOC, p, n, c);
   return p;
}

static void cb_free(OrigFn fn, UWord c, void *p)
{
   if (p)
      REQ(CB_REQ_FREE, p, c, 0);
   CALL_FN_v_W(fn, p);
}

#define CB_WRAP_LIBC(ret, zname, impl, params, ...)                          \
   CB_WRAP_ONE(VG_Z_LIBC_SONAME, ret, zname, impl, params, __VA_ARGS__)
CB_WRAP_LIBC(void *, malloc, cb_malloc, (size_t n), n)
CB_WRAP_LIBC(void *, calloc, cb_calloc, (size_t n, size_t s), n, s)
CB_WRAP_LIBC(void *, realloc, cb_realloc, (void *p, size_t n), p, n)
CB_WRAP_LIBC(void, free, cb_free, (void *p), p)
