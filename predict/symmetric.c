/* symmetric.c: threads that run the same code are symmetric.  200 workers
 * running one function would give one candidate per ordered thread pair
 * (39,800) for one bug.  Per (pattern, variable, three locations) the first
 * SYM_KEEP thread pairs in trace order are kept (two, so that a pair
 * synthesis cannot schedule has a stand-in); the rest are counted in
 * r->symmetric, never dropped silently.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>

#include "predict.h"

#define SYM_KEEP 2

typedef struct { uint64_t addr; uint32_t l1, lf, l2; uint8_t pat; } sitekey;
typedef struct { const cbp_result *r; const cb_trace *t; } sctx;

static sitekey key_of(const cbp_candidate *c, const cb_trace *t) {
   sitekey k = {c->addr, t->events[c->e1].loc, t->events[c->f].loc,
                t->events[c->e2].loc, (uint8_t)c->pattern};
   return k;
}
static uint64_t khash(const sitekey *k) {
   return cbp_mix(k->addr ^ cbp_mix(((uint64_t)k->l1 << 32 | k->lf) ^
                  (cbp_mix((uint64_t)k->l2 << 32) + k->pat)));
}
static int keq(const void *c, uint32_t i, const void *k) {
   const sctx *x = c;
   sitekey a = key_of(&x->r->c[i], x->t);
   const sitekey *b = k;
   return a.addr == b->addr && a.l1 == b->l1 && a.lf == b->lf && a.l2 == b->l2 &&
          a.pat == b->pat;
}
static uint64_t khash_i(const void *c, uint32_t i) {
   const sctx *x = c;
   sitekey a = key_of(&x->r->c[i], x->t);
   return khash(&a);
}

void cbp_reduce_symmetric(cbp_result *r, const cb_trace *t) {
   cbp_map sites; cbp_map_init(&sites, 256);
   uint8_t *kept = cbp_xcalloc(r->n ? r->n : 1, 1);
   sctx sc = {r, t};
   size_t out = 0;
   for (size_t i = 0; i < r->n; i++) {
      sitekey k = key_of(&r->c[i], t);
      uint32_t *s = cbp_map_probe(&sites, khash(&k), keq, &sc, &k);
      if (*s && kept[*s - 1] >= SYM_KEEP) { r->symmetric++; continue; }
      r->c[out] = r->c[i];
      if (*s) { kept[*s - 1]++; out++; continue; }
      *s = (uint32_t)out + 1;
      kept[out++] = 1;
      /* The map hashes candidates by index: only [0, out) are placed. */
      size_t n0 = r->n; r->n = out;
      cbp_map_added(&sites, khash_i, &sc);
      r->n = n0;
   }
   r->n = out;
   free(kept);
   cbp_map_free(&sites);
}
