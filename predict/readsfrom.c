/* readsfrom.c: does moving a thread's events later change what it reads?
 *
 * Synthesis lowers T1's and T2's prefixes so that their events run alone in
 * the tail, after every other thread's prefix (synthesis.c,
 * lower_tail_threads).  That is sound for locks and happens-before, but a
 * read moved that way can see another value: a consumer's first check of
 * `count == 0` moved after the producer's put reads 1, takes the other
 * branch, and the plan's counts no longer match its path (the forced run
 * ends "exited in its turn").  The check: a read of variable v by thread j
 * at trace index i, moved behind the other prefixes, reads differently when
 * another thread's prefix holds a write of v after i in the trace.
 *
 * Per thread, the trace index of each counted event is kept (8 bytes per
 * counted event, built once per synthesis run).  The forward scan from a
 * read stops at the end of the other prefixes, or after RF_SCAN events
 * (beyond that a conflict is not looked for).
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>

#include "predict.h"

#define RF_SCAN (1u << 20)

struct cbp_rf {
   const cb_trace *t;
   const cbp_escape *x;
   uint64_t **pos; /* per thread 1..n: trace index of counted event k */
};

cbp_rf *cbp_rf_new(const cb_trace *t, const cbp_escape *x) {
   cbp_rf *rf = cbp_xcalloc(1, sizeof *rf);
   uint32_t n = x->nthreads;
   rf->t = t; rf->x = x;
   rf->pos = cbp_xcalloc(n + 1, sizeof *rf->pos);
   uint64_t *k = cbp_xcalloc(n + 1, sizeof *k);
   for (uint32_t j = 1; j <= n; j++)
      rf->pos[j] = cbp_xcalloc(x->counted[j] ? x->counted[j] : 1, sizeof **rf->pos);
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      if (e->tid == 0 || e->tid > n || e->kind >= CB_EV_KIND_COUNT || !CB_IS_COUNTED(e->kind))
         continue;
      if (k[e->tid] < x->counted[e->tid]) rf->pos[e->tid][k[e->tid]++] = i;
   }
   free(k);
   return rf;
}

const uint64_t *cbp_rf_positions(const cbp_rf *rf, uint32_t j) {
   return rf->pos[j];
}

void cbp_rf_free(cbp_rf *rf) {
   if (!rf) return;
   for (uint32_t j = 0; j <= rf->x->nthreads; j++) free(rf->pos[j]);
   free(rf->pos);
   free(rf);
}

/* The trace index just past thread k's prefix of `count` events. */
static uint64_t prefix_end(const cbp_rf *rf, uint32_t k, uint64_t count) {
   if (!count) return 0;
   if (count > rf->x->counted[k]) count = rf->x->counted[k];
   return rf->pos[k][count - 1] + 1;
}

int cbp_rf_moves_read(const cbp_rf *rf, const uint64_t *prefix, uint32_t j,
                      uint64_t from, uint64_t to) {
   uint32_t n = rf->x->nthreads;
   uint64_t last = 0; /* where the other prefixes end in the trace */
   for (uint32_t k = 1; k <= n; k++) {
      if (k == j) continue;
      uint64_t e = prefix_end(rf, k, prefix[k - 1]);
      if (e > last) last = e;
   }
   if (to > rf->x->counted[j]) to = rf->x->counted[j];
   for (uint64_t c = from; c < to; c++) {
      uint64_t i = rf->pos[j][c];
      const cb_event *r = &rf->t->events[i];
      uint32_t v = rf->x->var_of[i];
      if (r->kind != CB_EV_READ || !v || !rf->x->var_shared[v]) continue;
      uint64_t stop = last < i + RF_SCAN ? last : i + RF_SCAN;
      for (uint64_t w = i + 1; w < stop; w++) {
         const cb_event *e = &rf->t->events[w];
         if (e->kind != CB_EV_WRITE || e->tid == j || rf->x->var_of[w] != v) continue;
         if (e->tid <= n && w < prefix_end(rf, e->tid, prefix[e->tid - 1])) return 1;
      }
   }
   return 0;
}
