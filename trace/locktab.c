/* locktab.c: the candidates of the hand-made lock finders (spinlocks.c:
 * words taken by an atomic exchange; semlocks.c: semaphores used as
 * locks), one small open-addressing table keyed by address.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>

#include "trace_internal.h"

static uint64_t mix(uint64_t a) {
   a ^= a >> 33;
   a *= 0xff51afd7ed558ccdULL;
   a ^= a >> 33;
   return a;
}

/* Doubles the table (64 slots at first); -1 on no memory. */
static int grow(cb_locktab *tab) {
   size_t cap = tab->mask ? (tab->mask + 1) * 2 : 64;
   cb_lockcand *nc = calloc(cap, sizeof *nc);
   if (!nc) return -1;
   for (size_t i = 0; tab->c && i <= tab->mask; i++) {
      if (!tab->c[i].used) continue;
      size_t j = mix(tab->c[i].addr) & (cap - 1);
      while (nc[j].used) j = (j + 1) & (cap - 1);
      nc[j] = tab->c[i];
   }
   free(tab->c);
   tab->c = nc;
   tab->mask = cap - 1;
   return 0;
}

cb_lockcand *cb_locktab_find(cb_locktab *tab, uint64_t addr, int add, int *oom) {
   if (add && (tab->n + 1) * 2 > tab->mask + 1 && grow(tab) < 0) {
      *oom = 1;
      return NULL;
   }
   if (!tab->c) return NULL;
   size_t j = mix(addr) & tab->mask;
   while (tab->c[j].used) {
      if (tab->c[j].addr == addr) return &tab->c[j];
      j = (j + 1) & tab->mask;
   }
   if (!add) return NULL;
   tab->c[j] = (cb_lockcand){.addr = addr, .used = 1};
   tab->n++;
   return &tab->c[j];
}

void cb_locktab_free(cb_locktab *tab) {
   free(tab->c);
   tab->c = NULL;
   tab->mask = tab->n = 0;
}
