/* cutpoints.c: pass B, PENELOPE section 4.1.  THIS IS WHERE A CUT-POINT IS
 * DECIDED (see combine() at the end).
 *
 * One pass over the trace keeps, per thread, its lock state (lockset plus
 * acquisition history, lockset.c), its vector-clock segment (vclock.c) and
 * its current transaction (transactions.c).  Accesses to shared variables
 * leave bounded witnesses, deduplicated by hash maps keyed by variable:
 *   R, W  (f witnesses): per (variable, thread, kind, location, lock state,
 *         clock segment), the last such access;
 *   WW, AA (e witnesses): per (variable, thread, first access kind and
 *         location, second access kind and location, lock state, segment),
 *         an event e between two accesses e1 .. e2 of one transaction to the
 *         variable, with the lock state at e.  WW are the pairs whose first
 *         access is a write, AA all pairs; the pair's kinds pick the
 *         patterns (RR: RWR; RW: RWW; WR: WWR; WW: WRW and WWW).
 * At the end, per variable, every e witness meets every f witness of another
 * thread whose kind completes a pattern.  (e, f) is a cut-point when the lock
 * states are compatible (disjoint locksets, compatible acquisition
 * histories: Kahlon et al.) and the vector clocks do not order them.  One
 * representative is kept per (pattern, variable, three locations, thread
 * pair).  Work per event is O(1) hash look-ups; per transaction the pairs of
 * distinct access sites of one variable; nothing pairs events.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "predict.h"

#define NONE UINT64_MAX
#define E_STATES_PER_PAIR 8   /* distinct lock states tried as e per pair */
#define E_RUNS_SCANNED 512    /* lock-state runs scanned per pair */

const char *const cbp_pattern_name[CBP_NPAT] = {"RWR", "RWW", "WRW", "WWR", "WWW", "DLK", "ORD",
                                                "explore"};

/* A point of a block where T1 may be cut as e: where its lock state or
 * clock segment changed, or just after it was the source of a
 * happens-before edge (a create, a signal, a post: epoch counts them), since f may
 * need that edge and e cannot come before it. */
typedef struct {
   uint32_t ls, seg, epoch;
   uint8_t ok;
   uint64_t tidx, cidx;
   cbp_point le; /* last empty cut before this event */
} logent;

/* One access site (variable, kind, location) of a block: its first, second
 * and last instances.  e2 of a pair is the nearest instance after e1 that
 * these hold, so that in a loop e1 and e2 come from one iteration, not from
 * the first and the last. */
typedef struct {
   uint32_t var, loc;
   uint8_t kind;
   uint32_t count;
   uint32_t first_log, second_log, last_log;
   uint64_t first_tidx, first_cidx, second_tidx, second_cidx, last_tidx, last_cidx;
   cbp_point first_le;
   uint8_t first_ok;
} access_class;

/* The lock-state log and access sites of one open block.  A thread has two:
 * its current function block and its root block (functions mode).  A
 * function block pairs every two sites of a variable at its end.  The root
 * block (adjacent) pairs each access with the thread's previous access to
 * the same variable, as it comes (AVIO's local pairs, at most ROOT_PAIRS site pairs per variable): a thread's whole run
 * holds too many sites to pair them all, and the nearest previous access is
 * the one a check-then-act or a read-modify-write spans.  Its cls then
 * holds one key per variable (loc and kind 0) and last[] that variable's
 * latest access. */
typedef struct {
   logent *log; size_t nlog, caplog;
   cbp_map cmap; access_class *cls; size_t ncls, capcls;
   access_class *last; size_t caplast;
   int open, adjacent;
} txnbuf;

typedef struct {
   uint32_t ls;
   cbp_held held;
   uint64_t cidx, prev_tidx;
   cbp_point prev_le; /* le before the event at prev_tidx */
   cbp_point le; /* last empty-lockset cut so far (<= cidx); its trace
                    position is as late as it can be: just before the
                    thread's next event, so region I follows the trace far */
   cbp_txn txn;
   txnbuf fn, root;
   int exited;
   uint32_t epoch; /* happens-before sources (create, signal) so far */
} thr;

typedef struct { /* f witness */
   uint32_t var, loc, ls, seg;
   uint32_t tid; uint8_t kind;
   uint8_t width;  /* counted events f's instruction runs (a CAS: 2) */
   uint64_t tidx, cidx;
   cbp_point le;
} fwit;

typedef struct { /* e witness */
   uint32_t var, loc1, loc2, ls, seg, epoch;
   uint32_t tid; uint8_t k1, k2;
   uint64_t e1, ce1, e, ce, e2, ce2;
   cbp_point x1;
} ewit;

typedef struct {
   const cb_trace *t;
   const cbp_escape *x;
   cbp_vclock *v;
   cbp_locks *L;
   thr *th;
   cbp_map fmap; fwit *fw; size_t nfw, capfw;
   cbp_map emap; ewit *ew; size_t new_, capew;
   /* Root-block witnesses per (variable, sites, kinds, thread): at most
    * ROOT_WITNESSES, whatever the lock state, segment or epoch; a long
    * thread would otherwise leave one per loop iteration's segment. */
   cbp_map rmap; ewit *rk; uint8_t *rn; size_t nrk, caprk, caprn;
   cbp_result *r;
   uint32_t *tmp; size_t captmp;
} pass;

/* ---- hashing the witness keys --------------------------------------------- */
static uint64_t fhash(const fwit *w) {
   return cbp_mix(((uint64_t)w->var << 32 | w->loc) ^
                  cbp_mix((uint64_t)w->ls << 32 | w->seg) ^
                  ((uint64_t)w->tid << 8 | w->kind) * 0x9e3779b97f4a7c15ull);
}
static int feq(const void *c, uint32_t i, const void *k) {
   const fwit *a = &((const pass *)c)->fw[i], *b = k;
   return a->var == b->var && a->loc == b->loc && a->ls == b->ls &&
          a->seg == b->seg && a->tid == b->tid && a->kind == b->kind;
}
static uint64_t fhash_i(const void *c, uint32_t i) { return fhash(&((const pass *)c)->fw[i]); }

static uint64_t ehash(const ewit *w) {
   return cbp_mix(((uint64_t)w->var << 32 | w->loc1) ^
                  cbp_mix(((uint64_t)w->loc2 << 32 | w->ls) ^
                          cbp_mix((uint64_t)w->seg << 24 | (uint64_t)w->tid << 8 |
                                  (uint64_t)w->k1 << 4 | w->k2) ^
                          (uint64_t)w->epoch * 0x9e3779b97f4a7c15ull));
}
static int eeq(const void *c, uint32_t i, const void *k) {
   const ewit *a = &((const pass *)c)->ew[i], *b = k;
   return a->var == b->var && a->loc1 == b->loc1 && a->loc2 == b->loc2 &&
          a->ls == b->ls && a->seg == b->seg && a->tid == b->tid &&
          a->k1 == b->k1 && a->k2 == b->k2 && a->epoch == b->epoch;
}
static uint64_t ehash_i(const void *c, uint32_t i) { return ehash(&((const pass *)c)->ew[i]); }

static uint64_t chash(uint32_t var, uint8_t kind, uint32_t loc) {
   return cbp_mix(((uint64_t)var << 32 | loc) ^ ((uint64_t)kind << 61));
}
typedef struct { const access_class *cls; } clsctx;
typedef struct { uint32_t var, loc; uint8_t kind; } ckey;
static int ceq(const void *c, uint32_t i, const void *k) {
   const access_class *a = &((const clsctx *)c)->cls[i];
   const ckey *b = k;
   return a->var == b->var && a->loc == b->loc && a->kind == b->kind;
}
static uint64_t chash_i(const void *c, uint32_t i) {
   const access_class *a = &((const clsctx *)c)->cls[i];
   return chash(a->var, a->kind, a->loc);
}

/* ---- witnesses ----------------------------------------------------------------- */
#define ROOT_WITNESSES 4
/* ... and at most ROOT_PAIRS pairs of sites per (variable, thread): a
 * variable that a long thread reaches from dozens of places is not paired
 * every way round (real check-then-act code has a handful of sites). */
#define ROOT_PAIRS 4
static uint64_t rhash_w(const ewit *w) {
   return cbp_mix(((uint64_t)w->var << 32 | w->loc1) ^
                  cbp_mix((uint64_t)w->loc2 << 32 | (uint64_t)w->tid << 8 |
                          (uint64_t)w->k1 << 4 | w->k2));
}
static int req_w(const void *c, uint32_t i, const void *k) {
   const ewit *a = &((const pass *)c)->rk[i], *b = k;
   return a->var == b->var && a->loc1 == b->loc1 && a->loc2 == b->loc2 &&
          a->tid == b->tid && a->k1 == b->k1 && a->k2 == b->k2;
}
static uint64_t rhash_wi(const void *c, uint32_t i) { return rhash_w(&((const pass *)c)->rk[i]); }

/* Whether one more root witness of w's pair may be kept. */
static int root_room(pass *p, const ewit *w) {
   uint32_t *s = cbp_map_probe(&p->rmap, rhash_w(w), req_w, p, w);
   if (*s) {
      if (p->rn[*s - 1] >= ROOT_WITNESSES) { p->r->root_capped++; return 0; }
      p->rn[*s - 1]++;
      return 1;
   }
   /* A new pair of sites: at most ROOT_PAIRS per (variable, thread). */
   ewit vk = *w;
   vk.loc1 = vk.loc2 = UINT32_MAX; vk.k1 = vk.k2 = 0xff;
   uint32_t *vs = cbp_map_probe(&p->rmap, rhash_w(&vk), req_w, p, &vk);
   if (*vs && p->rn[*vs - 1] >= ROOT_PAIRS) { p->r->root_capped++; return 0; }
   if (*vs) {
      p->rn[*vs - 1]++;
   } else {
      p->rk = cbp_grow(p->rk, &p->caprk, p->nrk, sizeof *p->rk);
      p->rn = cbp_grow(p->rn, &p->caprn, p->nrk, sizeof *p->rn);
      p->rk[p->nrk] = vk;
      p->rn[p->nrk] = 1;
      *vs = (uint32_t)++p->nrk;
      cbp_map_added(&p->rmap, rhash_wi, p);
      s = cbp_map_probe(&p->rmap, rhash_w(w), req_w, p, w); /* the map grew */
   }
   p->rk = cbp_grow(p->rk, &p->caprk, p->nrk, sizeof *p->rk);
   p->rn = cbp_grow(p->rn, &p->caprn, p->nrk, sizeof *p->rn);
   p->rk[p->nrk] = *w;
   p->rn[p->nrk] = 1;
   *s = (uint32_t)++p->nrk;
   cbp_map_added(&p->rmap, rhash_wi, p);
   return 1;
}

static void add_e(pass *p, const ewit *w, int root) {
   uint32_t *s = cbp_map_probe(&p->emap, ehash(w), eeq, p, w);
   if (*s) return; /* keep the first */
   if (root && !root_room(p, w)) return;
   s = cbp_map_probe(&p->emap, ehash(w), eeq, p, w); /* root_room may not move it, but be sure */
   p->ew = cbp_grow(p->ew, &p->capew, p->new_, sizeof *p->ew);
   p->ew[p->new_] = *w;
   *s = (uint32_t)++p->new_;
   cbp_map_added(&p->emap, ehash_i, p);
}

static void add_f(pass *p, const fwit *w) {
   uint32_t *s = cbp_map_probe(&p->fmap, fhash(w), feq, p, w);
   if (*s) { p->fw[*s - 1] = *w; return; } /* keep the last: most room for e */
   p->fw = cbp_grow(p->fw, &p->capfw, p->nfw, sizeof *p->fw);
   p->fw[p->nfw] = *w;
   *s = (uint32_t)++p->nfw;
   cbp_map_added(&p->fmap, fhash_i, p);
}

static void log_push1(txnbuf *b, uint32_t ls, uint32_t seg, uint32_t epoch,
                      uint64_t tidx, uint64_t cidx, int ok, cbp_point le) {
   if (!b->open) return;
   b->log = cbp_grow(b->log, &b->caplog, b->nlog, sizeof *b->log);
   logent *g = &b->log[b->nlog++];
   g->ls = ls; g->seg = seg; g->epoch = epoch; g->ok = (uint8_t)ok;
   g->tidx = tidx; g->cidx = cidx; g->le = le;
}

/* A lock-state or segment change goes into the log of every open block. */
static void log_push(thr *h, uint32_t seg, uint64_t tidx, uint64_t cidx, int ok,
                     cbp_point le) {
   log_push1(&h->fn, h->ls, seg, h->epoch, tidx, cidx, ok, le);
   log_push1(&h->root, h->ls, seg, h->epoch, tidx, cidx, ok, le);
}

static cbp_point after_or(uint32_t ls, int ok, uint64_t tidx, uint64_t cidx,
                          cbp_point before) {
   if (ls == 0 && ok) return (cbp_point){cidx + 1, tidx};
   return before;
}

static int cmp_cls_var(const void *a, const void *b, void *ctx) {
   const access_class *c = ctx;
   uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
   if (c[x].var != c[y].var) return c[x].var < c[y].var ? -1 : 1;
   return x < y ? -1 : x > y;
}

/* e2 of the pair (a, b): b's nearest recorded instance after a's first. */
static int pick_e2(const access_class *a, const access_class *b, uint64_t *tidx,
                   uint64_t *cidx, uint32_t *log) {
   if (b->first_tidx > a->first_tidx) {
      *tidx = b->first_tidx; *cidx = b->first_cidx; *log = b->first_log;
   } else if (b->count > 1 && b->second_tidx > a->first_tidx) {
      *tidx = b->second_tidx; *cidx = b->second_cidx; *log = b->second_log;
   } else if (b->last_tidx > a->first_tidx) {
      *tidx = b->last_tidx; *cidx = b->last_cidx; *log = b->last_log;
   } else {
      return 0;
   }
   return 1;
}

/* e witnesses of one pair of sites: one per distinct (lock state, segment)
 * between e1 and e2, each a place where T1 may be cut.  0 if none. */
static int pair_witnesses(pass *p, uint32_t tid, const txnbuf *h,
                          const access_class *a, const access_class *b) {
   uint64_t e2, ce2; uint32_t j1;
   if (!pick_e2(a, b, &e2, &ce2, &j1)) return -1;
   uint32_t picked_ls[E_STATES_PER_PAIR], picked_seg[E_STATES_PER_PAIR];
   uint32_t picked_ep[E_STATES_PER_PAIR];
   int npicked = 0;
   uint32_t scanned = 0;
   for (uint32_t j = a->first_log; j <= j1 && npicked < E_STATES_PER_PAIR &&
                                   scanned < E_RUNS_SCANNED; j++, scanned++) {
      const logent *g = &h->log[j];
      ewit w;
      if (j == a->first_log) {
         if (!a->first_ok) continue;
         w.e = a->first_tidx; w.ce = a->first_cidx;
         w.x1 = after_or(g->ls, 1, w.e, w.ce, a->first_le);
      } else {
         if (!g->ok) continue;
         w.e = g->tidx; w.ce = g->cidx;
         w.x1 = after_or(g->ls, 1, w.e, w.ce, g->le);
      }
      int dup = 0;
      for (int k = 0; k < npicked; k++)
         if (picked_ls[k] == g->ls && picked_seg[k] == g->seg && picked_ep[k] == g->epoch)
            dup = 1;
      if (dup) continue;
      picked_ls[npicked] = g->ls; picked_seg[npicked] = g->seg;
      picked_ep[npicked] = g->epoch; npicked++;
      w.epoch = g->epoch;
      w.var = a->var; w.loc1 = a->loc; w.loc2 = b->loc;
      w.ls = g->ls; w.seg = g->seg; w.tid = (uint32_t)tid;
      w.k1 = a->kind; w.k2 = b->kind;
      w.e1 = a->first_tidx; w.ce1 = a->first_cidx;
      w.e2 = e2; w.ce2 = ce2;
      add_e(p, &w, h->adjacent);
   }
   return npicked;
}

/* End of a block of thread tid: every pair of access sites of one variable
 * (the first e1 of one site, the nearest e2 of the other after it) gives e
 * witnesses.  The block's buffers are emptied for the next one. */
static void txn_end(pass *p, uint32_t tid, txnbuf *h) {
   if (!h->open) return;
   h->open = 0;
   if (h->ncls) {
      p->tmp = cbp_grow(p->tmp, &p->captmp, h->ncls, sizeof *p->tmp);
      for (size_t i = 0; i < h->ncls; i++) p->tmp[i] = (uint32_t)i;
      qsort_r(p->tmp, h->ncls, sizeof *p->tmp, cmp_cls_var, h->cls);
      size_t g0 = h->adjacent ? h->ncls : 0; /* adjacent: paired as they came */
      while (g0 < h->ncls) {
         size_t g1 = g0;
         while (g1 < h->ncls && h->cls[p->tmp[g1]].var == h->cls[p->tmp[g0]].var) g1++;
         for (size_t ia = g0; ia < g1; ia++)
            for (size_t ib = g0; ib < g1; ib++)
               if (pair_witnesses(p, tid, h, &h->cls[p->tmp[ia]], &h->cls[p->tmp[ib]]) == 0)
                  p->r->dropped_insn++;
         g0 = g1;
      }
      /* Empty the class map: find every slot first, then clear them. */
      clsctx cc = {h->cls};
      for (size_t i = 0; i < h->ncls; i++) {
         ckey k = {h->cls[i].var, h->cls[i].loc, h->cls[i].kind};
         p->tmp[i] = (uint32_t)(cbp_map_probe(&h->cmap, chash(k.var, k.kind, k.loc),
                                              ceq, &cc, &k) - h->cmap.slots);
      }
      for (size_t i = 0; i < h->ncls; i++) h->cmap.slots[p->tmp[i]] = 0;
      h->cmap.n = 0;
   }
   h->ncls = 0;
   h->nlog = 0;
   p->r->transactions++;
}

static void txn_begin(txnbuf *b, thr *h, uint32_t seg, uint64_t tidx) {
   b->open = 1;
   log_push1(b, h->ls, seg, h->epoch, tidx, h->cidx, 0, h->le);
}

/* One access to a site of an open block. */
/* The root block's pairing: this access (b) with the thread's previous
 * access to the variable (a), then b is the latest. */
static void adjacent_add(pass *p, uint32_t tid, txnbuf *h, uint32_t var,
                         const cb_event *e, size_t i, uint64_t c,
                         cbp_point le_before, int ok) {
   ckey k = {var, 0, 0};
   clsctx cc = {h->cls};
   uint32_t *s = cbp_map_probe(&h->cmap, chash(var, 0, 0), ceq, &cc, &k);
   access_class b;
   memset(&b, 0, sizeof b);
   b.var = var; b.loc = e->loc; b.kind = e->kind; b.count = 1;
   b.first_log = b.second_log = b.last_log = (uint32_t)h->nlog - 1;
   b.first_tidx = b.second_tidx = b.last_tidx = i;
   b.first_cidx = b.second_cidx = b.last_cidx = c;
   b.first_le = le_before; b.first_ok = (uint8_t)ok;
   if (*s) {
      access_class *a = &h->last[*s - 1];
      if (pair_witnesses(p, tid, h, a, &b) == 0) p->r->dropped_insn++;
      *a = b;
      return;
   }
   h->cls = cbp_grow(h->cls, &h->capcls, h->ncls, sizeof *h->cls);
   h->last = cbp_grow(h->last, &h->caplast, h->ncls, sizeof *h->last);
   h->cls[h->ncls] = (access_class){.var = var};
   h->last[h->ncls] = b;
   *s = (uint32_t)++h->ncls;
   cc.cls = h->cls;
   cbp_map_added(&h->cmap, chash_i, &cc);
}

static void class_add(pass *p, uint32_t tid, txnbuf *h, uint32_t var,
                      const cb_event *e, size_t i, uint64_t c, cbp_point le_before,
                      int ok) {
   if (!h->open) return;
   if (h->adjacent) { adjacent_add(p, tid, h, var, e, i, c, le_before, ok); return; }
   ckey k = {var, e->loc, e->kind};
   clsctx cc = {h->cls};
   uint64_t hk = chash(var, e->kind, e->loc);
   uint32_t *s = cbp_map_probe(&h->cmap, hk, ceq, &cc, &k);
   uint32_t logpos = (uint32_t)h->nlog - 1;
   if (*s) {
      access_class *a = &h->cls[*s - 1];
      if (a->count == 1) { a->second_log = logpos; a->second_tidx = i; a->second_cidx = c; }
      a->last_log = logpos; a->last_tidx = i; a->last_cidx = c; a->count++;
      return;
   }
   h->cls = cbp_grow(h->cls, &h->capcls, h->ncls, sizeof *h->cls);
   access_class *a = &h->cls[h->ncls];
   a->var = var; a->loc = e->loc; a->kind = e->kind;
   a->first_log = a->second_log = a->last_log = logpos; a->count = 1;
   a->first_tidx = a->second_tidx = a->last_tidx = i;
   a->first_cidx = a->second_cidx = a->last_cidx = c;
   a->first_le = le_before; a->first_ok = (uint8_t)ok;
   *s = (uint32_t)++h->ncls;
   cc.cls = h->cls;
   cbp_map_added(&h->cmap, chash_i, &cc);
}

static void access(pass *p, uint32_t tid, size_t i, const cb_event *e,
                   uint64_t c, cbp_point le_before) {
   thr *h = &p->th[tid];
   uint32_t var = p->x->var_of[i];
   if (!var || !p->x->var_shared[var]) return; /* escape analysis */
   uint32_t seg = p->v->cur_seg[tid];
   int ok = cbp_cut_ok(p->x, i);
   if (ok && !(e->size & CB_SIZE_SAME_INSN)) {
      fwit w = {var, e->loc, h->ls, seg, (uint32_t)tid, e->kind, 1, i, c, le_before};
      add_f(p, &w);
   } else if (ok && e->kind == CB_EV_WRITE && h->prev_tidx != NONE && c > 0) {
      /* The write half of a read-modify-write instruction (a CAS, a locked
       * add, a split add): f is the whole instruction, from its read half,
       * which replay can stop before and run through in one step; its cut
       * is the one before the read half (a split write has its own). */
      const cb_event *r = &p->t->events[h->prev_tidx];
      if (r->kind == CB_EV_READ && !(r->size & CB_SIZE_SAME_INSN) &&
          p->x->var_of[h->prev_tidx] == var) {
         fwit w = {var, r->loc, h->ls, seg, (uint32_t)tid, CB_EV_WRITE, 2,
                   h->prev_tidx, c - 1, h->prev_le};
         add_f(p, &w);
      }
   }
   class_add(p, tid, &h->fn, var, e, i, c, le_before, ok);
   class_add(p, tid, &h->root, var, e, i, c, le_before, ok);
}

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
 * of two conflicting accesses, benign more often. */
int cbp_candidate_cmp(const void *a, const void *b) {
   const cbp_candidate *x = a, *y = b;
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
static repkey key_of(const cbp_candidate *c, const cb_trace *t) {
   repkey k = {c->addr, t->events[c->e1].loc, t->events[c->f].loc,
               t->events[c->e2].loc, (uint32_t)c->t1, (uint32_t)c->t2,
               (uint8_t)c->pattern};
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
   repkey k;
   memset(&k, 0, sizeof k);
   k.addr = addr; k.l1 = e->loc1; k.lf = f->loc; k.l2 = e->loc2;
   k.t1 = e->tid; k.t2 = f->tid; k.pat = (uint8_t)pat;
   return *cbp_map_probe(reps, rhash(&k), req, rc, &k) != 0;
}

static void combine(pass *p) {
   cbp_result *r = p->r;
   if (p->nfw > 1) qsort(p->fw, p->nfw, sizeof *p->fw, cmp_f);
   if (p->new_ > 1) qsort(p->ew, p->new_, sizeof *p->ew, cmp_e);
   cbp_map reps; cbp_map_init(&reps, 256);
   rctx rc = {r, p->t, NULL, 0};
   size_t fi = 0;
   for (size_t ei = 0; ei < p->new_;) {
      uint32_t var = p->ew[ei].var;
      size_t e_end = ei;
      while (e_end < p->new_ && p->ew[e_end].var == var) e_end++;
      while (fi < p->nfw && p->fw[fi].var < var) fi++;
      size_t f_end = fi;
      while (f_end < p->nfw && p->fw[f_end].var == var) f_end++;
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
            if (!cbp_locks_compatible(p->L, e->ls, f->ls)) continue;
            /* Vector clocks: f may not need T past e, e may not need f. */
            if (cbp_vc_get(p->v, f->seg, e->tid) > e->ce + 1 ||
                cbp_vc_get(p->v, e->seg, f->tid) > f->cidx) {
               r->dropped_vc++;
               continue;
            }
            r->cutpoints++;
            cbp_candidate c;
            memset(&c, 0, sizeof c);
            c.pattern = (enum cbp_pattern)pat;
            c.var = var; c.addr = p->x->var_addr[var];
            c.t1 = e->tid; c.t2 = f->tid;
            c.e1 = e->e1; c.e = e->e; c.e2 = e->e2; c.f = f->tidx;
            c.ce1 = e->ce1; c.ce = e->ce; c.ce2 = e->ce2; c.cf = f->cidx;
            c.ls_e = e->ls; c.ls_f = f->ls; c.seg_e = e->seg; c.seg_f = f->seg;
            c.x1 = e->x1; c.x2 = f->le;
            c.fwidth = f->width;
            repkey k = key_of(&c, p->t);
            uint32_t *s = cbp_map_probe(&reps, rhash(&k), req, &rc, &k);
            if (*s) continue;
            r->c = cbp_grow(r->c, &r->cap, r->n, sizeof *r->c);
            rc.keys = cbp_grow(rc.keys, &rc.cap, r->n, sizeof *rc.keys);
            r->c[r->n] = c;
            rc.keys[r->n] = k;
            *s = (uint32_t)++r->n;
            cbp_map_added(&reps, rhash_i, &rc);
         }
      }
      ei = e_end;
   }
   cbp_map_free(&reps);
   free(rc.keys);
   if (r->n > 1) qsort(r->c, r->n, sizeof *r->c, cbp_candidate_cmp);
   cbp_reduce_symmetric(r, p->t);
}

/* The root block (functions mode) is the thread's whole run: the start
 * routine or main, where most threads do their work, with every call and
 * inlined helper in it.  Its log holds every lock-state change of the
 * thread, so a long-running thread's root block is closed and a new one
 * opened every ROOT_LOG_MAX changes (counted in root_splits). */
#define ROOT_LOG_MAX 4096

static void block_events(pass *p, uint32_t tid, size_t i, const cb_event *e,
                         enum cbp_blocks blocks, uint32_t *serial) {
   thr *h = &p->th[tid];
   uint32_t seg = p->v->cur_seg[tid];
   if (blocks == CBP_BLOCKS_FUNCTIONS) {
      if (e->kind == CB_EV_THREAD_EXIT) txn_end(p, tid, &h->root);
      else if (h->root.open && h->root.nlog >= ROOT_LOG_MAX) {
         txn_end(p, tid, &h->root);
         p->r->root_splits++;
         txn_begin(&h->root, h, seg, i);
      } else if (!h->root.open && !h->exited) {
         txn_begin(&h->root, h, seg, i);
      }
      if (e->kind == CB_EV_THREAD_EXIT) h->exited = 1;
   }
   int tx = cbp_txn_event(&h->txn, blocks, e, serial);
   if (tx < 0) txn_end(p, tid, &h->fn);
   if (tx > 0) txn_begin(&h->fn, h, seg, i);
}

/* One counted event of thread tid at trace index i. */
static void counted_event(pass *p, uint32_t tid, size_t i, const cb_event *e) {
   thr *h = &p->th[tid];
   cbp_vclock *v = p->v;
   uint64_t c = h->cidx;
   /* The last empty-lockset cut before this event. */
   if (h->ls == 0 && !cbp_glued(e))
      h->le = (cbp_point){c, i - 1}; /* placed just before this event */
   cbp_point le_before = h->le;
   uint32_t ls0 = h->ls, seg0 = v->cur_seg[tid];
   switch (e->kind) {
   case CB_EV_READ:
   case CB_EV_WRITE:
      access(p, tid, i, e, c, le_before);
      break;
   case CB_EV_LOCK:
      if (cbp_held_acquire(&h->held, cbp_lock_id(p->L, e->addr)))
         h->ls = cbp_locks_acquire(p->L, h->ls, cbp_lock_id(p->L, e->addr));
      break;
   case CB_EV_UNLOCK:
      if (cbp_held_release(&h->held, cbp_lock_id(p->L, e->addr)))
         h->ls = cbp_locks_release(p->L, h->ls, cbp_lock_id(p->L, e->addr));
      break;
   default:
      break;
   }
   cbp_vc_event(v, e, c, ls0 == 0 ? c : le_before.count);
   h->cidx++;
   h->prev_tidx = i;
   h->prev_le = le_before;
   int hb_source = e->kind == CB_EV_THREAD_CREATE || e->kind == CB_EV_COND_SIGNAL ||
                   e->kind == CB_EV_SEM_POST || e->kind == CB_EV_RELEASE;
   h->epoch += hb_source;
   if (h->ls != ls0 || v->cur_seg[tid] != seg0 || hb_source)
      log_push(h, v->cur_seg[tid], i, c, cbp_cut_ok(p->x, i), le_before);
}

void cbp_cutpoints(const cb_trace *t, const cbp_escape *x, cbp_vclock *v,
                   cbp_locks *L, enum cbp_blocks blocks, cbp_result *r) {
   pass p;
   memset(&p, 0, sizeof p);
   p.t = t; p.x = x; p.v = v; p.L = L; p.r = r;
   r->blocks = blocks;
   uint32_t n = x->nthreads;
   p.th = cbp_xcalloc(n + 1, sizeof *p.th);
   for (uint32_t i = 0; i <= n; i++) {
      cbp_map_init(&p.th[i].fn.cmap, 16);
      cbp_map_init(&p.th[i].root.cmap, 16);
      p.th[i].root.adjacent = 1;
      p.th[i].le = (cbp_point){0, NONE};
      p.th[i].prev_tidx = NONE;
   }
   cbp_map_init(&p.fmap, 1024);
   cbp_map_init(&p.emap, 1024);
   cbp_map_init(&p.rmap, 1024);
   uint32_t serial = 0;
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      uint32_t tid = e->tid;
      if (tid > n || e->kind >= CB_EV_KIND_COUNT) continue;
      thr *h = &p.th[tid];
      block_events(&p, tid, i, e, blocks, &serial);
      if (CB_IS_COUNTED(e->kind)) {
         counted_event(&p, tid, i, e);
      } else if (e->kind == CB_EV_THREAD_START) {
         uint32_t seg0 = v->cur_seg[tid];
         cbp_vc_event(v, e, h->cidx, h->ls == 0 ? h->cidx : h->le.count);
         if (v->cur_seg[tid] != seg0)
            log_push(h, v->cur_seg[tid], i, h->cidx, 0, h->le);
      }
   }
   for (uint32_t i = 0; i <= n; i++) { /* cut short: still blocks */
      txn_end(&p, i, &p.th[i].fn);
      txn_end(&p, i, &p.th[i].root);
   }
   combine(&p);
   r->nlocks = cbp_locks_nlocks(L);
   r->nstates = cbp_locks_nstates(L);
   for (uint32_t i = 0; i <= n; i++) {
      cbp_held_free(&p.th[i].held);
      txnbuf *b[2] = {&p.th[i].fn, &p.th[i].root};
      for (int k = 0; k < 2; k++) {
         free(b[k]->log); free(b[k]->cls); free(b[k]->last); cbp_map_free(&b[k]->cmap);
      }
   }
   free(p.th);
   cbp_map_free(&p.fmap); free(p.fw);
   cbp_map_free(&p.emap); free(p.ew);
   cbp_map_free(&p.rmap); free(p.rk); free(p.rn);
   free(p.tmp);
}

void cbp_result_free(cbp_result *r) {
   for (size_t i = 0; i < r->n; i++) {
      free(r->c[i].prefix); free(r->c[i].tail);
      for (int k = 0; k < CBP_NALT; k++) free(r->c[i].alt[k]);
   }
   free(r->c);
   memset(r, 0, sizeof *r);
}
