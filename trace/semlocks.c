/* semlocks.c: finds the semaphores a program uses as locks (sem_init(&s,
 * 0, 1), then sem_wait ... sem_post around each critical section, as older
 * C and RTOS-style code does) and marks their waits and posts as the lock
 * and unlock they are.
 *
 * A semaphore's post happens before the wait that takes its token
 * (predict/hb.c), which is right for a hand-off and wrong for a lock: with
 * every critical section ordered after the one before it, no section could
 * move, and a pair updated in two sections and read together elsewhere,
 * found at once under a mutex, predicted nothing under a semaphore.
 *
 * A semaphore is a lock when, in trace order, its events go wait, post,
 * wait, post, ... with each post made by the thread of the wait before it;
 * the first wait takes the initial token (a post before it would make two
 * tokens) and no other wait does; and it ends posted.  A wait then
 * becomes a LOCK and a post an UNLOCK (both counted like the SEM_WAIT and
 * SEM_POST they replace, `was` keeping the kind replay sees).  A semaphore
 * posted by another thread than its waiter (a hand-off, a signal) is left
 * alone.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>

#include "trace_internal.h"

typedef cb_lockcand sem; /* taken: waits seen */

_Static_assert(CB_IS_COUNTED(CB_EV_SEM_WAIT) && CB_IS_COUNTED(CB_EV_SEM_POST) &&
                  CB_IS_COUNTED(CB_EV_LOCK) && CB_IS_COUNTED(CB_EV_UNLOCK),
               "a semaphore lock's LOCK and UNLOCK replace counted events");

/* One wait or post of s, by the rules above. */
static void step(sem *s, const cb_event *e) {
   if (e->kind == CB_EV_SEM_WAIT) {
      /* value 0: an initial token, only the first wait's */
      if (s->holder || (e->value == 0) != !s->taken) s->bad = 1;
      s->holder = e->tid;
      s->taken++;
   } else if (s->holder != e->tid) {
      s->bad = 1; /* a post by another thread, or before any wait */
   } else {
      s->holder = 0;
   }
}

cb_hand_locks cb_hand_locks_mark(cb_trace *t) {
   long w = cb_spinlocks_mark(t), s = cb_semlocks_mark(t);
   return (cb_hand_locks){w > 0 ? w : 0, s > 0 ? s : 0};
}

long cb_semlocks_mark(cb_trace *t) {
   cb_locktab ss = {0};
   int oom = 0;
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      if (e->kind != CB_EV_SEM_WAIT && e->kind != CB_EV_SEM_POST) continue;
      sem *s = cb_locktab_find(&ss, e->addr, 1, &oom);
      if (!s) { cb_locktab_free(&ss); return -1; }
      if (!s->bad) step(s, e);
   }
   long n = 0;
   for (size_t i = 0; ss.c && i <= ss.mask; i++)
      if (ss.c[i].used && !ss.c[i].bad && !ss.c[i].holder && ss.c[i].taken) n++;
   for (size_t i = 0; n && i < t->nevents; i++) {
      cb_event *e = &t->events[i];
      if (e->kind != CB_EV_SEM_WAIT && e->kind != CB_EV_SEM_POST) continue;
      sem *s = cb_locktab_find(&ss, e->addr, 0, &oom); /* seen in pass 1 */
      if (!s || s->bad || s->holder || !s->taken) continue;
      e->was = e->kind;
      e->kind = e->kind == CB_EV_SEM_WAIT ? CB_EV_LOCK : CB_EV_UNLOCK;
      e->size = CB_LOCK_MUTEX;
      e->value = 0;
   }
   cb_locktab_free(&ss);
   return n;
}
