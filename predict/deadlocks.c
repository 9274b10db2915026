/* deadlocks.c: pass B', lock-order inversions (pattern DLK).
 *
 * The acquisition histories of section 3.2 already say when two nested
 * sections cannot be interleaved; here that is the bug itself.  One pass
 * keeps, per thread, the locks it holds and where each was taken.  A first
 * acquisition of B while A is held leaves a nested witness (A, B): where A
 * was taken (trace and counted index, the lock state before it, the last
 * empty-lockset cut before it) and where B was requested (index, the lock
 * state then, the clock segment).  Witnesses are deduplicated by (A, B,
 * thread, both locations, both lock states, segment).  Then each (A, B) of
 * T1 meets each (B, A) of another thread T2, and is a candidate when
 *   - no gate lock: the locksets at the two inner requests are disjoint (a
 *     lock both hold around their nested sections serialises them);
 *   - T1 just past taking A and T2 just past taking B can coexist: their
 *     lock states before those acquisitions are compatible (disjoint
 *     locksets, compatible acquisition histories);
 *   - the vector clocks do not order the sections: T1's request of B needs
 *     no event of T2 after T2 took B, nor T2's request of A one of T1 after
 *     T1 took A (create, join, barriers and signals can order them).
 * Every inversion is seen from both sides; T1 is the thread whose outer
 * acquisition comes first in the trace.  A trylock never blocks, so an
 * inner trylock makes no witness.  One representative is kept per (lock B,
 * three locations, thread pair).
 * Locks are ids in their mode (lockset.c): witnesses are matched by lock
 * (ob, ib: the locks' own ids) and kept when each thread's request
 * conflicts with the other's hold (cbp_locks_conflict).  Two readers of an
 * rwlock wait for no one: a cycle through two read acquisitions of one
 * rwlock is no deadlock, one through a reader and a writer is.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "predict.h"

#define NONE UINT64_MAX

typedef struct {            /* a held lock and where it was taken */
   uint32_t lock, ls_before;
   uint64_t tidx, cidx;
   cbp_point le;
} acq;

typedef struct {            /* a nested acquisition: inner while outer held */
   uint32_t outer, inner, o_ls, i_ls, i_seg, o_loc, i_loc;
   uint32_t tid;
   uint32_t ob, ib;         /* outer's and inner's own ids (whatever the mode) */
   uint64_t o_tidx, o_cidx, i_tidx, i_cidx;
   cbp_point o_le;
} nest;

typedef struct {
   cbp_held held;
   acq *stk; size_t n, cap;
   uint32_t ls;
   uint64_t cidx;
   cbp_point le;
} thr;

/* last[i]: v[i]'s latest instance, on a small trace (LATER_MAX_EVENTS). */
typedef struct { nest *v, *last; size_t n, cap, caplast; cbp_map map; } nests;

static uint64_t nhash(const nest *w) {
   return cbp_mix(((uint64_t)w->outer << 32 | w->inner) ^
                  cbp_mix(((uint64_t)w->o_loc << 32 | w->i_loc) ^
                          cbp_mix(((uint64_t)w->o_ls << 32 | w->i_ls) ^
                                  ((uint64_t)w->i_seg << 16 | w->tid))));
}
static int neq(const void *c, uint32_t i, const void *k) {
   const nest *a = &((const nests *)c)->v[i], *b = k;
   return a->outer == b->outer && a->inner == b->inner && a->o_loc == b->o_loc &&
          a->i_loc == b->i_loc && a->o_ls == b->o_ls && a->i_ls == b->i_ls &&
          a->i_seg == b->i_seg && a->tid == b->tid;
}
static uint64_t nhash_i(const void *c, uint32_t i) { return nhash(&((const nests *)c)->v[i]); }

static void add_nest(nests *ns, const nest *w, int small) {
   uint32_t *s = cbp_map_probe(&ns->map, nhash(w), neq, ns, w);
   if (*s) { /* keep the first, and on a small trace the latest */
      if (small) ns->last[*s - 1] = *w;
      return;
   }
   ns->v = cbp_grow(ns->v, &ns->cap, ns->n, sizeof *ns->v);
   ns->v[ns->n] = *w;
   if (small) {
      ns->last = cbp_grow(ns->last, &ns->caplast, ns->n, sizeof *ns->last);
      ns->last[ns->n] = *w;
   }
   *s = (uint32_t)++ns->n;
   cbp_map_added(&ns->map, nhash_i, ns);
}

static int cmp_nest(const void *a, const void *b) {
   const nest *x = a, *y = b;
   if (x->ob != y->ob) return x->ob < y->ob ? -1 : 1;
   if (x->ib != y->ib) return x->ib < y->ib ? -1 : 1;
   return x->o_tidx < y->o_tidx ? -1 : x->o_tidx > y->o_tidx;
}

/* No lock held by both at their inner requests in modes that exclude each
 * other (two readers of a gate rwlock do not serialise their sections). */
static int no_gate(const cbp_locks *L, uint32_t s1, uint32_t s2) {
   uint32_t n1 = cbp_locks_nheld(L, s1);
   for (uint32_t i = 0; i < n1; i++) {
      const uint32_t *ah; uint32_t nah;
      if (cbp_locks_excludes(L, s2, cbp_locks_held(L, s1, i, &ah, &nah))) return 0;
   }
   return 1;
}

/* Whether nest b's thread, holding its outer lock, blocks a's request. */
static int blocks(const cbp_locks *L, const nest *a, const nest *b) {
   return cbp_locks_conflict(L, a->inner, b->outer);
}

/* Representatives: one per (lock B, three locations, thread pair). */
static void rep_key(const cb_trace *t, const cbp_candidate *c, uint64_t k[6]) {
   k[0] = c->addr; k[1] = t->events[c->e1].loc; k[2] = t->events[c->f].loc;
   k[3] = t->events[c->e2].loc; k[4] = c->t1; k[5] = c->t2;
}
static int cmp_rep(const void *a, const void *b, void *ctx) {
   const cbp_candidate *x = a, *y = b;
   uint64_t kx[6], ky[6];
   rep_key(ctx, x, kx);
   rep_key(ctx, y, ky);
   for (int i = 0; i < 6; i++)
      if (kx[i] != ky[i]) return kx[i] < ky[i] ? -1 : 1;
   return x->e1 < y->e1 ? -1 : x->e1 > y->e1;
}
static int same_rep(const cb_trace *t, const cbp_candidate *x, const cbp_candidate *y) {
   uint64_t kx[6], ky[6];
   rep_key(t, x, kx);
   rep_key(t, y, ky);
   return !memcmp(kx, ky, sizeof kx);
}

static void collect(const cb_trace *t, const cbp_escape *x, const cbp_vclock *v,
                    cbp_locks *L, nests *ns) {
   uint32_t n = x->nthreads;
   thr *th = cbp_xcalloc(n + 1, sizeof *th);
   for (uint32_t j = 0; j <= n; j++) th[j].le = (cbp_point){0, NONE};
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      if (e->tid == 0 || e->tid > n || e->kind >= CB_EV_KIND_COUNT || !CB_IS_COUNTED(e->kind))
         continue;
      thr *h = &th[e->tid];
      uint64_t c = h->cidx++;
      /* The last empty-lockset cut before this event (as in cutpoints.c). */
      if (h->ls == 0 && !cbp_glued(e))
         h->le = (cbp_point){c, i - 1};
      if (e->kind == CB_EV_LOCK) {
         uint32_t l = cbp_lock_of(L, &h->held, e);
         if (!cbp_held_acquire(&h->held, l)) continue; /* re-entrant */
         if (e->value != 1) { /* a trylock does not wait */
            uint32_t seg = cbp_vc_seg_at(v, e->tid, c);
            for (size_t k = 0; k < h->n; k++) {
               const acq *a = &h->stk[k];
               nest w = {a->lock, l, a->ls_before, h->ls, seg,
                         t->events[a->tidx].loc, e->loc, (uint32_t)e->tid,
                         cbp_lock_base(L, a->lock), cbp_lock_base(L, l),
                         a->tidx, a->cidx, i, c, a->le};
               add_nest(ns, &w, t->nevents <= LATER_MAX_EVENTS);
            }
         }
         h->stk = cbp_grow(h->stk, &h->cap, h->n, sizeof *h->stk);
         h->stk[h->n++] = (acq){l, h->ls, i, c, h->le};
         h->ls = cbp_locks_acquire(L, h->ls, l);
      } else if (e->kind == CB_EV_UNLOCK) {
         uint32_t l = cbp_lock_of(L, &h->held, e);
         if (!cbp_held_release(&h->held, l)) continue;
         for (size_t k = 0; k < h->n; k++)
            if (h->stk[k].lock == l) {
               memmove(&h->stk[k], &h->stk[k + 1], (h->n - k - 1) * sizeof *h->stk);
               h->n--;
               break;
            }
         h->ls = cbp_locks_release(L, h->ls, l);
      }
   }
   for (uint32_t j = 0; j <= n; j++) { cbp_held_free(&th[j].held); free(th[j].stk); }
   free(th);
}

/* The candidate of a cycle of k nests (k >= 2): nest i's thread holds its
 * outer lock and asks for its inner one, the outer lock of nest i + 1.
 * T1 = nest 0's thread (e1 its outer acquisition, e2 its request), T2 =
 * nest 1's (f its outer acquisition, cg its request), the others in
 * c.more. */
static cbp_candidate cycle_candidate(const cbp_vclock *v, cbp_locks *L,
                                     const nest *const *w, int k) {
   cbp_candidate c;
   memset(&c, 0, sizeof c);
   c.pattern = CBP_DLK;
   c.addr = cbp_lock_addr(L, w[0]->inner);
   c.t1 = w[0]->tid; c.t2 = w[1]->tid;
   c.e1 = c.e = w[0]->o_tidx; c.ce1 = c.ce = w[0]->o_cidx;
   c.e2 = w[0]->i_tidx; c.ce2 = w[0]->i_cidx;
   c.f = w[1]->o_tidx; c.cf = w[1]->o_cidx; c.cg = w[1]->i_cidx;
   c.ls_e = w[0]->o_ls; c.ls_f = w[1]->o_ls;
   c.seg_e = cbp_vc_seg_at(v, c.t1, c.ce1);
   c.seg_f = cbp_vc_seg_at(v, c.t2, c.cf);
   c.x1 = w[0]->o_le; c.x2 = w[1]->o_le;
   if (k > 2) c.more = cbp_xcalloc((size_t)k - 2, sizeof *c.more);
   for (int i = 2; i < k; i++)
      c.more[c.nmore++] = (cbp_cycle_thread){w[i]->tid, w[i]->o_tidx, w[i]->o_cidx,
                                             w[i]->i_cidx, w[i]->o_le};
   return c;
}

/* Can nests a and b be held at once, each waiting: no gate lock, lock
 * states compatible at the outer acquisitions, and no clock orders them.
 * (Whether each blocks the other's request is the caller's: blocks().) */
static int coexist(const cbp_vclock *v, cbp_locks *L, const nest *a, const nest *b) {
   if (!no_gate(L, a->i_ls, b->i_ls) || !cbp_locks_compatible(L, a->o_ls, b->o_ls))
      return 0;
   return cbp_vc_get(v, a->i_seg, b->tid) <= b->o_cidx + 1 &&
          cbp_vc_get(v, b->i_seg, a->tid) <= a->o_cidx + 1;
}

/* ---- Cycles of three or more (dining philosophers) ------------------------
 * Depth-first over nests from each start nest, each next nest's outer lock
 * being the previous one's inner lock (held in a mode that blocks that
 * request), threads and locks all distinct, every
 * pair able to coexist.  A cycle is emitted from the nest of its earliest
 * outer acquisition only (no rotations).  Two rounds: cycles of 3 and 4
 * threads first, then of 5 to CBP_MAX_CYCLE, each with its own budget of
 * CYCLE_STEPS expansions, so that a large lock graph's long chains never
 * take the budget of its short cycles.  A search cut short by the budget
 * (or CYCLE_MAX cycles) is counted in r->cycles_capped; a chain of
 * CBP_MAX_CYCLE nests that could go on in r->cycles_long: a longer cycle
 * may exist there, and was not searched (five philosophers used to give no
 * inversion at all, and said nothing). */
#define CYCLE_STEPS 200000
#define CYCLE_MAX 256
#define CYCLE_SHORT 4   /* the first round's longest cycle */

typedef struct {
   const nests *ns; const cbp_vclock *v; cbp_locks *L; cbp_result *r;
   const uint32_t *comp; /* per lock (own id): its component of the lock graph */
   const nest *path[CBP_MAX_CYCLE]; int depth;
   int min_len, max_len; /* this round emits cycles of min_len..max_len nests */
   size_t steps, ncycles;
   int cut;              /* the budget ran out */
   cbp_candidate **found; size_t *nfound, *capfound;
} cycsearch;

static size_t first_outer(const nests *ns, uint32_t outer) {
   size_t lo = 0, hi = ns->n;
   while (lo < hi) {
      size_t m = (lo + hi) / 2;
      if (ns->v[m].ob < outer) lo = m + 1; else hi = m;
   }
   return lo;
}

/* The strongly connected components of the lock graph, an edge A -> B per
 * nest (A, B) (ns sorted by outer lock): a cycle of nests lies inside one,
 * so the search follows no nest between two, and a DAG of lock orders
 * (every thread taking its locks in one global order) has no chain that
 * could close.  Tarjan's algorithm, iterative (a chain of 100,000 locks
 * must not overflow the stack).  Returns comp, per lock id (own ids; the
 * graph is of locks, whatever the modes). */
static uint32_t *lock_sccs(const nests *ns, uint32_t nlocks) {
   uint32_t *comp = cbp_xcalloc(nlocks ? nlocks : 1, sizeof *comp);
   uint32_t *index = cbp_xcalloc(nlocks ? nlocks : 1, sizeof *index); /* 0: not seen */
   uint32_t *low = cbp_xcalloc(nlocks ? nlocks : 1, sizeof *low);
   uint32_t *stk = cbp_xcalloc(nlocks ? nlocks : 1, sizeof *stk), nstk = 0;
   uint32_t *fv = cbp_xcalloc(nlocks ? nlocks : 1, sizeof *fv), nf = 0;
   size_t *fb = cbp_xcalloc(nlocks ? nlocks : 1, sizeof *fb);
   uint8_t *on = cbp_xcalloc(nlocks ? nlocks : 1, 1);
   uint32_t next = 1, ncomp = 0;
   for (uint32_t root = 0; root < nlocks; root++) {
      if (index[root]) continue;
      fv[0] = root; fb[0] = first_outer(ns, root); nf = 1;
      index[root] = low[root] = next++; stk[nstk++] = root; on[root] = 1;
      while (nf) {
         uint32_t u = fv[nf - 1];
         if (fb[nf - 1] < ns->n && ns->v[fb[nf - 1]].ob == u) {
            uint32_t w = ns->v[fb[nf - 1]++].ib;
            if (!index[w]) {
               index[w] = low[w] = next++; stk[nstk++] = w; on[w] = 1;
               fv[nf] = w; fb[nf] = first_outer(ns, w); nf++;
            } else if (on[w] && index[w] < low[u]) {
               low[u] = index[w];
            }
            continue;
         }
         if (low[u] == index[u]) {
            uint32_t w;
            do { w = stk[--nstk]; on[w] = 0; comp[w] = ncomp; } while (w != u);
            ncomp++;
         }
         if (--nf && low[u] < low[fv[nf - 1]]) low[fv[nf - 1]] = low[u];
      }
   }
   free(index); free(low); free(stk); free(fv); free(fb); free(on);
   return comp;
}

/* Whether w may follow the path: a new thread, able to coexist with each
 * nest of the path, and (unless it closes the cycle) a new lock. */
static int fits(const cycsearch *S, const nest *w, int closing) {
   for (int i = 0; i < S->depth; i++)
      if (S->path[i]->tid == w->tid || (!closing && S->path[i]->ob == w->ib) ||
          !coexist(S->v, S->L, S->path[i], w))
         return 0;
   return 1;
}

static void emit(cycsearch *S, const nest *w) {
   S->path[S->depth] = w;
   cbp_candidate c = cycle_candidate(S->v, S->L, S->path, S->depth + 1);
   *S->found = cbp_grow(*S->found, S->capfound, *S->nfound, sizeof **S->found);
   (*S->found)[(*S->nfound)++] = c;
   S->ncycles++;
}

static void cycle_dfs(cycsearch *S) {
   const nest *last = S->path[S->depth - 1], *start = S->path[0];
   for (size_t b = first_outer(S->ns, last->ib);
        b < S->ns->n && S->ns->v[b].ob == last->ib; b++) {
      const nest *w = &S->ns->v[b];
      if (++S->steps > CYCLE_STEPS || S->ncycles >= CYCLE_MAX) { S->cut = 1; return; }
      if (w->o_tidx < start->o_tidx || S->comp[w->ib] != S->comp[start->ob] ||
          !blocks(S->L, last, w))
         continue;
      if (w->ib == start->ob) {
         if (!blocks(S->L, w, start)) continue;
         if (S->depth + 1 >= S->min_len && S->depth >= 2 && fits(S, w, 1)) emit(S, w);
         continue;
      }
      if (!fits(S, w, 0)) continue;
      if (S->depth + 1 >= S->max_len) {
         /* Counted in the last round only: the first round's cut chains
          * are followed by the second. */
         if (S->max_len == CBP_MAX_CYCLE) S->r->cycles_long++;
         continue;
      }
      S->path[S->depth++] = w;
      cycle_dfs(S);
      S->depth--;
      if (S->cut) return;
   }
}

static void find_cycles(const nests *ns, const cbp_vclock *v, cbp_locks *L, cbp_result *r,
                        cbp_candidate **found, size_t *nfound, size_t *capfound) {
   static const int rounds[2][2] = {{3, CYCLE_SHORT}, {CYCLE_SHORT + 1, CBP_MAX_CYCLE}};
   size_t ncycles = 0;
   uint32_t *comp = lock_sccs(ns, cbp_locks_nids(L));
   for (int k = 0; k < 2; k++) {
      cycsearch S = {ns, v, L, r, comp, {0}, 0, rounds[k][0], rounds[k][1], 0, ncycles, 0,
                     found, nfound, capfound};
      for (size_t a = 0; a < ns->n && !S.cut; a++) {
         if (comp[ns->v[a].ob] != comp[ns->v[a].ib]) continue;
         S.path[0] = &ns->v[a];
         S.depth = 1;
         cycle_dfs(&S);
      }
      r->cycles_capped += S.cut;
      ncycles = S.ncycles;
   }
   free(comp);
}

/* Whether nests a and b (a's outer acquisition first) make a deadlock
 * candidate: 1 yes; 0 no (readers both, a gate lock, incompatible lock
 * states); -1 a clock orders them. */
static int pair_ok(const cbp_vclock *v, cbp_locks *L, const nest *a, const nest *b) {
   if (!blocks(L, a, b) || !blocks(L, b, a)) return 0; /* readers both */
   if (!no_gate(L, a->i_ls, b->i_ls)) return 0;
   if (!cbp_locks_compatible(L, a->o_ls, b->o_ls)) return 0;
   if (cbp_vc_get(v, a->i_seg, b->tid) > b->o_cidx + 1 ||
       cbp_vc_get(v, b->i_seg, a->tid) > a->o_cidx + 1)
      return -1;
   return 1;
}

/* The first of each representative key (lock B, three locations, thread
 * pair) into r; counted as inversions unless they are later instances of
 * counted ones. */
static void keep_reps(const cb_trace *t, cbp_result *r, cbp_candidate *c, size_t n,
                      int count) {
   if (n > 1) qsort_r(c, n, sizeof *c, cmp_rep, (void *)t);
   for (size_t k = 0; k < n; k++) {
      if (k && same_rep(t, &c[k - 1], &c[k])) { /* first kept */
         free(c[k].more);
         continue;
      }
      r->c = cbp_grow(r->c, &r->cap, r->n, sizeof *r->c);
      r->c[r->n++] = c[k];
      r->deadlocks += count;
   }
}

void cbp_deadlocks(const cb_trace *t, const cbp_escape *x, const cbp_vclock *v,
                   cbp_locks *L, cbp_result *r) {
   nests ns;
   memset(&ns, 0, sizeof ns);
   cbp_map_init(&ns.map, 64);
   collect(t, x, v, L, &ns);
   cbp_sort_with(ns.v, ns.last, ns.n, sizeof *ns.v, cmp_nest);
   cbp_candidate *found = NULL; size_t nfound = 0, capfound = 0;
   cbp_candidate *later = NULL; size_t nlater = 0, caplater = 0;
   for (size_t a = 0; a < ns.n; a++) {
      const nest *w1 = &ns.v[a];
      /* The witnesses (B, A): first index with (outer, inner) >= (B, A). */
      size_t lo = 0, hi = ns.n;
      while (lo < hi) {
         size_t m = (lo + hi) / 2;
         const nest *y = &ns.v[m];
         if (y->ob < w1->ib || (y->ob == w1->ib && y->ib < w1->ob))
            lo = m + 1;
         else
            hi = m;
      }
      for (size_t b = lo; b < ns.n && ns.v[b].ob == w1->ib &&
                          ns.v[b].ib == w1->ob; b++) {
         const nest *w2 = &ns.v[b];
         if (w2->tid == w1->tid || w2->o_tidx < w1->o_tidx) continue;
         int why = pair_ok(v, L, w1, w2);
         r->dropped_vc += why < 0;
         if (why <= 0) continue;
         const nest *pair[2] = {w1, w2};
         found = cbp_grow(found, &capfound, nfound, sizeof *found);
         found[nfound++] = cycle_candidate(v, L, pair, 2);
         /* Their latest instances, T1 the earlier again. */
         const nest *l1 = ns.last ? &ns.last[a] : w1, *l2 = ns.last ? &ns.last[b] : w2;
         if (l1->o_tidx == w1->o_tidx && l2->o_tidx == w2->o_tidx) continue;
         if (l2->o_tidx < l1->o_tidx) { const nest *tmp = l1; l1 = l2; l2 = tmp; }
         if (pair_ok(v, L, l1, l2) <= 0) continue;
         const nest *lpair[2] = {l1, l2};
         later = cbp_grow(later, &caplater, nlater, sizeof *later);
         later[nlater] = cycle_candidate(v, L, lpair, 2);
         later[nlater++].again = 1;
      }
   }
   find_cycles(&ns, v, L, r, &found, &nfound, &capfound);
   keep_reps(t, r, found, nfound, 1);
   keep_reps(t, r, later, nlater, 0);
   free(found);
   free(later);
   free(ns.v);
   free(ns.last);
   cbp_map_free(&ns.map);
   if ((r->deadlocks || nlater) && r->n > 1)
      qsort(r->c, r->n, sizeof *r->c, cbp_candidate_cmp);
}
