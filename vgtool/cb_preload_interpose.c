/* cb_preload_interpose.c: pthread_mutex_lock and pthread_mutex_unlock,
 * seen by interposition instead of by Valgrind's function redirection.
 *
 * Why: a redirected function's original can only be reached by a
 * no-redirect call (CALL_FN_*), which leaves generated code twice: once
 * to ask the scheduler for the unredirected translation, and once more
 * after it, since such a translation is never chained.  A lock-heavy
 * program made six returns to the scheduler per lock/unlock pair, four of
 * them these (issue 13).  The preload library is on LD_PRELOAD, ahead of
 * the C library, so its own pthread_mutex_lock is the one the program
 * (and every library it calls through a PLT) binds to; it reaches the C
 * library's by a plain call, through the address dlsym(RTLD_NEXT) gives,
 * which nothing redirects.
 *
 * What it does not see: calls the C library makes to itself (mtx_lock's,
 * the dynamic linker's recursive lock), which the redirection saw and the
 * tool then ignored (their caller is not the program's code; mtx_lock has
 * its own wrapper).  What it sees is what the redirected wrappers did:
 * the same helpers (cb_lock_call, cb_unlock_call), the same requests, the
 * same turns in replay.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include "cb_preload.h"

typedef int (*cb_real_fn)(void *);

static cb_real_fn cb_real_lock, cb_real_unlock;

/* The C library's function name, the next definition after ours.  There
 * is always one: the program that called it was linked against it. */
static cb_real_fn cb_real(cb_real_fn *cache, const char *name)
{
   cb_real_fn f = __atomic_load_n(cache, __ATOMIC_RELAXED);
   if (!f) {
      /* Several threads may look it up at once: they find the same. */
      f = (cb_real_fn)dlsym(RTLD_NEXT, name);
      if (!f)
         __builtin_trap();
      __atomic_store_n(cache, f, __ATOMIC_RELAXED);
   }
   return f;
}

/* Looked up before the program runs, while it has one thread. */
__attribute__((constructor)) static void cb_interpose_init(void)
{
   (void)cb_real(&cb_real_lock, "pthread_mutex_lock");
   (void)cb_real(&cb_real_unlock, "pthread_mutex_unlock");
}

/* The fn of the helpers is unused when direct is given. */
static const OrigFn cb_no_fn;

int pthread_mutex_lock(pthread_mutex_t *m)
{
   return cb_lock_call(cb_no_fn, cb_real(&cb_real_lock, "pthread_mutex_lock"),
                       (UWord)__builtin_return_address(0), m, CB_LOCK_MUTEX,
                       cb_mutex_wait_flags(m), 1);
}

int pthread_mutex_unlock(pthread_mutex_t *m)
{
   return cb_unlock_call(cb_no_fn,
                         cb_real(&cb_real_unlock, "pthread_mutex_unlock"),
                         (UWord)__builtin_return_address(0), m,
                         CB_LOCK_MUTEX);
}
