/* dlk_tail.c: the tail of a deadlock schedule (pattern DLK, deadlocks.c).
 *
 * Each thread of the cycle must end its part of the tail holding its outer
 * lock, its next request being its inner lock, which the next thread holds:
 * released, each blocks on the next.  Where a thread stops in between is a
 * choice:
 *   short  just past its outer acquisition (e1 for T1, f for T2);
 *   long   just before its inner request (e2 for T1).
 * A nest is made while the outer lock is held, so the thread holds it at
 * either stop: both end in the deadlock.  The long stop matters for a gate
 * lock.  carter01 (SCTBench): T1 takes l under m, releases m, and asks for
 * m again while it holds l; T2 holds m and asks for l.  Stopped just past
 * taking l, T1 still holds m, which T2 needs to get to its own outer lock;
 * just before its second request of m, T1 holds l alone, and T2 can go.
 *
 * The threads run one after the other, each from its prefix (where it holds
 * no lock) to its stop.  One that takes a lock on its way which another
 * holds at its stop must run before that one; one whose part needs (vector
 * clocks) events of another's part must run after it.  The tail is a
 * topological order of those constraints, the cycle's own order (T1, T2,
 * T3, ...) wherever it is free to choose.  All short stops are tried first
 * (the tail that leaves each thread nearest its recorded context), then all
 * long ones.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict.h"

typedef struct {
   uint32_t tid;
   uint64_t from, stop[2]; /* counted events: its prefix; short and long stop */
   cbp_held held, needs;   /* held at its stop; taken on its way there */
} part;

static char why[160];

/* Walks p's counted events [from, stop): the locks it takes on its way, and
 * the ones it holds at the end. */
static void walk(const cb_trace *t, cbp_locks *L, const cbp_rf *rf, part *p, uint64_t stop) {
   p->held.n = p->needs.n = 0;
   for (uint64_t k = p->from; k < stop; k++) {
      const cb_event *e = &t->events[cbp_rf_trace_index(rf, p->tid, k)];
      if (e->kind == CB_EV_LOCK) {
         uint32_t l = cbp_lock_of(L, &p->held, e);
         cbp_held_acquire(&p->needs, l);
         cbp_held_acquire(&p->held, l);
      } else if (e->kind == CB_EV_UNLOCK) {
         cbp_held_release(&p->held, cbp_lock_of(L, &p->held, e));
      }
   }
}

/* Whether a lock taken in `needs` is excluded by one in `held`. */
static int shares(const cbp_locks *L, const cbp_held *needs, const cbp_held *held) {
   for (uint32_t i = 0; i < needs->n; i++)
      if (cbp_held_conflicts(L, held, needs->lock[i])) return 1;
   return 0;
}

/* The order of the k parts (stops s), into ord; NULL, or why none. */
static const char *order_parts(const cbp_locks *L, const cbp_vclock *v, const part *p,
                               int k, int s, int *ord) {
   uint8_t before[CBP_MAX_CYCLE][CBP_MAX_CYCLE]; /* [i][j]: i runs before j */
   memset(before, 0, sizeof before);
   for (int j = 0; j < k; j++) {
      uint32_t seg = p[j].stop[s] ? cbp_vc_seg_at(v, p[j].tid, p[j].stop[s] - 1) : 0;
      for (int i = 0; i < k; i++) {
         if (i == j) continue;
         if (shares(L, &p[j].needs, &p[i].held)) before[j][i] = 1;
         uint64_t need = p[j].stop[s] ? cbp_vc_get(v, seg, p[i].tid) : 0;
         if (need > p[i].stop[s]) {
            snprintf(why, sizeof why, "T%u needs events of T%u past where it stops",
                     p[j].tid, p[i].tid);
            return why;
         }
         if (need > p[i].from) before[i][j] = 1;
      }
   }
   /* Kahn's algorithm, the lowest index first. */
   uint8_t done[CBP_MAX_CYCLE] = {0};
   for (int n = 0; n < k; n++) {
      int pick = -1;
      for (int j = 0; j < k && pick < 0; j++) {
         if (done[j]) continue;
         int free_ = 1;
         for (int i = 0; i < k && free_; i++) free_ = done[i] || !before[i][j];
         if (free_) pick = j;
      }
      if (pick < 0) {
         snprintf(why, sizeof why, "each thread of the cycle needs a lock or an event "
                  "another holds back on its way to its lock (%s stops)",
                  s ? "long" : "short");
         return why;
      }
      done[pick] = 1;
      ord[n] = pick;
   }
   return NULL;
}

const char *cbp_dlk_tail(const cb_trace *t, const cbp_escape *x, const cbp_vclock *v,
                         cbp_locks *L, cbp_rf **rf, cbp_candidate *c) {
   int k = 2 + (int)c->nmore;
   if (k > CBP_MAX_CYCLE) return "a longer cycle than CBP_MAX_CYCLE";
   part p[CBP_MAX_CYCLE];
   memset(p, 0, sizeof p);
   p[0] = (part){.tid = c->t1, .stop = {c->ce1 + 1, c->ce2}};
   p[1] = (part){.tid = c->t2, .stop = {c->cf + 1, c->cg}};
   for (uint32_t i = 0; i < c->nmore; i++) {
      const cbp_cycle_thread *m = &c->more[i];
      p[2 + i] = (part){.tid = m->tid, .stop = {m->cidx + 1, m->icidx}};
   }
   for (int i = 0; i < k; i++) {
      p[i].from = c->prefix[p[i].tid - 1];
      if (p[i].from > p[i].stop[0]) return "a cycle thread's prefix passed its lock";
   }
   if (!*rf) *rf = cbp_rf_new(t, x);
   const char *res = NULL;
   int ord[CBP_MAX_CYCLE];
   for (int s = 0; s < 2; s++) {
      for (int i = 0; i < k; i++) walk(t, L, *rf, &p[i], p[i].stop[s]);
      res = order_parts(L, v, p, k, s, ord);
      if (!res) {
         c->tail = cbp_xrealloc(c->tail, (size_t)k * sizeof *c->tail);
         c->ntail = 0;
         for (int n = 0; n < k; n++) {
            const part *q = &p[ord[n]];
            if (q->stop[s] > q->from)
               c->tail[c->ntail++] = (cbp_step){q->tid, q->stop[s] - q->from};
         }
         break;
      }
   }
   for (int i = 0; i < k; i++) { cbp_held_free(&p[i].held); cbp_held_free(&p[i].needs); }
   return res;
}
