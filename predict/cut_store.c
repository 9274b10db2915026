/* cut_store.c: pass B's witness tables.  Every access of a shared variable
 * looks up an f witness and, through its blocks, a few e witnesses, most of
 * which exist already: the look-up is the inner loop of the pass.  Keys are
 * packed into 64-bit words kept in the table's slots themselves (a probe
 * reads one place, where a map of indices would read its slot and then a
 * key elsewhere, two cache misses in tables that outgrow the caches), and
 * the words an e witness shares with the other witnesses of its pair of
 * sites are packed and hashed once per pair (cut_pair_key).
 *
 *   e key: var|loc1, loc2|tid, ls|seg, epoch|k1|k2   (first one kept)
 *   f key: var|loc, ls|seg, tid|kind                  (last one kept; the
 *          slot is the witness itself, one cache line)
 *   root key: var|loc1, loc2|tid, k1|k2               (count of root
 *             witnesses of the pair; var|~0, ~0|tid, ~0: pairs of the
 *             variable and thread)
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "cutpoints.h"

#define ROOT_WITNESSES 4
/* ... and at most ROOT_PAIRS pairs of sites per (variable, thread): a
 * variable that a long thread reaches from dozens of places is not paired
 * every way round (real check-then-act code has a handful of sites). */
#define ROOT_PAIRS 4

#define K1 0x9e3779b97f4a7c15ull
#define K2 0xc2b2ae3d27d4eb4full
#define K3 0x165667b19e3779f9ull

static inline uint64_t pair_hash(uint64_t w0, uint64_t w1) {
   return cbp_mix(w0 ^ (w1 * K1));
}
static inline uint64_t hash3(uint64_t ph, uint64_t w2) {
   return cbp_mix(ph ^ (w2 * K2));
}
static inline uint64_t hash4(uint64_t ph, uint64_t w2, uint64_t w3) {
   return cbp_mix(ph ^ (w2 * K2) ^ (w3 * K3));
}

/* ---- keys in the slots (e and root tables) ------------------------------ */
/* The slot of key k (W words) in t: its own, or the empty one where it
 * belongs (its payload word, k[W], is 0). */
static inline uint64_t *tab_probe(const cut_table *t, size_t W, uint64_t h,
                                  const uint64_t *k) {
   for (size_t i = h & t->mask;; i = (i + 1) & t->mask) {
      uint64_t *sl = t->slot + (W + 1) * i;
      if (!sl[W]) return sl;
      if (sl[0] == k[0] && sl[1] == k[1] && sl[2] == k[2] && (W == 3 || sl[3] == k[3]))
         return sl;
   }
}

static uint64_t tab_hash(const uint64_t *k, size_t W) {
   return W == 3 ? hash3(pair_hash(k[0], k[1]), k[2])
                 : hash4(pair_hash(k[0], k[1]), k[2], k[3]);
}

static void tab_init(cut_table *t, size_t W, size_t slots) {
   t->slot = cbp_table_alloc(slots * (W + 1) * sizeof *t->slot);
   t->mask = slots - 1;
   t->n = 0;
}

/* Puts key k (W words) in the empty slot sl; returns its index.  The table
 * may grow: sl and every slot pointer taken before are then stale. */
static uint32_t tab_add(cut_table *t, size_t W, uint64_t *sl, const uint64_t *k) {
   uint32_t id = (uint32_t)t->n++;
   memcpy(sl, k, W * sizeof *k);
   sl[W] = (uint64_t)id + 1;
   if (t->n * 2 <= t->mask + 1) return id;
   cut_table old = *t;
   tab_init(t, W, (old.mask + 1) * 2);
   t->n = old.n;
   for (size_t i = 0; i <= old.mask; i++) {
      const uint64_t *o = old.slot + (W + 1) * i;
      if (o[W]) memcpy(tab_probe(t, W, tab_hash(o, W), o), o, (W + 1) * sizeof *o);
   }
   free(old.slot);
   return id;
}

/* ---- f witnesses: the witness is the slot --------------------------------- */
static void f_init(cut_ftable *t, size_t slots) {
   t->slot = cbp_table_alloc(slots * sizeof *t->slot); /* a slot a line */
   t->mask = slots - 1;
}

static inline int f_same(const fwit *a, const fwit *b) {
   return a->var == b->var && a->loc == b->loc && a->ls == b->ls && a->seg == b->seg &&
          a->tid == b->tid && a->kind == b->kind;
}

static inline fslot *f_probe(const cut_ftable *t, uint64_t h, const fwit *w) {
   uint32_t tag = (uint32_t)(h >> 32);
   for (size_t i = h & t->mask;; i = (i + 1) & t->mask) {
      fslot *sl = &t->slot[i];
      if (!sl->idx1 || (sl->tag == tag && f_same(&sl->w, w))) return sl;
   }
}

static inline uint64_t f_hash(const fwit *w) {
   return hash3(pair_hash((uint64_t)w->var << 32 | w->loc, (uint64_t)w->ls << 32 | w->seg),
                (uint64_t)w->tid << 8 | w->kind);
}

static void f_add_now(pass *p, const fwit *w, uint64_t h) {
   fslot *sl = f_probe(&p->ftab, h, w);
   sl->w = *w; /* a known key: keep the last, most room for e */
   if (sl->idx1) return;
   sl->idx1 = (uint32_t)++p->ftab.n;
   sl->tag = (uint32_t)(h >> 32);
   if (p->ftab.n * 2 <= p->ftab.mask + 1) return;
   cut_ftable old = p->ftab;
   f_init(&p->ftab, (old.mask + 1) * 2);
   p->ftab.n = old.n;
   for (size_t i = 0; i <= old.mask; i++)
      if (old.slot[i].idx1)
         *f_probe(&p->ftab, f_hash(&old.slot[i].w), &old.slot[i].w) = old.slot[i];
   free(old.slot);
}

/* ---- additions in flight -------------------------------------------------- */
/* Rings of PENDING additions each: enough to overlap that many misses. */
#define PENDING 16
typedef struct {
   ewit w;
   cut_pairkey pk;
   uint64_t k[4], h;
   int root;
} e_op;
struct cut_pending {
   fwit f[PENDING]; uint64_t fh[PENDING];
   unsigned f0, fn;  /* oldest, how many */
   e_op e[PENDING];
   unsigned e0, en;
};

static void e_add_now(pass *p, const e_op *o);

void cut_add_f(pass *p, const fwit *w) {
   struct cut_pending *q = p->pend;
   uint64_t h = f_hash(w);
   __builtin_prefetch(&p->ftab.slot[h & p->ftab.mask], 1);
   if (q->fn == PENDING) {
      f_add_now(p, &q->f[q->f0], q->fh[q->f0]);
      q->f0 = (q->f0 + 1) % PENDING;
      q->fn--;
   }
   unsigned at = (q->f0 + q->fn++) % PENDING;
   q->f[at] = *w;
   q->fh[at] = h;
}

static void e_flush(pass *p) {
   struct cut_pending *q = p->pend;
   for (; q->en; q->en--, q->e0 = (q->e0 + 1) % PENDING) e_add_now(p, &q->e[q->e0]);
}

void cut_store_fw(pass *p) {
   struct cut_pending *q = p->pend;
   for (; q->fn; q->fn--, q->f0 = (q->f0 + 1) % PENDING)
      f_add_now(p, &q->f[q->f0], q->fh[q->f0]);
   e_flush(p);
   free(p->fw);
   p->fw = cbp_xcalloc(p->ftab.n, sizeof *p->fw);
   for (size_t i = 0; i <= p->ftab.mask; i++)
      if (p->ftab.slot[i].idx1) p->fw[p->ftab.slot[i].idx1 - 1] = p->ftab.slot[i].w;
}

void cut_store_init(pass *p) {
   p->pend = cbp_xcalloc(1, sizeof *p->pend);
   f_init(&p->ftab, 2048);
   tab_init(&p->etab, 4, 2048);
   tab_init(&p->rtab, 3, 2048);
}

void cut_store_free(pass *p) {
   free(p->ftab.slot); free(p->etab.slot); free(p->rtab.slot); free(p->pend);
   free(p->fw); free(p->ew); free(p->ew_last); free(p->rn); free(p->rfull); free(p->rvar);
}

/* ---- e witnesses and the root caps ------------------------------------------ */
cut_pairkey cut_pair_key(const ewit *w) {
   cut_pairkey k;
   k.w0 = (uint64_t)w->var << 32 | w->loc1;
   k.w1 = (uint64_t)w->loc2 << 32 | w->tid;
   k.h = pair_hash(k.w0, k.w1);
   return k;
}

/* A new root key with count 1: a pair of sites (rvar: the index of its
 * variable's key) or a (variable, thread) (none full yet).  Stale slot
 * pointers after it: the table may grow. */
static uint32_t root_count_add(pass *p, uint64_t *s, const uint64_t *k, uint32_t var) {
   size_t n = p->rtab.n, c1 = p->caprn, c2 = p->caprn;
   p->rn = cbp_grow(p->rn, &p->caprn, n, sizeof *p->rn);
   p->rfull = cbp_grow(p->rfull, &c1, n, sizeof *p->rfull);
   p->rvar = cbp_grow(p->rvar, &c2, n, sizeof *p->rvar);
   uint32_t id = tab_add(&p->rtab, 3, s, k);
   p->rn[id] = 1; p->rfull[id] = 0; p->rvar[id] = var;
   return id;
}

static void root_var_key(uint64_t vk[3], uint32_t var, uint32_t tid) {
   vk[0] = (uint64_t)var << 32 | UINT32_MAX;
   vk[1] = (uint64_t)UINT32_MAX << 32 | tid;
   vk[2] = 0xffff;
}

uint32_t cut_root_ref(pass *p, uint32_t var, uint32_t tid) {
   e_flush(p);
   uint64_t vk[3];
   root_var_key(vk, var, tid);
   return (uint32_t)tab_probe(&p->rtab, 3, tab_hash(vk, 3), vk)[3];
}

int cut_root_saturated(pass *p, uint32_t ref) {
   e_flush(p);
   return p->rfull[ref - 1] >= ROOT_PAIRS;
}

/* Whether one more root witness of w's pair may be kept. */
static int root_room(pass *p, const cut_pairkey *pk, const ewit *w) {
   uint64_t k[3] = {pk->w0, pk->w1, (uint64_t)w->k1 << 8 | w->k2};
   uint64_t h = hash3(pk->h, k[2]);
   uint64_t *s = tab_probe(&p->rtab, 3, h, k);
   if (s[3]) {
      size_t id = s[3] - 1;
      if (p->rn[id] >= ROOT_WITNESSES) { p->r->root_capped++; return 0; }
      if (++p->rn[id] == ROOT_WITNESSES) p->rfull[p->rvar[id]]++;
      return 1;
   }
   /* A new pair of sites: at most ROOT_PAIRS per (variable, thread). */
   uint64_t vk[3];
   root_var_key(vk, w->var, w->tid);
   uint64_t *vs = tab_probe(&p->rtab, 3, tab_hash(vk, 3), vk);
   if (vs[3] && p->rn[vs[3] - 1] >= ROOT_PAIRS) { p->r->root_capped++; return 0; }
   uint32_t v;
   if (vs[3]) {
      v = (uint32_t)(vs[3] - 1);
      p->rn[v]++;
   } else {
      v = root_count_add(p, vs, vk, 0);
      s = tab_probe(&p->rtab, 3, h, k); /* the table may have grown */
   }
   root_count_add(p, s, k, v);
   if (ROOT_WITNESSES == 1) p->rfull[v]++;
   return 1;
}

static void e_add_now(pass *p, const e_op *o) {
   uint64_t *s = tab_probe(&p->etab, 4, o->h, o->k);
   if (s[4]) { /* known: the first is kept, and on a small trace the latest */
      if (p->t->nevents <= LATER_MAX_EVENTS) p->ew_last[s[4] - 1] = o->w;
      return;
   }
   /* root_room works on another table: s stays this key's empty slot. */
   if (o->root && !root_room(p, &o->pk, &o->w)) return;
   p->ew = cbp_grow(p->ew, &p->capew, p->etab.n, sizeof *p->ew);
   p->ew[p->etab.n] = o->w;
   if (p->t->nevents <= LATER_MAX_EVENTS) {
      p->ew_last = cbp_grow(p->ew_last, &p->caplast, p->etab.n, sizeof *p->ew_last);
      p->ew_last[p->etab.n] = o->w;
   }
   tab_add(&p->etab, 4, s, o->k);
}

void cut_add_e(pass *p, const cut_pairkey *pk, const ewit *w, int root) {
   struct cut_pending *q = p->pend;
   if (q->en == PENDING) {
      e_add_now(p, &q->e[q->e0]);
      q->e0 = (q->e0 + 1) % PENDING;
      q->en--;
   }
   e_op *o = &q->e[(q->e0 + q->en++) % PENDING];
   o->w = *w; o->pk = *pk; o->root = root;
   o->k[0] = pk->w0; o->k[1] = pk->w1;
   o->k[2] = (uint64_t)w->ls << 32 | w->seg;
   o->k[3] = (uint64_t)w->epoch << 16 | (uint64_t)w->k1 << 8 | w->k2;
   o->h = hash4(pk->h, o->k[2], o->k[3]);
   __builtin_prefetch(p->etab.slot + 5 * (o->h & p->etab.mask));
}
