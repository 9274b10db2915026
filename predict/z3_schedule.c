/* z3_schedule.c: a SAT answer of the Z3 check in the schedule's compact form
 * (prefix counts, then a tail of single-thread runs), which is what
 * cbpredict writes and cbreplay forces.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "z3_check.h"

#include <string.h>

size_t cb_z3_to_schedule(const cb_trace *t, const cb_z3_result *res,
                         uint64_t *prefix, uint32_t nthreads,
                         cb_z3_step *tail)
{
   memset(prefix, 0, nthreads * sizeof *prefix);
   for (size_t i = 0; i < res->window_begin && i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      if (e->tid >= 1 && e->tid <= nthreads && e->kind < CB_EV_KIND_COUNT &&
          CB_IS_COUNTED(e->kind))
         prefix[e->tid - 1]++;
   }
   size_t n = 0;
   for (size_t k = 0; k < res->norder; k++) {
      uint32_t tid = t->events[res->order[k]].tid;
      if (n && tail[n - 1].tid == tid)
         tail[n - 1].count++;
      else
         tail[n++] = (cb_z3_step){tid, 1};
   }
   return n;
}
