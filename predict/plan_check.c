/* plan_check.c: can replay follow a plan (prefix counts, then a tail of
 * single-thread runs)?  See cbp_plan_check in predict.h.
 *
 * Why a separate check: synthesis (synthesis.c) builds plans that replay
 * can follow by construction (consistent cuts at empty locksets, a tail
 * closed under the vector clocks).  A plan taken from elsewhere, the Z3
 * model's order, is checked against the same rules before it replaces
 * synthesis' own; when it fails, the synthesised plan is kept.
 *
 * One pass over the trace up to the last event the plan runs: per thread
 * its lock state at its prefix stop and the trace indices of its tail
 * events; then the tail is simulated step by step.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict.h"

/* Who takes a lock (an id in its mode) in the prefixes: the one thread,
 * or UINT32_MAX for several. */
typedef struct { uint32_t lock, taker; } prefix_taker;
typedef struct { prefix_taker *v; size_t n, cap; } prefix_takers;

static void taken_by(prefix_takers *pt, uint32_t lock, uint32_t w) {
   for (size_t i = 0; i < pt->n; i++)
      if (pt->v[i].lock == lock) {
         if (pt->v[i].taker != w) pt->v[i].taker = UINT32_MAX;
         return;
      }
   pt->v = cbp_grow(pt->v, &pt->cap, pt->n, sizeof *pt->v);
   pt->v[pt->n++] = (prefix_taker){lock, w};
}

/* Applies a lock event of thread w to held[] (per thread, ids in their
 * modes); 0 when checked and another thread holds the lock in a mode that
 * excludes it (cbp_locks_conflict: a second reader gets in).  The lock
 * id, in *lock. */
static int lock_step(cbp_locks *L, cbp_held *held, uint32_t n, const cb_event *e,
                     uint32_t w, int check, uint32_t *lock) {
   if (e->kind != CB_EV_LOCK && e->kind != CB_EV_UNLOCK) return 1;
   uint32_t l = *lock = cbp_lock_of(L, &held[w], e);
   if (e->kind == CB_EV_UNLOCK) {
      cbp_held_release(&held[w], l);
      return 1;
   }
   for (uint32_t j = 1; check && j <= n; j++)
      if (j != w && cbp_held_conflicts(L, &held[j], l)) return 0;
   cbp_held_acquire(&held[w], l);
   return 1;
}

/* Vector-clock needs of thread w's first `count` events, all met by end[]? */
static int needs_met(const cbp_vclock *v, uint32_t n, uint32_t w, uint64_t count,
                     const uint64_t *end, uint32_t *missing) {
   if (!count) return 1;
   (void)n;
   const cbp_vc_ent *vc;
   size_t nvc = cbp_vc_entries(v, cbp_vc_seg_at(v, w, count - 1), &vc);
   for (size_t q = 0; q < nvc; q++)
      if (vc[q].tid != w && vc[q].count > end[vc[q].tid]) { *missing = vc[q].tid; return 0; }
   return 1;
}

/* The check's state: per thread (1..n) its prefix stop, its last event
 * run by the plan, a counter, its lock state, the trace indices of its
 * tail events. */
typedef struct {
   const cb_trace *t;
   const cbp_escape *x;
   const cbp_vclock *v;
   cbp_locks *L;
   uint32_t n;
   uint64_t *pre, *fin, *cnt, *end;
   size_t **tev, *ntev, *captev;
   cbp_held *held;
   prefix_takers takers;
} pcheck;

static char why[160];

/* The plan's counts: a tail of threads that ran, none run past its end. */
static const char *check_counts(pcheck *c, const uint64_t *prefix, const cbp_step *tail,
                                uint32_t ntail) {
   for (uint32_t j = 1; j <= c->n; j++) c->fin[j] = c->pre[j] = prefix[j - 1];
   for (uint32_t s = 0; s < ntail; s++) {
      if (tail[s].tid == 0 || tail[s].tid > c->n) {
         snprintf(why, sizeof why, "the tail names T%u, which never ran", tail[s].tid);
         return why;
      }
      c->fin[tail[s].tid] += tail[s].count;
   }
   for (uint32_t j = 1; j <= c->n; j++)
      if (c->fin[j] > c->x->counted[j]) {
         snprintf(why, sizeof why, "the plan runs T%u past its last event", j);
         return why;
      }
   /* The prefix runs freely: it must not wait for events outside it. */
   for (uint32_t j = 1; j <= c->n; j++) {
      uint32_t k;
      if (!needs_met(c->v, c->n, j, c->pre[j], c->pre, &k)) {
         snprintf(why, sizeof why, "the prefix of T%u waits for T%u past its cut", j, k);
         return why;
      }
   }
   return NULL;
}

/* One pass: lock states at the prefix stops, who takes which lock in its
 * prefix (prefix_takers: holder = the one thread, or UINT32_MAX for
 * several), the tail's events per thread. */
static const char *scan(pcheck *c) {
   uint32_t left = 0, n = c->n, l;
   for (uint32_t j = 1; j <= n; j++) left += c->fin[j] > 0;
   for (size_t i = 0; i < c->t->nevents && left; i++) {
      const cb_event *e = &c->t->events[i];
      uint32_t w = e->tid;
      if (w == 0 || w > n || e->kind >= CB_EV_KIND_COUNT || !CB_IS_COUNTED(e->kind)) continue;
      if (c->cnt[w] >= c->fin[w]) continue;
      if (c->cnt[w] < c->pre[w]) {
         lock_step(c->L, c->held, n, e, w, 0, &l); /* recorded order: never refused */
         if (e->kind == CB_EV_LOCK) taken_by(&c->takers, l, w);
         if (c->cnt[w] + 1 == c->pre[w] && c->pre[w] < c->x->counted[w] &&
             !cbp_cut_ok(c->x, i)) {
            snprintf(why, sizeof why, "the prefix stops T%u inside one instruction", w);
            return why;
         }
      } else {
         c->tev[w] = cbp_grow(c->tev[w], &c->captev[w], c->ntev[w], sizeof *c->tev[w]);
         c->tev[w][c->ntev[w]++] = i;
      }
      if (++c->cnt[w] == c->fin[w]) left--;
   }
   return NULL;
}

/* A thread stopped in the prefix holding a lock that another thread takes
 * in its prefix in a mode it excludes: replay may run that other
 * acquisition after this one, and it then waits forever.  Fine only when
 * the other thread's whole prefix happens before the stop. */
static const char *check_held(const pcheck *c) {
   for (uint32_t s = 1; s <= c->n; s++)
      for (uint32_t i = 0; i < c->held[s].n; i++)
         for (size_t k = 0; k < c->takers.n; k++) {
            const prefix_taker *p = &c->takers.v[k];
            if (p->taker == s || !cbp_locks_conflict(c->L, p->lock, c->held[s].lock[i]))
               continue;
            uint32_t hs = cbp_vc_seg_at(c->v, s, c->pre[s] - 1);
            for (uint32_t j = 1; j <= c->n; j++) {
               if (j == s || !c->pre[j] || cbp_vc_get(c->v, hs, j) >= c->pre[j]) continue;
               snprintf(why, sizeof why, "T%u stops in the prefix holding a lock "
                        "another thread takes in its own prefix", s);
               return why;
            }
         }
   return NULL;
}

/* The tail, step by step, every other thread stopped. */
static const char *check_tail(pcheck *c, const cbp_step *tail, uint32_t ntail) {
   uint32_t n = c->n, l;
   for (uint32_t j = 1; j <= n; j++) c->end[j] = c->pre[j];
   uint64_t *used = c->cnt; /* reuse: tail events run so far per thread */
   memset(used, 0, (n + 1) * sizeof *used);
   for (uint32_t s = 0; s < ntail; s++) {
      uint32_t w = tail[s].tid, k;
      if (!tail[s].count) continue;
      if (!needs_met(c->v, n, w, c->end[w] + tail[s].count, c->end, &k)) {
         snprintf(why, sizeof why, "tail step %u runs T%u before events of T%u it needs",
                  s + 1, w, k);
         return why;
      }
      for (uint64_t q = 0; q < tail[s].count; q++) {
         const cb_event *e = &c->t->events[c->tev[w][used[w] + q]];
         if (!lock_step(c->L, c->held, n, e, w, 1, &l)) {
            snprintf(why, sizeof why, "tail step %u runs T%u into a lock another "
                     "thread holds", s + 1, w);
            return why;
         }
      }
      used[w] += tail[s].count;
      c->end[w] += tail[s].count;
      if (s + 1 < ntail && !cbp_cut_ok(c->x, c->tev[w][used[w] - 1])) {
         snprintf(why, sizeof why, "tail step %u switches away from T%u inside one "
                  "instruction", s + 1, w);
         return why;
      }
   }
   return NULL;
}

const char *cbp_plan_check(const cb_trace *t, const cbp_escape *x,
                           const cbp_vclock *v, cbp_locks *L,
                           const uint64_t *prefix, const cbp_step *tail,
                           uint32_t ntail) {
   uint32_t n = x->nthreads;
   pcheck c = {t, x, v, L, n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, {0}};
   c.pre = cbp_xcalloc(n + 1, sizeof *c.pre); c.fin = cbp_xcalloc(n + 1, sizeof *c.fin);
   c.cnt = cbp_xcalloc(n + 1, sizeof *c.cnt); c.end = cbp_xcalloc(n + 1, sizeof *c.end);
   c.tev = cbp_xcalloc(n + 1, sizeof *c.tev);
   c.ntev = cbp_xcalloc(n + 1, sizeof *c.ntev); c.captev = cbp_xcalloc(n + 1, sizeof *c.captev);
   c.held = cbp_xcalloc(n + 1, sizeof *c.held);
   const char *bad = check_counts(&c, prefix, tail, ntail);
   if (!bad) bad = scan(&c);
   if (!bad) bad = check_held(&c);
   if (!bad) bad = check_tail(&c, tail, ntail);
   for (uint32_t j = 0; j <= n; j++) free(c.tev[j]);
   free(c.tev); free(c.ntev); free(c.captev);
   free(c.pre); free(c.fin); free(c.cnt); free(c.end);
   for (uint32_t j = 0; j <= n; j++) cbp_held_free(&c.held[j]);
   free(c.held); free(c.takers.v);
   return bad;
}
