/* analyze.c: the passes in order (escape, cut-points, synthesis).
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <string.h>

#include "predict.h"

void cbp_analyze(const cb_trace *t, const cbp_options *o, cbp_analysis *a) {
   memset(a, 0, sizeof *a);
   cbp_escape_run(t, &a->x);
   cbp_vc_init(&a->v, a->x.nthreads);
   a->L = cbp_locks_new();
   cbp_cutpoints(t, &a->x, &a->v, a->L, cbp_blocks_resolve(t, o->blocks), &a->r);
   cbp_synthesize(t, &a->x, &a->v, a->L, &a->r);
}

void cbp_analysis_free(cbp_analysis *a) {
   cbp_result_free(&a->r);
   cbp_locks_free(a->L);
   cbp_vc_free(&a->v);
   cbp_escape_free(&a->x);
}
