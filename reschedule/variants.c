/* variants.c: a schedule's verdict over its tail variants.
 *
 * A schedule may carry several tails after one prefix (trace.proto,
 * Schedule.variants): PENELOPE's "release everyone after e2", f's thread to
 * the end of its block before e2, and so on.  With --variant N only that
 * one is forced.  Otherwise variant 0 is forced first, and while a run
 * passes or is infeasible the next one is: the first run that fails,
 * deadlocks or hangs is the schedule's verdict (its bug report names the variant and
 * reproduces it with --variant N).  A run that could not run (error) stops
 * the search too: the runs after it would fail the same way.  When no run
 * failed, the schedule passed if any variant passed, else it was
 * infeasible.  A schedule without variants is forced exactly once, as
 * before variants existed.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <string.h>

#include "replay.h"

static int decides(enum cbr_verdict v)
{
   return cbr_verdict_is_bug(v) || v == CBR_ERROR;
}

void cbr_run_schedule(const cbr_options *o, const cbr_io *io,
                      const cbr_schedule *cs, cbr_result *r)
{
   if (o->variant >= 0) {
      cbr_run_one(o, io, cs, (unsigned)o->variant, r);
      return;
   }
   unsigned nv = (unsigned)cb_schedule_nvariants(cs->s);
   double seconds = 0;
   int have_pass = 0;
   cbr_result run;
   for (unsigned k = 0; k < nv; k++) {
      cbr_run_one(o, io, cs, k, &run);
      seconds += run.seconds;
      /* Keep the deciding run, else the first that passed, else the
       * last infeasible one. */
      if (decides(run.verdict) || !have_pass) {
         *r = run;
         have_pass = run.verdict == CBR_PASSED;
      }
      r->variants_tried = k + 1;
      if (decides(run.verdict))
         break;
      if (o->verbose && k + 1 < nv)
         fprintf(stderr, "cbreplay: %s variant %u %s; forcing variant %u\n",
                 cs->name, k, cbr_verdict_name(run.verdict), k + 1);
   }
   r->seconds = seconds;
}
