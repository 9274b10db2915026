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
 * A bug is then forced again, --confirm times, with the same variant: a
 * schedule is kept as the reproducer only when its failure comes back
 * every time (a test that fails now and then on its own is no proof).
 * A failure that does not come back does not decide: the next variant is
 * forced, and the first reproduced failure is the verdict; when none is,
 * the first failure is, reported as not reproduced.
 *
 * When every variant forced was infeasible, the hunt (hunt.c) is forced
 * last: the schedule's events by their code, not by the recorded counts.
 * Its verdict is the schedule's unless it was infeasible too.  So is it
 * after a failure the violation did not cause, when it fails by the
 * violation itself.
 *
 * A variant is not forced when the tool gave up an earlier one's plan
 * (stalled, a thread gone: "infeasible", and the run passed) within steps
 * this one shares with it (the same prefix and the same first tail
 * steps): it would be given up where that one was, and then run free.  A
 * correct program's schedules are mostly infeasible (a loop takes another
 * path once reordered), and forcing each of its four or five variants had
 * made most of a suite's time.  A run that only diverged (an unexpected
 * event, the plan still followed) skips nothing: a later variant's own
 * steps may still make the program fail, and any forced run that fails is
 * a bug.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "replay.h"

static int decides(enum cbr_verdict v)
{
   return cbr_verdict_is_bug(v) || v == CBR_ERROR;
}

int cbr_not_reproduced(const cbr_result *r)
{
   return r->confirm_runs && r->confirm_bugs < r->confirm_runs && !r->pinned[0];
}

unsigned cbr_force_again(const cbr_options *o, const cbr_io *io, const cbr_schedule *cs,
                         unsigned variant, int times, enum cbr_until until,
                         const char *record, cbr_result *r, unsigned *bugs,
                         cbr_status *bug_status)
{
   cbr_options again = *o;
   again.events_out = NULL;
   again.record = record;
   cbr_io quiet = *io;
   quiet.capture_stderr = 1; /* the program's stderr was shown once */
   unsigned runs = 0;
   *bugs = 0;
   for (int k = 0; k < times; k++) {
      cbr_result run;
      cbr_run_one(&again, &quiet, cs, variant, &run);
      r->seconds += run.seconds;
      runs++;
      int bug = cbr_verdict_is_bug(run.verdict);
      *bugs += (unsigned)bug;
      if (bug && bug_status)
         *bug_status = run.status;
      if (o->verbose)
         fprintf(stderr, "cbreplay: %s variant %u forced again: %s\n", cs->name,
                 variant, cbr_verdict_name(run.verdict));
      if ((until == CBR_UNTIL_BUG && bug) || (until == CBR_UNTIL_PASS && !bug))
         break;
   }
   return runs;
}

/* Forces r's variant again o->confirm times when r is a bug; counts the
 * runs that were bugs again.  Those runs write no --events-out or --record
 * file: the first run's are the ones kept.  A failure that did not come
 * back every time is pinned when it can be (pin.c). */
static void confirm(const cbr_options *o, const cbr_io *io, const cbr_schedule *cs,
                    cbr_result *r)
{
   if (!cbr_verdict_is_bug(r->verdict) || o->confirm <= 0)
      return;
   r->confirm_runs = cbr_force_again(o, io, cs, r->variant, o->confirm, CBR_UNTIL_END,
                                     NULL, r, &r->confirm_bugs, NULL);
   cbr_pin(o, io, cs, r);
}

/* Where the tool gave up a plan: the tail steps started (0: in the
 * prefix).  The tool says the step it was at when it releases the
 * threads. */
static size_t steps_reached(const cbr_result *run)
{
   return run->status.prefix_done ? run->status.step : 0;
}

/* Whether variants a and b begin with the same n steps. */
static int same_start(const cb_schedule *s, unsigned a, unsigned b, size_t n)
{
   cb_sched_step *const *ta, *const *tb;
   size_t na, nb;
   const char *name;
   if (cb_schedule_variant(s, a, &ta, &na, &name) != 0 ||
       cb_schedule_variant(s, b, &tb, &nb, &name) != 0 || na < n || nb < n)
      return 0;
   for (size_t i = 0; i < n; i++)
      if (ta[i]->tid != tb[i]->tid || ta[i]->count != tb[i]->count ||
          ta[i]->run_out != tb[i]->run_out)
         return 0;
   return 1;
}

/* An infeasible variant and the tail steps its run started. */
typedef struct {
   unsigned variant;
   size_t steps;
} stop;
#define CBR_MAX_STOPS 16

/* Whether variant k would stop where an infeasible one stopped. */
static int stopped_before(const cbr_options *o, const cbr_schedule *cs,
                          const stop *stops, unsigned nstops, unsigned k)
{
   for (unsigned i = 0; i < nstops; i++) {
      if (!same_start(cs->s, stops[i].variant, k, stops[i].steps))
         continue;
      if (o->verbose)
         fprintf(stderr, "cbreplay: %s variant %u not forced: variant %u was "
                 "infeasible within the %zu step(s) they share\n", cs->name,
                 k, stops[i].variant, stops[i].steps);
      return 1;
   }
   return 0;
}

/* The hunt (hunt.c) after the variants; returns its seconds.  After
 * variants that were all infeasible (the counts cannot be followed in
 * this program) its verdict is the schedule's unless it was infeasible
 * too; after a failure the violation did not cause (the forced order
 * failed the program elsewhere: trial 15's rate limiter lost an update
 * through another instance of f than the schedule's), only when the
 * hunt's run fails by the violation itself. */
static double hunt(const cbr_options *o, const cbr_io *io, const cbr_schedule *cs,
                   cbr_result *r, int why)
{
   int h = cbr_hunt_index(cs->s);
   if (h < 0)
      return 0;
   if (o->verbose)
      fprintf(stderr, "cbreplay: %s %s; on to the hunt (variant %d)\n", cs->name,
              why == CBR_HUNT_AFTER_INFEASIBLE ? "every variant infeasible"
                                               : "failed, but not by the violation",
              h);
   /* The hunt pins to the same file as the run it follows (pin.c), and
    * removes what it pinned when its pin does not fail every time: the
    * run kept's pinned schedule is set aside meanwhile (blind trial 22's
    * reload: the command printed named a pinned file the hunt had
    * removed). */
   char aside[PATH_MAX + 8] = "";
   if (r->pinned[0] && snprintf(aside, sizeof aside, "%s.kept", r->pinned) < (int)sizeof aside &&
       rename(r->pinned, aside) != 0)
      aside[0] = 0;
   cbr_result run;
   cbr_run_one(o, io, cs, (unsigned)h, &run);
   confirm(o, io, cs, &run);
   int by_it = cbr_verdict_is_bug(run.verdict) && run.status.pattern == 1, kept = 0;
   if (why == CBR_HUNT_AFTER_INFEASIBLE) {
      kept = (run.verdict != CBR_INFEASIBLE && run.verdict != CBR_PASSED) ||
             (run.verdict == CBR_PASSED && run.status.pattern == 1);
      if (kept) /* a bug, or the violation happened and the program was fine */
         *r = run;
      r->hunted = why;
   } else if (by_it) {
      *r = run;
      r->hunted = why;
      kept = 1;
   }
   if (aside[0] && kept)
      unlink(aside);
   else if (aside[0])
      (void)rename(aside, r->pinned);
   return run.seconds;
}

void cbr_run_schedule(const cbr_options *o, const cbr_io *io,
                      const cbr_schedule *cs, cbr_result *r)
{
   if (o->variant >= 0) {
      cbr_run_one(o, io, cs, (unsigned)o->variant, r);
      confirm(o, io, cs, r);
      return;
   }
   unsigned nv = (unsigned)cb_schedule_nvariants(cs->s), tried = 0, skipped = 0;
   double seconds = 0;
   int have_pass = 0, decided = 0, have_unsure = 0;
   stop stops[CBR_MAX_STOPS];
   unsigned nstops = 0;
   cbr_result run, unsure;
   for (unsigned k = 0; k < nv && !decided; k++) {
      if (stopped_before(o, cs, stops, nstops, k)) {
         skipped++;
         continue;
      }
      cbr_run_one(o, io, cs, k, &run);
      confirm(o, io, cs, &run);
      seconds += run.seconds;
      tried++;
      if (run.verdict == CBR_INFEASIBLE && run.status.infeasible &&
          nstops < CBR_MAX_STOPS)
         stops[nstops++] = (stop){ k, steps_reached(&run) };
      if (cbr_not_reproduced(&run)) {
         /* A failure that did not come back every time is no reproducer
          * (after the tail the threads run free, and that part decided
          * it): keep the first such run and go on, since a later
          * variant's tail may force what the free part did only now and
          * then. */
         if (!have_unsure)
            unsure = run;
         have_unsure = 1;
      } else if (decides(run.verdict)) {
         *r = run;
         decided = 1;
      } else if (!have_pass) {
         /* Else the first run that passed, else the last infeasible one. */
         *r = run;
         have_pass = run.verdict == CBR_PASSED;
      }
      if (o->verbose && !decided && k + 1 < nv)
         fprintf(stderr, "cbreplay: %s variant %u %s%s; on to variant %u\n",
                 cs->name, k, cbr_verdict_name(run.verdict),
                 cbr_not_reproduced(&run) ? " but not every time" : "", k + 1);
   }
   int bug_elsewhere = decided && cbr_verdict_is_bug(r->verdict) &&
                       r->status.pattern == 0 && !cbr_not_reproduced(r);
   if (!decided && !have_unsure && !have_pass && tried > 0 &&
       r->verdict == CBR_INFEASIBLE)
      seconds += hunt(o, io, cs, r, CBR_HUNT_AFTER_INFEASIBLE);
   else if (bug_elsewhere)
      seconds += hunt(o, io, cs, r, CBR_HUNT_AFTER_ELSEWHERE);
   if (!decided && have_unsure)
      *r = unsure;
   r->variants_tried = tried;
   r->variants_skipped = skipped;
   r->seconds = seconds;
}
