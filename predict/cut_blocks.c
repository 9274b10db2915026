/* cut_blocks.c: the open blocks of each thread (pass B).  A block logs
 * where its thread's lock state, clock segment or epoch changed and which
 * sites (variable, kind, location) it accessed; a pair of sites of one
 * variable, e1 before e2, gives one e witness per distinct (lock state,
 * segment, epoch) between them: each a place where T1 may be cut.  A
 * function block pairs its sites when it ends; the root block pairs each
 * access with the thread's previous access to the variable as it comes
 * (cutpoints.h, txnbuf).
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "cutpoints.h"

#define E_STATES_PER_PAIR 8   /* distinct lock states tried as e per pair */
#define E_RUNS_SCANNED 512    /* lock-state runs scanned per pair */

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
/* The root block's sites are variables (cutpoints.h, txnbuf): its map's
 * slot tag, the hash's high half, is the variable itself, so a tag that
 * agrees is the key, and a look-up never reads the site (a cache miss in a
 * thread's table of every variable it touched). */
static uint64_t vhash(uint32_t var) {
   return (uint64_t)var << 32 | (uint32_t)cbp_mix(var);
}
static int veq(const void *c, uint32_t i, const void *k) {
   (void)c; (void)i; (void)k;
   return 1;
}
static uint64_t vhash_i(const void *c, uint32_t i) {
   return vhash(((const clsctx *)c)->cls[i].var);
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
void cut_log_push(thr *h, uint32_t seg, uint64_t tidx, uint64_t cidx, int ok,
                  cbp_point le) {
   log_push1(&h->fn, h->ls, seg, h->epoch, tidx, cidx, ok, le);
   log_push1(&h->root, h->ls, seg, h->epoch, tidx, cidx, ok, le);
}

void cut_txn_begin(txnbuf *b, thr *h, uint32_t seg, uint64_t tidx) {
   b->open = 1;
   log_push1(b, h->ls, seg, h->epoch, tidx, h->cidx, 0, h->le);
}

static cbp_point after_or(uint32_t ls, int ok, uint64_t tidx, uint64_t cidx,
                          cbp_point before) {
   if (ls == 0 && ok) return (cbp_point){cidx + 1, tidx};
   return before;
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

/* e witnesses of one pair of sites: one per distinct (lock state, segment,
 * epoch) between e1 and e2, each a place where T1 may be cut.  The number
 * found (0: none), or -1 when b has no instance after a. */
static int pair_witnesses(pass *p, uint32_t tid, const txnbuf *h,
                          const access_class *a, const access_class *b) {
   uint64_t e2, ce2; uint32_t j1;
   if (!pick_e2(a, b, &e2, &ce2, &j1)) return -1;
   uint32_t picked_ls[E_STATES_PER_PAIR], picked_seg[E_STATES_PER_PAIR];
   uint32_t picked_ep[E_STATES_PER_PAIR];
   int npicked = 0;
   uint32_t scanned = 0;
   ewit w;
   w.var = a->var; w.loc1 = a->loc; w.loc2 = b->loc; w.tid = tid;
   w.k1 = a->kind; w.k2 = b->kind;
   w.e1 = a->first_tidx; w.ce1 = a->first_cidx;
   w.e2 = e2; w.ce2 = ce2;
   cut_pairkey pk = cut_pair_key(&w);
   for (uint32_t j = a->first_log; j <= j1 && npicked < E_STATES_PER_PAIR &&
                                   scanned < E_RUNS_SCANNED; j++, scanned++) {
      const logent *g = &h->log[j];
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
      w.epoch = g->epoch; w.ls = g->ls; w.seg = g->seg;
      cut_add_e(p, &pk, &w, h->adjacent);
   }
   return npicked;
}

/* Whether pair_witnesses(a, b) would find a place to cut at all (b after
 * a, as in the root block). */
static int has_cut(const txnbuf *h, const access_class *a, const access_class *b) {
   if (a->first_ok) return 1;
   uint32_t j1 = b->first_log, end = a->first_log + E_RUNS_SCANNED;
   for (uint32_t j = a->first_log + 1; j <= j1 && j < end; j++)
      if (h->log[j].ok) return 1;
   return 0;
}

/* The block's site indices in p->tmp, by variable then index (a block has a
 * handful of sites: insertion sort; qsort_r for a big one). */
static int cmp_cls_var(const void *a, const void *b, void *ctx) {
   const access_class *c = ctx;
   uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
   if (c[x].var != c[y].var) return c[x].var < c[y].var ? -1 : 1;
   return x < y ? -1 : x > y;
}
static void sort_sites(pass *p, const txnbuf *h) {
   uint32_t *t = p->tmp;
   if (h->ncls > 32) {
      for (size_t i = 0; i < h->ncls; i++) t[i] = (uint32_t)i;
      qsort_r(t, h->ncls, sizeof *t, cmp_cls_var, h->cls);
      return;
   }
   for (size_t i = 0; i < h->ncls; i++) { /* stable: equal vars keep index order */
      uint32_t v = h->cls[i].var;
      size_t j = i;
      while (j > 0 && h->cls[t[j - 1]].var > v) { t[j] = t[j - 1]; j--; }
      t[j] = (uint32_t)i;
   }
}

/* Empties the block's class map: a small one (most blocks: a few sites in
 * 64 slots or fewer) at once, else finds every slot first, then clears them
 * (cheaper than clearing a map grown by one big block). */
static void clear_sites(pass *p, txnbuf *h) {
   if (h->cmap.mask < 64) {
      cbp_map_clear(&h->cmap);
      return;
   }
   clsctx cc = {h->cls};
   for (size_t i = 0; i < h->ncls; i++) {
      ckey k = {h->cls[i].var, h->cls[i].loc, h->cls[i].kind};
      uint32_t *s = h->adjacent ? cbp_map_probe(&h->cmap, vhash(k.var), veq, &cc, &k)
                                : cbp_map_probe(&h->cmap, chash(k.var, k.kind, k.loc),
                                                ceq, &cc, &k);
      p->tmp[i] = (uint32_t)cbp_map_slot_at(&h->cmap, s);
   }
   for (size_t i = 0; i < h->ncls; i++) h->cmap.slots[p->tmp[i]].idx = 0;
   h->cmap.n = 0;
}

/* End of a block of thread tid: every pair of access sites of one variable
 * (the first e1 of one site, the nearest e2 of the other after it) gives e
 * witnesses.  The block's buffers are emptied for the next one. */
void cut_txn_end(pass *p, uint32_t tid, txnbuf *h) {
   if (!h->open) return;
   h->open = 0;
   if (h->ncls) {
      p->tmp = cbp_grow(p->tmp, &p->captmp, h->ncls, sizeof *p->tmp);
      size_t g0 = h->adjacent ? h->ncls : 0; /* adjacent: paired as they came */
      if (!h->adjacent) sort_sites(p, h);
      while (g0 < h->ncls) {
         size_t g1 = g0;
         while (g1 < h->ncls && h->cls[p->tmp[g1]].var == h->cls[p->tmp[g0]].var) g1++;
         for (size_t ia = g0; ia < g1; ia++)
            for (size_t ib = g0; ib < g1; ib++) {
               const access_class *a = &h->cls[p->tmp[ia]];
               if (ia == ib && a->count == 1) continue; /* no e2 after its e1 */
               if (pair_witnesses(p, tid, h, a, &h->cls[p->tmp[ib]]) == 0)
                  p->r->dropped_insn++;
            }
         g0 = g1;
      }
      clear_sites(p, h);
   }
   h->ncls = 0;
   h->nlog = 0;
   p->r->transactions++;
}

/* The root block's pairing: this access (b) with the thread's previous
 * access to the variable (a), then b is the latest. */
static void adjacent_add(pass *p, uint32_t tid, txnbuf *h, uint32_t var,
                         const cb_event *e, size_t i, uint64_t c,
                         cbp_point le_before, int ok) {
   ckey k = {var, 0, 0};
   clsctx cc = {h->cls};
   uint32_t *s = cbp_map_probe(&h->cmap, vhash(var), veq, &cc, &k);
   access_class b;
   memset(&b, 0, sizeof b);
   b.var = var; b.loc = e->loc; b.kind = e->kind; b.count = 1;
   b.first_log = b.second_log = b.last_log = (uint32_t)h->nlog - 1;
   b.first_tidx = b.second_tidx = b.last_tidx = i;
   b.first_cidx = b.second_cidx = b.last_cidx = c;
   b.first_le = le_before; b.first_ok = (uint8_t)ok;
   if (*s) {
      access_class *a = &h->last[*s - 1];
      if (!a->root_ref) a->root_ref = cut_root_ref(p, var, tid);
      if (a->root_ref && cut_root_saturated(p, a->root_ref)) {
         /* Every witness of the pair would be known or refused: only
          * whether there is a place to cut is still to be seen. */
         if (!has_cut(h, a, &b)) p->r->dropped_insn++;
      } else if (pair_witnesses(p, tid, h, a, &b) == 0) {
         p->r->dropped_insn++;
      }
      b.root_ref = a->root_ref;
      *a = b;
      return;
   }
   h->cls = cbp_grow(h->cls, &h->capcls, h->ncls, sizeof *h->cls);
   h->last = cbp_grow(h->last, &h->caplast, h->ncls, sizeof *h->last);
   h->cls[h->ncls] = (access_class){.var = var};
   h->last[h->ncls] = b;
   *s = (uint32_t)++h->ncls;
   cc.cls = h->cls;
   cbp_map_added(&h->cmap, vhash_i, &cc);
}

/* One access to a site of an open block. */
void cut_class_add(pass *p, uint32_t tid, txnbuf *h, uint32_t var,
                   const cb_event *e, size_t i, uint64_t c, cbp_point le_before,
                   int ok) {
   if (!h->open) return;
   if (h->adjacent) { adjacent_add(p, tid, h, var, e, i, c, le_before, ok); return; }
   ckey k = {var, e->loc, e->kind};
   clsctx cc = {h->cls};
   uint32_t *s = cbp_map_probe(&h->cmap, chash(var, e->kind, e->loc), ceq, &cc, &k);
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
