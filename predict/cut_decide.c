/* cut_decide.c: THIS IS WHERE A CUT-POINT IS DECIDED (PENELOPE section
 * 4.1).  Per variable, every e witness meets every f witness of another
 * thread whose kind completes a pattern.  (e, f) is a cut-point when the
 * lock states are compatible (disjoint locksets, compatible acquisition
 * histories: Kahlon et al.) and the vector clocks do not order them.  One
 * representative is kept per (pattern, variable, three locations, thread
 * pair); then two thread pairs per code-site triple (symmetric.c).
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "cutpoints.h"

/* ---- the decision ---------------------------------------------------------- */
/* f witnesses by variable, then in groups of one (thread, location, kind),
 * each in trace order: combine() skips a whole group once its
 * representative exists. */
static int cmp_f(const void *a, const void *b) {
   const fwit *x = a, *y = b;
   if (x->var != y->var) return x->var < y->var ? -1 : 1;
   if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
   if (x->loc != y->loc) return x->loc < y->loc ? -1 : 1;
   if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
   return x->tidx < y->tidx ? -1 : x->tidx > y->tidx;
}
static int cmp_e(const void *a, const void *b) {
   const ewit *x = a, *y = b;
   if (x->var != y->var) return x->var < y->var ? -1 : 1;
   return x->e1 < y->e1 ? -1 : x->e1 > y->e1;
}
/* Order violations after the atomicity and deadlock candidates: those have
 * a block that should have been atomic; an ORD candidate is any reordering
 * of two conflicting accesses, benign more often.  A later instance of
 * another's sites (make_later) after all. */
int cbp_candidate_cmp(const void *a, const void *b) {
   const cbp_candidate *x = a, *y = b;
   if (x->again != y->again) return x->again - y->again;
   int ox = x->pattern == CBP_ORD, oy = y->pattern == CBP_ORD;
   if (ox != oy) return ox - oy;
   if (x->e1 != y->e1) return x->e1 < y->e1 ? -1 : 1;
   if (x->f != y->f) return x->f < y->f ? -1 : 1;
   return (int)x->pattern - (int)y->pattern;
}

/* Patterns completed by an f of kind fk between e1 (k1) and e2 (k2). */
static int pattern_of(uint8_t k1, uint8_t fk, uint8_t k2) {
   int r1 = k1 == CB_EV_READ, rf = fk == CB_EV_READ, r2 = k2 == CB_EV_READ;
   if (r1 && !rf && r2) return CBP_RWR;
   if (r1 && !rf && !r2) return CBP_RWW;
   if (!r1 && rf && !r2) return CBP_WRW;
   if (!r1 && !rf && r2) return CBP_WWR;
   if (!r1 && !rf && !r2) return CBP_WWW;
   return -1; /* f is a read next to a read: no conflict */
}

typedef struct { uint64_t addr; uint32_t l1, lf, l2; uint32_t t1, t2; uint8_t pat; } repkey;
/* A candidate's key from its witnesses: their locations are those of the
 * events e1, f and e2 (a site's instances share its location; an f that is
 * a whole read-modify-write is its read, with the read's location), so the
 * trace's events, far apart in memory, are not read. */
static repkey key_of(const ewit *e, const fwit *f, int pat, uint64_t addr) {
   repkey k;
   memset(&k, 0, sizeof k);
   k.addr = addr; k.l1 = e->loc1; k.lf = f->loc; k.l2 = e->loc2;
   k.t1 = e->tid; k.t2 = f->tid; k.pat = (uint8_t)pat;
   return k;
}
/* The representatives' keys, kept beside r->c (same index) so that the
 * map compares and rehashes without going back to the trace's events. */
typedef struct { const cbp_result *r; const cb_trace *t; repkey *keys; size_t cap; } rctx;
static uint64_t rhash(const repkey *k) {
   return cbp_mix(k->addr ^ cbp_mix(((uint64_t)k->l1 << 32 | k->lf) ^
                  (cbp_mix((uint64_t)k->l2 << 32 | (uint64_t)k->t1 << 16 | k->t2) +
                  k->pat)));
}
static int req(const void *c, uint32_t i, const void *k) {
   const rctx *x = c;
   repkey a = x->keys[i];
   const repkey *b = k;
   return a.addr == b->addr && a.l1 == b->l1 && a.lf == b->lf && a.l2 == b->l2 &&
          a.t1 == b->t1 && a.t2 == b->t2 && a.pat == b->pat;
}
static uint64_t rhash_i(const void *c, uint32_t i) {
   const rctx *x = c;
   return rhash(&x->keys[i]);
}

static int rep_exists(cbp_map *reps, rctx *rc, const ewit *e, const fwit *f, int pat,
                      uint64_t addr) {
   repkey k = key_of(e, f, pat, addr);
   return *cbp_map_probe(reps, rhash(&k), req, rc, &k) != 0;
}

/* Whether e and f can meet: 1 yes; 0 their lock states are not compatible
 * (locksets, acquisition histories); -1 a clock orders them (f may not
 * need T past e, e may not need f). */
static int can_meet(const pass *p, const ewit *e, const fwit *f) {
   if (!cbp_locks_compatible(p->L, e->ls, f->ls)) return 0;
   if (cbp_vc_get(p->v, f->seg, e->tid) > e->ce + 1 ||
       cbp_vc_get(p->v, e->seg, f->tid) > f->cidx)
      return -1;
   return 1;
}

/* A cut-point found, before its candidate is made: its e and f witnesses
 * (indices into p->ew, p->fw), pattern and finding order (seq).  There are
 * several times more of them than the symmetric cut keeps (158,000 against
 * 25,500 on 10 M generated events), so they are sorted and cut as these 32
 * bytes, and only the kept ones become 304-byte candidates. */
typedef struct { uint64_t e1, f; uint32_t e, fw, seq; uint8_t pat; } found;

/* cbp_candidate_cmp's order (none of pass B's is an ORD), ties in the
 * order found: what a stable sort of the candidates gives. */
static int cmp_found(const void *a, const void *b) {
   const found *x = a, *y = b;
   if (x->e1 != y->e1) return x->e1 < y->e1 ? -1 : 1;
   if (x->f != y->f) return x->f < y->f ? -1 : 1;
   if (x->pat != y->pat) return (int)x->pat - (int)y->pat;
   return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Whether trace event i is the read half of a locked read-modify-write
 * instruction (the xchg that C11's atomic_store compiles to, a CAS, a
 * `lock add`): its write half, glued to it, is the next event (Valgrind
 * switches threads only between instructions). */
static int rmw_read_half(const cb_trace *t, uint64_t i) {
   if (i + 1 >= t->nevents) return 0;
   const cb_event *r = &t->events[i], *w = &t->events[i + 1];
   return r->kind == CB_EV_READ && w->kind == CB_EV_WRITE && w->tid == r->tid &&
          w->addr == r->addr && cbp_glued(w);
}

/* The pattern in words counts an e1 or e2 that is a whole read-modify-write
 * as the write it is, as an f already is (access(), cutpoints.c): a value
 * loaded, another thread's store, then this thread's atomic_store (an
 * xchg) is a lost update, RWW, not an RWR whose second read is the
 * exchange's own.  Which cut-points exist does not change, only the name. */
static int pattern_named(const cb_trace *t, int pat, uint64_t e1, uint64_t e2) {
   static const int as_w[] = {[CBP_RWR] = CBP_WWR, [CBP_RWW] = CBP_WWW};
   if ((pat == CBP_RWR || pat == CBP_RWW) && rmw_read_half(t, e1)) pat = as_w[pat];
   if (pat == CBP_RWR && rmw_read_half(t, e2)) return CBP_RWW;
   if (pat == CBP_WWR && rmw_read_half(t, e2)) return CBP_WWW;
   return pat;
}

static cbp_candidate *make_candidate_of(pass *p, const ewit *e, const fwit *f, int pat) {
   cbp_result *r = p->r;
   r->c = cbp_grow(r->c, &r->cap, r->n, sizeof *r->c);
   cbp_candidate *c = &r->c[r->n++];
   memset(c, 0, sizeof *c);
   c->pattern = (enum cbp_pattern)pattern_named(p->t, pat, e->e1, e->e2);
   c->var = e->var; c->addr = p->x->var_addr[e->var];
   c->t1 = e->tid; c->t2 = f->tid;
   c->e1 = e->e1; c->e = e->e; c->e2 = e->e2; c->f = f->tidx;
   c->ce1 = e->ce1; c->ce = e->ce; c->ce2 = e->ce2; c->cf = f->cidx;
   c->ls_e = e->ls; c->ls_f = f->ls; c->seg_e = e->seg; c->seg_f = f->seg;
   c->x1 = e->x1; c->x2 = f->le;
   c->fwidth = f->width;
   return c;
}

static void make_candidate(pass *p, const found *d) {
   make_candidate_of(p, &p->ew[d->e], &p->fw[d->fw], d->pat);
}

/* The latest instance of a kept candidate's e witness, with the same f,
 * as one more candidate ranked after all others (again): the first
 * instance of a loop's check and act is not always the one that fails (a
 * free-list trim decided on 4 spares passes; the same trim decided on 2,
 * with a client's take between, fails: trial 7's pool_trim).  Only when
 * its e1 saw another value than the first's, and it can meet f. */
static void make_later(pass *p, const found *d) {
   const ewit *e = &p->ew[d->e], *l = &p->ew_last[d->e];
   const fwit *f = &p->fw[d->fw];
   if (l->e1 <= e->e1 || p->t->events[l->e1].value == p->t->events[e->e1].value ||
       can_meet(p, l, f) <= 0)
      return;
   make_candidate_of(p, l, f, d->pat)->again = 1;
}

/* The found cut-points in candidate order, the symmetric cut
 * (symmetric.c), then the candidates.  Pass B's are the result's first
 * (analyze.c runs it first). */
static void make_candidates(pass *p, found *d, size_t n) {
   if (n > 1) qsort(d, n, sizeof *d, cmp_found);
   cbp_symsite *s = cbp_xcalloc(n ? n : 1, sizeof *s);
   uint8_t *keep = cbp_xcalloc(n ? n : 1, 1);
   for (size_t i = 0; i < n; i++) {
      const ewit *e = &p->ew[d[i].e];
      s[i] = (cbp_symsite){p->x->var_addr[e->var], e->e1, d[i].f, e->e2, d[i].pat};
   }
   size_t nkeep = cbp_symmetric_keep(p->t, s, n, keep);
   p->r->symmetric += n - nkeep;
   if (nkeep) { /* one allocation of the kept, not a doubling of all */
      p->r->cap = p->r->n + nkeep;
      p->r->c = cbp_xrealloc(p->r->c, p->r->cap * sizeof *p->r->c);
   }
   for (size_t i = 0; i < n; i++)
      if (keep[i]) make_candidate(p, &d[i]);
   for (size_t i = 0; p->ew_last && i < n; i++)
      if (keep[i]) make_later(p, &d[i]);
   free(s);
   free(keep);
}

void cut_combine(pass *p) {
   cbp_result *r = p->r;
   if (p->ftab.n > 1) qsort(p->fw, p->ftab.n, sizeof *p->fw, cmp_f);
   cbp_sort_with(p->ew, p->ew_last, p->etab.n, sizeof *p->ew, cmp_e);
   cbp_map reps; cbp_map_init(&reps, 256);
   rctx rc = {r, p->t, NULL, 0};
   found *d = NULL;
   size_t nd = 0, capd = 0, fi = 0;
   for (size_t ei = 0; ei < p->etab.n;) {
      uint32_t var = p->ew[ei].var;
      size_t e_end = ei;
      while (e_end < p->etab.n && p->ew[e_end].var == var) e_end++;
      while (fi < p->ftab.n && p->fw[fi].var < var) fi++;
      size_t f_end = fi;
      while (f_end < p->ftab.n && p->fw[f_end].var == var) f_end++;
      for (size_t a = ei; a < e_end; a++) {
         const ewit *e = &p->ew[a];
         for (size_t b = fi; b < f_end; b++) {
            const fwit *f = &p->fw[b];
            int pat = pattern_of(e->k1, f->kind, e->k2);
            int group_start = b == fi || f->tid != f[-1].tid || f->loc != f[-1].loc ||
                              f->kind != f[-1].kind;
            if (group_start && (f->tid == e->tid || pat < 0 ||
                                rep_exists(&reps, &rc, e, f, pat, p->x->var_addr[var]))) {
               /* The whole group: same thread, or no conflict, or its
                * representative is already kept. */
               while (b + 1 < f_end && f[1].tid == f->tid && f[1].loc == f->loc &&
                      f[1].kind == f->kind) { b++; f++; }
               continue;
            }
            if (f->tid == e->tid || pat < 0) continue;
            int meet = can_meet(p, e, f);
            r->dropped_vc += meet < 0;
            if (meet <= 0) continue;
            r->cutpoints++;
            repkey k = key_of(e, f, pat, p->x->var_addr[var]);
            uint32_t *s = cbp_map_probe(&reps, rhash(&k), req, &rc, &k);
            if (*s) continue;
            d = cbp_grow(d, &capd, nd, sizeof *d);
            rc.keys = cbp_grow(rc.keys, &rc.cap, nd, sizeof *rc.keys);
            d[nd] = (found){e->e1, f->tidx, (uint32_t)a, (uint32_t)b, (uint32_t)nd, (uint8_t)pat};
            rc.keys[nd] = k;
            *s = (uint32_t)++nd;
            cbp_map_added(&reps, rhash_i, &rc);
         }
      }
      ei = e_end;
   }
   cbp_map_free(&reps);
   free(rc.keys);
   make_candidates(p, d, nd);
   free(d);
}
