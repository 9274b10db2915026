/* deadlock_again.c: a lock-order deadlock that happened in the recorded
 * run, forced again (pattern DLK).
 *
 * A test whose threads take two locks in opposite orders with a pause in
 * between (`lock(a); usleep(1000); lock(b)` in one thread, b then a in the
 * other) deadlocks in every recording.  Pass B' (deadlocks.c) sees no
 * inversion there: the inner acquisitions never happened, they are what
 * the threads blocked in.  The trace's end names them (trace.proto
 * Blocked): each thread of the cycle waits for a lock the next one holds,
 * and where that one took it.  The schedule is the recorded run itself:
 * every thread runs its recorded events in the recorded order (the
 * prefix), then on into its request; the forced run deadlocks as the
 * recording did, every time, which makes the deadlock a confirmed bug with
 * a schedule that reproduces it, as a predicted one is.
 *
 * The candidate is a DLK as deadlocks.c makes them: T1 the thread whose
 * outer acquisition comes first in the trace (e1), T2 the next thread of
 * the cycle (f, its outer acquisition), e2 T1's request of T2's lock, which
 * is no event of the trace: its counted index is one past T1's last, and
 * its trace index that of e1 (blocked_e2; cbp_blocked_e2 gives its lock and line).
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <string.h>

#include "predict.h"

#define NONE UINT64_MAX
#define CYCLE_MAX 16 /* threads followed around one cycle */

static int is_lock_wait(const cb_blocked *b) {
   return b->kind == CB_WAIT_LOCK || b->kind == CB_WAIT_RDLOCK || b->kind == CB_WAIT_WRLOCK;
}

/* The footer's entry of thread tid waiting for a lock; NULL if none. */
static const cb_blocked *lock_wait_of(const cb_trace *t, uint32_t tid) {
   for (size_t b = 0; b < t->footer.nblocked; b++)
      if (t->footer.blocked[b].tid == tid && is_lock_wait(&t->footer.blocked[b]))
         return &t->footer.blocked[b];
   return NULL;
}

const cb_blocked *cbp_blocked_e2(const cb_trace *t, const cbp_candidate *c) {
   return c->blocked_e2 ? lock_wait_of(t, c->t1) : NULL;
}

/* Thread tid's last acquisition of the lock at addr; NONE if none. */
static uint64_t last_lock(const cb_trace *t, uint32_t tid, uint64_t addr) {
   for (size_t i = t->nevents; i-- > 0;)
      if (t->events[i].tid == tid && t->events[i].kind == CB_EV_LOCK &&
          t->events[i].addr == addr)
         return i;
   return NONE;
}

/* The cycle through b's thread: its threads in order, each waiting for a
 * lock the next holds; 0 when b's chain of holders is no cycle back to it. */
static size_t cycle_of(const cb_trace *t, const cb_blocked *b, const cb_blocked **cyc) {
   size_t n = 0;
   for (const cb_blocked *w = b; w && n < CYCLE_MAX; w = lock_wait_of(t, w->holder)) {
      cyc[n++] = w;
      if (w->holder == b->tid) return n >= 2 ? n : 0;
   }
   return 0;
}

/* The candidate of a cycle of k threads from cyc[0]; 0 when an
 * acquisition is not in the trace. */
static int cycle_candidate(const cb_trace *t, cbp_analysis *a, const cb_blocked *const *cyc,
                           size_t k, cbp_candidate *c) {
   cbp_rf *rf = a->r.rf;
   const cbp_escape *x = &a->x;
   const cb_blocked *w1 = cyc[0], *w2 = cyc[1];
   /* T1 holds what the cycle's last thread waits for, T2 what T1 does. */
   uint64_t e1 = last_lock(t, w1->tid, cyc[k - 1]->object);
   uint64_t f = last_lock(t, w2->tid, w1->object);
   if (e1 == NONE || f == NONE) return 0;
   memset(c, 0, sizeof *c);
   c->pattern = CBP_DLK;
   c->addr = w1->object;
   c->t1 = w1->tid; c->t2 = w2->tid;
   c->e1 = c->e = c->e2 = e1;
   c->ce1 = c->ce = cbp_rf_count_at(rf, c->t1, e1);
   c->ce2 = x->counted[c->t1];
   c->f = f; c->cf = cbp_rf_count_at(rf, c->t2, f); c->cg = x->counted[c->t2];
   c->seg_e = cbp_vc_seg_at(&a->v, c->t1, c->ce1);
   c->seg_f = cbp_vc_seg_at(&a->v, c->t2, c->cf);
   c->prefix = cbp_xcalloc(x->nthreads, sizeof *c->prefix);
   for (uint32_t j = 1; j <= x->nthreads; j++) c->prefix[j - 1] = x->counted[j];
   c->x1 = (cbp_point){x->counted[c->t1], NONE};
   c->x2 = (cbp_point){x->counted[c->t2], NONE};
   c->built = 1; c->blocked_e2 = 1;
   return 1;
}

size_t cbp_deadlock_again(const cb_trace *t, cbp_analysis *a) {
   cbp_result *r = &a->r;
   if (!r->rf) r->rf = cbp_rf_new(t, &a->x);
   for (size_t b = 0; b < t->footer.nblocked; b++) {
      const cb_blocked *cyc[CYCLE_MAX], *from[CYCLE_MAX];
      size_t k = cycle_of(t, &t->footer.blocked[b], cyc);
      if (!k) continue;
      /* The first cycle only (one is the deadlock), from its thread whose
       * outer acquisition comes first in the trace: a scan of the trace
       * for each of its threads. */
      size_t first = 0;
      uint64_t best = NONE;
      for (size_t i = 0; i < k; i++) {
         uint64_t at = last_lock(t, cyc[i]->tid, cyc[(i + k - 1) % k]->object);
         if (at < best) { best = at; first = i; }
      }
      for (size_t i = 0; i < k; i++) from[i] = cyc[(first + i) % k];
      cbp_candidate c;
      if (!cycle_candidate(t, a, from, k, &c)) return 0;
      r->c = cbp_grow(r->c, &r->cap, r->n, sizeof *r->c);
      r->c[r->n++] = c;
      return 1;
   }
   return 0;
}
