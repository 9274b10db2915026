/* analyze.c: the passes in order (escape, cut-points, deadlocks, orders), then
 * synthesis for the candidates that will be written, and only those: with
 * --max N a large trace does not pay for schedules nobody writes, and a
 * keep hook (the Z3 check) is asked only about candidates that would be.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "predict.h"

void cbp_analyze_candidates(const cb_trace *t, const cbp_options *o, cbp_analysis *a) {
   memset(a, 0, sizeof *a);
   cbp_escape_run(t, &a->x);
   cbp_hb_build(&a->hb, t);
   cbp_vc_init(&a->v, a->x.nthreads, &a->hb);
   a->L = cbp_locks_new();
   cbp_cutpoints(t, &a->x, &a->v, a->L, cbp_blocks_resolve(t, o->blocks), &a->r);
   if (o->skip & CBP_FAM_ATOMICITY) { /* the pass also feeds the clocks */
      cbp_result_free(&a->r);
      a->r.blocks = cbp_blocks_resolve(t, o->blocks);
   }
   if (!(o->skip & CBP_FAM_DEADLOCK)) cbp_deadlocks(t, &a->x, &a->v, a->L, &a->r);
   if (!(o->skip & CBP_FAM_ORDER)) cbp_orders(t, &a->hb, &a->x, &a->v, a->L, &a->r);
}

void cbp_analyze(const cb_trace *t, const cbp_options *o, cbp_analysis *a) {
   cbp_analyze_candidates(t, o, a);
   cbp_build_schedules(t, a, o->max ? o->max : SIZE_MAX, NULL, NULL);
}

/* Candidates are taken in batches of what is still wanted, so that one
 * sweep of the trace (synthesis' region I) serves a whole batch; a batch
 * falls short only by what synthesis drops, and the next one makes up. */
size_t cbp_build_schedules(const cb_trace *t, cbp_analysis *a, size_t want,
                           cbp_keep_fn keep, void *keep_ctx) {
   cbp_result *r = &a->r;
   size_t built = 0, i = 0;
   size_t *batch = cbp_xcalloc(r->n, sizeof *batch);
   while (built < want && i < r->n) {
      size_t nb = 0;
      for (; i < r->n && nb < want - built; i++) {
         cbp_candidate *c = &r->c[i];
         if (c->dropped || c->built) continue;
         if (keep && !keep(keep_ctx, t, a, c)) {
            c->dropped = 1;
            if (!c->why) c->why = "dropped by the check";
            r->dropped_filter++;
            continue;
         }
         batch[nb++] = i;
      }
      cbp_synthesize_some(t, &a->x, &a->v, a->L, r, batch, nb);
      for (size_t k = 0; k < nb; k++)
         if (!r->c[batch[k]].dropped) built++;
   }
   free(batch);
   return built;
}

void cbp_analysis_free(cbp_analysis *a) {
   cbp_result_free(&a->r);
   cbp_locks_free(a->L);
   cbp_vc_free(&a->v);
   cbp_hb_free(&a->hb);
   cbp_escape_free(&a->x);
}
