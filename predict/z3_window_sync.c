/* z3_window_sync.c: the happens-before edges of a window, from hb.h (the
 * edges the vector clocks take, so that Z3 and the clocks never disagree),
 * and the woken waits' condition.
 *
 * For each window event that is the sink of an edge group, each source:
 *   - before the window: it ran in the prefix, nothing to say;
 *   - in the window: source before sink, always (z3w_window.before);
 *   - past its thread's end of window: the sink cannot run before e2
 *     (late): past the cut, or past e2 in e2's thread, or past a
 *     deadlock's request in T2's, it is outside what the query looks at.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "z3_window_int.h"

static int push_before(z3w_window *w, z3w_scratch *s, size_t a, size_t b)
{
   if (GROW(w->before, w->nbefore, s->capbefore) < 0)
      return -1;
   w->before[w->nbefore++] = (z3w_pair){a, b};
   return 0;
}

static int push_late(z3w_window *w, z3w_scratch *s, size_t p)
{
   if (GROW(w->late, w->nlate, s->caplate) < 0)
      return -1;
   w->late[w->nlate++] = p;
   return 0;
}

/* One source of an edge into window position p. */
static int source(z3w_window *w, z3w_scratch *s, size_t src, size_t p)
{
   if (src < w->wb)
      return 0;
   size_t sp = z3w_pos(w, src);
   if (sp != Z3W_NONE)
      return push_before(w, s, sp, p);
   return push_late(w, s, p);
}

/* Every source of group g (and of the release runs before it) into p. */
static int sources(z3w_window *w, z3w_scratch *s, uint32_t g, size_t p)
{
   const cbp_hb *hb = s->q->hb;
   for (uint32_t gi = g + 1; gi; gi = hb->g[gi - 1].prev) {
      const cbp_hb_group *G = &hb->g[gi - 1];
      for (size_t k = 0; k < G->nsrc; k++)
         if (source(w, s, (size_t)hb->ev[G->src + k], p) < 0)
            return -1;
      if (G->nsrc && hb->ev[G->src] < w->wb)
         break; /* the runs before this one ran in the prefix */
   }
   return 0;
}

/* A woken wait: its signal came after its thread began waiting (prev). */
static int woken(z3w_window *w, z3w_scratch *s, uint32_t g, size_t p)
{
   const cbp_hb *hb = s->q->hb;
   const cbp_hb_group *G = &hb->g[g];
   size_t prev = w->ev[p].tprev;
   if (G->kind != CBP_HB_COND || !G->nsrc || prev == Z3W_NONE)
      return 0;
   size_t sig = z3w_pos(w, (size_t)hb->ev[G->src]);
   if (sig == Z3W_NONE)
      return 0; /* late already, or in the prefix (then after prev anyway) */
   if (GROW(w->waits, w->nwaits, s->capwaits) < 0)
      return -1;
   w->waits[w->nwaits++] = (z3w_wait){p, prev, sig};
   return 0;
}

int z3w_sync(z3w_window *w, z3w_scratch *s)
{
   const cbp_hb *hb = s->q->hb;
   if (!w->nev)
      return 0;
   size_t k;
   cbp_hb_at(hb->in, hb->nin, w->ev[0].idx, &k);
   for (size_t p = 0; p < w->nev && k < hb->nin; p++) {
      size_t idx = w->ev[p].idx;
      while (k < hb->nin && hb->in[k].ev < idx)
         k++;
      for (; k < hb->nin && hb->in[k].ev == idx; k++)
         if (sources(w, s, hb->in[k].group, p) < 0 || woken(w, s, hb->in[k].group, p) < 0)
            return -1;
   }
   return 0;
}
