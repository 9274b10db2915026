/* close_prefix.c: pass C's last step (synthesis.c builds the rest): a
 * schedule's prefix closed over what its tail needs, and where each thread
 * may stop (a count after which it holds no lock and is not inside an
 * instruction).
 *
 * Why: replay runs the prefix counts freely interleaved, then each tail step
 * with every other thread stopped, so every event that happens before a
 * tail event (vector clocks: create, join, barrier, consumed signal, and
 * each thread's own order) must be in the prefix or earlier in the tail.
 * Region I is cut where the earlier of T1 and T2 stops; a third thread
 * stopped there (typically main) may not yet have created the later one,
 * which then never exists, and the plan stalls in its first tail step
 * (rww.c: main's second pthread_create).  So every thread that does not
 * run in the tail is raised to the first cut that covers what the tail and
 * the raised prefixes need and where it holds no lock (it waits there while
 * the tail runs, and must not hold a lock T1 or T2 takes).  T1's and T2's
 * own prefixes are fixed by the pattern up to their cuts: a raised prefix
 * may need them further, but not past (main joins a worker it created
 * after the unjoined one's cut: main runs through that create in the
 * prefix, tail_raise).  When they would have to move further, or the tail
 * runs a thread before an event it needs, the candidate is dropped rather
 * than written as a plan that cannot be followed.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict.h"

#define NONE UINT64_MAX

/* Filled by synthesis.c's sweep, count by count. */
void cbp_bad_cut(cbp_ranges *r, uint64_t c) {
   if (r->n && r->v[r->n - 1].hi + 1 == c) { r->v[r->n - 1].hi = c; return; }
   r->v = cbp_grow(r->v, &r->cap, r->n, sizeof *r->v);
   r->v[r->n++] = (cbp_range){c, c};
}

void cbp_bad_cuts_free(cbp_ranges *b, uint32_t n) {
   for (uint32_t j = 0; j <= n; j++) free(b[j].v);
   free(b);
}

/* The first count >= c where the thread may stop (NONE: none left). */
uint64_t cbp_next_cut(const cbp_ranges *r, uint64_t total, uint64_t c) {
   size_t lo = 0, hi = r->n;
   while (lo < hi) { /* first range with hi >= c */
      size_t m = (lo + hi) / 2;
      if (r->v[m].hi < c) lo = m + 1; else hi = m;
   }
   if (lo < r->n && r->v[lo].lo <= c) c = r->v[lo].hi + 1;
   return c <= total ? c : NONE;
}

/* The last count <= c where the thread may stop (0 always may). */
uint64_t cbp_prev_cut(const cbp_ranges *r, uint64_t c) {
   size_t lo = 0, hi = r->n;
   while (lo < hi) { /* first range with hi >= c */
      size_t m = (lo + hi) / 2;
      if (r->v[m].hi < c) lo = m + 1; else hi = m;
   }
   return lo < r->n && r->v[lo].lo <= c ? r->v[lo].lo - 1 : c;
}

static int in_tail(const cbp_candidate *c, uint32_t j) {
   if (j == c->t1 || j == c->t2) return 1;
   for (uint32_t k = 0; k < c->nmore; k++)
      if (c->more[k].tid == j) return 1;
   return 0;
}

/* The cut T1 or T2 may be raised to so that its prefix covers its first
 * `need` events: the first lock-free cut at or after need, if it is not
 * past the thread's own cut (x1, x2); else NONE.  Only the pair of an
 * atomicity or order violation moves: a deadlock's cycle is fixed. */
static uint64_t tail_raise(const cbp_escape *x, const cbp_ranges *bad, const cbp_candidate *c,
                           uint32_t j, uint64_t need) {
   if (c->pattern == CBP_DLK || c->nmore || (j != c->t1 && j != c->t2)) return NONE;
   uint64_t lim = j == c->t1 ? c->x1.count : c->x2.count;
   if (c->t1 == c->t2 || need > lim) return NONE;
   uint64_t to = cbp_next_cut(&bad[j], x->counted[j], need);
   return to != NONE && to <= lim ? to : NONE;
}

/* Raises the non-tail threads of c's prefix; NULL, or why it cannot be.
 * When a raised prefix waits for T1 or T2 past its cut but that thread
 * may stop later, short of its own cut (tail_raise), *raise says where,
 * and the caller builds the tail again from there: main's prefix that
 * joins a worker created after T1's cut (the worker's start needs main's
 * create, which the tail was to run). */
const char *cbp_close_prefix(const cbp_escape *x, const cbp_vclock *v,
                             const cbp_ranges *bad, cbp_candidate *c,
                             uint64_t *need, uint64_t *end, cbp_raise_to *raise) {
   uint32_t n = x->nthreads;
   static char why[128];
   for (int changed = 1; changed;) {
      changed = 0;
      memset(need, 0, (n + 1) * sizeof *need);
      /* What the prefix itself waits for. */
      for (uint32_t i = 1; i <= n; i++) {
         if (!c->prefix[i - 1]) continue;
         const cbp_vc_ent *vc;
         size_t nvc = cbp_vc_entries(v, cbp_vc_seg_at(v, i, c->prefix[i - 1] - 1), &vc);
         for (size_t q = 0; q < nvc; q++) {
            uint32_t j = vc[q].tid;
            if (j == i || j > n || vc[q].count <= need[j]) continue;
            need[j] = vc[q].count;
            if (in_tail(c, j) && need[j] > c->prefix[j - 1]) {
               uint64_t to = tail_raise(x, bad, c, j, need[j]);
               if (to != NONE) *raise = (cbp_raise_to){j, to};
               snprintf(why, sizeof why, "the prefix of T%u waits for T%u past its cut", i, j);
               return why;
            }
         }
      }
      /* What each tail step waits for, in order. */
      for (uint32_t j = 1; j <= n; j++) end[j] = c->prefix[j - 1];
      for (uint32_t s = 0; s < c->ntail; s++) {
         uint32_t w = c->tail[s].tid;
         end[w] += c->tail[s].count;
         const cbp_vc_ent *vc;
         size_t nvc = cbp_vc_entries(v, cbp_vc_seg_at(v, w, end[w] - 1), &vc);
         for (size_t q = 0; q < nvc; q++) {
            uint32_t j = vc[q].tid;
            if (j == w || j > n) continue;
            if (in_tail(c, j)) {
               if (vc[q].count > end[j]) {
                  snprintf(why, sizeof why, "the tail runs T%u before events of T%u it needs", w, j);
                  return why;
               }
            } else if (vc[q].count > need[j]) {
               need[j] = vc[q].count;
            }
         }
      }
      for (uint32_t j = 1; j <= n; j++) {
         if (in_tail(c, j) || need[j] <= c->prefix[j - 1]) continue;
         uint64_t to = cbp_next_cut(&bad[j], x->counted[j], need[j]);
         if (to == NONE) {
            snprintf(why, sizeof why, "T%u holds a lock after the events the tail needs", j);
            return why;
         }
         c->prefix[j - 1] = to;
         changed = 1;
      }
   }
   return NULL;
}
