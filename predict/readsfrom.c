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
 * Per thread, the trace index of each counted event is kept (4 bytes per
 * counted event, 8 on a trace of 2^32 events or more: the index is built
 * when cbpredict's memory peaks), and per shared variable the trace
 * indices of its writes, in trace order, with their threads and the
 * length of each thread's run of them (16 bytes per write), both built once
 * per synthesis run.  From a read, the writes after it are looked up by
 * binary search and followed until the end of the other prefixes, or
 * RF_SCAN events after the read (beyond that a conflict is not looked
 * for): the cost is the writes of that one variable in the window, never
 * the window's events.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>

#include "predict.h"

#define RF_SCAN (1u << 20)

struct cbp_rf {
   const cb_trace *t;
   const cbp_escape *x;
   /* Per thread 1..n: trace index of counted event k (pos_at), as
    * uint32_t, or as uint64_t when the trace is too long for that. */
   void **pos;
   int wide;
   size_t *woff;   /* per variable id v: its writes are [woff[v], woff[v+1]) */
   uint64_t *widx; /* trace index of each write of a shared variable */
   uint32_t *wtid; /* its thread */
   uint32_t *wrun; /* writes left in its thread's run of v's writes (>= 1) */
};

/* Trace index of thread j's counted event k (k < x->counted[j]). */
static inline uint64_t pos_at(const cbp_rf *rf, uint32_t j, uint64_t k) {
   return rf->wide ? ((const uint64_t *)rf->pos[j])[k] : ((const uint32_t *)rf->pos[j])[k];
}

/* Whether e, an access of variable v (0: none), is a write the index keeps. */
static int indexed_write(const cbp_escape *x, const cb_event *e, uint32_t v) {
   return e->kind == CB_EV_WRITE && v && x->var_shared[v] && e->tid;
}

/* The writes of every shared variable, grouped by variable, in trace
 * order; rf->woff[v + 1] holds variable v's count (cbp_rf_new's pass). */
static void index_writes(cbp_rf *rf) {
   const cb_trace *t = rf->t;
   const cbp_escape *x = rf->x;
   size_t nv = (size_t)x->nvars + 1;
   for (size_t v = 0; v < nv; v++) rf->woff[v + 1] += rf->woff[v];
   size_t nw = rf->woff[nv];
   rf->widx = cbp_xcalloc(nw, sizeof *rf->widx);
   rf->wtid = cbp_xcalloc(nw, sizeof *rf->wtid);
   size_t *fill = cbp_xcalloc(nv, sizeof *fill);
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      uint32_t v = x->var_of[i];
      if (!indexed_write(x, e, v)) continue;
      size_t k = rf->woff[v] + fill[v]++;
      rf->widx[k] = i;
      rf->wtid[k] = e->tid;
   }
   free(fill);
   /* Runs of one thread's writes, from the end of each variable's list. */
   rf->wrun = cbp_xcalloc(nw ? nw : 1, sizeof *rf->wrun);
   for (size_t v = 0; v < nv; v++)
      for (size_t k = rf->woff[v + 1]; k-- > rf->woff[v];)
         rf->wrun[k] = k + 1 < rf->woff[v + 1] && rf->wtid[k + 1] == rf->wtid[k] &&
                             rf->wrun[k + 1] < UINT32_MAX
                          ? rf->wrun[k + 1] + 1 : 1;
}

/* One pass finds each thread's counted events and counts each variable's
 * writes; a second (index_writes) places the writes. */
cbp_rf *cbp_rf_new(const cb_trace *t, const cbp_escape *x) {
   cbp_rf *rf = cbp_xcalloc(1, sizeof *rf);
   uint32_t n = x->nthreads;
   rf->t = t; rf->x = x;
   rf->pos = cbp_xcalloc(n + 1, sizeof *rf->pos);
   rf->woff = cbp_xcalloc((size_t)x->nvars + 2, sizeof *rf->woff);
   uint64_t *k = cbp_xcalloc(n + 1, sizeof *k);
   rf->wide = t->nevents > UINT32_MAX;
   size_t width = rf->wide ? sizeof(uint64_t) : sizeof(uint32_t);
   for (uint32_t j = 1; j <= n; j++)
      rf->pos[j] = cbp_xcalloc(x->counted[j] ? x->counted[j] : 1, width);
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      uint32_t v = x->var_of[i];
      if (indexed_write(x, e, v)) rf->woff[v + 1]++;
      if (e->tid == 0 || e->tid > n || e->kind >= CB_EV_KIND_COUNT || !CB_IS_COUNTED(e->kind))
         continue;
      if (k[e->tid] >= x->counted[e->tid]) continue;
      if (rf->wide) ((uint64_t *)rf->pos[e->tid])[k[e->tid]++] = i;
      else ((uint32_t *)rf->pos[e->tid])[k[e->tid]++] = (uint32_t)i;
   }
   free(k);
   index_writes(rf);
   return rf;
}

void cbp_rf_free(cbp_rf *rf) {
   if (!rf) return;
   for (uint32_t j = 0; j <= rf->x->nthreads; j++) free(rf->pos[j]);
   free(rf->pos);
   free(rf->woff); free(rf->widx); free(rf->wtid); free(rf->wrun);
   free(rf);
}

uint64_t cbp_rf_trace_index(const cbp_rf *rf, uint32_t j, uint64_t k) {
   if (j == 0 || j > rf->x->nthreads || k >= rf->x->counted[j]) return rf->t->nevents;
   return pos_at(rf, j, k);
}

/* The trace index just past thread k's prefix of `count` events. */
static uint64_t prefix_end(const cbp_rf *rf, uint32_t k, uint64_t count) {
   if (!count) return 0;
   if (count > rf->x->counted[k]) count = rf->x->counted[k];
   return pos_at(rf, k, count - 1) + 1;
}

/* The position in v's writes of its first write after trace index i. */
static size_t first_write_after(const cbp_rf *rf, uint32_t v, uint64_t i) {
   size_t lo = rf->woff[v], hi = rf->woff[v + 1];
   while (lo < hi) {
      size_t m = lo + (hi - lo) / 2;
      if (rf->widx[m] <= i) lo = m + 1; else hi = m;
   }
   return lo;
}

static uint64_t count_at(const cbp_rf *rf, uint32_t k, uint64_t i);

/* Whether a write of variable v by a thread other than j lies after trace
 * index i and before stop, inside its own thread's prefix. */
/* 1 when another thread's prefix writes v in (i, stop); *budget counts
 * the writes looked at down, and at 0 the answer is 1 (not known). */
/* A run of one thread's writes is looked at once: when its first is j's
 * own, or past its thread's prefix, so are the rest (a thread that stores
 * a counter a million times while another polls it: 56 s of 105 for one
 * trace's schedules were this loop, blind trial 16's lruflush). */
static int write_in_window(const cbp_rf *rf, const uint64_t *prefix, uint32_t j,
                           uint32_t v, uint64_t i, uint64_t stop, uint64_t *budget) {
   for (size_t k = first_write_after(rf, v, i); k < rf->woff[v + 1] && rf->widx[k] < stop;
        k += rf->wrun[k]) {
      if (!--*budget) return 1;
      uint32_t tid = rf->wtid[k];
      if (tid == j || tid > rf->x->nthreads) continue;
      if (rf->widx[k] < prefix_end(rf, tid, prefix[tid - 1])) return 1;
   }
   return 0;
}

int cbp_rf_reads_from(const cbp_rf *rf, uint32_t j, uint64_t from, uint64_t to,
                      uint32_t w, uint64_t wfrom) {
   if (j == 0 || j > rf->x->nthreads || w == 0 || w > rf->x->nthreads) return 0;
   if (to > rf->x->counted[j]) to = rf->x->counted[j];
   uint64_t wstart = cbp_rf_trace_index(rf, w, wfrom);
   for (uint64_t c = from; c < to; c++) {
      uint64_t i = pos_at(rf, j, c);
      uint32_t v = rf->x->var_of[i];
      if (rf->t->events[i].kind != CB_EV_READ || !v || !rf->x->var_shared[v]) continue;
      size_t k = first_write_after(rf, v, i); /* its writer is k - 1 */
      if (k > rf->woff[v] && rf->wtid[k - 1] == w && rf->widx[k - 1] >= wstart) return 1;
   }
   return 0;
}

/* At most this many of w's events (its stretch from x1 to e2, usually a
 * critical section) and of j's events in each write's lifetime are
 * looked at: synthesis asks this for every candidate. */
#define RF_SECTION 256

uint64_t cbp_rf_last_writer(const cbp_rf *rf, uint32_t j, uint64_t from, uint64_t to,
                            uint32_t w, uint64_t wfrom, uint64_t wto, uint64_t *first) {
   uint64_t last = 0, n = rf->x->nthreads;
   if (j == 0 || j > n || w == 0 || w > n || from >= to) return 0;
   if (to > rf->x->counted[j]) to = rf->x->counted[j];
   if (wto > rf->x->counted[w]) wto = rf->x->counted[w];
   if (wto > wfrom && wto - wfrom > RF_SECTION) wto = wfrom + RF_SECTION;
   /* From each of w's writes (few) to j's reads of it while it stands,
    * not from every event of j's way to f (long: a spinning main). */
   uint64_t jend = cbp_rf_trace_index(rf, j, to); /* past j's last read asked about */
   for (uint64_t c = wfrom; c < wto; c++) {
      uint64_t i = pos_at(rf, w, c);
      if (i >= jend) break; /* written after all of them */
      uint32_t v = rf->x->var_of[i];
      if (!indexed_write(rf->x, &rf->t->events[i], v)) continue;
      size_t k = first_write_after(rf, v, i); /* the next write of v */
      uint64_t stop = k < rf->woff[v + 1] ? rf->widx[k] : rf->t->nevents;
      uint64_t r = count_at(rf, j, i + 1), rend = count_at(rf, j, stop);
      if (r < from) r = from;
      if (rend > to) rend = to;
      if (rend > r && rend - r > RF_SECTION) rend = r + RF_SECTION;
      for (; r < rend; r++) {
         uint64_t ri = pos_at(rf, j, r);
         if (rf->t->events[ri].kind != CB_EV_READ || rf->x->var_of[ri] != v) continue;
         if (!last || r < *first) *first = r;
         last = c + 1;
         break;
      }
   }
   return last;
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
   /* Each read looks at the writes after it, and a thread that polls a
    * variable others write (a stats reporter's million loads against
    * its own million stores) made that quadratic: 46 s for 9 schedules
    * of a 3.6 M-event trace.  Past 16 RF_SCANs of reads and writes looked at,
    * the answer is 1, as cbp_rf_others_read says when it is too far. */
   uint64_t budget = 16 * (uint64_t)RF_SCAN;
   for (uint64_t c = from; c < to; c++) {
      if (!--budget) return 1;
      uint64_t i = pos_at(rf, j, c);
      const cb_event *r = &rf->t->events[i];
      uint32_t v = rf->x->var_of[i];
      if (r->kind != CB_EV_READ || !v || !rf->x->var_shared[v]) continue;
      uint64_t stop = last < i + RF_SCAN ? last : i + RF_SCAN;
      if (stop > i + 1 && write_in_window(rf, prefix, j, v, i, stop, &budget)) return 1;
   }
   return 0;
}

size_t cbp_rf_writes(const cbp_rf *rf, uint32_t v, const uint64_t **idx,
                     const uint32_t **tid) {
   if (!v || v > rf->x->nvars) return 0;
   *idx = rf->widx + rf->woff[v];
   *tid = rf->wtid + rf->woff[v];
   return rf->woff[v + 1] - rf->woff[v];
}

/* The first of thread k's counted events at or after trace index i. */
static uint64_t count_at(const cbp_rf *rf, uint32_t k, uint64_t i) {
   uint64_t lo = 0, hi = rf->x->counted[k];
   while (lo < hi) {
      uint64_t m = lo + (hi - lo) / 2;
      if (pos_at(rf, k, m) < i) lo = m + 1; else hi = m;
   }
   return lo;
}

int cbp_rf_others_read(const cbp_rf *rf, const uint64_t *prefix, uint32_t j,
                       uint64_t from, uint64_t to) {
   uint32_t n = rf->x->nthreads;
   if (j == 0 || j > n || from >= to) return 0;
   uint64_t start = cbp_rf_trace_index(rf, j, from);
   for (uint32_t k = 1; k <= n; k++) {
      if (k == j || !prefix[k - 1]) continue;
      uint64_t end = prefix[k - 1] < rf->x->counted[k] ? prefix[k - 1] : rf->x->counted[k];
      uint64_t c = count_at(rf, k, start);
      if (c >= end) continue;
      if (end - c > RF_SCAN) return 1; /* too far to look: say it does */
      if (cbp_rf_reads_from(rf, k, c, end, j, from)) return 1;
   }
   return 0;
}

uint64_t cbp_rf_count_at(const cbp_rf *rf, uint32_t k, uint64_t i) {
   if (k == 0 || k > rf->x->nthreads) return 0;
   return count_at(rf, k, i);
}
