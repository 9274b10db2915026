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
 * activation, or the start routine's body), x not in S2 and y not in S1;
 * another thread T2 accesses both x and y in one critical section S, with
 * a conflict on each (one side writes), beginning in other code than S1
 * and S2 do.  Forced, T2's section runs
 * between S1 and S2: e1 is T1's access of x, f T2's later access of the
 * two, e2 T1's access of y, and T1 is cut after S1's unlock, as pass B
 * cuts it for one variable.  The candidate names both (var2, addr2).
 *
 * Sections are the outermost ones (from an empty lockset to an empty
 * one), each with its first SV_MAX shared variables; S is looked for among
 * the sections that touch y nearest to S1 in the trace, and each site
 * triple (e1, f, e2) gives one candidate.  Everything is bounded: a trace
 * with more sections than SEC_MAX has the first ones looked at.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "predict.h"

#define NONE UINT64_MAX
#define SV_MAX 16            /* shared variables kept a section */
#define SEC_MAX (1u << 20)   /* sections looked at */
#define NEAR 128             /* sections touching y looked at on each side */
#define PAIR_BUDGET (1u << 22)
#define TWO_MAX 64           /* candidates */

typedef struct {
   uint32_t var, ls;     /* ls: the lock state at its last access */
   uint8_t wrote;
   uint64_t first, last; /* trace indices of its first and last access */
   uint64_t first_w, last_w; /* its first and last write (NONE: none) */
} svar;

typedef struct {
   uint32_t tid, txn, nv;
   uint64_t lock_at, unlock_at; /* trace indices */
   cbp_point le;                /* the thread's last empty cut before it */
   uint32_t prev;               /* the thread's previous section + 1, 0: none */
   svar v[SV_MAX];
} section;

typedef struct {
   cbp_held held;
   uint32_t ls, open; /* open: its current section + 1 */
   uint32_t last;     /* its last closed section + 1 */
   cbp_txn txn;
   uint64_t cidx;
   cbp_point le;
} thr;

typedef struct {
   const cb_trace *t;
   cbp_analysis *a;
   section *s; size_t n, cap;
   uint32_t *by_var_start, *by_var; /* sections touching each variable */
   uint64_t keys[TWO_MAX][3];       /* site triples done */
   size_t nkeys;
   uint64_t budget;
} twopass;

static svar *var_in(section *s, uint32_t var) {
   for (uint32_t k = 0; k < s->nv; k++)
      if (s->v[k].var == var) return &s->v[k];
   return NULL;
}

/* An access of a shared variable inside thread h's open section. */
static void note_access(twopass *p, thr *h, size_t i, const cb_event *e, uint32_t var) {
   section *s = &p->s[h->open - 1];
   svar *v = var_in(s, var);
   if (!v && s->nv == SV_MAX) return;
   if (!v) {
      v = &s->v[s->nv++];
      *v = (svar){var, 0, 0, i, i, NONE, NONE};
   }
   v->last = i;
   v->ls = h->ls;
   if (e->kind == CB_EV_WRITE) {
      if (!v->wrote) v->first_w = i;
      v->wrote = 1;
      v->last_w = i;
   }
}

static void lock_event(twopass *p, thr *h, uint32_t tid, size_t i, const cb_event *e) {
   cbp_locks *L = p->a->L;
   uint32_t l = cbp_lock_of(L, &h->held, e);
   if (e->kind == CB_EV_LOCK) {
      if (!cbp_held_acquire(&h->held, l)) return;
      if (h->ls == 0 && p->n < SEC_MAX) {
         p->s = cbp_grow(p->s, &p->cap, p->n, sizeof *p->s);
         section *s = &p->s[p->n++];
         uint32_t txn = h->txn.serial ? h->txn.serial : UINT32_MAX - tid; /* the root */
         s->tid = tid; s->txn = txn; s->nv = 0;
         s->lock_at = i; s->unlock_at = NONE; s->le = h->le;
         s->prev = h->last;
         h->open = (uint32_t)p->n;
      }
      h->ls = cbp_locks_acquire(L, h->ls, l);
   } else {
      if (!cbp_held_release(&h->held, l)) return;
      h->ls = cbp_locks_release(L, h->ls, l);
      if (h->ls == 0 && h->open) {
         p->s[h->open - 1].unlock_at = i;
         h->last = h->open;
         h->open = 0;
      }
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
         note_access(p, h, i, e, x->var_of[i]);
   }
   for (uint32_t j = 0; j <= x->nthreads; j++) cbp_held_free(&th[j].held);
   free(th);
}

/* by_var: for each variable, the closed sections that touch it, in trace
 * order (a CSR: by_var_start[var] .. by_var_start[var + 1]). */
static void index_vars(twopass *p) {
   uint32_t nv = p->a->x.nvars;
   p->by_var_start = cbp_xcalloc((size_t)nv + 2, sizeof *p->by_var_start);
   size_t total = 0;
   for (size_t k = 0; k < p->n; k++)
      if (p->s[k].unlock_at != NONE)
         for (uint32_t j = 0; j < p->s[k].nv; j++) { p->by_var_start[p->s[k].v[j].var + 1]++; total++; }
   for (uint32_t v = 1; v <= nv + 1; v++) p->by_var_start[v] += p->by_var_start[v - 1];
   p->by_var = cbp_xcalloc(total ? total : 1, sizeof *p->by_var);
   uint32_t *fill = cbp_xcalloc((size_t)nv + 1, sizeof *fill);
   for (size_t k = 0; k < p->n; k++)
      if (p->s[k].unlock_at != NONE)
         for (uint32_t j = 0; j < p->s[k].nv; j++) {
            uint32_t v = p->s[k].v[j].var;
            p->by_var[p->by_var_start[v] + fill[v]++] = (uint32_t)k;
         }
   free(fill);
}

/* The pattern of e1, f, e2 (1: a write); -1 when it is no conflict. */
static int pattern_of(int k1, int kf, int k2) {
   static const int pat[8] = {-1, -1, CBP_RWR, CBP_RWW, -1, CBP_WRW, CBP_WWR, CBP_WWW};
   return pat[k1 << 2 | kf << 1 | k2];
}

/* Whether sites (e1, f, e2) already gave a candidate (and marks them). */
static int site_done(twopass *p, uint64_t e1, uint64_t f, uint64_t e2) {
   const cb_trace *t = p->t;
   uint64_t k[3] = {t->events[e1].loc, t->events[f].loc, t->events[e2].loc};
   for (size_t j = 0; j < p->nkeys; j++)
      if (!memcmp(p->keys[j], k, sizeof k)) return 1;
   memcpy(p->keys[p->nkeys++], k, sizeof k);
   return 0;
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

/* The candidate of x in s1, y in s2 (T1) and both in s (T2). */
static int make(twopass *p, const section *s1, const section *s, const svar *x1,
                const svar *y2) {
   const svar *xs = var_in((section *)s, x1->var), *ys = var_in((section *)s, y2->var);
   if (!(x1->wrote || xs->wrote) || !(y2->wrote || ys->wrote)) return 0;
   uint64_t e1 = x1->wrote ? x1->last_w : x1->last;
   uint64_t e2 = y2->wrote ? y2->first_w : y2->first;
   /* f: T2's access of y, or of x when that of y names no pattern. */
   const svar *fv = ys;
   int pat = pattern_of(x1->wrote, ys->wrote, y2->wrote);
   if (pat < 0) { fv = xs; pat = pattern_of(x1->wrote, xs->wrote, y2->wrote); }
   if (pat < 0) return 0;
   uint64_t f = fv->wrote ? fv->last_w : fv->last;
   if (!can_meet(p, s1, s, f) || site_done(p, e1, f, e2)) return 0;
   cbp_analysis *a = p->a;
   cbp_rf *rf = a->r.rf;
   cbp_result *r = &a->r;
   r->c = cbp_grow(r->c, &r->cap, r->n, sizeof *r->c);
   cbp_candidate *c = &r->c[r->n++];
   memset(c, 0, sizeof *c);
   c->pattern = (enum cbp_pattern)pat;
   c->var = x1->var; c->addr = a->x.var_addr[x1->var];
   c->var2 = y2->var; c->addr2 = a->x.var_addr[y2->var];
   c->t1 = s1->tid; c->t2 = s->tid;
   c->e1 = e1; c->ce1 = cbp_rf_count_at(rf, c->t1, e1);
   c->e2 = e2; c->ce2 = cbp_rf_count_at(rf, c->t1, e2);
   c->e = s1->unlock_at; c->ce = cbp_rf_count_at(rf, c->t1, s1->unlock_at);
   c->x1 = (cbp_point){c->ce + 1, s1->unlock_at}; /* cut after S1's unlock */
   c->f = f; c->cf = cbp_rf_count_at(rf, c->t2, f);
   c->ls_e = 0; c->ls_f = fv->ls;
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
static int meet(twopass *p, const section *s1, const section *s2, const svar *x1,
                const svar *y2) {
   const uint32_t *list = p->by_var + p->by_var_start[y2->var];
   size_t n = p->by_var_start[y2->var + 1] - p->by_var_start[y2->var];
   size_t lo = 0, hi = n;
   while (lo < hi) { /* the first that began after s1 ended */
      size_t m = (lo + hi) / 2;
      if (p->s[list[m]].lock_at < s1->unlock_at) lo = m + 1; else hi = m;
   }
   for (size_t d = 0; d < 2 * NEAR && p->budget; d++, p->budget--) {
      size_t k = d & 1 ? lo - 1 - d / 2 : lo + d / 2; /* after, before, ... */
      if (k >= n) continue; /* also a wrapped lo - 1 - d / 2 */
      const section *s = &p->s[list[k]];
      if (s->tid == s1->tid || !var_in((section *)s, x1->var) || same_code(p, s, s1, s2))
         continue;
      if (make(p, s1, s, x1, y2)) return 1;
   }
   return 0;
}

size_t cbp_two_vars(const cb_trace *t, cbp_analysis *a) {
   twopass p = {t, a, NULL, 0, 0, NULL, NULL, {{0}}, 0, PAIR_BUDGET};
   size_t n0 = a->r.n;
   if (!a->r.rf) a->r.rf = cbp_rf_new(t, &a->x);
   collect(&p);
   index_vars(&p);
   for (size_t k = 0; k < p.n && p.nkeys < TWO_MAX && p.budget; k++) {
      const section *s2 = &p.s[k], *s1 = s2->prev ? &p.s[s2->prev - 1] : NULL;
      if (!s1 || s2->unlock_at == NONE || s1->txn != s2->txn) continue;
      for (uint32_t i = 0; i < s1->nv && p.nkeys < TWO_MAX; i++) {
         if (var_in((section *)s2, s1->v[i].var)) continue;
         for (uint32_t j = 0; j < s2->nv && p.nkeys < TWO_MAX; j++)
            if (!var_in((section *)s1, s2->v[j].var))
               meet(&p, s1, s2, &s1->v[i], &s2->v[j]);
      }
   }
   free(p.s); free(p.by_var); free(p.by_var_start);
   return a->r.n - n0;
}
