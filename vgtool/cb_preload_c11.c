/* cb_preload_c11.c: the preload library's wrappers of C11 <threads.h>
 * mutexes and condition variables, recorded as the pthread ones are (a
 * mtx_t is a mutex, a cnd_t a condition).
 *
 * glibc implements mtx_lock and the others by calling the pthread
 * functions, but from inside libc, where the tool ignores the calls (they
 * would be libc's own locks); so the C11 names need wrappers of their own,
 * which see the user's call site.  thrd_create and thrd_join need none:
 * they reach the pthread_create and pthread_join wrappers, whose events are
 * made whoever calls, and call_once jumps to pthread_once
 * (cb_preload_sem.c).  thrd_success is 0, as the helpers expect; a mtx_t
 * is a pthread_mutex_t inside (cb_mutex_wait_flags reads its kind).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "cb_preload.h"

static int cb_mtx_lock(OrigFn fn, UWord c, void *m)
{ return cb_lock(fn, c, m, CB_LOCK_MUTEX, cb_mutex_wait_flags(m)); }
static int cb_mtx_trylock(OrigFn fn, UWord c, void *m)
{ return cb_trylock(fn, c, m, CB_LOCK_MUTEX); }
static int cb_mtx_timedlock(OrigFn fn, UWord c, void *m, const void *ts)
{ return cb_timedlock(fn, c, m, ts, CB_LOCK_MUTEX); }
static int cb_mtx_unlock(OrigFn fn, UWord c, void *m)
{ return cb_unlock(fn, c, m, CB_LOCK_MUTEX); }

static int cb_cnd_wait(OrigFn fn, UWord c, void *cv, void *m)
{ return cb_cond_wait_any(fn, c, cv, m, 2, 0, NULL); }
static int cb_cnd_timedwait(OrigFn fn, UWord c, void *cv, void *m,
                            const void *ts)
{ return cb_cond_wait_any(fn, c, cv, m, 3, 0, ts); }
static int cb_cnd_signal(OrigFn fn, UWord c, void *cv)
{ return cb_cond_signal_any(fn, c, cv, 0); }
static int cb_cnd_broadcast(OrigFn fn, UWord c, void *cv)
{ return cb_cond_signal_any(fn, c, cv, 1); }

CB_WRAP(int, mtxZulock, cb_mtx_lock, (void *m), m)
CB_WRAP(int, mtxZutrylock, cb_mtx_trylock, (void *m), m)
CB_WRAP(int, mtxZutimedlock, cb_mtx_timedlock, (void *m, const void *ts),
        m, ts)
CB_WRAP(int, mtxZuunlock, cb_mtx_unlock, (void *m), m)
CB_WRAP(int, cndZuwait, cb_cnd_wait, (void *cv, void *m), cv, m)
CB_WRAP(int, cndZutimedwait, cb_cnd_timedwait,
        (void *cv, void *m, const void *ts), cv, m, ts)
CB_WRAP(int, cndZusignal, cb_cnd_signal, (void *cv), cv)
CB_WRAP(int, cndZubroadcast, cb_cnd_broadcast, (void *cv), cv)
