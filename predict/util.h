/* util.h: the small containers and memory helpers every pass of cbpredict
 * uses (util.c): an index hash map, growable arrays, a sort that moves a
 * parallel array along.  Included by predict.h.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CB_PREDICT_UTIL_H
#define CB_PREDICT_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* ---- Small open-addressing index map (u32 payloads, caller compares) ----
 * Each slot keeps 32 bits of its key's hash beside the payload, so that a
 * probe calls the caller's comparison (which reads the keyed item, a cache
 * miss in a large table) only where the hash bits agree. */
typedef struct {
   uint32_t idx;    /* 0 = empty, else index + 1 */
   uint32_t tag;    /* the high 32 bits of its key's hash */
} cbp_slot;         /* side by side: a probe touches one cache line */
typedef struct {
   cbp_slot *slots;
   size_t mask;     /* capacity - 1 (power of two) */
   size_t n;
} cbp_map;

void cbp_map_init(cbp_map *m, size_t cap_hint);
void cbp_map_free(cbp_map *m);
void cbp_map_clear(cbp_map *m);
/* Finds the slot of `hash` whose payload satisfies eq(ctx, payload, key), or
 * the empty slot where it belongs.  *slot == 0 means absent; store idx + 1
 * there and call cbp_map_added (the probe has set the empty slot's tag). */
typedef int (*cbp_eq_fn)(const void *ctx, uint32_t idx, const void *key);
/* Inline: at each call site eq is a known function, inlined with it (the
 * probe is the inner loop of every pass). */
static inline uint32_t *cbp_map_probe(cbp_map *m, uint64_t hash, cbp_eq_fn eq,
                                      const void *ctx, const void *key) {
   size_t i = hash & m->mask;
   uint32_t tag = (uint32_t)(hash >> 32);
   for (;;) {
      cbp_slot *sl = &m->slots[i];
      if (sl->idx == 0) {
         sl->tag = tag; /* for the caller's insertion, if it makes one */
         return &sl->idx;
      }
      if (sl->tag == tag && eq(ctx, sl->idx - 1, key)) return &sl->idx;
      i = (i + 1) & m->mask;
   }
}
/* The position of a slot cbp_map_probe returned (to empty it later). */
static inline size_t cbp_map_slot_at(const cbp_map *m, const uint32_t *s) {
   return (size_t)((const cbp_slot *)(const void *)s - m->slots);
}
/* Call after filling an empty slot; may grow (rehash needs the hashes). */
typedef uint64_t (*cbp_hash_fn)(const void *ctx, uint32_t idx);
void cbp_map_added(cbp_map *m, cbp_hash_fn h, const void *ctx);

static inline uint64_t cbp_mix(uint64_t x) {
   x ^= x >> 33; x *= 0xff51afd7ed558ccdull;
   x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull;
   x ^= x >> 33; return x;
}

/* Growable array helper: makes room for one more item; aborts on OOM
 * (running out of memory is not a user error we can report usefully). */
void *cbp_grow(void *arr, size_t *cap, size_t n, size_t item);
void *cbp_xcalloc(size_t n, size_t item);
void *cbp_xrealloc(void *p, size_t bytes); /* realloc that never returns NULL */
/* Sorts a[0..n) (items of `item` bytes) by cmp, and moves b's items (when b
 * is not NULL: a parallel array of as many items of the same size) as a's. */
void cbp_sort_with(void *a, void *b, size_t n, size_t item,
                   int (*cmp)(const void *, const void *));
/* Zeroed memory for a hash table probed at random (free with free): on
 * 64-byte lines, and from 2 MB on in huge pages where the system grants
 * them (a probe of a table of megabytes otherwise also misses the TLB). */
void *cbp_table_alloc(size_t bytes);
/* Asks the allocator to keep freed memory for the next pass instead of
 * giving it back to the system (util.c says why); called once, first. */
void cbp_keep_freed_memory(void);

#endif /* CB_PREDICT_UTIL_H */
