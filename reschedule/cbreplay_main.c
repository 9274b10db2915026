/* cbreplay: forces predicted schedules on a program and judges each run.
 * See `cbreplay --help` (options.c) for the command line, verdicts and exit
 * codes, and replay.h for how the parts fit.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch.h"
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
      if (r[i].verdict == CBR_FAILED || r[i].verdict == CBR_HUNG)
         return CBR_EXIT_FAILED;
      if (r[i].verdict == CBR_ERROR)
         code = CBR_EXIT_USAGE;
   }
   return code;
}

/* cbpredict writes the schedules of TRACE into TRACE.schedules/.  When that
 * trace is still beside the folder, a schedule must come from it: a trace
 * recorded again after cbpredict ran makes the folder stale.  Returns 1 and
 * the trace's id when there is such a trace; the last one read is kept, as
 * every schedule of a run usually sits in one folder. */
static int sibling_trace_id(const char *schedule_path, uint64_t *id)
{
   static char cached[PATH_MAX];
   static uint64_t cached_id;
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
      cb_trace t;
      cb_error err;
      if (cb_trace_read(trace, &t, &err) != 0)
         return 0; /* not a readable trace: nothing to compare with */
      cached_id = t.header.trace_id;
      cb_trace_free(&t);
      snprintf(cached, sizeof cached, "%s", trace);
   }
   *id = cached_id;
   return 1;
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

   uint64_t trace_id = 0;
   if (o.trace) {
      cb_trace t;
      if (cb_trace_read(o.trace, &t, &err) != 0) {
         fprintf(stderr, "cbreplay: cannot read trace %s: %s\n", o.trace,
                 err.msg);
         return CBR_EXIT_USAGE;
      }
      trace_id = t.header.trace_id;
      cb_trace_free(&t);
   }

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
   /* Every schedule is checked before any runs: a foreign or corrupt one
    * means the command was given the wrong input. */
   for (size_t i = 0; i < n; i++) {
      int id_known = o.trace != NULL;
      uint64_t id = trace_id;
      if (!id_known)
         id_known = sibling_trace_id(paths[i], &id);
      if (cbr_load_schedule(paths[i], digest, id_known, id, &cs[i], &err) != 0)
         return fail("", &err);
   }

   if (o.all) {
      if (n > 0 && cbr_run_all(&o, cs, n, results) != 0)
         return fail("", &(cb_error){"cannot start the forced runs"});
   } else {
      cbr_io io = {.capture_stdout = o.json || o.check != NULL};
      cbr_run_one(&o, &io, &cs[0], &results[0]);
   }

   cbr_report rep = {&o, program, cs, results, n};
   fflush(stdout);
   if (o.json) {
      cbr_print_json(stdout, &rep);
   } else {
      cbr_print_table(stdout, &rep);
      cbr_print_bug_reports(stdout, &rep);
   }
   if (!o.all && results[0].verdict == CBR_ERROR)
      fprintf(stderr, "cbreplay: %s could not run: %s\n", cs[0].name,
              results[0].error);
   rc = exit_code_of(&o, results, n);

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
