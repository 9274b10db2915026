/* pin.c: a failure its schedule forces only now and then, forced whole.
 *
 * After a schedule's last step the threads run free, and when that free
 * part decides the failure (a consumer's `if` where a `while` belongs, the
 * wrong waiter woken), the schedule fails in some runs only: blind trial
 * 13's printed reproduce commands failed 3 to 8 runs of 10 for 5 of 13
 * bugs even after three confirming runs.  A failing run's own order,
 * every counted event of every thread, replays the same interleaving up
 * to the failure; so when --confirm finds the failure does not come back
 * every time, the variant is forced again while recording, up to
 * PIN_TRIES times, until a run fails; its trace's recorded order
 * (cb_recorded_order) becomes the tail of a copy of the schedule, written
 * beside it as NAME-pinned.pb (its prefix empty, its e1, f and e2 kept),
 * and that copy is forced 1 + --confirm times.  When it fails every time,
 * it is the reproducer.
 *
 * With --pin (cbtest passes it) a failure that did come back every time
 * is pinned too: three confirming runs are little evidence, and blind
 * trial 13's reproduce commands of such failures still failed only 2-9
 * runs of 10 for 6 of 10 bugs, where every pinned one failed 10 of 10.
 * Not a hang: each forced run of it costs --timeout.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay.h"

#define PIN_TRIES 4

/* Forces cs's variant while recording into `trace` until a run is a bug;
 * 1 when one was.  Its trace also says what the thread that ended it read
 * otherwise than the recorded run (misread.c), when that run's trace is
 * known. */
static int record_failing_run(const cbr_options *o, const cbr_io *io,
                              const cbr_schedule *cs, cbr_result *r,
                              const char *trace)
{
   unsigned bugs;
   cbr_status st;
   cbr_status_init(&st);
   cbr_force_again(o, io, cs, r->variant, PIN_TRIES, CBR_UNTIL_BUG, trace, r, &bugs, &st);
   if (bugs > 0 && (st.end == CBR_END_EXIT || st.end == CBR_END_SIGNAL) &&
       cbr_misread_of_run(cs->origin, trace, st.end_tid, &r->misread) < 0)
      memset(&r->misread, 0, sizeof r->misread);
   return bugs > 0;
}

/* Writes to `path` a copy of cs's schedule whose only tail is tr's
 * recorded order; 0 or -1. */
static int write_pinned(const cbr_schedule *cs, const char *trace, const char *path)
{
   cb_trace tr;
   cb_error err;
   memset(&tr, 0, sizeof tr);
   if (cb_trace_read(trace, &tr, &err) != 0)
      return -1;
   cb_schedule p = *cs->s; /* shares what it does not replace */
   size_t n = p.n_prefix;
   uint64_t *ran = calloc(n + 1, sizeof *ran), *zero = calloc(n + 1, sizeof *zero);
   cb_order_step *st = NULL;
   long ns = ran && zero ? cb_recorded_order(&tr, tr.nevents, n, ran, &st) : -1;
   cb_sched_step *steps = ns > 0 ? calloc((size_t)ns, sizeof *steps) : NULL;
   cb_sched_step **tail = ns > 0 ? calloc((size_t)ns, sizeof *tail) : NULL;
   int rc = -1;
   if (steps && tail) {
      for (long k = 0; k < ns; k++) {
         steps[k] = (cb_sched_step){1, st[k].tid, 1, st[k].count, 0, 0, NULL};
         tail[k] = &steps[k];
      }
      p.prefix = zero;
      p.n_prefix_order = 0;
      p.prefix_order = NULL;
      p.tail = tail;
      p.n_tail = (size_t)ns;
      p.n_variants = 0;
      p.variants = NULL;
      p.tail_name = "a failing run's whole order, forced";
      rc = cb_schedule_write(path, &p, &err);
   }
   free(tail);
   free(steps);
   free(st);
   free(ran);
   free(zero);
   cb_trace_free(&tr);
   return rc;
}

/* NAME-pinned.pb beside cs's file. */
static void pinned_path(const cbr_schedule *cs, char *buf, size_t len)
{
   size_t l = strlen(cs->path);
   if (l > 3 && !strcmp(cs->path + l - 3, ".pb"))
      l -= 3;
   snprintf(buf, len, "%.*s-pinned.pb", (int)l, cs->path);
}

/* Forces the pinned schedule 1 + o->confirm times; 1 when every run was
 * a bug. */
static int pinned_fails(const cbr_options *o, const cbr_io *io, const cbr_schedule *cs,
                        const char *path, cbr_result *r)
{
   cbr_schedule pin;
   cb_error err;
   if (cbr_load_schedule(path, cs->s->program_digest, 0, 0, &pin, &err) != 0)
      return 0;
   unsigned bugs, runs = cbr_force_again(o, io, &pin, 0, 1 + o->confirm, CBR_UNTIL_PASS,
                                         NULL, r, &bugs, NULL);
   cbr_free_schedule(&pin);
   r->pinned_runs = runs;
   return bugs == runs;
}

/* Whether r's failure is to be pinned (above). */
static int wants_pin(const cbr_options *o, const cbr_result *r)
{
   /* Not a cure: a passing run's whole order, forced, passes every time,
    * and says nothing of the one order the cure names (blind trial 21's
    * `&i` loop: a single flip that cured 1 run in 5 was pinned, and its
    * pin cured 3 of 3). */
   if (r->cure)
      return 0;
   if (cbr_not_reproduced(r))
      return 1;
   return o->pin && r->confirm_runs > 0 &&
          (r->verdict == CBR_FAILED || r->verdict == CBR_DEADLOCK);
}

void cbr_pin(const cbr_options *o, const cbr_io *io, const cbr_schedule *cs,
             cbr_result *r)
{
   r->pinned[0] = 0;
   if (!wants_pin(o, r))
      return;
   const char *tmp = getenv("TMPDIR");
   char dir[PATH_MAX], trace[PATH_MAX + 16], path[PATH_MAX];
   snprintf(dir, sizeof dir, "%s/cbreplay-pin.XXXXXX", tmp && *tmp ? tmp : "/tmp");
   if (!mkdtemp(dir))
      return;
   snprintf(trace, sizeof trace, "%s/run.pb", dir);
   pinned_path(cs, path, sizeof path);
   cbr_remove_pin_on_signal(trace, dir);
   int ok = record_failing_run(o, io, cs, r, trace) &&
            write_pinned(cs, trace, path) == 0;
   unlink(trace);
   rmdir(dir);
   cbr_remove_pin_on_signal(NULL, NULL);
   if (ok && pinned_fails(o, io, cs, path, r)) {
      snprintf(r->pinned, sizeof r->pinned, "%s", path);
      if (o->verbose)
         fprintf(stderr, "cbreplay: %s variant %u pinned: %s failed %u of %u runs\n",
                 cs->name, r->variant, path, r->pinned_runs, r->pinned_runs);
   } else if (ok) {
      unlink(path);
   }
}
