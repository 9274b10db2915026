/* two_vars.c: atomicity violations that span two variables.
 *
 * A histogram that adds a sample to its buckets in one critical section
 * and to its sum in the next, read by a reporter that checks one against
 * the other under the same lock; a reader that takes a count in one
 * section and the total in another while a writer updates both in one.
 * Each variable alone is always protected, and no single-variable pattern
 * holds the bug: it is the pair that the thread splits and another thread
 * treats as one (the correlation MUVI and ColFinder infer from variables
 * accessed together).  The shape: thread T1 accesses x in a critical
 * section S1 and y in the next one S2 of the same block (a function's
 * activation, or the start routine's body), S2 not S1's code again (a
 * loop's next round), x not in S2 and y not in S1;
 * another thread T2 accesses both x and y in one critical section S, with
 * a conflict on each (one side writes), beginning in other code than S1
 * and S2 do.  Forced, T2's section runs
 * between S1 and S2: e1 is T1's access of x, f T2's later access of the
 * two, e2 T1's access of y, and T1 is cut after S1's unlock, as pass B
 * cuts it for one variable.  The candidate names both (var2, addr2).
 *
 * Sections are the outermost ones (from an empty lockset to an empty
 * one), each with its first SV_MAX shared variables, kept as variable ids
 * with a bit for a write (4 bytes each, in one pool: the accesses
 * themselves are looked up in the trace when a candidate is made); S is
 * looked for among the sections that touch y nearest to S1 in the trace,
 * and each triple of the three sections' code sites gives one candidate.
 * Everything is bounded: a trace with more sections than SEC_MAX has the
 * first ones looked at (56 bytes a section, and the pool).
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "predict.h"

#define NONE UINT64_MAX
#define SV_MAX 16            /* shared variables kept a section */
#define SEC_MAX (1u << 18)   /* sections looked at */
#define NEAR 128             /* sections touching y looked at on each side */
#define PAIR_BUDGET (1u << 22)
#define TWO_MAX 64           /* candidates */
#define WROTE 0x80000000u    /* in a pool entry: the section wrote it */

typedef struct {
   uint32_t tid, txn, nv, v0;   /* v0: its variables' first pool entry */
   uint32_t prev;               /* the thread's previous section + 1, 0: none */
   uint64_t lock_at, unlock_at; /* trace indices */
   cbp_point le;                /* the thread's last empty cut before it */
} section;

typedef struct {
   cbp_held held;
   uint32_t ls, open; /* open: its current section + 1 */
   uint32_t last;     /* its last closed section + 1 */
   cbp_txn txn;
   uint64_t cidx;
   cbp_point le;
   uint32_t nv, v[SV_MAX]; /* the open section's variables so far */
} thr;

typedef struct {
   const cb_trace *t;
   cbp_analysis *a;
   section *s; size_t n, cap;
   uint32_t *pool; size_t npool, cappool;
   uint32_t *by_var_start, *by_var; /* sections touching each variable */
   uint64_t keys[TWO_MAX][3];       /* section site triples done */
   size_t nkeys;
   uint64_t budget;
} twopass;

/* Section s's entry for var (WROTE set when it wrote it); 0 when none. */
static uint32_t var_in(const twopass *p, const section *s, uint32_t var) {
   for (uint32_t k = 0; k < s->nv; k++)
      if ((p->pool[s->v0 + k] & ~WROTE) == var) return p->pool[s->v0 + k];
   return 0;
}

/* An access of a shared variable inside thread h's open section. */
static void note_access(thr *h, const cb_event *e, uint32_t var) {
   uint32_t w = e->kind == CB_EV_WRITE ? WROTE : 0;
   for (uint32_t k = 0; k < h->nv; k++)
      if ((h->v[k] & ~WROTE) == var) { h->v[k] |= w; return; }
   if (h->nv < SV_MAX) h->v[h->nv++] = var | w;
}

static void open_section(twopass *p, thr *h, uint32_t tid, size_t i) {
   p->s = cbp_grow(p->s, &p->cap, p->n, sizeof *p->s);
   section *s = &p->s[p->n++];
   s->tid = tid;
   s->txn = h->txn.serial ? h->txn.serial : UINT32_MAX - tid; /* the root */
   s->nv = s->v0 = 0;
   s->lock_at = i; s->unlock_at = NONE; s->le = h->le;
   s->prev = h->last;
   h->open = (uint32_t)p->n;
   h->nv = 0;
}

static void close_section(twopass *p, thr *h, size_t i) {
   section *s = &p->s[h->open - 1];
   s->unlock_at = i;
   s->v0 = (uint32_t)p->npool;
   s->nv = h->nv;
   for (uint32_t k = 0; k < h->nv; k++) {
      p->pool = cbp_grow(p->pool, &p->cappool, p->npool, sizeof *p->pool);
      p->pool[p->npool++] = h->v[k];
   }
   h->last = h->open;
   h->open = 0;
}

static void lock_event(twopass *p, thr *h, uint32_t tid, size_t i, const cb_event *e) {
   cbp_locks *L = p->a->L;
   uint32_t l = cbp_lock_of(L, &h->held, e);
   if (e->kind == CB_EV_LOCK) {
      if (!cbp_held_acquire(&h->held, l)) return;
      if (h->ls == 0 && p->n < SEC_MAX) open_section(p, h, tid, i);
      h->ls = cbp_locks_acquire(L, h->ls, l);
   } else {
      if (!cbp_held_release(&h->held, l)) return;
      h->ls = cbp_locks_release(L, h->ls, l);
      if (h->ls == 0 && h->open) close_section(p, h, i);
   }
}

/* Every outermost critical section and the shared variables in it. */
static void collect(twopass *p) {
   const cb_trace *t = p->t;
   const cbp_escape *x = &p->a->x;
   thr *th = cbp_xcalloc(x->nthreads + 1, sizeof *th);
   uint32_t serial = 0;
   enum cbp_blocks blocks = p->a->r.blocks ? p->a->r.blocks : CBP_BLOCKS_FUNCTIONS;
   for (uint32_t j = 0; j <= x->nthreads; j++) th[j].le = (cbp_point){0, NONE};
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      if (e->tid == 0 || e->tid > x->nthreads) continue;
      thr *h = &th[e->tid];
      if (!cbp_counted_event(e, x->nthreads)) {
         /* A section's block is the one it began in: a call inside it
          * (a helper under the lock) changes nothing. */
         cbp_txn_event(&h->txn, blocks, e, &serial);
         continue;
      }
      if (h->ls == 0 && !cbp_glued(e)) h->le = (cbp_point){h->cidx, i - 1};
      h->cidx++;
      if (e->kind == CB_EV_LOCK || e->kind == CB_EV_UNLOCK)
         lock_event(p, h, e->tid, i, e);
      else if ((e->kind == CB_EV_READ || e->kind == CB_EV_WRITE) && h->open &&
               x->var_of[i] && x->var_shared[x->var_of[i]] && !(e->flags & CB_EVF_LOCK_WORD))
         note_access(h, e, x->var_of[i]);
   }
   for (uint32_t j = 0; j <= x->nthreads; j++) cbp_held_free(&th[j].held);
   free(th);
}

/* by_var: for each variable, the closed sections that touch it, in trace
 * order (a CSR: by_var_start[var] .. by_var_start[var + 1]). */
static void index_vars(twopass *p) {
   uint32_t nv = p->a->x.nvars;
   p->by_var_start = cbp_xcalloc((size_t)nv + 2, sizeof *p->by_var_start);
   for (size_t k = 0; k < p->n; k++)
      for (uint32_t j = 0; j < p->s[k].nv; j++)
         p->by_var_start[(p->pool[p->s[k].v0 + j] & ~WROTE) + 1]++;
   for (uint32_t v = 1; v <= nv + 1; v++) p->by_var_start[v] += p->by_var_start[v - 1];
   p->by_var = cbp_xcalloc(p->npool ? p->npool : 1, sizeof *p->by_var);
   uint32_t *fill = cbp_xcalloc((size_t)nv + 1, sizeof *fill);
   for (size_t k = 0; k < p->n; k++)
      for (uint32_t j = 0; j < p->s[k].nv; j++) {
         uint32_t v = p->pool[p->s[k].v0 + j] & ~WROTE;
         p->by_var[p->by_var_start[v] + fill[v]++] = (uint32_t)k;
      }
   free(fill);
}

/* The pattern of e1, f, e2 (1: a write); -1 when it is no conflict. */
static int pattern_of(int k1, int kf, int k2) {
   static const int pat[8] = {-1, -1, CBP_RWR, CBP_RWW, -1, CBP_WRW, CBP_WWR, CBP_WWW};
   return pat[k1 << 2 | kf << 1 | k2];
}

/* Whether the three sections' code sites already gave a candidate (and
 * marks them): a loop's every round is one. */
static int sites_done(twopass *p, const section *s1, const section *s, const section *s2) {
   const cb_trace *t = p->t;
   uint64_t k[3] = {t->events[s1->lock_at].loc, t->events[s->lock_at].loc,
                    t->events[s2->lock_at].loc};
   for (size_t j = 0; j < p->nkeys; j++)
      if (!memcmp(p->keys[j], k, sizeof k)) return 1;
   memcpy(p->keys[p->nkeys++], k, sizeof k);
   return 0;
}

/* Section s's access of var: its last write when it wrote it (first: its
 * first), else its last read (first: its first); and the lock state there
 * (*ls, the section's locks taken so far). */
static uint64_t access_in(twopass *p, const section *s, uint32_t var, int first, uint32_t *ls) {
   const cb_trace *t = p->t;
   cbp_locks *L = p->a->L;
   cbp_held h; memset(&h, 0, sizeof h);
   uint64_t r = NONE, w = NONE;
   uint32_t st = 0, st_r = 0, st_w = 0;
   for (uint64_t i = s->lock_at; i <= s->unlock_at; i++) {
      const cb_event *e = &t->events[i];
      if (e->tid != s->tid) continue;
      if (e->kind == CB_EV_LOCK || e->kind == CB_EV_UNLOCK) {
         uint32_t l = cbp_lock_of(L, &h, e);
         if (e->kind == CB_EV_LOCK && cbp_held_acquire(&h, l)) st = cbp_locks_acquire(L, st, l);
         if (e->kind == CB_EV_UNLOCK && cbp_held_release(&h, l)) st = cbp_locks_release(L, st, l);
      } else if ((e->kind == CB_EV_READ || e->kind == CB_EV_WRITE) && p->a->x.var_of[i] == var) {
         uint64_t *at = e->kind == CB_EV_WRITE ? &w : &r;
         if (!first || *at == NONE) {
            *at = i;
            *(e->kind == CB_EV_WRITE ? &st_w : &st_r) = st;
         }
      }
   }
   cbp_held_free(&h);
   if (ls) *ls = w != NONE ? st_w : st_r;
   return w != NONE ? w : r;
}

/* Whether T2's section s can run between T1's s1 and s2: T1 at s1's
 * unlock needs none of T2's events from s on, T2 at f none of T1's past
 * that unlock (the clocks: create, join, barriers, signals). */
static int can_meet(twopass *p, const section *s1, const section *s, uint64_t f) {
   cbp_rf *rf = p->a->r.rf;
   const cbp_vclock *v = &p->a->v;
   uint64_t cu = cbp_rf_count_at(rf, s1->tid, s1->unlock_at); /* T1 through the unlock: cu + 1 */
   uint64_t cl = cbp_rf_count_at(rf, s->tid, s->lock_at);
   uint64_t cf = cbp_rf_count_at(rf, s->tid, f);
   return cbp_vc_get(v, cbp_vc_seg_at(v, s1->tid, cu), s->tid) <= cl &&
          cbp_vc_get(v, cbp_vc_seg_at(v, s->tid, cf), s1->tid) <= cu + 1;
}

/* The candidate of x in s1, y in s2 (T1) and both in s (T2); x1, y2, xs,
 * ys: the sections' entries (WROTE: it wrote the variable). */
static int make(twopass *p, const section *s1, const section *s, const section *s2,
                uint32_t x1, uint32_t y2, uint32_t xs, uint32_t ys) {
   int wx1 = !!(x1 & WROTE), wy2 = !!(y2 & WROTE), wxs = !!(xs & WROTE), wys = !!(ys & WROTE);
   uint32_t x = x1 & ~WROTE, y = y2 & ~WROTE;
   if (!(wx1 || wxs) || !(wy2 || wys)) return 0;
   /* f: T2's access of y, or of x when that of y names no pattern. */
   uint32_t fvar = y;
   int pat = pattern_of(wx1, wys, wy2);
   if (pat < 0) { fvar = x; pat = pattern_of(wx1, wxs, wy2); }
   if (pat < 0) return 0;
   uint32_t ls_f;
   uint64_t f = access_in(p, s, fvar, 0, &ls_f);
   if (f == NONE || !can_meet(p, s1, s, f) || sites_done(p, s1, s, s2)) return 0;
   uint64_t e1 = access_in(p, s1, x, 0, NULL), e2 = access_in(p, s2, y, 1, NULL);
   cbp_analysis *a = p->a;
   cbp_rf *rf = a->r.rf;
   cbp_result *r = &a->r;
   r->c = cbp_grow(r->c, &r->cap, r->n, sizeof *r->c);
   cbp_candidate *c = &r->c[r->n++];
   memset(c, 0, sizeof *c);
   c->pattern = (enum cbp_pattern)pat;
   c->var = x; c->addr = a->x.var_addr[x];
   c->var2 = y; c->addr2 = a->x.var_addr[y];
   c->t1 = s1->tid; c->t2 = s->tid;
   c->e1 = e1; c->ce1 = cbp_rf_count_at(rf, c->t1, e1);
   c->e2 = e2; c->ce2 = cbp_rf_count_at(rf, c->t1, e2);
   c->e = s1->unlock_at; c->ce = cbp_rf_count_at(rf, c->t1, s1->unlock_at);
   c->x1 = (cbp_point){c->ce + 1, s1->unlock_at}; /* cut after S1's unlock */
   c->f = f; c->cf = cbp_rf_count_at(rf, c->t2, f);
   c->ls_e = 0; c->ls_f = ls_f;
   c->x2 = s->le;
   const cb_event *nf = f + 1 < p->t->nevents ? &p->t->events[f + 1] : NULL;
   c->fwidth = nf && nf->tid == c->t2 && cbp_glued(nf) ? 2 : 1;
   c->seg_e = cbp_vc_seg_at(&a->v, c->t1, c->ce);
   c->seg_f = cbp_vc_seg_at(&a->v, c->t2, c->cf);
   return 1;
}

/* Whether s begins where s1 or s2 does: the same code (another worker of
 * a pool whose loop's section takes the next job and adds the last one's
 * result) touching both is no sign that they belong together. */
static int same_code(const twopass *p, const section *s, const section *s1, const section *s2) {
   uint32_t l = p->t->events[s->lock_at].loc;
   return l == p->t->events[s1->lock_at].loc || l == p->t->events[s2->lock_at].loc;
}

/* T2's section nearest s1 in the trace that touches y and x, from other
 * code than s1's and s2's. */
static void meet(twopass *p, const section *s1, const section *s2, uint32_t x1, uint32_t y2) {
   uint32_t x = x1 & ~WROTE, y = y2 & ~WROTE;
   const uint32_t *list = p->by_var + p->by_var_start[y];
   size_t n = p->by_var_start[y + 1] - p->by_var_start[y];
   size_t lo = 0, hi = n;
   while (lo < hi) { /* the first that began after s1 ended */
      size_t m = (lo + hi) / 2;
      if (p->s[list[m]].lock_at < s1->unlock_at) lo = m + 1; else hi = m;
   }
   for (size_t d = 0; d < 2 * NEAR && p->budget; d++, p->budget--) {
      size_t k = d & 1 ? lo - 1 - d / 2 : lo + d / 2; /* after, before, ... */
      if (k >= n) continue; /* also a wrapped lo - 1 - d / 2 */
      const section *s = &p->s[list[k]];
      uint32_t xs;
      if (s->tid == s1->tid || !(xs = var_in(p, s, x)) || same_code(p, s, s1, s2)) continue;
      if (make(p, s1, s, s2, x1, y2, xs, var_in(p, s, y))) return;
   }
}

size_t cbp_two_vars(const cb_trace *t, cbp_analysis *a) {
   twopass p;
   memset(&p, 0, sizeof p);
   p.t = t; p.a = a; p.budget = PAIR_BUDGET;
   size_t n0 = a->r.n;
   if (!a->r.rf) a->r.rf = cbp_rf_new(t, &a->x);
   collect(&p);
   index_vars(&p);
   for (size_t k = 0; k < p.n && p.nkeys < TWO_MAX && p.budget; k++) {
      const section *s2 = &p.s[k], *s1 = s2->prev ? &p.s[s2->prev - 1] : NULL;
      /* Two rounds of one section (a loop's) split nothing. */
      if (!s1 || s2->unlock_at == NONE || s1->txn != s2->txn ||
          t->events[s1->lock_at].loc == t->events[s2->lock_at].loc)
         continue;
      for (uint32_t i = 0; i < s1->nv && p.nkeys < TWO_MAX; i++) {
         uint32_t x1 = p.pool[s1->v0 + i];
         if (var_in(&p, s2, x1 & ~WROTE)) continue;
         for (uint32_t j = 0; j < s2->nv && p.nkeys < TWO_MAX; j++) {
            uint32_t y2 = p.pool[s2->v0 + j];
            if (!var_in(&p, s1, y2 & ~WROTE)) meet(&p, s1, s2, x1, y2);
         }
      }
   }
   free(p.s); free(p.pool); free(p.by_var); free(p.by_var_start);
   return a->r.n - n0;
}
