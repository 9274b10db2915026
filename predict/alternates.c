/* alternates.c: the alternate tails of a candidate (issue: one interleaving
 * per candidate loses bugs).  The main tail runs f's thread (T2) through f
 * and its release of locks, then e1's thread (T1) through e2, then everyone.
 * When a forced run of it passes, replay forces these in order:
 *   F_FIRST      T2 runs on alone (to its exit or a block) before e2;
 *   E2_ON        T1 runs on alone after e2;
 *   OTHERS_FIRST every other thread runs on alone before T1 goes on;
 *   F_ON         T2 runs on through its next write of another shared
 *                variable that T1 touches after e2, then T1 on alone;
 *   F_LAST       T1 on alone after e2, then every thread waiting on a
 *                condition there on alone, T2 last: a waiter that f's
 *                signal woke finds the item that T1 took before the
 *                producer can add the next one;
 *   F_HELD       an order violation whose f is a waiter's check of its
 *                predicate, under the lock of the wait, and whose T1 does
 *                not take that lock: T2 stops just after f, still in its
 *                critical section, and T1 runs through e2 and on alone
 *                (its signal among it), then everyone.  The waiter read
 *                the old value and then waits for a signal already sent:
 *                the lost wake-up of a flag set and signalled without
 *                the mutex (the main tail runs T2 into its wait first,
 *                and the signal wakes it).  Also one whose f is a write
 *                in a critical section that T1 reaches without its lock:
 *                T1 sees the section half done (held_check.c).
 * F_ON is the second preemption that a home-made lock needs: T1 read the
 * flag free, T2 took it (f) and went on into its critical section (the
 * write), and only then T1 takes it too (e2) and walks in.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "predict.h"

void cbp_alternates_clear(cbp_candidate *c) {
   for (int k = 0; k < CBP_NALT; k++) { free(c->alt[k]); c->alt[k] = NULL; c->nalt[k] = 0; }
}

/* steps[0..n) followed by (tid, count); a run-out absorbs the count step of
 * the same thread before it, a count step adds to it. */
static cbp_step *alt_of(const cbp_step *steps, uint32_t n, uint32_t tid, uint64_t count,
                        uint32_t *nout) {
   cbp_step *a = cbp_xcalloc(n + 1, sizeof *a);
   memcpy(a, steps, n * sizeof *a);
   if (n && a[n - 1].tid == tid && count == CBP_RUN_OUT) a[n - 1].count = CBP_RUN_OUT;
   else if (n && a[n - 1].tid == tid && a[n - 1].count != CBP_RUN_OUT) a[n - 1].count += count;
   else a[n++] = (cbp_step){tid, count};
   *nout = n;
   return a;
}

/* Thread j's counted position after the main tail's first through_f steps. */
static uint64_t done_after(const cbp_escape *x, const cbp_candidate *c, uint32_t through_f,
                           uint32_t j) {
   uint64_t done = c->prefix[j - 1];
   for (uint32_t s = 0; s < through_f; s++)
      if (c->tail[s].tid == j)
         done = c->tail[s].count == CBP_RUN_OUT ? x->counted[j] : done + c->tail[s].count;
   return done;
}

/* At most this many other threads run out one after another before e1's
 * thread goes on (each ends when it exits or blocks). */
#define ALT_OTHERS_MAX 8

/* Thread j's next counted event after the main tail's first through_f
 * steps is the return from a condition wait: it waits there. */
static int waits_after(const cbp_escape *x, const cbp_rf *rf, const cb_trace *t,
                       const cbp_candidate *c, uint32_t through_f, uint32_t j) {
   uint64_t k = done_after(x, c, through_f, j);
   if (k >= x->counted[j]) return 0;
   return t->events[cbp_rf_trace_index(rf, j, k)].kind == CB_EV_COND_WAIT;
}

/* Appends a run-out step for each thread but T1 and skip with events left
 * after the main tail's first through_f steps (only those waiting on a
 * condition when rf is given); the count added. */
static uint32_t others_run_out(const cb_trace *t, const cbp_escape *x, const cbp_rf *rf,
                               const cbp_candidate *c, uint32_t through_f, uint32_t skip,
                               cbp_step *a, uint32_t *k) {
   uint32_t cnt = 0;
   for (uint32_t j = 1; j <= x->nthreads && cnt < ALT_OTHERS_MAX; j++) {
      if (j == c->t1 || j == skip || done_after(x, c, through_f, j) >= x->counted[j]) continue;
      if (rf && !waits_after(x, rf, t, c, through_f, j)) continue;
      a[(*k)++] = (cbp_step){j, CBP_RUN_OUT};
      cnt++;
   }
   return cnt;
}

/* The main tail through f, then every other thread with events left runs
 * on alone, then T1 through e2: a checker that ran first in the recorded
 * run and must run last, after every thread it checks (an audit of two
 * accounts that both tellers must have updated).  NULL when no other
 * thread has events left. */
static cbp_step *others_first(const cb_trace *t, const cbp_escape *x,
                              const cbp_candidate *c, uint32_t through_f, uint32_t *nout) {
   cbp_step *a = cbp_xcalloc(through_f + ALT_OTHERS_MAX + 2, sizeof *a);
   memcpy(a, c->tail, through_f * sizeof *a);
   uint32_t k = through_f;
   if (!others_run_out(t, x, NULL, c, through_f, c->t1, a, &k)) { free(a); *nout = 0; return NULL; }
   a[k++] = (cbp_step){c->t1, c->ce2 - c->ce};
   *nout = k;
   return a;
}

/* The main tail through f, T1 through e2 and on alone, then every thread
 * but T2 that waits on a condition there on alone.  NULL when none waits
 * (the main tail's E2_ON variant would be much the same run). */
static cbp_step *f_last(const cb_trace *t, const cbp_escape *x, const cbp_rf *rf,
                        const cbp_candidate *c, uint32_t through_f, uint32_t *nout) {
   cbp_step *a = cbp_xcalloc(through_f + ALT_OTHERS_MAX + 2, sizeof *a);
   memcpy(a, c->tail, through_f * sizeof *a);
   uint32_t k = through_f;
   a[k++] = (cbp_step){c->t1, CBP_RUN_OUT};
   if (!others_run_out(t, x, rf, c, through_f, c->t2, a, &k)) { free(a); *nout = 0; return NULL; }
   *nout = k;
   return a;
}

/* How far the scans below look, in trace events. */
#define F_ON_SCAN 4096

/* Whether T1 touches variable var after e2 (within F_ON_SCAN events). */
static int t1_uses_later(const cb_trace *t, const cbp_escape *x, const cbp_candidate *c,
                         uint32_t var) {
   size_t end = t->nevents - c->e2 > F_ON_SCAN ? c->e2 + F_ON_SCAN : t->nevents;
   for (size_t i = c->e2 + 1; i < end; i++)
      if (t->events[i].tid == c->t1 && x->var_of[i] == var &&
          (t->events[i].kind == CB_EV_READ || t->events[i].kind == CB_EV_WRITE))
         return 1;
   return 0;
}

/* The main tail through f, T2 on through its next write (after that) of a
 * shared variable other than the candidate's that T1 touches after e2,
 * then T1 on alone.  NULL when T2 has no such write near. */
static cbp_step *f_on(const cb_trace *t, const cbp_escape *x, const cbp_candidate *c,
                      uint32_t through_f, uint32_t *nout) {
   uint64_t done = done_after(x, c, through_f, c->t2), cnt = c->cf + 1;
   /* Under a lock the lock keeps T1 out: only flags built by hand. */
   if (c->ls_f || c->f_uncounted || done == CBP_RUN_OUT || done >= x->counted[c->t2]) return NULL;
   size_t end = t->nevents - c->f > F_ON_SCAN ? c->f + F_ON_SCAN : t->nevents;
   for (size_t i = c->f + 1; i < end; i++) {
      const cb_event *e = &t->events[i];
      if (e->tid != c->t2 || e->kind >= CB_EV_KIND_COUNT || !CB_IS_COUNTED(e->kind)) continue;
      uint64_t at = cnt++;
      if (at < done || e->kind != CB_EV_WRITE) continue;
      uint32_t var = x->var_of[i];
      if (!var || var == c->var || !x->var_shared[var]) continue;
      if (!t1_uses_later(t, x, c, var)) return NULL;
      /* A split store is the rest of its instruction: through it. */
      uint32_t n;
      cbp_step *a = alt_of(c->tail, through_f, c->t2, at + 1 - done, &n);
      cbp_step *b = alt_of(a, n, c->t1, CBP_RUN_OUT, nout);
      free(a);
      return b;
   }
   return NULL;
}

/* The main tail through f but not T2's release after it, then T1 on
 * alone.  NULL when T2 has nothing to release. */
static cbp_step *f_held(const cbp_candidate *c, uint32_t through_f, uint32_t *nout) {
   *nout = 0;
   if (!through_f || !c->f_rel || c->tail[through_f - 1].tid != c->t2 ||
       c->tail[through_f - 1].count <= c->f_rel)
      return NULL;
   cbp_step *a = cbp_xcalloc(through_f + 1, sizeof *a);
   memcpy(a, c->tail, through_f * sizeof *a);
   a[through_f - 1].count -= c->f_rel;
   a[through_f] = (cbp_step){c->t1, CBP_RUN_OUT};
   *nout = through_f + 1;
   return a;
}

void cbp_alternates_build(const cb_trace *t, const cbp_escape *x, const cbp_rf *rf,
                          cbp_candidate *c, uint32_t through_f, int held_ok) {
   cbp_alternates_clear(c);
   uint32_t n;
   cbp_step *a = alt_of(c->tail, through_f, c->t2, CBP_RUN_OUT, &n);
   c->alt[CBP_ALT_F_FIRST] = alt_of(a, n, c->t1, c->ce2 - c->ce, &c->nalt[CBP_ALT_F_FIRST]);
   free(a);
   c->alt[CBP_ALT_E2_ON] = alt_of(c->tail, c->ntail, c->t1, CBP_RUN_OUT,
                                  &c->nalt[CBP_ALT_E2_ON]);
   c->alt[CBP_ALT_OTHERS_FIRST] = others_first(t, x, c, through_f,
                                               &c->nalt[CBP_ALT_OTHERS_FIRST]);
   c->alt[CBP_ALT_F_ON] = f_on(t, x, c, through_f, &c->nalt[CBP_ALT_F_ON]);
   c->alt[CBP_ALT_F_LAST] = f_last(t, x, rf, c, through_f, &c->nalt[CBP_ALT_F_LAST]);
   if (held_ok)
      c->alt[CBP_ALT_F_HELD] = f_held(c, through_f, &c->nalt[CBP_ALT_F_HELD]);
}
