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
 * The variable's writes come from the reads-from index (readsfrom.c),
 * which keeps every shared variable's writes in trace order.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include "predict.h"

/* Whether c needs its site's writers held: an order violation whose f is
 * a read and whose a is a write. */
static int wants(const cb_trace *t, const cbp_candidate *c)
{
   return c->pattern == CBP_ORD && c->f < t->nevents && c->e1 < t->nevents &&
          t->events[c->f].kind == CB_EV_READ &&
          t->events[c->e1].kind == CB_EV_WRITE;
}

uint32_t cbp_site_writers(const cbp_rf *rf, const cb_trace *t,
                          const cbp_vclock *v, const cbp_candidate *c,
                          uint32_t nthreads, uint64_t *hold)
{
   for (uint32_t j = 0; j < nthreads; j++) hold[j] = UINT64_MAX;
   if (!rf || !c->prefix || !wants(t, c)) return 0;
   const uint64_t *idx;
   const uint32_t *tid;
   size_t n = cbp_rf_writes(rf, c->var, &idx, &tid);
   uint32_t loc = t->events[c->e1].loc, held = 0;
   for (size_t k = 0; k < n && idx[k] < c->f; k++) {
      uint32_t j = tid[k];
      if (j == 0 || j > nthreads || j == c->t1 || j == c->t2 ||
          t->events[idx[k]].loc != loc)
         continue;
      uint64_t count = cbp_rf_count_at(rf, j, idx[k]);
      if (count >= c->prefix[j - 1]) continue;         /* not in its prefix */
      if (count < cbp_vc_get(v, c->seg_f, j)) continue; /* happens before f */
      held += hold[j - 1] == UINT64_MAX;
      hold[j - 1] = count; /* trace order: the latest so far */
   }
   return held;
}
