/* z3_predict.c: `cbpredict --z3`, the Z3 feasibility check (z3_check.h) as
 * the keep hook of cbp_build_schedules.
 *
 * Each candidate is asked, just before its schedule would be built: an
 * atomicity violation whether e1, f, e2 can run in that order; an order
 * violation (ORD) whether f can run before e1 = e2; a deadlock (DLK) of two
 * threads whether both can hold their first lock at once, each about to
 * request the other's.  UNSAT drops it (no execution consistent with the
 * trace up to the cut has it, a proof: z3_window.h); UNKNOWN (time limit,
 * an incomplete window, a shape the encoding does not take: a free as f, a
 * cycle of three threads or more) keeps it as without --z3; SAT keeps it
 * and remembers the model's order.  A query is first asked with the events
 * before synthesis' cut in their recorded order (a model of it keeps them
 * as the schedule's free prefix); when that finds no witness, again from
 * the trace's start (the limit may move it, and then an UNSAT is no proof).
 *
 * After synthesis, a SAT candidate's schedule becomes the model's order when
 * replay can follow it (cbp_plan_check: the prefix holds every create the
 * tail needs, no switch inside one instruction, no lock taken while another
 * thread holds it), and only then does the schedule say "sat"; otherwise
 * synthesis' own schedule stays and says "unknown".  Synthesis still runs
 * on every kept candidate: it is cheap, and it is the fallback.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "predict.h"
#include "z3_check.h"

typedef struct {
   cb_z3 *z;           /* started at the first query: ~50 ms of Z3 set-up
                          that a trace without candidates does not pay */
   int failed;         /* Z3 could not start */
   cbp_z3_summary *s;
   uint64_t **prefix;  /* per candidate index: the model's plan, or NULL */
   cbp_step **tail;
   uint32_t *ntail;
} z3ctx;

/* Where synthesis' prefix would end at the latest: the first of T1's and
 * T2's last empty-lockset cuts, and never after e1 or f. */
static size_t synthesis_cut(const cbp_candidate *c) {
   uint64_t p1 = c->x1.tidx == UINT64_MAX ? 0 : c->x1.tidx + 1;
   uint64_t p2 = c->x2.tidx == UINT64_MAX ? 0 : c->x2.tidx + 1;
   uint64_t wb = p1 < p2 ? p1 : p2;
   if (wb > c->e1) wb = c->e1;
   if (wb > c->f) wb = c->f;
   return (size_t)wb;
}

static void add_step(cbp_step **tail, uint32_t *n, size_t *cap, uint32_t tid, uint64_t k) {
   if (!k) return;
   if (*n && (*tail)[*n - 1].tid == tid) { (*tail)[*n - 1].count += k; return; }
   *tail = cbp_grow(*tail, cap, *n, sizeof **tail);
   (*tail)[(*n)++] = (cbp_step){tid, k};
}

/* The model's prefix is the recorded run before the window, so T1 and T2
 * may run part of it, racing with the other threads there (replay runs the
 * prefix freely interleaved), and two replays of one schedule differ before
 * the tail.  As synthesis does (lower_tail_threads), lower T1 and T2 to the
 * least counts the other threads' prefixes need of them and run the rest
 * first in the tail, in recorded order.  Returns 0 when there is nothing
 * to lower; the caller checks the lowered plan and keeps the model's own
 * when replay could not follow it. */
static int lower_pattern_threads(const cb_trace *t, const cbp_analysis *a,
                                 const cbp_candidate *c, const uint64_t *prefix,
                                 const cbp_step *tail, uint32_t ntail,
                                 uint64_t *lo, cbp_step **out, uint32_t *nout) {
   uint32_t n = a->x.nthreads, tt[2] = {c->t1, c->t2};
   memcpy(lo, prefix, n * sizeof *lo);
   for (int k = 0; k < 2; k++) {
      uint32_t j = tt[k];
      uint64_t need = 0;
      for (uint32_t i = 1; i <= n; i++) {
         if (i == c->t1 || i == c->t2 || !prefix[i - 1]) continue;
         uint64_t x = cbp_vc_get(&a->v, cbp_vc_seg_at(&a->v, i, prefix[i - 1] - 1), j);
         if (x > need) need = x;
      }
      if (need < lo[j - 1]) lo[j - 1] = need;
   }
   if (lo[c->t1 - 1] == prefix[c->t1 - 1] && lo[c->t2 - 1] == prefix[c->t2 - 1]) return 0;
   /* T1's and T2's events between the lowered and the model's counts, in
    * the recorded order. */
   size_t cap = 0;
   *out = NULL; *nout = 0;
   uint64_t cnt[2] = {0, 0};
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      if (e->kind >= CB_EV_KIND_COUNT || !CB_IS_COUNTED(e->kind)) continue;
      int k = e->tid == c->t1 ? 0 : e->tid == c->t2 ? 1 : -1;
      if (k < 0) continue;
      uint32_t j = tt[k];
      if (cnt[k] >= lo[j - 1] && cnt[k] < prefix[j - 1]) add_step(out, nout, &cap, j, 1);
      cnt[k]++;
      if (cnt[0] >= prefix[c->t1 - 1] && cnt[1] >= prefix[c->t2 - 1]) break;
   }
   for (uint32_t s = 0; s < ntail; s++) add_step(out, nout, &cap, tail[s].tid, tail[s].count);
   return 1;
}

/* A two-thread deadlock's g: T2's request of T1's first lock (e1's), its
 * first after f while it still holds f's; SIZE_MAX when the trace has
 * none. */
static size_t dlk_request(const cb_trace *t, const cbp_candidate *c) {
   const cb_event *ev = t->events;
   for (size_t i = (size_t)c->f + 1; i < t->nevents; i++) {
      if (ev[i].tid != c->t2) continue;
      if (ev[i].kind == CB_EV_UNLOCK && ev[i].addr == ev[c->f].addr) break;
      if (ev[i].kind == CB_EV_LOCK && ev[i].addr == ev[c->e1].addr && ev[i].value != 1)
         return i;
   }
   return SIZE_MAX;
}

/* The query of candidate c, or NULL with why when the encoding does not
 * take its shape. */
static const char *query_of(const cb_trace *t, const cbp_analysis *a,
                            const cbp_candidate *c, cb_z3_query *q) {
   memset(q, 0, sizeof *q);
   q->e1 = c->e1; q->f = c->f; q->e2 = c->e2;
   q->hb = &a->hb;
   if (c->pattern == CBP_ORD) q->kind = CB_Z3_ORDER;
   if (c->pattern != CBP_DLK) return NULL;
   if (c->nmore) return "a deadlock cycle of three threads or more is not encoded";
   q->kind = CB_Z3_DEADLOCK;
   q->g = dlk_request(t, c);
   return q->g == SIZE_MAX ? "T2's request of T1's lock is not in the trace" : NULL;
}

static void count(z3ctx *k, cb_z3_verdict v) {
   k->s->asked++;
   if (v == CB_Z3_UNSAT) k->s->dropped++;
   else if (v == CB_Z3_UNKNOWN) k->s->undecided++;
   else k->s->sat++;
   if (k->s->on_query && k->z) {
      cb_z3_stats st;
      cb_z3_get_stats(k->z, &st);
      k->s->solver_ms = st.solver_ms;
      k->s->on_query(k->s);
   }
}

static int keep(void *ctx, const cb_trace *t, cbp_analysis *a, cbp_candidate *c) {
   z3ctx *k = ctx;
   if (k->failed) return 1;
   if (!k->z && !(k->z = cb_z3_new(k->s->timeout_ms, k->s->window))) {
      k->failed = 1;
      return 1;
   }
   cb_z3_query q;
   cb_z3_result res;
   if (query_of(t, a, c, &q)) {
      count(k, CB_Z3_UNKNOWN);
      c->z3 = "unknown";
      return 1;
   }
   /* First with the events before synthesis' cut in recorded order: its
    * model keeps them as the schedule's free prefix (replay runs it as
    * recorded).  Only that witness's absence needs the whole trace, from
    * its start: the proof. */
   q.window_begin = synthesis_cut(c);
   cb_z3_verdict verdict = cb_z3_check(k->z, t, &q, &res);
   if (verdict != CB_Z3_SAT && q.window_begin > 0) {
      q.window_begin = 0;
      verdict = cb_z3_check(k->z, t, &q, &res);
   }
   count(k, verdict);
   switch (verdict) {
   case CB_Z3_UNSAT:
      c->why = c->pattern == CBP_DLK ? "z3: no execution consistent with the trace holds "
                                       "both first locks at once"
               : c->pattern == CBP_ORD ? "z3: no execution consistent with the trace runs f "
                                         "before e1"
               : "z3: no execution consistent with the trace runs e1, f, e2 in that order";
      return 0;
   case CB_Z3_UNKNOWN:
      c->z3 = "unknown";
      return 1;
   case CB_Z3_SAT:
      break;
   }
   c->z3 = "sat";
   uint32_t n = a->x.nthreads;
   size_t i = (size_t)(c - a->r.c);
   uint64_t *prefix = cbp_xcalloc(n ? n : 1, sizeof *prefix);
   cb_z3_step *steps = cbp_xcalloc(res.norder ? res.norder : 1, sizeof *steps);
   size_t ns = cb_z3_to_schedule(t, &res, prefix, n, steps);
   cbp_step *tail = cbp_xcalloc(ns ? ns : 1, sizeof *tail);
   for (size_t s = 0; s < ns; s++) tail[s] = (cbp_step){steps[s].tid, steps[s].count};
   free(steps);
   free(k->prefix[i]); free(k->tail[i]);
   k->prefix[i] = prefix; k->tail[i] = tail; k->ntail[i] = (uint32_t)ns;
   return 1;
}

int cbp_z3_build_schedules(const cb_trace *t, cbp_analysis *a, size_t max,
                           cbp_z3_summary *s, size_t *built) {
   size_t n = a->r.n;
   z3ctx k = {NULL, 0, s,
              cbp_xcalloc(n ? n : 1, sizeof(uint64_t *)),
              cbp_xcalloc(n ? n : 1, sizeof(cbp_step *)),
              cbp_xcalloc(n ? n : 1, sizeof(uint32_t))};
   s->candidates = n;
   *built = cbp_build_schedules(t, a, max, keep, &k);
   int rc = k.failed ? -1 : 0;
   for (size_t i = 0; i < n; i++) {
      cbp_candidate *c = &a->r.c[i];
      if (!k.prefix[i] || !c->built || c->dropped) continue;
      uint64_t *lo = cbp_xcalloc(a->x.nthreads ? a->x.nthreads : 1, sizeof *lo);
      cbp_step *lt; uint32_t nlt;
      if (lower_pattern_threads(t, a, c, k.prefix[i], k.tail[i], k.ntail[i], lo, &lt, &nlt)) {
         if (!cbp_plan_check(t, &a->x, &a->v, a->L, lo, lt, nlt)) {
            free(k.prefix[i]); free(k.tail[i]);
            k.prefix[i] = lo; k.tail[i] = lt; k.ntail[i] = nlt;
            lo = NULL;
         } else {
            free(lt);
         }
      }
      free(lo);
      if (cbp_plan_check(t, &a->x, &a->v, a->L, k.prefix[i], k.tail[i], k.ntail[i])) {
         s->model_rejected++;
         c->z3 = "unknown"; /* the schedule written is not the model's */
         continue;
      }
      free(c->prefix); free(c->tail);
      c->prefix = k.prefix[i]; c->tail = k.tail[i]; c->ntail = k.ntail[i];
      /* The alternates were built on synthesis' prefix, not the model's. */
      for (int j = 0; j < CBP_NALT; j++) { free(c->alt[j]); c->alt[j] = NULL; c->nalt[j] = 0; }
      k.prefix[i] = NULL; k.tail[i] = NULL;
      c->z3_order = 1;
      s->model_orders++;
   }
   if (k.z) {
      cb_z3_stats st;
      cb_z3_get_stats(k.z, &st);
      s->solver_ms = st.solver_ms;
      cb_z3_free(k.z);
   }
   for (size_t i = 0; i < n; i++) { free(k.prefix[i]); free(k.tail[i]); }
   free(k.prefix); free(k.tail); free(k.ntail);
   return rc;
}
