/* rank.c: the order schedules are numbered in, the likeliest first.
 *
 * cbtest forces a test's schedules in number order and stops at the first
 * confirmed bug, so the first schedule that fails is the bug the user
 * reads about.  A schedule can fail for the wrong reason: to put its f
 * early it may stop a writer in the prefix while another thread's prefix
 * still reads what that writer wrote in the recorded run.  That read then
 * sees an older value, the thread takes another path (a lazy initialiser's
 * second caller finds the flag clear and initialises again), and the run
 * fails somewhere the schedule does not describe.  The schedule that forces
 * the real cause, the flag itself, fails the same way and explains it.
 *
 * So each built schedule is scored by its collateral reads: reads, other
 * than the pattern's own e1, f and e2, that the forced order (prefixes in
 * trace order, then the tail steps) gives another writer than the recorded
 * run did.  Candidates are stably sorted by that score: the schedules that
 * change only what the pattern means to change come first, and among equal
 * scores the order stays the trace order of e1.  Only the stretch of trace
 * between the first event a prefix holds back and the last event the tail
 * runs is replayed; a stretch longer than RANK_WINDOW (or one with a
 * run-out step, whose length is not known) stops the replay there, and
 * all replays together cover at most a few times the trace's length: past
 * that budget the remaining candidates keep the trace order.  A stretch
 * cut at RANK_WINDOW scores one more than the reads it replayed: what lies
 * beyond is not known, and a schedule that holds a thread back that long
 * (list_fast: a producer stopped while main spins 157,000 events reading
 * what the producer wrote next) must not rank with one checked clean.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "rank.h"

#define RANK_WINDOW (1u << 16)
#define PRE UINT64_MAX /* the last write before the window */

typedef struct {
   const cb_trace *t;
   const cbp_escape *x;
   const cbp_rf *rf;
   cbp_map writer;      /* variable -> slot in w (1-based) */
   uint64_t *w;         /* last writer per slot */
   uint32_t *wvar;      /* the slot's variable (map keys) */
   size_t nw, capw;
   uint64_t *rec;       /* recorded writer per window event */
   uint64_t *cnt;       /* per thread: counted events run */
   uint64_t budget;     /* window events left to replay, over all */
} ranker;

static int eq_var(const void *ctx, uint32_t idx, const void *key) {
   return ((const uint32_t *)ctx)[idx] == *(const uint32_t *)key;
}

static uint64_t hash_var(const void *ctx, uint32_t idx) {
   return cbp_mix(((const uint32_t *)ctx)[idx]);
}

typedef struct { uint32_t l1, lf, l2, pat, t1, t2; } site_key;

static int eq_site(const void *ctx, uint32_t idx, const void *key) {
   return !memcmp(&((const site_key *)ctx)[idx], key, sizeof(site_key));
}

static uint64_t hash_site(const void *ctx, uint32_t idx) {
   const site_key *k = &((const site_key *)ctx)[idx];
   return cbp_mix(((uint64_t)k->l1 << 32 | k->lf) ^
                  cbp_mix((uint64_t)k->l2 << 8 | k->pat) ^ ((uint64_t)k->t1 << 32 | k->t2));
}

static uint64_t *writer_of(ranker *k, uint32_t v) {
   uint32_t *s = cbp_map_probe(&k->writer, cbp_mix(v), eq_var, k->wvar, &v);
   if (*s) return &k->w[*s - 1];
   if (k->nw == k->capw) {
      k->capw = k->capw ? 2 * k->capw : 64;
      k->w = cbp_xrealloc(k->w, k->capw * sizeof *k->w);
      k->wvar = cbp_xrealloc(k->wvar, k->capw * sizeof *k->wvar);
   }
   k->w[k->nw] = PRE;
   k->wvar[k->nw] = v;
   *s = (uint32_t)++k->nw;
   cbp_map_added(&k->writer, hash_var, k->wvar);
   return &k->w[k->nw - 1];
}

static void writers_reset(ranker *k) {
   cbp_map_clear(&k->writer);
   k->nw = 0;
}

/* A shared read or write at trace index i; returns 1 for a read whose
 * writer differs from rec (PRE or a trace index). */
static int step(ranker *k, size_t i, uint64_t rec) {
   const cb_event *e = &k->t->events[i];
   uint32_t v = k->x->var_of[i];
   if ((e->kind != CB_EV_READ && e->kind != CB_EV_WRITE) || !v ||
       !k->x->var_shared[v])
      return 0;
   uint64_t *w = writer_of(k, v);
   if (e->kind == CB_EV_WRITE) { *w = i; return 0; }
   return *w != rec;
}

static int is_pattern_event(const cbp_candidate *c, uint64_t i) {
   return i == c->e1 || i == c->e || i == c->e2 || i == c->f ||
          (c->fwidth == 2 && i == c->f + 1);
}

/* The trace index of thread j's counted event number ci, or UINT64_MAX. */
static uint64_t pos_of(const ranker *k, uint32_t j, uint64_t ci) {
   if (ci >= k->x->counted[j]) return UINT64_MAX;
   return cbp_rf_trace_index(k->rf, j, ci);
}

/* Where the forced order first differs from the recorded one, and where
 * its tail ends, at most RANK_WINDOW events on (*cut: it went further);
 * 0 when the candidate is not worth replaying here. */
static int window(const ranker *k, const cbp_candidate *c, uint64_t *w0,
                  uint64_t *w1, int *cut) {
   uint32_t n = k->x->nthreads;
   *w0 = UINT64_MAX; *w1 = 0;
   for (uint32_t j = 1; j <= n; j++) {
      uint64_t p = pos_of(k, j, c->prefix[j - 1]);
      if (p < *w0) *w0 = p;
   }
   uint64_t *fin = k->cnt;
   for (uint32_t j = 1; j <= n; j++) fin[j] = c->prefix[j - 1];
   for (uint32_t s = 0; s < c->ntail; s++) {
      const cbp_step *st = &c->tail[s];
      if (st->count == CBP_RUN_OUT || st->tid == 0 || st->tid > n) break;
      fin[st->tid] += st->count;
      uint64_t p = fin[st->tid] ? pos_of(k, st->tid, fin[st->tid] - 1) : 0;
      if (p != UINT64_MAX && p + 1 > *w1) *w1 = p + 1;
   }
   if (*w0 == UINT64_MAX || *w1 <= *w0) return 0;
   *cut = *w1 - *w0 > RANK_WINDOW;
   if (*cut) *w1 = *w0 + RANK_WINDOW;
   return 1;
}

static uint64_t score(ranker *k, const cbp_candidate *c) {
   uint64_t w0, w1;
   int cut = 0;
   if (!c->prefix || !window(k, c, &w0, &w1, &cut) || 2 * (w1 - w0) > k->budget) return 0;
   k->budget -= 2 * (w1 - w0);
   uint32_t n = k->x->nthreads;
   /* The recorded writers of the window's events. */
   writers_reset(k);
   for (uint64_t i = w0; i < w1; i++) {
      const cb_event *e = &k->t->events[i];
      k->rec[i - w0] = PRE;
      if (e->kind == CB_EV_READ && k->x->var_of[i] && k->x->var_shared[k->x->var_of[i]])
         k->rec[i - w0] = *writer_of(k, k->x->var_of[i]);
      step(k, i, 0);
   }
   /* The forced order: the prefixes' events in the window, in trace
    * order, then the tail steps. */
   writers_reset(k);
   uint64_t bad = 0;
   for (uint32_t j = 1; j <= n; j++) k->cnt[j] = 0;
   for (uint64_t i = w0; i < w1; i++) {
      const cb_event *e = &k->t->events[i];
      if (e->tid == 0 || e->tid > n || e->kind >= CB_EV_KIND_COUNT || !CB_IS_COUNTED(e->kind))
         continue;
      if (pos_of(k, e->tid, c->prefix[e->tid - 1]) <= i) continue; /* held back */
      if (step(k, i, k->rec[i - w0]) && !is_pattern_event(c, i)) bad++;
   }
   for (uint32_t j = 1; j <= n; j++) k->cnt[j] = c->prefix[j - 1];
   for (uint32_t s = 0; s < c->ntail; s++) {
      const cbp_step *st = &c->tail[s];
      if (st->count == CBP_RUN_OUT || st->tid == 0 || st->tid > n) break;
      for (uint64_t m = 0; m < st->count; m++) {
         uint64_t i = pos_of(k, st->tid, k->cnt[st->tid]++);
         if (i == UINT64_MAX || i >= w1) break;
         if (i >= w0 && step(k, i, k->rec[i - w0]) && !is_pattern_event(c, i)) bad++;
      }
   }
   return bad + (uint64_t)cut; /* what lies past the window is not known */
}

typedef struct {
   uint64_t score, early;
   size_t at;
   int fresh, failed, again, dlk, two, split, repeat, seen, rare, atomic;
} ranked;

/* Whether event i is part of a locked read-modify-write instruction: its
 * store (rmw), or the load the store follows at once. */
static int in_rmw(const cb_trace *t, uint64_t i) {
   if (i >= t->nevents) return 0;
   const cb_event *e = &t->events[i];
   if (e->kind == CB_EV_WRITE) return e->rmw != 0;
   const cb_event *n = i + 1 < t->nevents ? e + 1 : NULL;
   return e->kind == CB_EV_READ && n && n->tid == e->tid && n->kind == CB_EV_WRITE &&
          n->rmw && n->addr == e->addr;
}

/* Whether e1, f and e2 are all parts of locked read-modify-write
 * instructions at one line: a loop's `__atomic_fetch_add(&end, n)`, whose
 * two iterations no thread means to be one atomic block.  Blind trial
 * 21's log buffer was named by such a WWW on its reservation counter, the
 * forced run failing elsewhere, where the copy into the reserved space was
 * the cause. */
static int atomic_repeat(const cb_trace *t, const cbp_candidate *c) {
   if (!in_rmw(t, c->e1) || !in_rmw(t, c->f) || !in_rmw(t, c->e2)) return 0;
   uint32_t s = cbp_loc_site(t, t->events[c->e1].loc);
   return cbp_loc_site(t, t->events[c->f].loc) == s &&
          cbp_loc_site(t, t->events[c->e2].loc) == s;
}

/* Whether thread tid holds lock addr at its event i: its nearest event
 * on addr before i, within SPLIT_SCAN events, is a LOCK. */
#define SPLIT_SCAN 4096
static int holds_at(const cb_trace *t, uint32_t tid, uint64_t addr, uint64_t i) {
   for (uint64_t k = i, n = 0; k-- > 0 && n < SPLIT_SCAN; n++) {
      const cb_event *e = &t->events[k];
      if (e->tid != tid || e->addr != addr) continue;
      if (e->kind == CB_EV_LOCK) return 1;
      if (e->kind == CB_EV_UNLOCK) return 0;
   }
   return 0;
}

/* A check and its act in two critical sections of one lock: an RWW whose
 * e1 runs under a lock that T1 lets go of next and has taken again at e2
 * (find a free slot under the lock, unlock, lock, claim it).  Both
 * accesses are locked, the pair is not: the textbook atomicity
 * violation, where an order violation on a counter the act bumps fails
 * by the same interleaving and names the counter (blind trial 25's
 * channel table: "ORD on uses" ranked before "RWW on owner").  Three
 * bounded scans a candidate: T1's first release after e1, and whether
 * it held that lock at e1 and holds it again at e2. */
static int split_check(const cb_trace *t, const cbp_candidate *c) {
   if (c->pattern != CBP_RWW || c->var2 || c->e2 <= c->e1) return 0;
   for (uint64_t k = c->e1 + 1, n = 0; k < c->e2 && n < SPLIT_SCAN; k++, n++) {
      const cb_event *e = &t->events[k];
      if (e->tid == c->t1 && e->kind == CB_EV_UNLOCK)
         return holds_at(t, c->t1, e->addr, c->e1) && holds_at(t, c->t1, e->addr, c->e2);
   }
   return 0;
}

/* Fresh candidates (fresh.c: on a path the test's recording never took)
 * first, then, when the recorded run failed, those whose shape it showed
 * (rank_failed.c: where its failure most likely came from), then the
 * lock-order inversions, each instance (few: an inversion
 * that a gate lock guards is not one, and a forced one that deadlocks is
 * a bug whatever the program checks; trial 8's bins_dlk deadlocked only
 * in its later instance, which ranked 26th of 31 behind atomicity
 * candidates and was not forced within --max-runs 25), then the pairs of
 * variables that one side updates or reads together and the other splits
 * (two_sided: blind trial 25's histogram, whose reporter checks the sum
 * against the buckets while a writer adds to them in two sections, was
 * named by an RWR of the reporter's reads of one bucket across two
 * snapshots, which failed first by the same interleaving), an atomic
 * instruction's repeats against itself after the others (atomic_repeat),
 * the latest
 * instances of another's e witness (cut_decide.c) last, then those whose
 * moved read sees nothing new (rank_seen.c) after the others, then, for
 * the checks and acts in two sections of one lock (split_check) first,
 * then, for cures (cures.c), those that flip every instance of their two sites
 * first (cure_class.c: a counter handed to each thread by address, every
 * worker reading it late), then the latest cut first: the flip that keeps
 * the most of the failing run is the one that says most precisely what
 * made it fail (a flag raised early and the fields copied out both cure
 * the run when the writer runs on first, and moving the copy keeps the
 * flag's order),
 * then by score, then the rarer code first (rarity), then in their
 * order. */
/* A two-variable candidate (two_vars.c) whose two sides disagree on the
 * pair: T1 writes both, one in each section, or reads both so and f
 * writes (the other thread then wrote both in its one section): a half
 * update seen whole, or two halves of different updates read as one. */
static int two_sided(const cbp_candidate *c) {
   return c->var2 && (c->pattern == CBP_WRW || c->pattern == CBP_WWW || c->pattern == CBP_RWR);
}

static int cmp_ranked(const void *a, const void *b) {
   const ranked *x = a, *y = b;
   if (x->fresh != y->fresh) return x->fresh ? -1 : 1;
   if (x->failed != y->failed) return x->failed ? -1 : 1;
   if (x->dlk != y->dlk) return x->dlk ? -1 : 1;
   if (x->two != y->two) return x->two ? -1 : 1;
   if (x->repeat != y->repeat) return x->repeat ? 1 : -1;
   if (x->atomic != y->atomic) return x->atomic ? 1 : -1;
   if (x->again != y->again) return x->again ? 1 : -1;
   if (x->seen != y->seen) return x->seen ? 1 : -1;
   if (x->split != y->split) return x->split ? -1 : 1;
   if (x->early != y->early) return x->early < y->early ? -1 : 1;
   if (x->score != y->score) return x->score < y->score ? -1 : 1;
   if (x->rare != y->rare) return x->rare < y->rare ? -1 : 1;
   return x->at < y->at ? -1 : x->at > y->at;
}

/* Rarity: how often the recording ran the rarest source line of a
 * candidate's three events, in powers of two.  A path a test rarely
 * takes is the one least tested, and where blind trial 17's bugs were:
 * a rate limiter's borrowing path (6 times in 1.1 M events) behind
 * hundreds of shapes on its hot refill lines, a pool's fallback for a
 * retried job (19 times) behind its queue's.  Lines, not locations: an
 * inlined helper's copies are one line. */
typedef struct { uint64_t key; uint64_t n; } line_count;

static int by_key(const void *a, const void *b) {
   const line_count *x = a, *y = b;
   return x->key < y->key ? -1 : x->key > y->key;
}

/* Per location: how many events the trace has on its source line. */
static uint64_t *line_counts(const cb_trace *t) {
   uint64_t *per_loc = cbp_xcalloc(t->nlocs + 1, sizeof *per_loc);
   for (size_t i = 0; i < t->nevents; i++)
      if (t->events[i].loc < t->nlocs) per_loc[t->events[i].loc]++;
   line_count *lc = cbp_xcalloc(t->nlocs + 1, sizeof *lc);
   for (uint32_t l = 0; l < t->nlocs; l++) {
      lc[l].key = cbp_line_key(&t->locs[l]);
      lc[l].n = per_loc[l];
   }
   qsort(lc, t->nlocs, sizeof *lc, by_key);
   for (uint32_t l = 0; l < t->nlocs; l++) {
      uint64_t k = cbp_line_key(&t->locs[l]), n = per_loc[l];
      if (!k) continue; /* an unknown line: its own count */
      size_t lo = 0, hi = t->nlocs;
      while (lo < hi) {
         size_t m = lo + (hi - lo) / 2;
         if (lc[m].key < k) lo = m + 1; else hi = m;
      }
      for (n = 0; lo < t->nlocs && lc[lo].key == k; lo++) n += lc[lo].n;
      per_loc[l] = n;
   }
   free(lc);
   return per_loc;
}

static int rarity(const cb_trace *t, const uint64_t *lines, const cbp_candidate *c) {
   uint64_t ev[3] = {c->e1, c->f, c->e2}, least = UINT64_MAX;
   for (int k = 0; k < 3; k++) {
      if (ev[k] >= t->nevents) continue;
      uint32_t loc = t->events[ev[k]].loc;
      uint64_t n = loc < t->nlocs ? lines[loc] : UINT64_MAX;
      if (n < least) least = n;
   }
   int r = 0;
   while (least > 1 && least != UINT64_MAX) { least >>= 1; r++; }
   return least == UINT64_MAX ? 64 : r;
}

/* Each thread's role: the function its first block began in (its start
 * routine, main's main), or, with no block, its own id with the top bit
 * set (a role of its own). */
static uint64_t *thread_roles(const cb_trace *t, uint32_t nthreads) {
   uint64_t *role = cbp_xcalloc((size_t)nthreads + 1, sizeof *role);
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      if (e->kind == CB_EV_BLOCK_BEGIN && e->tid <= nthreads && !role[e->tid])
         role[e->tid] = e->addr ? e->addr : 1;
   }
   for (uint32_t j = 0; j <= nthreads; j++)
      if (!role[j]) role[j] = (uint64_t)j | 1ull << 63;
   return role;
}

static uint32_t role_key(const uint64_t *role, uint32_t nthreads, uint32_t tid) {
   uint64_t r = tid <= nthreads ? role[tid] : (uint64_t)tid | 1ull << 63;
   return (uint32_t)(cbp_mix(r) >> 32);
}

/* Location loc's code site (rank.h). */
uint32_t cbp_loc_site(const cb_trace *t, uint32_t loc) {
   uint64_t k = loc < t->nlocs ? cbp_line_key(&t->locs[loc]) : 0;
   return k ? (uint32_t)(k ^ k >> 32) | 1u << 31 : loc;
}

uint32_t *cbp_loc_sites(const cb_trace *t) {
   uint32_t *site = cbp_xcalloc((size_t)t->nlocs + 1, sizeof *site);
   for (uint32_t l = 0; l < t->nlocs; l++)
      site[l] = cbp_loc_site(t, l);
   return site;
}

/* Event i's code site, 0 past the trace. */
static uint32_t site_of(const cb_trace *t, uint64_t i) {
   return i < t->nevents ? cbp_loc_site(t, t->events[i].loc) : 0;
}

/* A candidate whose pattern, three code sites (e1, f, e2) and threads'
 * roles one ranked before it has: a loop that fills a buffer byte by byte
 * makes one candidate per byte, all the same lines (blind trial 15's
 * bufpool: 846 of its 887 schedules one WWR at one line, ranked first,
 * where cbtest forces 25).  Each such shape's best goes before any second
 * instance of one (as cmp_ranked says), so that a budget of forced runs
 * meets as many shapes as it can; the repeats keep their order after
 * them.  The threads' roles are part of the shape, not the threads: four
 * front-end threads running one start routine made each site triple
 * three shapes (T3/T4, T3/T5, T3/T6), and blind trial 17's rate limiter's
 * unlocked counter came 63rd of 6,661 behind them.  The other thread
 * order of a site triple (symmetric.c keeps two) is still a shape of its
 * own, whether or not the two threads' roles differ: two clerks that
 * each lose the other's sale fail in both orders.  Only candidates with
 * a schedule count: one cbpredict drops meets no shape. */
static size_t mark_repeats(const cb_trace *t, const cbp_escape *x, const cbp_result *r,
                           ranked *o) {
   uint64_t *role = thread_roles(t, x->nthreads);
   site_key *keys = cbp_xcalloc(r->n, sizeof *keys);
   cbp_map m;
   cbp_map_init(&m, 64);
   size_t nkeys = 0, marked = 0;
   for (size_t i = 0; i < r->n; i++) {
      const cbp_candidate *c = &r->c[o[i].at];
      if (c->pattern == CBP_DLK || !c->built || c->dropped) continue;
      site_key k = {site_of(t, c->e1), site_of(t, c->f), site_of(t, c->e2),
                (uint32_t)c->pattern | (uint32_t)o[i].fresh << 8 | (uint32_t)(c->t1 < c->t2) << 9,
                role_key(role, x->nthreads, c->t1), role_key(role, x->nthreads, c->t2)};
      keys[nkeys] = k; /* hash_site reads the key from its slot */
      uint32_t *s = cbp_map_probe(&m, hash_site(keys, (uint32_t)nkeys), eq_site, keys, &k);
      if (*s) { o[i].repeat = 1; marked++; continue; }
      *s = (uint32_t)++nkeys;
      cbp_map_added(&m, hash_site, keys);
   }
   cbp_map_free(&m);
   free(keys);
   free(role);
   return marked;
}

void cbp_rank(const cb_trace *t, const cbp_escape *x, cbp_result *r) {
   if (r->n < 2) return;
   ranker k;
   memset(&k, 0, sizeof k);
   k.t = t; k.x = x;
   k.budget = 4 * (uint64_t)t->nevents + (1u << 22);
   if (!r->rf) r->rf = cbp_rf_new(t, x);
   k.rf = r->rf;
   cbp_map_init(&k.writer, 64);
   k.rec = cbp_xcalloc(RANK_WINDOW, sizeof *k.rec);
   k.cnt = cbp_xcalloc(x->nthreads + 1, sizeof *k.cnt);
   ranked *o = cbp_xcalloc(r->n, sizeof *o);
   uint64_t *lines = line_counts(t);
   uint8_t *seen = cbp_rank_seen(t, x, r);
   size_t nshown;
   uint8_t *shown = cbp_rank_failed(t, x, r, &nshown);
   r->shown_failed = nshown;
   for (size_t i = 0; i < r->n; i++) {
      const cbp_candidate *c = &r->c[i];
      o[i].at = i;
      o[i].fresh = c->fresh;
      o[i].again = c->again;
      o[i].dlk = c->pattern == CBP_DLK;
      o[i].two = two_sided(c);
      o[i].split = split_check(t, c);
      o[i].atomic = c->pattern != CBP_DLK && c->pattern != CBP_ORD && atomic_repeat(t, c);
      o[i].score = c->built && !c->dropped ? score(&k, c) : 0;
      o[i].rare = rarity(t, lines, c);
      o[i].seen = c->cure == 2 ? 0 : seen[i]; /* rank_seen judges one moved read */
      o[i].early = c->cure != 1 ? 0 /* not a cure, or a whole class: first */
                   : c->x1.tidx == UINT64_MAX ? UINT64_MAX /* a cut at a thread's start */
                   : UINT64_MAX - 1 - c->x1.tidx;
      o[i].failed = r->c[i].shown = shown ? shown[i] : 0;
   }
   free(shown);
   free(seen);
   free(lines);
   /* A total order (at breaks ties): candidates that nothing moves keep
    * their places. */
   qsort(o, r->n, sizeof *o, cmp_ranked);
   if (mark_repeats(t, x, r, o))
      qsort(o, r->n, sizeof *o, cmp_ranked);
   cbp_result_permute(r, &o[0].at, sizeof *o);
   free(o);
   free(k.cnt); free(k.rec); free(k.w); free(k.wvar);
   cbp_map_free(&k.writer);
}
