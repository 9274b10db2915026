/* cures.c: cbpredict --cures, the orders of a failing run forced the other
 * way round.
 *
 * A test that fails in every recorded run, where none of the one-thread
 * shapes rank_failed.c looks for happened (a flag raised before the
 * fields it guards are filled, a reading copied out before the sensor
 * wrote it), fails because of an order between two threads: a read that
 * came before the write it needed.  The experiment that names it is the
 * flip: force that order the other way round, and see the test pass.  Its
 * candidates are the order violations of orders.c, which are exactly the
 * recorded orders of two unordered conflicting accesses forced the other
 * way round; every other candidate is set aside.
 *
 * Their cut is moved back: orders.c cuts T1 (a's thread) at its last
 * empty-lockset point before a, which outside any lock is right before a;
 * what T1 read since its last synchronisation (the other fields of a
 * struct copied out, a length read before the text) was read as stale in
 * the failing run as a was, and forcing a alone the other way round
 * leaves them stale: the run fails all the same.  So T1 is cut just after
 * its last synchronisation event before a (a lock, an unlock, a wait, a
 * post: what its reads depend on), and everything it read since moves
 * after f.  Not when f's thread needs T1 past that point (its clock), which
 * a synchronisation-free stretch never makes it.
 *
 * The schedules say `cure` (trace.proto): replay judges them inversely,
 * a run that passes is the finding (reschedule/judge.c).
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */

#include "predict.h"

#define NONE UINT64_MAX
/* Events looked at back from a for T1's last synchronisation; beyond, the
 * cut stays where orders.c put it.  And over all candidates (a long
 * failing run has thousands): past it, every cut stays. */
#define CURE_SCAN (1u << 20)
#define CURE_BUDGET (1u << 26)

int cbp_stretch_before(const cb_trace *t, uint32_t tid, uint64_t at, uint64_t *budget,
                       cbp_stretch *s) {
   *s = (cbp_stretch){NONE, at, 0, 0};
   size_t stop = at > CURE_SCAN ? at - CURE_SCAN : 0;
   for (size_t i = at; i-- > stop;) {
      if (!*budget) return 0;
      --*budget;
      const cb_event *e = &t->events[i];
      if (e->tid != tid) continue;
      if (e->kind == CB_EV_THREAD_START) {
         s->sync = i;
         s->at_start = 1;
         return 1;
      }
      if (!cbp_counted_event(e, t->nthreads)) continue;
      if (e->kind != CB_EV_READ && e->kind != CB_EV_WRITE) {
         s->sync = i;
         return 1;
      }
      s->first = i;
      s->n++;
   }
   return 0;
}

/* T1's cut just after its last synchronisation before a (at count 0 when
 * it synchronised nothing since its start); *x unchanged when that is not
 * found, is no earlier than *x, or no cut may come right after it (the
 * rest of its instruction follows). */
static void stretch_start(const cb_trace *t, const cbp_escape *esc, const cbp_candidate *c,
                          cbp_point *x, uint64_t *budget) {
   cbp_stretch s;
   if (!cbp_stretch_before(t, c->t1, c->e1, budget, &s) || s.n > c->ce1) return;
   uint64_t count = c->ce1 - s.n; /* T1's counted events before the cut */
   if (s.at_start && count == 0 && x->count > 0)
      *x = (cbp_point){0, NONE};
   else if (!s.at_start && count < x->count && cbp_cut_ok(esc, s.sync))
      *x = (cbp_point){count, s.sync};
}

size_t cbp_cures(const cb_trace *t, cbp_analysis *a) {
   cbp_result *r = &a->r;
   size_t n = 0;
   uint64_t budget = CURE_BUDGET;
   for (size_t k = 0; k < r->n; k++) {
      cbp_candidate c = r->c[k];
      if (c.pattern != CBP_ORD) { /* set aside */
         cbp_candidate_free(&c);
         continue;
      }
      cbp_point x = c.x1;
      stretch_start(t, &a->x, &c, &x, &budget);
      if (x.count < c.x1.count &&
          cbp_vc_get(&a->v, c.seg_f, c.t1) <= x.count) {
         c.x1 = x;
         c.e = x.tidx == NONE ? c.e1 : x.tidx;
         c.ce = x.count - 1; /* wraps for a cut at 0: ce + 1 is the cut */
         c.ls_e = 0;
      }
      c.cure = 1;
      r->c[n++] = c;
   }
   r->n = n;
   a->cures = 1;
   cbp_cure_classes(t, a);
   return r->n;
}
