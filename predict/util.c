/* util.c: the small containers every pass uses (an index hash map and
 * growable arrays).  Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "predict.h"

static void oom(void) {
   fputs("cbpredict: out of memory\n", stderr);
   exit(2);
}

/* A big array (one a pass keeps per event or per witness) asks for huge
 * pages: its first touch then faults once per 2 MB instead of once per
 * 4 KB (61,800 faults -> 11,000 on 10 M events, a tenth of the run's
 * system time).  Only the aligned 2 MB pieces inside it can be huge; the
 * advice may fail, and nothing depends on it. */
static void advise_huge(void *p, size_t bytes) {
#ifdef MADV_HUGEPAGE
   const uintptr_t huge = 2u << 20;
   if (bytes < 2 * huge) return;
   uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
   uintptr_t e = ((uintptr_t)p + bytes) & ~(huge - 1);
   if (e > a) madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
   (void)p; (void)bytes;
#endif
}

/* Each pass allocates its arrays and frees them at its end, and the next
 * pass allocates its own.  By default glibc serves blocks of 128 KB and
 * more (its threshold grows to 32 MB at most) from a mapping of their own,
 * the event array among them (grown by mremap), and gives freed memory
 * back to the system: a pass's arrays were fresh pages that the kernel
 * zeroed on first touch (clear_page was a quarter of cbpredict's CPU time
 * on 10 M events), and the system time was erratic (at 50 M events 1.2 to
 * 5.2 s, against 0.3 s from the heap).  Every block now comes from the
 * heap, never trimmed: a pass reuses what the passes before it freed
 * (calloc zeroes it in user space), and the event array, at the heap's top
 * while the trace is read, grows in place there.  The peak grows by what
 * the heap cannot reuse (holes that growing arrays leave behind, fewer
 * since they grow by half: cbp_grow).  One arena: a second
 * thread (analyze.c) would otherwise get an arena of its own, fresh
 * mappings that the kernel zeroes (0.1-0.4 s more system time at 10 M). */
void cbp_keep_freed_memory(void) {
   mallopt(M_MMAP_MAX, 0); /* advice: failure is fine */
   mallopt(M_TRIM_THRESHOLD, INT_MAX);
   mallopt(M_ARENA_MAX, 1);
}

void *cbp_grow(void *arr, size_t *cap, size_t n, size_t item) {
   if (n < *cap) return arr;
   /* By half again, not twice: the blocks an array leaves behind as it
    * grows add up to more than its next size, so the heap, never trimmed
    * (cbp_keep_freed_memory), can reuse them: peak at 1 M events with one
    * job 100-103 MB with doubling, 98 so (10 M: 47 bytes/event either way). */
   size_t nc = *cap ? *cap + *cap / 2 + 1 : 16; /* + 1: a capacity of 1 grows */
   while (nc <= n) nc += nc / 2 + 1;
   void *p = realloc(arr, nc * item);
   if (!p) oom();
   advise_huge(p, nc * item);
   *cap = nc;
   return p;
}

void *cbp_xrealloc(void *p, size_t bytes) {
   p = realloc(p, bytes ? bytes : 1);
   if (!p) oom();
   return p;
}

void cbp_sort_with(void *a, void *b, size_t n, size_t item,
                   int (*cmp)(const void *, const void *)) {
   if (n < 2) return;
   if (!b) { qsort(a, n, item, cmp); return; }
   /* Each a item followed by its b item, sorted as one (cmp reads the a
    * half, at the front), then split again. */
   unsigned char *both = cbp_xcalloc(n, 2 * item), *pa = a, *pb = b;
   for (size_t i = 0; i < n; i++) {
      memcpy(both + 2 * item * i, pa + item * i, item);
      memcpy(both + 2 * item * i + item, pb + item * i, item);
   }
   qsort(both, n, 2 * item, cmp);
   for (size_t i = 0; i < n; i++) {
      memcpy(pa + item * i, both + 2 * item * i, item);
      memcpy(pb + item * i, both + 2 * item * i + item, item);
   }
   free(both);
}

void *cbp_xcalloc(size_t n, size_t item) {
   void *p = calloc(n ? n : 1, item ? item : 1);
   if (!p) oom();
   advise_huge(p, n * item);
   return p;
}

void *cbp_table_alloc(size_t bytes) {
   const size_t huge = 2u << 20;
   size_t align = bytes >= huge ? huge : 64;
   size_t n = (bytes + align - 1) / align * align; /* aligned_alloc wants a multiple */
   void *p = aligned_alloc(align, n ? n : align);
   if (!p) oom();
#ifdef MADV_HUGEPAGE
   if (align == huge) madvise(p, n, MADV_HUGEPAGE); /* advice: failure is fine */
#endif
   memset(p, 0, n);
   return p;
}

void cbp_map_init(cbp_map *m, size_t hint) {
   size_t cap = 16;
   while (cap < hint * 2) cap *= 2;
   m->slots = cbp_xcalloc(cap, sizeof *m->slots);
   m->mask = cap - 1;
   m->n = 0;
}

void cbp_map_free(cbp_map *m) {
   free(m->slots);
   memset(m, 0, sizeof *m);
}

void cbp_map_clear(cbp_map *m) {
   if (m->n) memset(m->slots, 0, (m->mask + 1) * sizeof *m->slots);
   m->n = 0;
}

void cbp_map_added(cbp_map *m, cbp_hash_fn h, const void *ctx) {
   m->n++;
   if (m->n * 2 <= m->mask + 1) return;
   size_t cap = (m->mask + 1) * 2;
   cbp_slot *old = m->slots;
   size_t oldcap = m->mask + 1;
   m->slots = cbp_xcalloc(cap, sizeof *m->slots);
   m->mask = cap - 1;
   for (size_t k = 0; k < oldcap; k++) {
      if (!old[k].idx) continue;
      uint64_t hk = h(ctx, old[k].idx - 1);
      size_t i = hk & m->mask;
      while (m->slots[i].idx) i = (i + 1) & m->mask;
      m->slots[i].idx = old[k].idx;
      m->slots[i].tag = (uint32_t)(hk >> 32);
   }
   free(old);
}
