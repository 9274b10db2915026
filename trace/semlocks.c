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

#include "cbtrace.h"

typedef struct {
   uint64_t addr;
   uint32_t holder;  /* the thread between its wait and its post; 0: free */
   uint8_t used, bad, waited;
} sem;

typedef struct {
   sem *s;
   size_t mask, n;
} sems;

static uint64_t mix(uint64_t a) {
   a ^= a >> 33;
   a *= 0xc4ceb9fe1a85ec53ULL;
   a ^= a >> 33;
   return a;
}

/* addr's slot, added if absent and add; NULL when absent and not added
 * (no memory, or !add). */
static sem *slot(sems *ss, uint64_t addr, int add) {
   if (add && (ss->n + 1) * 2 > ss->mask + 1) {
      size_t cap = ss->mask ? (ss->mask + 1) * 2 : 16;
      sem *ns = calloc(cap, sizeof *ns);
      if (!ns) return NULL;
      for (size_t i = 0; ss->s && i <= ss->mask; i++) {
         if (!ss->s[i].used) continue;
         size_t j = mix(ss->s[i].addr) & (cap - 1);
         while (ns[j].used) j = (j + 1) & (cap - 1);
         ns[j] = ss->s[i];
      }
      free(ss->s);
      ss->s = ns;
      ss->mask = cap - 1;
   }
   if (!ss->s) return NULL;
   size_t j = mix(addr) & ss->mask;
   while (ss->s[j].used && ss->s[j].addr != addr) j = (j + 1) & ss->mask;
   if (!ss->s[j].used) {
      if (!add) return NULL;
      ss->s[j] = (sem){.addr = addr, .used = 1};
      ss->n++;
   }
   return &ss->s[j];
}

/* One wait or post of s, by the rules above. */
static void step(sem *s, const cb_event *e) {
   if (e->kind == CB_EV_SEM_WAIT) {
      /* value 0: an initial token, only the first wait's */
      if (s->holder || (e->value == 0) != !s->waited) s->bad = 1;
      s->holder = e->tid;
      s->waited = 1;
   } else if (s->holder != e->tid) {
      s->bad = 1; /* a post by another thread, or before any wait */
   } else {
      s->holder = 0;
   }
}

long cb_semlocks_mark(cb_trace *t) {
   sems ss = {0};
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      if (e->kind != CB_EV_SEM_WAIT && e->kind != CB_EV_SEM_POST) continue;
      sem *s = slot(&ss, e->addr, 1);
      if (!s) { free(ss.s); return -1; }
      if (!s->bad) step(s, e);
   }
   long n = 0;
   for (size_t i = 0; ss.s && i <= ss.mask; i++)
      if (ss.s[i].used && !ss.s[i].bad && !ss.s[i].holder && ss.s[i].waited) n++;
   for (size_t i = 0; n && i < t->nevents; i++) {
      cb_event *e = &t->events[i];
      if (e->kind != CB_EV_SEM_WAIT && e->kind != CB_EV_SEM_POST) continue;
      sem *s = slot(&ss, e->addr, 0); /* present: seen in the first pass */
      if (!s || s->bad || s->holder || !s->waited) continue;
      e->was = e->kind;
      e->kind = e->kind == CB_EV_SEM_WAIT ? CB_EV_LOCK : CB_EV_UNLOCK;
      e->size = CB_LOCK_MUTEX;
      e->value = 0;
   }
   free(ss.s);
   return n;
}
