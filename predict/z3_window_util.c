/* z3_window_util.c: the containers of one window build (z3_window_int.h):
 * a bump allocator for the window's lists, growable arrays, the map from
 * data address to its record, and the locks a thread holds.  Out of memory
 * is an answer here (the Z3 check keeps the candidate), never an exit.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "z3_window_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct arena_block {
   struct arena_block *next;
   size_t used, cap;
   max_align_t data[];
} arena_block;

void *z3w_arena_alloc(void **arena, size_t bytes)
{
   arena_block *b = *arena;
   bytes = (bytes + sizeof(max_align_t) - 1) / sizeof(max_align_t) *
           sizeof(max_align_t);
   if (bytes == 0)
      bytes = sizeof(max_align_t);
   if (!b || b->cap - b->used < bytes) {
      size_t cap = bytes > 65536 ? bytes : 65536;
      arena_block *nb = malloc(sizeof *nb + cap);
      if (!nb)
         return NULL;
      nb->next = b;
      nb->used = 0;
      nb->cap = cap;
      *arena = b = nb;
   }
   void *p = (char *)b->data + b->used;
   b->used += bytes;
   return p;
}

void z3w_arena_free(void *arena)
{
   for (arena_block *b = arena, *n; b; b = n) {
      n = b->next;
      free(b);
   }
}

size_t *z3w_list_copy(z3w_window *w, const size_t *v, size_t n)
{
   size_t *p = z3w_arena_alloc(&w->arena_, n * sizeof *p);
   if (p && n)
      memcpy(p, v, n * sizeof *p);
   return p;
}

int z3w_grow(void **arr, size_t *cap, size_t elem)
{
   size_t nc = *cap ? *cap * 2 : 16;
   void *p = realloc(*arr, nc * elem);
   if (!p)
      return -1;
   *arr = p;
   *cap = nc;
   return 0;
}

int z3w_pv_push(posvec *p, size_t x)
{
   if (GROW(p->v, p->n, p->cap) < 0)
      return -1;
   p->v[p->n++] = x;
   return 0;
}

static uint64_t hash64(uint64_t x)
{
   x ^= x >> 33;
   x *= 0xff51afd7ed558ccdull;
   x ^= x >> 33;
   x *= 0xc4ceb9fe1a85ec53ull;
   x ^= x >> 33;
   return x;
}

addr_rec *z3w_map_find(const addr_map *m, uint64_t addr)
{
   if (!m->nslots)
      return NULL;
   size_t h = hash64(addr) & (m->nslots - 1);
   while (m->slot[h]) {
      if (m->rec[m->slot[h] - 1].addr == addr)
         return &m->rec[m->slot[h] - 1];
      h = (h + 1) & (m->nslots - 1);
   }
   return NULL;
}

static int rehash(addr_map *m)
{
   size_t ns = m->nslots ? m->nslots * 2 : 256;
   size_t *slot = calloc(ns, sizeof *slot);
   if (!slot)
      return -1;
   for (size_t i = 0; i < m->nrec; i++) {
      size_t h = hash64(m->rec[i].addr) & (ns - 1);
      while (slot[h])
         h = (h + 1) & (ns - 1);
      slot[h] = i + 1;
   }
   free(m->slot);
   m->slot = slot;
   m->nslots = ns;
   return 0;
}

addr_rec *z3w_map_get(addr_map *m, uint64_t addr)
{
   if (m->nrec * 2 >= m->nslots && rehash(m) < 0)
      return NULL;
   size_t h = hash64(addr) & (m->nslots - 1);
   while (m->slot[h]) {
      if (m->rec[m->slot[h] - 1].addr == addr)
         return &m->rec[m->slot[h] - 1];
      h = (h + 1) & (m->nslots - 1);
   }
   if (GROW(m->rec, m->nrec, m->caprec) < 0)
      return NULL;
   addr_rec *r = &m->rec[m->nrec];
   memset(r, 0, sizeof *r);
   r->addr = addr;
   m->slot[h] = ++m->nrec;
   return r;
}

void z3w_map_free(addr_map *m)
{
   for (size_t i = 0; i < m->nrec; i++) {
      free(m->rec[i].reads.v);
      free(m->rec[i].writes.v);
      free(m->rec[i].read_writer.v);
   }
   free(m->rec);
   free(m->slot);
}

static held_lock *held_find(thread_st *th, uint64_t lock)
{
   for (size_t i = 0; i < th->nheld_v; i++)
      if (th->held[i].lock == lock)
         return &th->held[i];
   return NULL;
}

int z3w_lock_acquire(thread_st *th, uint64_t lock, uint8_t shared, held_lock **out)
{
   held_lock *h = held_find(th, lock);
   if (!h) {
      if (GROW(th->held, th->nheld_v, th->capheld) < 0)
         return -1;
      h = &th->held[th->nheld_v++];
      h->lock = lock;
      h->depth = 0;
      h->section = Z3W_NONE;
      h->shared = shared;
   }
   h->depth++;
   *out = h;
   return 0;
}

size_t z3w_lock_release(thread_st *th, uint64_t lock)
{
   held_lock *h = held_find(th, lock);
   if (!h || --h->depth > 0)
      return Z3W_NONE; /* taken before the trace, or still held */
   size_t sec = h->section;
   *h = th->held[--th->nheld_v];
   return sec;
}
