/* site_writers.c: the other writers an order violation must hold back.
 *
 * An order violation (orders.c) whose f reads moves f before T1's write
 * a, so that f reads what was there before a.  When more threads run the
 * same code, each writing the variable at a's site (SCTBench's reorder:
 * nine setters run `a = 1; b = -1;`, a checker reads a and b), moving f
 * before one of those writes changes nothing: it reads another's.  So
 * every other thread's last write at a's site that lies in its prefix and
 * does not happen before f stops that thread there too, until the tail has
 * run (synthesis.c lowers its prefix to the last cut before the write; it
 * raises it again if the tail needs what it stops).  Only a's code site
 * counts: writes of the variable from elsewhere (an initialiser, a reset)
 * are the program's own order, not the symmetric threads of the race.
 *
 * One pass over the trace collects the writes at the sites of the
 * candidates that need it; a candidate then looks at its site's writes
 * only.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>

#include "predict.h"

typedef struct {
   uint64_t addr;
   uint32_t loc, tid;
   uint64_t count;   /* the write's counted index in its thread */
} site_write;

struct cbp_site_writes {
   site_write *w;    /* the writes at those sites, sorted by site */
   size_t n, cap;
   site_write *keys; /* the candidates' sites, sorted, count unused */
   size_t nkeys;
   uint64_t lo, hi;  /* the span of their addresses */
};

static int cmp_site(const void *a, const void *b)
{
   const site_write *x = a, *y = b;
   if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
   return x->loc < y->loc ? -1 : x->loc > y->loc;
}

/* Whether c needs its site's writers held: an order violation whose f is
 * a read and whose a is a write. */
static int wants(const cb_trace *t, const cbp_candidate *c)
{
   return c->pattern == CBP_ORD && c->f < t->nevents && c->e1 < t->nevents &&
          t->events[c->f].kind == CB_EV_READ &&
          t->events[c->e1].kind == CB_EV_WRITE;
}

static site_write site_of(const cb_trace *t, const cbp_candidate *c)
{
   const cb_event *a = &t->events[c->e1];
   return (site_write){a->addr, a->loc, 0, 0};
}

cbp_site_writes *cbp_site_writes_new(const cb_trace *t, const cbp_result *r,
                                     const size_t *which, size_t nwhich)
{
   cbp_site_writes *sw = cbp_xcalloc(1, sizeof *sw);
   sw->keys = cbp_xcalloc(nwhich ? nwhich : 1, sizeof *sw->keys);
   sw->lo = UINT64_MAX;
   for (size_t k = 0; k < nwhich; k++) {
      const cbp_candidate *c = &r->c[which[k]];
      if (!wants(t, c)) continue;
      site_write s = site_of(t, c);
      sw->keys[sw->nkeys++] = s;
      if (s.addr < sw->lo) sw->lo = s.addr;
      if (s.addr > sw->hi) sw->hi = s.addr;
   }
   if (!sw->nkeys) return sw;
   qsort(sw->keys, sw->nkeys, sizeof *sw->keys, cmp_site);
   uint32_t nt = 0;
   for (size_t i = 0; i < t->nevents; i++)
      if (t->events[i].tid > nt) nt = t->events[i].tid;
   uint64_t *cnt = cbp_xcalloc((size_t)nt + 1, sizeof *cnt);
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      if (e->kind >= CB_EV_KIND_COUNT || !CB_IS_COUNTED(e->kind)) continue;
      uint64_t count = cnt[e->tid]++;
      if (e->kind != CB_EV_WRITE || e->addr < sw->lo || e->addr > sw->hi) continue;
      site_write s = {e->addr, e->loc, e->tid, count};
      if (!bsearch(&s, sw->keys, sw->nkeys, sizeof s, cmp_site)) continue;
      sw->w = cbp_grow(sw->w, &sw->cap, sw->n, sizeof *sw->w);
      sw->w[sw->n++] = s;
   }
   free(cnt);
   /* By site; within one, the order does not matter: a thread's latest
    * write is found by its count. */
   qsort(sw->w, sw->n, sizeof *sw->w, cmp_site);
   return sw;
}

void cbp_site_writes_free(cbp_site_writes *sw)
{
   if (!sw) return;
   free(sw->w);
   free(sw->keys);
   free(sw);
}

uint32_t cbp_site_writers(const cbp_site_writes *sw, const cb_trace *t,
                          const cbp_vclock *v, const cbp_candidate *c,
                          uint32_t nthreads, uint64_t *hold)
{
   for (uint32_t j = 0; j < nthreads; j++) hold[j] = UINT64_MAX;
   if (!sw || !sw->nkeys || !c->prefix || !wants(t, c)) return 0;
   site_write s = site_of(t, c);
   const site_write *at = bsearch(&s, sw->w, sw->n, sizeof s, cmp_site);
   if (!at) return 0;
   while (at > sw->w && cmp_site(at - 1, &s) == 0) at--;
   uint32_t held = 0;
   for (; at < sw->w + sw->n && cmp_site(at, &s) == 0; at++) {
      uint32_t j = at->tid;
      if (j == 0 || j > nthreads || j == c->t1 || j == c->t2) continue;
      if (at->count >= c->prefix[j - 1]) continue;          /* not in its prefix */
      if (at->count < cbp_vc_get(v, c->seg_f, j)) continue; /* happens before f */
      if (hold[j - 1] == UINT64_MAX) held++;
      if (hold[j - 1] == UINT64_MAX || at->count > hold[j - 1])
         hold[j - 1] = at->count;
   }
   return held;
}
