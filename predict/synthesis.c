/* synthesis.c: pass C, PENELOPE section 4.2: from a cut-point (e, f) to a
 * schedule that replay can force.
 *
 * Let x1 and x2 be the last empty-lockset cuts of T1 (at e) and T2 (before
 * f), and A the thread whose cut comes first in the trace.
 *   Region I   every thread i runs, freely interleaved, up to h_i, its last
 *              empty-lockset cut before A's cut in the recorded order
 *              (h_A = x_A); the prefix is then lowered until it is a
 *              consistent cut (downward closed under the vector clocks), so
 *              that no thread waits there for an event outside the prefix.
 *   Region II  B (and A, if lowering took it back) runs alone to its x.
 *   Region III T1 runs to e and T2 to just before f, interleaved by the
 *              causal edges of the acquisition histories: for a lock l held
 *              at f and acquired-and-released by T1 while it held l' (l in
 *              AH_e(l')), T1's last release of l comes before T2's last
 *              acquisition of l; and symmetrically.  The interleaving is then
 *              checked by simulating the locks (region3.c).  When T2's way to
 *              f read what T1 wrote from x1 on, T1 runs on through those
 *              writes first and B stops in region II before the first such
 *              read (t1_past_e): the path to f stays the recorded one.
 * Then f runs alone; if T2 holds locks there, it runs on alone until it
 * releases them (T1 may need them); then T1 runs to e2, and only then
 * everyone is released.  A deadlock (DLK, deadlocks.c) has a shorter tail
 * (dlk_tail.c): T1 holding A, T2 holding B, each asking for the other next.
 * Last, the prefix is closed over what the tail needs (close_prefix.c: the
 * other threads are raised, e.g. main past the creation of T2), and T1 and
 * T2 are lowered out of a prefix they would share with other threads
 * (lower_tail_threads), so that a schedule replays one way.
 *
 * Context switches (4.2.3): the prefix carries no switch at all (replay lets
 * the threads interleave freely up to their counts), so accesses to
 * unshared variables and runs of reads never cost one there; in the tail a
 * switch happens only at a causal edge or at the pattern's three events.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict.h"

#define NONE UINT64_MAX

static uint64_t pos_of(cbp_point p) { return p.tidx == NONE ? 0 : p.tidx + 1; }

/* Region II's order: A, the thread whose cut comes first in the recorded
 * run, runs to its cut xA before B runs to its cut xB. */
typedef struct { uint32_t A, B; cbp_point xA, xB; } tail_order;

static tail_order order_of(const cbp_candidate *c) {
   int t1_first = pos_of(c->x1) <= pos_of(c->x2);
   return t1_first ? (tail_order){c->t1, c->t2, c->x1, c->x2}
                   : (tail_order){c->t2, c->t1, c->x2, c->x1};
}

static void add_step(cbp_candidate *c, size_t *cap, uint32_t tid, uint64_t n) {
   if (!n) return;
   if (c->ntail && c->tail[c->ntail - 1].tid == tid) { c->tail[c->ntail - 1].count += n; return; }
   c->tail = cbp_grow(c->tail, cap, c->ntail, sizeof *c->tail);
   c->tail[c->ntail++] = (cbp_step){tid, n};
}

/* After f, T2 still holds the locks of f's lockset, which T1 may need on
 * its way to e2: T2 runs on alone until it holds none (bounded scan).
 * Returns how many more counted events that takes (0: none held). */
#define RELEASE_SCAN 100000
static uint64_t release_after_f(const cb_trace *t, cbp_locks *L, const cbp_candidate *c) {
   uint32_t n = cbp_locks_nheld(L, c->ls_f);
   if (!n) return 0;
   cbp_held h; memset(&h, 0, sizeof h);
   for (uint32_t i = 0; i < n; i++) {
      const uint32_t *ah; uint32_t nah;
      cbp_held_acquire(&h, cbp_locks_held(L, c->ls_f, i, &ah, &nah));
   }
   uint64_t k = 0, found = 0;
   for (size_t i = c->f + 1, seen = 0; i < t->nevents && seen < RELEASE_SCAN; i++, seen++) {
      const cb_event *e = &t->events[i];
      if (e->tid != c->t2 || e->kind >= CB_EV_KIND_COUNT || !CB_IS_COUNTED(e->kind)) continue;
      k++;
      if (e->kind == CB_EV_LOCK) cbp_held_acquire(&h, cbp_lock_of(L, &h, e));
      if (e->kind == CB_EV_UNLOCK) cbp_held_release(&h, cbp_lock_of(L, &h, e));
      if (h.n == 0) { found = k; break; }
   }
   cbp_held_free(&h);
   return found;
}

/* Region I lowered to a consistent cut. */
static void make_consistent(const cbp_vclock *v, uint64_t *pre, uint32_t n) {
   int changed = 1;
   while (changed) {
      changed = 0;
      for (uint32_t i = 1; i <= n; i++) {
         if (!pre[i - 1]) continue;
         uint32_t s = cbp_vc_seg_at(v, i, pre[i - 1] - 1);
         const cbp_vc_ent *vc;
         size_t nvc = cbp_vc_entries(v, s, &vc);
         for (size_t q = 0; q < nvc; q++)
            if (vc[q].tid != i && vc[q].tid <= n && vc[q].count > pre[vc[q].tid - 1]) {
               uint64_t lower = v->segs[s].empty_before;
               pre[i - 1] = lower < pre[i - 1] ? lower : pre[i - 1] - 1;
               changed = 1;
               break;
            }
      }
   }
}

typedef struct { uint64_t pos; size_t idx; size_t late; } bypos; /* late: k + 1 */
static int cmp_pos(const void *a, const void *b) {
   const bypos *x = a, *y = b;
   if (x->pos != y->pos) return x->pos < y->pos ? -1 : 1;
   return x->idx < y->idx ? -1 : x->idx > y->idx;
}

typedef struct {
   const cb_trace *t;
   const cbp_escape *x;
   const cbp_vclock *v;
   cbp_locks *L;
   cbp_ranges *bad;
   uint64_t *need, *end;
   cbp_step *r3; size_t nr3, capr3;
   cbp_rf *rf;
   uint64_t *hold;
   uint64_t *pv;  /* a prefix as the tail's second thread sees it */
} synth;

/* Region III with T1 on through what T2 reads: when T2's way to f read in
 * the recorded run what T1 wrote from its cut x1 on (and before e2), T1
 * runs through those writes (and at least through e) before T2 reads
 * them, and T2 stops before region III at its last lock-free cut before
 * the first such read (*from2; *first: that read).  list_fast's main
 * reads `len == 1` on its way to f, a value the producer wrote after e1
 * in the same critical section; stopped at e1, the producer leaves len at
 * 0 and main never takes the path to f.  The violation is the same (f
 * still lands between e1 and e2); T2's path is the recorded one.  0 when
 * T2 reads nothing of the kind: T1 stops at e. */
#define PAST_E_SPAN (1u << 16)

static uint64_t t1_past_e(synth *S, const cbp_candidate *c, cbp_point *from2,
                          uint64_t *first) {
   uint64_t to = c->ce + 1, start = c->prefix[c->t2 - 1];
   if (c->ce2 <= c->x1.count || c->cf <= start) return 0;
   if (!S->rf) S->rf = cbp_rf_new(S->t, S->x);
   /* Only reads within PAST_E_SPAN events of trace before x2 can move
    * T2's start (below): look no further back. */
   uint64_t x2at = c->x2.count ? cbp_rf_trace_index(S->rf, c->t2, c->x2.count - 1) : 0;
   if (x2at > PAST_E_SPAN) {
      uint64_t near = cbp_rf_count_at(S->rf, c->t2, x2at - PAST_E_SPAN);
      if (near > start) start = near;
   }
   uint64_t need = cbp_rf_last_writer(S->rf, c->t2, start, c->cf, c->t1, c->x1.count, c->ce2,
                                      first);
   if (!need) return 0;
   uint64_t at = cbp_prev_cut(&S->bad[c->t2], *first);
   if (at < c->prefix[c->t2 - 1]) at = c->prefix[c->t2 - 1];
   if (at > c->x2.count) at = c->x2.count;
   /* Region III's lock scan walks the trace from T2's start: T2 taken
    * back further than PAST_E_SPAN events of trace is not tried (on a
    * generated 2 M-event trace every candidate was, 4.8 s -> 311 s). */
   uint64_t x2i = c->x2.count ? cbp_rf_trace_index(S->rf, c->t2, c->x2.count - 1) : 0;
   uint64_t ati = at ? cbp_rf_trace_index(S->rf, c->t2, at - 1) : 0;
   if (x2i > ati && x2i - ati > PAST_E_SPAN) return 0;
   from2->count = at;
   from2->tidx = at ? cbp_rf_trace_index(S->rf, c->t2, at - 1) : NONE;
   return need > to ? need : to;
}

/* Whether region III's steps run T1 to count need before T2 (from count
 * at) runs its event `first`. */
static int t1_writes_first(const synth *S, const cbp_candidate *c, uint64_t need,
                           uint64_t at, uint64_t first) {
   uint64_t n1 = c->x1.count, n2 = at;
   for (size_t s = 0; s < S->nr3; s++) {
      if (S->r3[s].tid == c->t1) { n1 += S->r3[s].count; continue; }
      n2 += S->r3[s].count;
      if (n2 > first && n1 < need) return 0;
   }
   return 1;
}

/* The tail from the current prefix: regions II and III, f, T2 on until it
 * holds no lock, T1 on to e2.  A deadlock's tail (dlk_tail.c) runs each
 * thread of the cycle to where it holds its outer lock, and ends there:
 * released, each blocks on the next one's lock.  NULL, or why it cannot be. */
static const char *build_tail(synth *S, cbp_candidate *c) {
   size_t cap = 0;
   c->ntail = 0;
   c->through_f = 0;
   c->f_rel = 0;
   cbp_alternates_clear(c);
   if (c->pattern == CBP_DLK) return cbp_dlk_tail(S->t, S->x, S->v, S->L, &S->rf, c);
   tail_order o = order_of(c);
   uint32_t A = o.A, B = o.B;
   cbp_point from2 = c->x2;
   uint64_t first = 0, past = t1_past_e(S, c, &from2, &first), t1_at = 0;
   int found = 0;
   for (int plain = !past; plain < 2 && !found; plain++) {
      if (plain) from2 = c->x2;
      t1_at = plain ? c->ce + 1 : past; /* ce + 1 wraps to 0 for an ORD cut at 0 */
      cbp_point xA = A == c->t1 ? c->x1 : from2, xB = B == c->t1 ? c->x1 : from2;
      c->ntail = 0;
      add_step(c, &cap, A, xA.count - c->prefix[A - 1]);
      add_step(c, &cap, B, xB.count - c->prefix[B - 1]);
      found = cbp_region3(S->t, S->L, c, t1_at, from2, &S->r3, &S->nr3, &S->capr3) &&
              (plain || t1_writes_first(S, c, past, from2.count, first));
   }
   if (!found) return "no lock-valid interleaving reaches e and f";
   for (size_t s = 0; s < S->nr3; s++) add_step(c, &cap, S->r3[s].tid, S->r3[s].count);
   uint64_t fw = c->f_uncounted ? 0 : c->fwidth > 1 ? c->fwidth : 1;
   add_step(c, &cap, c->t2, fw);              /* f, its whole instruction */
   uint64_t rel = release_after_f(S->t, S->L, c);
   c->f_rel = fw > 1 && rel >= fw ? rel - (fw - 1) : rel;
   add_step(c, &cap, c->t2, c->f_rel);
   c->through_f = c->ntail;
   add_step(c, &cap, c->t1, c->ce2 + 1 - t1_at); /* on through e2 */
   return NULL;
}

/* Whether, with T1 and T2 lowered to c->prefix, a read of the tail's
 * second thread B would see another value: the tail runs the first one,
 * A, up to its cut and then B up to its (build_tail), so B's reads come
 * after A's writes there even where the recorded run had them before.  A
 * flusher that polled a dirty flag 79,000 times while an application
 * thread updated it 6 times: both lowered, the updates ran first and the
 * flusher's first poll flushed (blind trial 14's writeback). */
static int b_reads_after_a(synth *S, const cbp_candidate *c) {
   tail_order o = order_of(c);
   uint32_t A = o.A, B = o.B;
   cbp_point xA = o.xA, xB = o.xB;
   uint32_t n = S->x->nthreads;
   if (A == B || xB.count <= c->prefix[B - 1] || xA.count <= c->prefix[A - 1]) return 0;
   /* Only B's reads before A's last write there in the trace can change. */
   uint64_t lastw = 0;
   for (uint64_t k = c->prefix[A - 1]; k < xA.count; k++) {
      uint64_t i = cbp_rf_trace_index(S->rf, A, k);
      uint32_t var = S->x->var_of[i];
      if (S->t->events[i].kind == CB_EV_WRITE && var && S->x->var_shared[var]) lastw = i + 1;
   }
   uint64_t to = lastw ? cbp_rf_count_at(S->rf, B, lastw - 1) : 0;
   if (to > xB.count) to = xB.count;
   if (to <= c->prefix[B - 1]) return 0;
   memcpy(S->pv, c->prefix, n * sizeof *S->pv);
   S->pv[A - 1] = xA.count;
   return cbp_rf_moves_read(S->rf, S->pv, B, c->prefix[B - 1], to);
}

/* The mirror of b_reads_after_a: whether A, running from its lowered
 * prefix to its cut before B runs at all, reads what B wrote after B's
 * lowered prefix in the recorded run; it would read the older value then.
 * A worker that took a lock after the loader's critical section and read
 * its flag there, both lowered: the worker ran first, read the flag
 * unset, waited and left the plan's path (a cure of tests/data/
 * earlyflag.c, whose cut lies after the worker's whole critical section).
 * Past A_READS_SCAN of A's events, not looked at (it was not before). */
#define A_READS_SCAN 4096
static int a_reads_before_b(synth *S, const cbp_candidate *c) {
   tail_order o = order_of(c);
   uint64_t from = c->prefix[o.A - 1];
   if (o.A == o.B || o.xA.count <= from || o.xA.count - from > A_READS_SCAN) return 0;
   return cbp_rf_reads_from(S->rf, o.A, from, o.xA.count, o.B, c->prefix[o.B - 1]);
}

/* T1 and T2 down to the least cuts that the other prefixes need of them,
 * unless a read moved that way would see another value, theirs or another
 * prefix's read of what they wrote there (readsfrom.c): a worker that
 * found the task counter exhausted by T2 would take a task if T2's work
 * moved after it, and leave the plan's path. */
static void lower_tail_threads(synth *S, cbp_candidate *c) {
   uint32_t n = S->x->nthreads, tt[2] = {c->t1, c->t2};
   for (int changed = 1; changed;) {
      changed = 0;
      memset(S->need, 0, (n + 1) * sizeof *S->need);
      for (uint32_t i = 1; i <= n; i++) {
         if (!c->prefix[i - 1]) continue;
         uint32_t si = cbp_vc_seg_at(S->v, i, c->prefix[i - 1] - 1);
         for (int k = 0; k < 2; k++) {
            uint64_t x = tt[k] != i ? cbp_vc_get(S->v, si, tt[k]) : 0;
            if (x > S->need[tt[k]]) S->need[tt[k]] = x;
         }
      }
      for (int k = 0; k < 2; k++) {
         uint32_t j = tt[k];
         uint64_t to = cbp_next_cut(&S->bad[j], S->x->counted[j], S->need[j]);
         if (to == NONE || to >= c->prefix[j - 1]) continue;
         if (!S->rf) S->rf = cbp_rf_new(S->t, S->x);
         if (cbp_rf_moves_read(S->rf, c->prefix, j, to, c->prefix[j - 1]) ||
             cbp_rf_others_read(S->rf, c->prefix, j, to, c->prefix[j - 1]))
            continue;
         uint64_t was = c->prefix[j - 1];
         c->prefix[j - 1] = to;
         if (b_reads_after_a(S, c) || a_reads_before_b(S, c)) {
            c->prefix[j - 1] = was;
            continue;
         }
         changed = 1;
      }
   }
}

static void drop(cbp_result *r, cbp_candidate *c, const char *why) {
   c->dropped = 1;
   c->why = why;
   r->dropped_synth++;
}

/* The tail from c's prefix and the prefix closed over it; when a closed
 * prefix needs more of T1 or T2 than they run in the prefix, and they may
 * run that much there, again from the raised prefix.  Each round raises a
 * count that is bounded by the thread's cut, so the rounds end. */
static const char *tail_and_prefix(synth *S, cbp_candidate *c) {
   for (;;) {
      const char *why = build_tail(S, c);
      if (why) return why;
      cbp_raise_to r = {0, 0};
      why = cbp_close_prefix(S->x, S->v, S->bad, c, S->need, S->end, &r);
      if (!why || !r.tid || r.to <= c->prefix[r.tid - 1]) return why;
      c->prefix[r.tid - 1] = r.to;
   }
}

/* One candidate's schedule from its region I prefix; NULL, or why not. */
static const char *synth_from(synth *S, cbp_candidate *c, uint64_t *saved) {
   uint32_t n = S->x->nthreads;
   c->built = 1;
   if (!c->prefix) c->prefix = cbp_xcalloc(n ? n : 1, sizeof *c->prefix);
   free(c->tail); c->tail = NULL; c->ntail = 0;
   /* Region I: A up to its cut, B at most to its, a consistent cut. */
   tail_order o = order_of(c);
   uint32_t A = o.A, B = o.B;
   cbp_point xA = o.xA, xB = o.xB;
   c->prefix[A - 1] = xA.count;
   if (c->prefix[B - 1] > xB.count) c->prefix[B - 1] = xB.count;
   for (uint32_t k = 0; k < c->nmore; k++) { /* a longer deadlock cycle */
      const cbp_cycle_thread *m = &c->more[k];
      if (c->prefix[m->tid - 1] > m->le.count) c->prefix[m->tid - 1] = m->le.count;
   }
   if (c->pattern == CBP_ORD && !S->rf) S->rf = cbp_rf_new(S->t, S->x);
   if (cbp_site_writers(S->rf, S->t, S->v, c, n, S->hold)) /* site_writers.c */
      for (uint32_t j = 1; j <= n; j++)
         if (S->hold[j - 1] != NONE) {
            uint64_t to = cbp_prev_cut(&S->bad[j], S->hold[j - 1]);
            if (to < c->prefix[j - 1]) c->prefix[j - 1] = to;
         }
   make_consistent(S->v, c->prefix, n);
   const char *why = tail_and_prefix(S, c);
   if (why) return why;
   /* The prefix runs its threads in whatever order the scheduler picks,
    * so what T1 and T2 run there races with the other threads' prefix
    * (rww.c: T2's read against main's second create), and two replays of
    * one schedule differ before the tail.  Lower T1 and T2 to the least
    * cuts the rest of the prefix needs of them and run the remainder
    * alone in the tail (region II, A then B): the pattern's threads then
    * replay one sequence.  Keep the first plan if that one fails.  With
    * one thread in the prefix there is no race to remove. */
   uint32_t running = 0;
   for (uint32_t j = 0; j < n; j++) running += c->prefix[j] > 0;
   if (running < 2) return NULL;
   memcpy(saved, c->prefix, n * sizeof *saved);
   cbp_step *tail = c->tail; uint32_t ntail = c->ntail, through_f = c->through_f;
   c->tail = NULL; c->ntail = 0;
   lower_tail_threads(S, c);
   why = tail_and_prefix(S, c);
   if (why) {
      memcpy(c->prefix, saved, n * sizeof *saved);
      free(c->tail);
      c->tail = tail; c->ntail = ntail; c->through_f = through_f;
   } else {
      free(tail);
   }
   return NULL;
}

/* Whether an order violation's other threads may run in the prefix up to
 * f's side of the recorded run (late) rather than T1's: none of their
 * events up to there read what T1 wrote from its cut on, which the
 * schedule moves after f.  Keeping what ran before f there keeps f's
 * context: the waiters a producer's signal wakes are waiting. */
#define LATE_SCAN 65536 /* events the check reads at most (beyond: not tried) */
static int late_ok(synth *S, const cbp_candidate *c, const uint64_t *late) {
   uint64_t more = 0;
   for (uint32_t j = 1; j <= S->x->nthreads && more <= LATE_SCAN; j++)
      if (j != c->t1 && late[j - 1] > c->prefix[j - 1]) more += late[j - 1] - c->prefix[j - 1];
   if (more > LATE_SCAN) return 0;
   if (!S->rf) S->rf = cbp_rf_new(S->t, S->x);
   for (uint32_t j = 1; j <= S->x->nthreads; j++)
      if (j != c->t1 && late[j - 1] > c->prefix[j - 1] &&
          cbp_rf_reads_from(S->rf, j, c->prefix[j - 1], late[j - 1], c->t1, c->x1.count))
         return 0;
   return 1;
}

/* The late prefix first when it may be used, else (or when its schedule
 * cannot be built) the usual one. */
static const char *synth_one(synth *S, cbp_candidate *c, uint64_t *saved, uint64_t *late) {
   uint32_t n = S->x->nthreads;
   if (late && late_ok(S, c, late)) {
      uint64_t *early = c->prefix;
      c->prefix = late; /* the caller's, which it frees */
      const char *why = synth_from(S, c, saved);
      c->prefix = early;
      if (!why) { memcpy(early, late, n * sizeof *late); return NULL; }
   }
   return synth_from(S, c, saved);
}

/* One sweep of the trace, each thread's lock state followed once for
 * both: region I's prefix of each candidate of `order` (per thread, its
 * count where the candidate's cut comes, or its last empty-lockset cut
 * before it), and where each thread may not stop (bad). */
static void sweep(const cb_trace *t, const cbp_escape *x, cbp_locks *L, cbp_result *r,
                  const bypos *order, size_t norder, uint64_t **late, cbp_ranges *bad) {
   uint32_t n = x->nthreads;
   cbp_held *held = cbp_xcalloc(n + 1, sizeof *held);
   uint64_t *cnt = cbp_xcalloc(n + 1, sizeof *cnt), *le = cbp_xcalloc(n + 1, sizeof *le);
   uint64_t *prev = cbp_xcalloc(n + 1, sizeof *prev); /* index + 1 */
   size_t next = 0;
   for (size_t i = 0; i <= t->nevents; i++) {
      while (next < norder && order[next].pos <= i) {
         const bypos *o = &order[next++];
         cbp_candidate *c = &r->c[o->idx];
         uint64_t *pre = o->late ? late[o->late - 1] : NULL;
         if (!pre) {
            free(c->prefix);
            pre = c->prefix = cbp_xcalloc(n ? n : 1, sizeof *c->prefix);
         }
         for (uint32_t j = 1; j <= n; j++) {
            int after_ok = held[j].n == 0 && (!prev[j] || cbp_cut_ok(x, prev[j] - 1));
            pre[j - 1] = after_ok ? cnt[j] : le[j];
         }
      }
      if (i == t->nevents) break;
      const cb_event *e = &t->events[i];
      if (e->tid > n || e->kind >= CB_EV_KIND_COUNT || !CB_IS_COUNTED(e->kind)) continue;
      uint32_t j = e->tid;
      if (held[j].n == 0 && !cbp_glued(e))
         le[j] = cnt[j];
      if (e->kind == CB_EV_LOCK) cbp_held_acquire(&held[j], cbp_lock_of(L, &held[j], e));
      if (e->kind == CB_EV_UNLOCK) cbp_held_release(&held[j], cbp_lock_of(L, &held[j], e));
      cnt[j]++;
      prev[j] = i + 1;
      if (j && (held[j].n || !cbp_cut_ok(x, i))) cbp_bad_cut(&bad[j], cnt[j]);
   }
   for (uint32_t j = 0; j <= n; j++) cbp_held_free(&held[j]);
   free(held); free(cnt); free(le); free(prev);
}

void cbp_synthesize_some(const cb_trace *t, const cbp_escape *x,
                         const cbp_vclock *v, cbp_locks *L, cbp_result *r,
                         const size_t *which, size_t nwhich) {
   uint32_t n = x->nthreads;
   if (!nwhich) return;
   /* An order violation also gets the cut at f's side (late_ok). */
   bypos *order = cbp_xcalloc(2 * nwhich, sizeof *order);
   uint64_t **late = cbp_xcalloc(nwhich, sizeof *late);
   size_t norder = 0;
   for (size_t k = 0; k < nwhich; k++) {
      const cbp_candidate *c = &r->c[which[k]];
      uint64_t a = pos_of(c->x1), b = pos_of(c->x2);
      order[norder++] = (bypos){a < b ? a : b, which[k], 0};
      if (c->pattern == CBP_ORD && b > a) {
         late[k] = cbp_xcalloc(n ? n : 1, sizeof **late);
         order[norder++] = (bypos){b, which[k], k + 1};
      }
   }
   qsort(order, norder, sizeof *order, cmp_pos);
   cbp_ranges *bad = cbp_xcalloc(n + 1, sizeof *bad);
   sweep(t, x, L, r, order, norder, late, bad);
   free(order);

   synth S = {t, x, v, L, bad, cbp_xcalloc(n + 1, sizeof(uint64_t)),
              cbp_xcalloc(n + 1, sizeof(uint64_t)), NULL, 0, 0, r->rf,
              cbp_xcalloc(n + 1, sizeof(uint64_t)), cbp_xcalloc(n + 1, sizeof(uint64_t))};
   uint64_t *saved = cbp_xcalloc(n + 1, sizeof *saved);
   for (size_t k = 0; k < nwhich; k++) {
      cbp_candidate *c = &r->c[which[k]];
      const char *why = synth_one(&S, c, saved, late[k]);
      free(late[k]);
      if (why) drop(r, c, why);
      else if (c->pattern != CBP_DLK) {
         if (!S.rf) S.rf = cbp_rf_new(t, x);
         cbp_read_first(t, x, v, L, S.rf, c); /* read_first.c */
         cbp_alternates_build(t, x, S.rf, c, c->through_f, cbp_held_ok(t, L, S.rf, r, c));
      }
   }
   free(S.r3); free(S.need); free(S.end); free(saved); free(late); free(S.hold); free(S.pv);
   r->rf = S.rf; /* kept for the next batch and for ranking */
   cbp_bad_cuts_free(S.bad, n);
}

void cbp_synthesize(const cb_trace *t, const cbp_escape *x,
                    const cbp_vclock *v, cbp_locks *L, cbp_result *r) {
   size_t *all = cbp_xcalloc(r->n, sizeof *all);
   size_t k = 0;
   for (size_t i = 0; i < r->n; i++)
      if (!r->c[i].dropped) all[k++] = i;
   cbp_synthesize_some(t, x, v, L, r, all, k);
   free(all);
}
