/* cut_store.c: pass B's witness tables.  Every access of a shared variable
 * looks up an f witness and, through its blocks, a few e witnesses, most of
 * which exist already: the look-up is the inner loop of the pass.  Keys are
 * packed into 64-bit words kept densely beside the table (a probe compares
 * a few words in a small array instead of reading a large witness), and
 * the words an e witness shares with the other witnesses of its pair of
 * sites are packed and hashed once per pair (cut_pair_key).
 *
 *   e key: var|loc1, loc2|tid, ls|seg, epoch|k1|k2   (first one kept)
 *   f key: var|loc, ls|seg, tid|kind                  (last one kept)
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

static int eq3(const void *c, uint32_t i, const void *k) {
   const uint64_t *a = ((const cut_table *)c)->key + 3 * (size_t)i, *b = k;
   return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}
static int eq4(const void *c, uint32_t i, const void *k) {
   const uint64_t *a = ((const cut_table *)c)->key + 4 * (size_t)i, *b = k;
   return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3];
}
static uint64_t rehash3(const void *c, uint32_t i) {
   const uint64_t *a = ((const cut_table *)c)->key + 3 * (size_t)i;
   return hash3(pair_hash(a[0], a[1]), a[2]);
}
static uint64_t rehash4(const void *c, uint32_t i) {
   const uint64_t *a = ((const cut_table *)c)->key + 4 * (size_t)i;
   return hash4(pair_hash(a[0], a[1]), a[2], a[3]);
}

/* Appends key k (W words) to t at the empty slot s; returns its index. */
static uint32_t table_add(cut_table *t, uint32_t *s, const uint64_t *k, size_t W) {
   size_t cap = t->capkey / W;
   t->key = cbp_grow(t->key, &cap, t->n, W * sizeof *t->key);
   t->capkey = cap * W;
   memcpy(t->key + W * t->n, k, W * sizeof *k);
   uint32_t id = (uint32_t)t->n++;
   *s = id + 1;
   cbp_map_added(&t->map, W == 3 ? rehash3 : rehash4, t);
   return id;
}

/* Nearly every e witness looked up is known already, and the e table
 * outgrows the caches (tens of thousands of keys): the keys last found or
 * added are kept, by hash, in a small direct-mapped table in front of it
 * (a key once known stays known).  An empty entry is all zero, which no
 * key is (variable ids start at 1). */
#define E_KNOWN 4096

void cut_store_init(pass *p) {
   cbp_map_init(&p->ftab.map, 1024);
   cbp_map_init(&p->etab.map, 1024);
   cbp_map_init(&p->rtab.map, 1024);
   p->eknown = cbp_xcalloc(E_KNOWN, sizeof *p->eknown);
}

void cut_store_free(pass *p) {
   cut_table *t[3] = {&p->ftab, &p->etab, &p->rtab};
   for (int k = 0; k < 3; k++) { cbp_map_free(&t[k]->map); free(t[k]->key); }
   free(p->fw); free(p->ew); free(p->rn); free(p->rfull); free(p->rvar);
   free(p->eknown);
}

void cut_add_f(pass *p, const fwit *w) {
   uint64_t k[3] = {(uint64_t)w->var << 32 | w->loc, (uint64_t)w->ls << 32 | w->seg,
                    (uint64_t)w->tid << 8 | w->kind};
   uint32_t *s = cbp_map_probe(&p->ftab.map, hash3(pair_hash(k[0], k[1]), k[2]),
                               eq3, &p->ftab, k);
   if (*s) { p->fw[*s - 1] = *w; return; } /* keep the last: most room for e */
   p->fw = cbp_grow(p->fw, &p->capfw, p->ftab.n, sizeof *p->fw);
   p->fw[table_add(&p->ftab, s, k, 3)] = *w;
}

cut_pairkey cut_pair_key(const ewit *w) {
   cut_pairkey k;
   k.w0 = (uint64_t)w->var << 32 | w->loc1;
   k.w1 = (uint64_t)w->loc2 << 32 | w->tid;
   k.h = pair_hash(k.w0, k.w1);
   return k;
}

/* A new root key with count 1: a pair of sites (rvar: the index of its
 * variable's key) or a (variable, thread) (none full yet). */
static uint32_t root_count_add(pass *p, uint32_t *s, const uint64_t *k, uint32_t var) {
   size_t n = p->rtab.n, c1 = p->caprn, c2 = p->caprn;
   p->rn = cbp_grow(p->rn, &p->caprn, n, sizeof *p->rn);
   p->rfull = cbp_grow(p->rfull, &c1, n, sizeof *p->rfull);
   p->rvar = cbp_grow(p->rvar, &c2, n, sizeof *p->rvar);
   uint32_t id = table_add(&p->rtab, s, k, 3);
   p->rn[id] = 1; p->rfull[id] = 0; p->rvar[id] = var;
   return id;
}

static void root_var_key(uint64_t vk[3], uint32_t var, uint32_t tid) {
   vk[0] = (uint64_t)var << 32 | UINT32_MAX;
   vk[1] = (uint64_t)UINT32_MAX << 32 | tid;
   vk[2] = 0xffff;
}

uint32_t cut_root_ref(pass *p, uint32_t var, uint32_t tid) {
   uint64_t vk[3];
   root_var_key(vk, var, tid);
   return *cbp_map_probe(&p->rtab.map, hash3(pair_hash(vk[0], vk[1]), vk[2]), eq3,
                         &p->rtab, vk);
}

int cut_root_saturated(const pass *p, uint32_t ref) {
   return p->rfull[ref - 1] >= ROOT_PAIRS;
}

/* Whether one more root witness of w's pair may be kept. */
static int root_room(pass *p, const cut_pairkey *pk, const ewit *w) {
   uint64_t k[3] = {pk->w0, pk->w1, (uint64_t)w->k1 << 8 | w->k2};
   uint64_t h = hash3(pk->h, k[2]);
   uint32_t *s = cbp_map_probe(&p->rtab.map, h, eq3, &p->rtab, k);
   if (*s) {
      if (p->rn[*s - 1] >= ROOT_WITNESSES) { p->r->root_capped++; return 0; }
      if (++p->rn[*s - 1] == ROOT_WITNESSES) p->rfull[p->rvar[*s - 1]]++;
      return 1;
   }
   /* A new pair of sites: at most ROOT_PAIRS per (variable, thread). */
   uint64_t vk[3];
   root_var_key(vk, w->var, w->tid);
   uint32_t *vs = cbp_map_probe(&p->rtab.map, hash3(pair_hash(vk[0], vk[1]), vk[2]),
                                eq3, &p->rtab, vk);
   if (*vs && p->rn[*vs - 1] >= ROOT_PAIRS) { p->r->root_capped++; return 0; }
   uint32_t v;
   if (*vs) {
      v = *vs - 1;
      p->rn[v]++;
   } else {
      v = root_count_add(p, vs, vk, 0);
      s = cbp_map_probe(&p->rtab.map, h, eq3, &p->rtab, k); /* the map grew */
   }
   root_count_add(p, s, k, v);
   if (ROOT_WITNESSES == 1) p->rfull[v]++;
   return 1;
}

void cut_add_e(pass *p, const cut_pairkey *pk, const ewit *w, int root) {
   uint64_t k[4] = {pk->w0, pk->w1, (uint64_t)w->ls << 32 | w->seg,
                    (uint64_t)w->epoch << 16 | (uint64_t)w->k1 << 8 | w->k2};
   uint64_t h = hash4(pk->h, k[2], k[3]);
   uint64_t *known = p->eknown[h & (E_KNOWN - 1)];
   if (known[0] == k[0] && known[1] == k[1] && known[2] == k[2] && known[3] == k[3])
      return; /* known: the first is kept */
   uint32_t *s = cbp_map_probe(&p->etab.map, h, eq4, &p->etab, k);
   if (!*s) {
      /* root_room works on another table: s stays this key's empty slot. */
      if (root && !root_room(p, pk, w)) return;
      p->ew = cbp_grow(p->ew, &p->capew, p->etab.n, sizeof *p->ew);
      p->ew[table_add(&p->etab, s, k, 4)] = *w;
   }
   memcpy(known, k, sizeof k);
}
