/* cure_wake.c: the cure of a lost wake-up, the waits of a deadlocked run
 * moved before the signal that came too early for them.
 *
 * A thread that waits on a condition with no predicate to check
 * (`pthread_cond_wait(&go, &m)` for main's broadcast of the start) waits
 * for ever when the signal came before its wait began: the signal found
 * no one waiting.  Under Valgrind a thread just created often runs only
 * after its creator has gone on, so such a test deadlocks in every
 * recording, and the trace's end says so: each such thread blocked on the
 * condition, no signal on its way (trace.proto Blocked).  There is no data
 * to flip (cures.c): the order is between the signal and the wait.  The
 * cure forces it the other way round: each thread blocked on a condition
 * that another thread signalled before its wait began runs, from where
 * the signaller took the condition's mutex for that signal (or from the
 * signal, sent without it), up to its wait, before the signaller; the
 * rest keeps the recorded order (cure_moves.c).  One cure per condition,
 * every such waiter moved.  A run that then passes names the lost
 * wake-up; one that deadlocks as recorded is not cured.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "predict.h"

#define NONE UINT64_MAX
#define WAKE_BUDGET (1u << 24) /* events looked at back, all waiters */
#define WAKE_MAX 64            /* blocked threads looked at */

/* Thread tid's last counted event: its wait's release of the mutex when
 * it blocked in a condition wait; NONE when it is not an unlock of m. */
static uint64_t wait_entry(const cb_trace *t, const cbp_escape *x, uint32_t tid,
                           uint64_t m, uint64_t *budget) {
   for (size_t i = t->nevents; i-- > 0 && *budget; --*budget) {
      const cb_event *e = &t->events[i];
      if (e->tid != tid || !cbp_counted_event(e, x->nthreads)) continue;
      return e->kind == CB_EV_UNLOCK && e->addr == m ? i : NONE;
   }
   return NONE;
}

/* The last signal of condition cv by another thread than tid before
 * trace index at; NONE when there is none. */
static uint64_t signal_before(const cb_trace *t, uint64_t cv, uint32_t tid, uint64_t at,
                              uint64_t *budget) {
   for (size_t i = at; i-- > 0 && *budget; --*budget) {
      const cb_event *e = &t->events[i];
      if (e->kind == CB_EV_COND_SIGNAL && e->addr == cv && e->tid != tid) return i;
   }
   return NONE;
}

/* Where the signaller's part begins: its lock of m when it held m at the
 * signal s (the critical section it signalled from), else s. */
static uint64_t section_of(const cb_trace *t, uint64_t s, uint64_t m, uint64_t *budget) {
   uint32_t tid = t->events[s].tid;
   for (size_t i = s; i-- > 0 && *budget; --*budget) {
      const cb_event *e = &t->events[i];
      if (e->tid != tid || e->addr != m) continue;
      if (e->kind == CB_EV_LOCK) return i;
      if (e->kind == CB_EV_UNLOCK) break;
   }
   return s;
}

/* Thread u's first counted event after w0 (r at the latest). */
static uint64_t first_after(const cb_trace *t, const cbp_escape *x, uint32_t u, uint64_t w0,
                            uint64_t r) {
   for (uint64_t i = w0 + 1; i < r; i++)
      if (t->events[i].tid == u && cbp_counted_event(&t->events[i], x->nthreads)) return i;
   return r;
}

/* The waiters blocked on condition cv whose wait began after another
 * thread's signal of it; how many. */
static size_t late_waiters(const cb_trace *t, const cbp_escape *x, uint64_t cv,
                           cbp_moved *in, uint64_t *sig, uint64_t *budget) {
   const cb_footer *ft = &t->footer;
   size_t n = 0;
   for (size_t b = 0; b < ft->nblocked && b < WAKE_MAX; b++) {
      const cb_blocked *w = &ft->blocked[b];
      if (w->kind != CB_WAIT_COND || w->object != cv) continue;
      uint64_t r = wait_entry(t, x, w->tid, w->value, budget);
      uint64_t s = r == NONE ? NONE : signal_before(t, cv, w->tid, r, budget);
      if (s == NONE) continue;
      uint64_t w0 = section_of(t, s, w->value, budget);
      in[n++] = (cbp_moved){first_after(t, x, w->tid, w0, r), w0, r, w->tid};
      if (n == 1) *sig = s;
   }
   return n;
}

/* The cure of condition cv's late waiters; 0 when there is none. */
static int wake_cure(const cb_trace *t, cbp_analysis *a, uint64_t cv, uint64_t *budget,
                     cbp_candidate *c) {
   cbp_moved in[WAKE_MAX];
   uint64_t s = NONE, p0;
   size_t n = late_waiters(t, &a->x, cv, in, &s, budget);
   cbp_rf *rf = a->r.rf;
   memset(c, 0, sizeof *c);
   if (!n || !cbp_moved_schedule(t, &a->x, rf, in, n, c, &p0)) {
      cbp_candidate_free(c);
      return 0;
   }
   uint32_t sig = t->events[s].tid, w = in[0].u;
   c->pattern = CBP_ORD;
   c->addr = cv;
   c->t1 = sig; c->t2 = w;
   c->e1 = c->e2 = s; c->ce1 = c->ce2 = cbp_rf_count_at(rf, sig, s);
   c->f = in[0].r; c->cf = cbp_rf_count_at(rf, w, in[0].r);
   c->x1 = c->x2 = (cbp_point){c->prefix[sig - 1], p0 ? p0 - 1 : NONE};
   c->e = p0 ? p0 - 1 : 0; c->ce = c->prefix[sig - 1] - 1;
   c->seg_e = cbp_vc_seg_at(&a->v, c->t1, c->ce1);
   c->seg_f = cbp_vc_seg_at(&a->v, c->t2, c->cf);
   c->built = 1; c->cure = 1;
   return 1;
}

size_t cbp_wake_cures(const cb_trace *t, cbp_analysis *a) {
   cbp_result *r = &a->r;
   for (size_t k = 0; k < r->n; k++) /* the data's orders: set aside */
      cbp_candidate_free(&r->c[k]);
   r->n = 0;
   a->cures = 1;
   if (!r->rf) r->rf = cbp_rf_new(t, &a->x);
   uint64_t budget = WAKE_BUDGET, done[WAKE_MAX];
   size_t ndone = 0;
   const cb_footer *ft = &t->footer;
   for (size_t b = 0; b < ft->nblocked && ndone < WAKE_MAX; b++) {
      uint64_t cv = ft->blocked[b].object;
      int seen = ft->blocked[b].kind != CB_WAIT_COND;
      for (size_t j = 0; j < ndone && !seen; j++) seen = done[j] == cv;
      if (seen) continue;
      done[ndone++] = cv;
      cbp_candidate c;
      if (!wake_cure(t, a, cv, &budget, &c)) continue;
      r->c = cbp_grow(r->c, &r->cap, r->n, sizeof *r->c);
      r->c[r->n++] = c;
   }
   return r->n;
}
