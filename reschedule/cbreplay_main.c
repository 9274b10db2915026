/* cbreplay: forces predicted schedules on a program and judges each run.
 * See `cbreplay --help` (options.c) for the command line, verdicts and exit
 * codes, and replay.h for how the parts fit.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch.h"
#include "pool.h"
#include "replay.h"

static int fail(const char *what, const cb_error *err)
{
   fprintf(stderr, "cbreplay: %s%s%s\n", what, *what ? ": " : "", err->msg);
   return CBR_EXIT_USAGE;
}

/* Every schedule the command names, absolute paths. */
static int schedule_paths(const cbr_options *o, char ***paths, size_t *n,
                          cb_error *err)
{
   char dir[PATH_MAX];
   if (o->all)
      return cbr_list_schedules(cbr_schedules_dir(o, dir, sizeof dir), paths,
                                n, err);
   char path[PATH_MAX];
   if (cbr_find_schedule(o, o->schedule, path, sizeof path, err) != 0)
      return -1;
   *paths = calloc(1, sizeof **paths);
   if (!*paths || !((*paths)[0] = strdup(path)))
      return cb_fail(err, "out of memory");
   *n = 1;
   return 0;
}

static int exit_code_of(const cbr_options *o, const cbr_result *r, size_t n)
{
   if (!o->all)
      return cbr_verdict_exit(r[0].verdict);
   int code = 0;
   for (size_t i = 0; i < n; i++) {
      if (cbr_verdict_is_bug(r[i].verdict))
         return CBR_EXIT_FAILED;
      if (r[i].verdict == CBR_ERROR)
         code = CBR_EXIT_ERROR;
   }
   return code;
}

/* What a trace tells about its schedules: its id, and the recorded run's
 * exit status (-1 when it did not end by exit, or the trace was cut). */
typedef struct {
   uint64_t id;
   int recorded_exit;
   char instrument[32]; /* --instrument it was recorded with, "" unknown */
} trace_facts;

static int read_trace_facts(const char *path, trace_facts *tf, cb_error *err)
{
   cb_trace t;
   if (cb_trace_read(path, &t, err) != 0)
      return -1;
   tf->id = t.header.trace_id;
   tf->recorded_exit = cb_trace_exit_status(&t);
   cb_instrument_option(t.header.instrumented, tf->instrument,
                        sizeof tf->instrument);
   cb_trace_free(&t);
   return 0;
}

/* cbpredict writes the schedules of TRACE into TRACE.schedules/.  When that
 * trace is still beside the folder, a schedule must come from it: a trace
 * recorded again after cbpredict ran makes the folder stale.  Returns 1 and
 * the trace's facts when there is such a trace; the last one read is kept,
 * as every schedule of a run usually sits in one folder. */
static int sibling_trace(const char *schedule_path, trace_facts *tf,
                         char *path, size_t pathlen)
{
   static char cached[PATH_MAX];
   static trace_facts cached_tf;
   char trace[PATH_MAX];
   const char *slash = strrchr(schedule_path, '/');
   const char *suffix = ".schedules";
   size_t dirlen = slash ? (size_t)(slash - schedule_path) : 0;
   size_t sl = strlen(suffix);
   if (dirlen <= sl || dirlen - sl >= sizeof trace ||
       memcmp(schedule_path + dirlen - sl, suffix, sl) != 0)
      return 0;
   memcpy(trace, schedule_path, dirlen - sl);
   trace[dirlen - sl] = 0;
   if (access(trace, R_OK) != 0)
      return 0;
   if (strcmp(trace, cached) != 0) {
      cb_error err;
      if (read_trace_facts(trace, &cached_tf, &err) != 0)
         return 0; /* not a readable trace: nothing to compare with */
      snprintf(cached, sizeof cached, "%s", trace);
   }
   *tf = cached_tf;
   snprintf(path, pathlen, "%s", cached);
   return 1;
}

/* --variant N must name a variant of the schedule. */
static int check_variant(const cbr_options *o, const cbr_schedule *cs,
                         cb_error *err)
{
   size_t nv = cb_schedule_nvariants(cs->s);
   if (o->variant < 0 || (size_t)o->variant < nv ||
       cbr_is_hunt(cs->s, (unsigned)o->variant))
      return 0;
   return cb_fail(err, "--variant %d: schedule %s has no such tail variant "
                       "(its variants are 0 to %zu%s)", o->variant, cs->name,
                  nv - 1, cbr_hunt_index(cs->s) >= 0 ? ", and the hunt after them" : "");
}

/* After an interruption: the schedules whose runs finished, moved to the
 * front (the others are freed); returns how many. */
static size_t keep_finished(cbr_schedule *cs, cbr_result *results,
                            const int *finished, size_t n)
{
   size_t k = 0;
   for (size_t i = 0; i < n; i++) {
      if (!finished[i]) {
         cbr_free_schedule(&cs[i]);
         continue;
      }
      cs[k] = cs[i];
      results[k++] = results[i];
   }
   return k;
}

/* The instrumentation the runs of cs need: the schedule's own (cbpredict
 * copies it from the trace), else its trace's, else the default.  Every
 * schedule of one command must agree: the runs share one setting. */
static int pick_instrument(cbr_options *o, const cbr_schedule *cs,
                           const trace_facts *tf, cb_error *err)
{
   static char first[32], first_of[64];
   const cb_schedule *s = cs->s;
   const char *w = s->instrument && *s->instrument ? s->instrument
                                                   : tf->instrument;
   if (!*w)
      w = "default";
   if (!cb_instrument_words(w))
      return cb_fail(err, "schedule %s comes from a run recorded with "
                          "--instrument=%s, which this cbreplay does not "
                          "know: force it with the cbtools that recorded it",
                     cs->name, w);
   if (!o->instrument) {
      snprintf(first, sizeof first, "%s", w);
      snprintf(first_of, sizeof first_of, "%s", cs->name);
      o->instrument = first;
   } else if (strcmp(o->instrument, w) != 0) {
      return cb_fail(err, "schedules %s and %s come from runs recorded with "
                          "--instrument=%s and --instrument=%s: force them "
                          "with separate commands", first_of, cs->name,
                     first, w);
   }
   return 0;
}

/* Every schedule is checked before any runs: a foreign or corrupt one
 * means the command was given the wrong input (exit 2). */
static int load_schedules(cbr_options *o, uint64_t digest,
                          char *const *paths, size_t n, cbr_schedule *cs)
{
   cb_error err;
   trace_facts given = {0, -1, ""};
   if (o->trace && read_trace_facts(o->trace, &given, &err) != 0) {
      fprintf(stderr, "cbreplay: cannot read trace %s: %s\n", o->trace,
              err.msg);
      return CBR_EXIT_USAGE;
   }
   for (size_t i = 0; i < n; i++) {
      int known = o->trace != NULL;
      trace_facts tf = given;
      char origin[PATH_MAX] = "";
      if (!known)
         known = sibling_trace(paths[i], &tf, origin, sizeof origin);
      else
         snprintf(origin, sizeof origin, "%s", o->trace);
      if (cbr_load_schedule(paths[i], digest, known, tf.id, &cs[i], &err) != 0)
         return fail("", &err);
      memcpy(cs[i].origin, origin, sizeof origin);
      /* The schedule's own record of the run's exit status; older
       * schedules have only their trace's. */
      const cb_schedule *s = cs[i].s;
      cs[i].recorded_exit = s->has_recorded_exit ? s->recorded_exit
                            : known           ? tf.recorded_exit
                                              : -1;
      if (check_variant(o, &cs[i], &err) != 0 ||
          pick_instrument(o, &cs[i], &tf, &err) != 0)
         return fail("", &err);
   }
   return 0;
}

/* Forces every schedule (one, or --all in parallel).  Returns 0, -1 when
 * the runs could not start, or the signal that interrupted --all: then
 * *n is how many finished, moved to the front. */
static int force(const cbr_options *o, cbr_schedule *cs, cbr_result *results,
                 size_t *n)
{
   if (!o->all) {
      cbr_io io = {.capture_stdout = o->json || o->check != NULL};
      cbr_run_schedule(o, &io, &cs[0], &results[0]);
      return 0;
   }
   if (*n == 0)
      return 0;
   int *finished = calloc(*n, sizeof *finished);
   if (!finished)
      return -1;
   int stopped_by = cbr_run_all(o, cs, *n, results, finished);
   if (stopped_by > 0)
      *n = keep_finished(cs, results, finished, *n);
   free(finished);
   return stopped_by;
}

/* After the report of what finished: says so and dies of the signal that
 * interrupted it, so that the shell sees 128+N. */
static void die_of(int sig, size_t n)
{
   fflush(stdout);
   fprintf(stderr, "cbreplay: interrupted by SIG%s: the table shows the %zu "
                   "schedule%s forced before it\n", sigabbrev_np(sig), n,
           n == 1 ? "" : "s");
   cb_die_of_signal(sig);
}

int main(int argc, char **argv)
{
   cbr_options o;
   cb_error err;
   char program[PATH_MAX], found[PATH_MAX], tooldir[PATH_MAX];

   int rc = cbr_parse_options(argc, argv, &o);
   if (rc == 1)
      return 0;
   if (rc != 0)
      return rc;

   /* The program, resolved as execvp would, then made absolute so that the
    * reproduce command works from any folder. */
   if (cb_find_program(o.prog_argv[0], found, sizeof found, &err) != 0)
      return fail("", &err);
   if (!realpath(found, program))
      snprintf(program, sizeof program, "%s", found);
   char **pargv = calloc((size_t)o.prog_argc + 1, sizeof *pargv);
   if (!pargv)
      return fail("", &(cb_error){"out of memory"});
   pargv[0] = program;
   for (int i = 1; i < o.prog_argc; i++)
      pargv[i] = o.prog_argv[i];
   o.prog_argv = pargv;

   if (cb_tool_dir(tooldir, sizeof tooldir, &err) != 0)
      return fail("cannot replay", &err);
   uint64_t digest;
   if (cb_file_digest(program, &digest, &err) != 0)
      return fail(program, &err);

   char **paths = NULL;
   size_t n = 0;
   if (schedule_paths(&o, &paths, &n, &err) != 0)
      return fail("", &err);
   if (n == 0) {
      char dir[PATH_MAX];
      fprintf(stderr, "cbreplay: no schedules (sN.pb) in %s: nothing to "
                      "force\n", cbr_schedules_dir(&o, dir, sizeof dir));
   }
   cbr_schedule *cs = calloc(n ? n : 1, sizeof *cs);
   cbr_result *results = calloc(n ? n : 1, sizeof *results);
   if (!cs || !results)
      return fail("", &(cb_error){"out of memory"});
   if ((rc = load_schedules(&o, digest, paths, n, cs)) != 0)
      return rc;

   int stopped_by = force(&o, cs, results, &n);
   if (stopped_by < 0)
      return fail("", &(cb_error){"cannot start the forced runs"});

   cbr_report rep = {&o, program, cs, results, n};
   fflush(stdout);
   if (o.json) {
      cbr_print_json(stdout, &rep);
   } else {
      cbr_print_table(stdout, &rep);
      cbr_print_bug_reports(stdout, &rep);
   }
   if (!o.all && results[0].verdict == CBR_ERROR)
      fprintf(stderr, "cbreplay: %s: error: %s\n", cs[0].name,
              results[0].error);
   rc = exit_code_of(&o, results, n);
   if (stopped_by > 0)
      die_of(stopped_by, n);

   for (size_t i = 0; i < n; i++) {
      cbr_free_schedule(&cs[i]);
      free(paths[i]);
   }
   free(paths);
   free(cs);
   free(results);
   free(pargv);
   return rc;
}
