/* cure_moves.c: the recorded order with some stretches moved earlier, as a
 * schedule.
 *
 * Both kinds of cure that force more than one pair (cure_class.c: every
 * late reader of one line; cure_wake.c: every wait that came after the
 * signal meant for it) are the same schedule: the prefix keeps the
 * recorded order up to the first moved point (cbp_porder_for), and the
 * tail replays the recorded order from there, each thread's stretch moved
 * to just before its event w0, and lets every thread go after the last
 * moved event.  A stretch holds every counted event of its thread between
 * its bounds, so each thread's own order is kept.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include "predict.h"

#define NONE UINT64_MAX
#define MOVES_SPAN (1u << 16) /* trace events the tail may hold */

typedef struct {
   const cb_trace *t;
   const cbp_escape *x;
   const cbp_moved *in;
   size_t n;
} moves;

/* Appends one counted event of thread tid to the steps. */
static void add_event(cbp_candidate *c, size_t *cap, uint32_t tid) {
   if (c->ntail && c->tail[c->ntail - 1].tid == tid) { c->tail[c->ntail - 1].count++; return; }
   c->tail = cbp_grow(c->tail, cap, c->ntail, sizeof *c->tail);
   c->tail[c->ntail++] = (cbp_step){tid, 1};
}

/* Whether event i belongs to a moved stretch. */
static int moved(const moves *k, uint64_t i) {
   const cb_event *e = &k->t->events[i];
   for (size_t j = 0; j < k->n; j++)
      if (e->tid == k->in[j].u && i >= k->in[j].from && i <= k->in[j].r) return 1;
   return 0;
}

/* One counted event into the steps; 0 when the step before it would end
 * inside an instruction. */
static int step(const moves *k, cbp_candidate *c, size_t *cap, uint64_t *last, uint64_t i) {
   const cb_event *e = &k->t->events[i];
   if (*last != NONE && k->t->events[*last].tid != e->tid && !cbp_cut_ok(k->x, *last))
      return 0;
   add_event(c, cap, e->tid);
   *last = i;
   return 1;
}

/* The tail: the recorded order of the counted events in [p0, p1], each
 * stretch moved to just before its w0.  0 when a step would end inside an
 * instruction. */
static int build_tail(const moves *k, cbp_candidate *c, uint64_t p0, uint64_t p1) {
   size_t cap = 0;
   uint64_t last = NONE; /* the event the current step ends with */
   for (uint64_t i = p0; i <= p1; i++) {
      for (size_t j = 0; j < k->n; j++) {
         if (k->in[j].w0 != i) continue;
         for (uint64_t m = k->in[j].from; m <= k->in[j].r; m++) {
            const cb_event *e = &k->t->events[m];
            if (e->tid != k->in[j].u || !cbp_counted_event(e, k->x->nthreads)) continue;
            if (!step(k, c, &cap, &last, m)) return 0;
         }
      }
      const cb_event *e = &k->t->events[i];
      if (!cbp_counted_event(e, k->x->nthreads) || moved(k, i)) continue;
      if (!step(k, c, &cap, &last, i)) return 0;
   }
   return last == NONE || cbp_cut_ok(k->x, last);
}

/* The prefix: every thread's counted events before p0, each ending where a
 * cut may come. */
static int build_prefix(const moves *k, cbp_rf *rf, cbp_candidate *c, uint64_t p0) {
   uint32_t n = k->x->nthreads;
   c->prefix = cbp_xcalloc(n, sizeof *c->prefix);
   for (uint32_t j = 1; j <= n; j++) {
      c->prefix[j - 1] = cbp_rf_count_at(rf, j, p0);
      uint64_t at = c->prefix[j - 1] ? cbp_rf_trace_index(rf, j, c->prefix[j - 1] - 1) : NONE;
      if (at != NONE && !cbp_cut_ok(k->x, at)) return 0;
   }
   return 1;
}

int cbp_moved_schedule(const cb_trace *t, const cbp_escape *x, cbp_rf *rf,
                       const cbp_moved *in, size_t n, cbp_candidate *c, uint64_t *p0_out) {
   moves k = {t, x, in, n};
   uint64_t p0 = NONE, p1 = 0;
   for (size_t j = 0; j < n; j++) {
      if (in[j].from < p0) p0 = in[j].from;
      if (in[j].w0 < p0) p0 = in[j].w0;
      if (in[j].r > p1) p1 = in[j].r;
   }
   *p0_out = p0;
   return n && p1 - p0 < MOVES_SPAN && build_prefix(&k, rf, c, p0) &&
          build_tail(&k, c, p0, p1);
}
