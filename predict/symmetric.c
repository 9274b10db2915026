/* symmetric.c: threads that run the same code are symmetric.  200 workers
 * running one function would give one candidate per ordered thread pair
 * (39,800) for one bug.  Per (pattern, variable, three locations) the first
 * SYM_KEEP thread pairs in trace order are kept (two, so that a pair
 * synthesis cannot schedule has a stand-in); the rest are counted in
 * r->symmetric, never dropped silently.  Decided before the candidates
 * are made (cut_decide.c), from their sites alone.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>

#include "predict.h"

#define SYM_KEEP 2

typedef struct { uint64_t addr; uint32_t l1, lf, l2; uint8_t pat; } sitekey;
/* The kept candidates so far, out[0 .. nout): indices into s. */
typedef struct { const cbp_symsite *s; const uint32_t *out; const cb_trace *t; } sctx;

static sitekey key_of(const cbp_symsite *c, const cb_trace *t) {
   sitekey k = {c->addr, t->events[c->e1].loc, t->events[c->f].loc,
                t->events[c->e2].loc, c->pat};
   return k;
}
static uint64_t khash(const sitekey *k) {
   return cbp_mix(k->addr ^ cbp_mix(((uint64_t)k->l1 << 32 | k->lf) ^
                  (cbp_mix((uint64_t)k->l2 << 32) + k->pat)));
}
static int keq(const void *c, uint32_t i, const void *k) {
   const sctx *x = c;
   sitekey a = key_of(&x->s[x->out[i]], x->t);
   const sitekey *b = k;
   return a.addr == b->addr && a.l1 == b->l1 && a.lf == b->lf && a.l2 == b->l2 &&
          a.pat == b->pat;
}
static uint64_t khash_i(const void *c, uint32_t i) {
   const sctx *x = c;
   sitekey a = key_of(&x->s[x->out[i]], x->t);
   return khash(&a);
}

size_t cbp_symmetric_keep(const cb_trace *t, const cbp_symsite *s, size_t n, uint8_t *keep) {
   cbp_map sites; cbp_map_init(&sites, 256);
   uint8_t *kept = cbp_xcalloc(n ? n : 1, 1);
   uint32_t *out = cbp_xcalloc(n ? n : 1, sizeof *out);
   sctx sc = {s, out, t};
   size_t nout = 0;
   for (size_t i = 0; i < n; i++) {
      sitekey k = key_of(&s[i], t);
      uint32_t *slot = cbp_map_probe(&sites, khash(&k), keq, &sc, &k);
      keep[i] = !*slot || kept[*slot - 1] < SYM_KEEP;
      if (!keep[i]) continue;
      out[nout] = (uint32_t)i;
      if (*slot) { kept[*slot - 1]++; nout++; continue; }
      *slot = (uint32_t)nout + 1;
      kept[nout++] = 1;
      cbp_map_added(&sites, khash_i, &sc); /* hashes out[0 .. nout) */
   }
   free(kept);
   free(out);
   cbp_map_free(&sites);
   return nout;
}
