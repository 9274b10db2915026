/* fresh.c: exploration's new paths first (cbpredict --base TRACE).
 *
 * cbtest explores a test whose predicted schedules confirmed nothing: it
 * forces delays, records each forced run, and predicts again from those
 * traces (reschedule/batch/cbtest_explore.c).  The point of a round is the
 * code the test's own recording never ran: list_fast's unlocked
 * `len == 1` fast path shows up in one forced run's trace, and the
 * round's few schedules (--max is what is left of the budget) must be
 * about that path, not about the dozens of violations on lines every
 * trace has.  So a candidate whose e1, f or e2 is on a source line the
 * base trace (the test's recording) has no event at is fresh: fresh ones
 * are built first (synthesis takes candidates in order up to --max),
 * those whose three events are closest in the trace first, and rank first
 * (rank.c); among the others the order stays what it was.  Lines are compared by file name and line, which
 * stay the same from run to run when addresses need not.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "rank.h"

/* A location's key: its file name's FNV-1a hash mixed with its line; 0
 * for an unknown one (no file or no line), which is never fresh. */
uint64_t cbp_line_key(const cb_location *l) {
   if (!l->file[0] || !l->line) return 0;
   uint64_t h = 1469598103934665603ull;
   for (const char *p = l->file; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
   return cbp_mix(h ^ ((uint64_t)l->line << 1)) | 1;
}

static int cmp_u64(const void *a, const void *b) {
   uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
   return x < y ? -1 : x > y;
}

/* The sorted keys of the lines base has events at; *n of them. */
static uint64_t *base_lines(const cb_trace *base, size_t *n) {
   uint8_t *used = cbp_xcalloc(base->nlocs ? base->nlocs : 1, 1);
   for (size_t i = 0; i < base->nevents; i++)
      if (base->events[i].loc < base->nlocs) used[base->events[i].loc] = 1;
   uint64_t *k = cbp_xcalloc(base->nlocs ? base->nlocs : 1, sizeof *k);
   *n = 0;
   for (size_t l = 0; l < base->nlocs; l++)
      if (used[l] && (k[*n] = cbp_line_key(&base->locs[l])) != 0) (*n)++;
   free(used);
   qsort(k, *n, sizeof *k, cmp_u64);
   return k;
}

static int at_new_line(const cb_trace *t, const uint8_t *fresh_loc, uint64_t i) {
   return i < t->nevents && t->events[i].loc < t->nlocs && fresh_loc[t->events[i].loc];
}

/* How much of the trace lies between the pattern's first and last event.
 * A new path is often taken more than once in a run (list_fast's fast
 * path, whenever one producer got ahead), and the violation whose events
 * are close needs the least of the recorded run moved: the one that pairs
 * the fast path with a push 785,000 events earlier holds that producer
 * back while main spins on values the producer wrote after. */
static uint64_t span(const cbp_candidate *c) {
   uint64_t lo = c->e1, hi = c->e1;
   if (c->f < lo) lo = c->f;
   if (c->f > hi) hi = c->f;
   if (c->e2 < lo) lo = c->e2;
   if (c->e2 > hi) hi = c->e2;
   return hi - lo;
}

typedef struct { int old; uint64_t span; size_t at; } spanned;

static int cmp_spanned(const void *a, const void *b) {
   const spanned *x = a, *y = b;
   if (x->old != y->old) return x->old - y->old;
   if (!x->old && x->span != y->span) return x->span < y->span ? -1 : 1;
   return x->at < y->at ? -1 : x->at > y->at;
}

size_t cbp_prefer_fresh(const cb_trace *t, const cb_trace *base, cbp_result *r) {
   size_t nk, fresh = 0;
   uint64_t *keys = base_lines(base, &nk);
   uint8_t *fresh_loc = cbp_xcalloc(t->nlocs ? t->nlocs : 1, 1);
   for (size_t l = 0; l < t->nlocs; l++) {
      uint64_t k = cbp_line_key(&t->locs[l]);
      fresh_loc[l] = k && !bsearch(&k, keys, nk, sizeof *keys, cmp_u64);
   }
   free(keys);
   for (size_t i = 0; i < r->n; i++) {
      cbp_candidate *c = &r->c[i];
      c->fresh = at_new_line(t, fresh_loc, c->e1) || at_new_line(t, fresh_loc, c->f) ||
                 at_new_line(t, fresh_loc, c->e2);
      fresh += c->fresh;
   }
   free(fresh_loc);
   if (!fresh) return 0;
   /* The fresh ones first, the shortest span of trace first; the others
    * after them in their order. */
   spanned *o = cbp_xcalloc(r->n, sizeof *o);
   for (size_t i = 0; i < r->n; i++) o[i] = (spanned){!r->c[i].fresh, span(&r->c[i]), i};
   qsort(o, r->n, sizeof *o, cmp_spanned);
   cbp_result_permute(r, &o[0].at, sizeof *o);
   free(o);
   return fresh;
}
