/* escape.c: pass A.  Gives every READ/WRITE its variable, decides which
 * variables are shared (touched by two threads or more: the others take no
 * part in prediction and need no context switch, PENELOPE 4.2.3), and marks
 * where a cut may fall (never between the load and store of one
 * instruction).  A FREE then a later ALLOC over the same address starts a new
 * variable, so that reused heap memory is not mistaken for sharing.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "predict.h"

#define PAGE_SHIFT 12
#define MAX_INDEXED_PAGES 64 /* bigger blocks go to a short linear list */

typedef struct {
   uint64_t *addr, *size; uint8_t *dead; size_t n, cap;
   /* page -> chain of (block, next) */
   cbp_map pages; uint64_t *page_key; uint32_t *page_head; size_t npages, cappages;
   uint32_t *ent_block, *ent_next; size_t nent, capent;
   cbp_map byaddr; /* block start -> latest block */
   uint32_t *big; size_t nbig, capbig;
} blocks;

typedef struct { const uint64_t *keys; } keyctx;
static int eq_key(const void *c, uint32_t i, const void *k) {
   return ((const keyctx *)c)->keys[i] == *(const uint64_t *)k;
}
static uint64_t hash_key(const void *c, uint32_t i) {
   return cbp_mix(((const keyctx *)c)->keys[i]);
}

static uint32_t *addr_slot(cbp_map *m, const uint64_t *keys, uint64_t a) {
   keyctx c = {keys};
   return cbp_map_probe(m, cbp_mix(a), eq_key, &c, &a);
}

static void block_alloc(blocks *b, uint64_t addr, uint64_t size) {
   size_t cap0 = b->cap;
   b->addr = cbp_grow(b->addr, &cap0, b->n, sizeof *b->addr);
   cap0 = b->cap;
   b->size = cbp_grow(b->size, &cap0, b->n, sizeof *b->size);
   b->dead = cbp_grow(b->dead, &b->cap, b->n, sizeof *b->dead);
   uint32_t id = (uint32_t)b->n++;
   b->addr[id] = addr; b->size[id] = size ? size : 1; b->dead[id] = 0;
   uint32_t *s = addr_slot(&b->byaddr, b->addr, addr);
   if (*s) *s = id + 1;
   else { *s = id + 1; keyctx c = {b->addr}; cbp_map_added(&b->byaddr, hash_key, &c); }
   uint64_t p0 = addr >> PAGE_SHIFT, p1 = (addr + b->size[id] - 1) >> PAGE_SHIFT;
   if (p1 - p0 >= MAX_INDEXED_PAGES) {
      b->big = cbp_grow(b->big, &b->capbig, b->nbig, sizeof *b->big);
      b->big[b->nbig++] = id;
      return;
   }
   for (uint64_t p = p0; p <= p1; p++) {
      uint32_t *ps = addr_slot(&b->pages, b->page_key, p);
      uint32_t pi;
      if (*ps) pi = *ps - 1;
      else {
         size_t c1 = b->cappages;
         b->page_key = cbp_grow(b->page_key, &c1, b->npages, sizeof *b->page_key);
         b->page_head = cbp_grow(b->page_head, &b->cappages, b->npages, sizeof *b->page_head);
         pi = (uint32_t)b->npages++;
         b->page_key[pi] = p; b->page_head[pi] = 0;
         *ps = pi + 1;
         keyctx c = {b->page_key};
         cbp_map_added(&b->pages, hash_key, &c);
      }
      size_t c2 = b->capent;
      b->ent_block = cbp_grow(b->ent_block, &c2, b->nent, sizeof *b->ent_block);
      b->ent_next = cbp_grow(b->ent_next, &b->capent, b->nent, sizeof *b->ent_next);
      b->ent_block[b->nent] = id;
      b->ent_next[b->nent] = b->page_head[pi];
      b->page_head[pi] = (uint32_t)++b->nent;
   }
}

static void block_free(blocks *b, uint64_t addr) {
   uint32_t *s = addr_slot(&b->byaddr, b->addr, addr);
   if (*s) b->dead[*s - 1] = 1;
}

/* The live block holding a, +1; 0 when none (globals, unknown memory). */
static uint32_t block_find(blocks *b, uint64_t a) {
   uint32_t best = 0;
   uint32_t *ps = addr_slot(&b->pages, b->page_key, a >> PAGE_SHIFT);
   if (*ps)
      for (uint32_t e = b->page_head[*ps - 1]; e; e = b->ent_next[e - 1]) {
         uint32_t id = b->ent_block[e - 1];
         if (!b->dead[id] && a >= b->addr[id] && a - b->addr[id] < b->size[id] &&
             id + 1 > best) best = id + 1;
      }
   for (size_t k = 0; k < b->nbig; k++) {
      uint32_t id = b->big[k];
      if (!b->dead[id] && a >= b->addr[id] && a - b->addr[id] < b->size[id] &&
          id + 1 > best) best = id + 1;
   }
   return best;
}

static void blocks_free(blocks *b) {
   free(b->addr); free(b->size); free(b->dead);
   cbp_map_free(&b->pages); free(b->page_key); free(b->page_head);
   free(b->ent_block); free(b->ent_next);
   cbp_map_free(&b->byaddr); free(b->big);
}

/* The variables met so far: address -> current id (the map's keys are
 * the addresses of the variable each slot names); per id its address,
 * heap block, first thread and whether another thread touched it. */
typedef struct {
   cbp_map map;
   size_t cap, n;          /* id 0 unused */
   uint64_t *addr;
   uint32_t *block, *owner;
   uint8_t *shared;
   uint32_t nshared;
} vars;

static void vars_grow(vars *V) {
   V->cap *= 2;
   V->addr = cbp_xrealloc(V->addr, V->cap * sizeof *V->addr);
   V->block = cbp_xrealloc(V->block, V->cap * sizeof *V->block);
   V->owner = cbp_xrealloc(V->owner, V->cap * sizeof *V->owner);
   V->shared = cbp_xrealloc(V->shared, V->cap * sizeof *V->shared);
}

/* The id of the variable thread tid accesses at a: the current one, or a
 * new one when there is none or its block was freed (reborn). */
static uint32_t var_at(vars *V, blocks *b, uint64_t a, uint32_t tid) {
   keyctx kc = {V->addr};
   uint32_t *s = cbp_map_probe(&V->map, cbp_mix(a), eq_key, &kc, &a);
   uint32_t v = *s ? *s - 1 : 0;
   if (v && V->block[v] && b->dead[V->block[v] - 1]) v = 0; /* freed: reborn */
   if (v) {
      if (!V->shared[v] && V->owner[v] != tid) {
         V->shared[v] = 1;
         V->nshared++;
      }
      return v;
   }
   if (V->n >= V->cap) {
      vars_grow(V);
      kc.keys = V->addr;
   }
   v = (uint32_t)V->n++;
   V->addr[v] = a; V->block[v] = block_find(b, a); V->owner[v] = tid;
   V->shared[v] = 0;
   int fresh = *s == 0;
   *s = v + 1;
   if (fresh) cbp_map_added(&V->map, hash_key, &kc);
   return v;
}

/* Event i, a counted one of its thread: a glued access forbids a cut
 * before it (after the thread's previous event). */
static void note_counted(cbp_escape *x, const cb_event *e, size_t i, uint64_t *last) {
   uint32_t tid = e->tid;
   if (cbp_glued(e) && last[tid]) {
      size_t p = last[tid] - 1;
      x->cut_ok[p >> 3] &= (uint8_t)~(1u << (p & 7));
   }
   last[tid] = i + 1;
   x->counted[tid]++;
}

void cbp_escape_run(const cb_trace *t, cbp_escape *x) {
   memset(x, 0, sizeof *x);
   uint32_t nthreads = t->nthreads;
   for (size_t i = 0; i < t->nevents; i++)
      if (t->events[i].tid > nthreads) nthreads = t->events[i].tid;
   x->nthreads = nthreads;
   x->counted = cbp_xcalloc(nthreads + 1, sizeof *x->counted);
   x->var_of = cbp_xcalloc(t->nevents, sizeof *x->var_of);
   x->cut_ok = malloc(t->nevents / 8 + 1);
   if (!x->cut_ok) x->cut_ok = cbp_xcalloc(1, 1); /* unreachable in practice */
   memset(x->cut_ok, 0xff, t->nevents / 8 + 1);
   uint64_t *last = cbp_xcalloc(nthreads + 1, sizeof *last); /* index + 1 */
   uint8_t *seen = cbp_xcalloc(nthreads + 1, 1);
   vars V = {.cap = 1024, .n = 1};
   cbp_map_init(&V.map, 1024);
   V.addr = cbp_xcalloc(V.cap, sizeof *V.addr);
   V.block = cbp_xcalloc(V.cap, sizeof *V.block);
   V.owner = cbp_xcalloc(V.cap, sizeof *V.owner);
   V.shared = cbp_xcalloc(V.cap, sizeof *V.shared);
   blocks b; memset(&b, 0, sizeof b);
   cbp_map_init(&b.pages, 64); cbp_map_init(&b.byaddr, 64);

   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      uint32_t tid = e->tid;
      if (!seen[tid]) { seen[tid] = 1; if (tid) x->active_threads++; }
      if (e->kind == CB_EV_ALLOC) { block_alloc(&b, e->addr, e->value); continue; }
      if (e->kind == CB_EV_FREE) {
         /* The freed block, for the order pass (a free is a write of every
          * variable in the block). */
         uint32_t *fs = addr_slot(&b.byaddr, b.addr, e->addr);
         if (*fs && !b.dead[*fs - 1]) x->var_of[i] = *fs;
         block_free(&b, e->addr);
         continue;
      }
      if (e->kind >= CB_EV_KIND_COUNT || !CB_IS_COUNTED(e->kind)) continue;
      note_counted(x, e, i, last);
      if (e->kind != CB_EV_READ && e->kind != CB_EV_WRITE) continue;
      if (e->flags & CB_EVF_LOCK_WORD) continue; /* a lock, not data */
      x->var_of[i] = var_at(&V, &b, e->addr, tid);
   }
   x->nvars = (uint32_t)V.n - 1;
   x->var_addr = V.addr;
   x->var_shared = V.shared;
   x->var_block = V.block;
   x->nblocks = (uint32_t)b.n;
   x->nshared = V.nshared;
   free(V.owner); free(last); free(seen);
   cbp_map_free(&V.map);
   blocks_free(&b);
}

void cbp_escape_free(cbp_escape *x) {
   free(x->var_of); free(x->var_addr); free(x->var_shared); free(x->cut_ok);
   free(x->var_block);
   free(x->counted);
   memset(x, 0, sizeof *x);
}
