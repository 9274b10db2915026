/* cbtest_merge.c: results made in many places, one report.
 *
 *   --emit-jobs FILE   after recording and predicting here, every forced run
 *                      becomes one line `cbtest --run-job TESTDIR sN`;
 *   --run-job DIR sN   forces that schedule (anywhere the program and DIR
 *                      are reachable at the same paths) and saves the
 *                      verdict as DIR/runs/sN.result;
 *   --merge DIR...     reads the saved results (cbtest_state.c) of output
 *                      folders, --wrap report folders and emitted jobs, and
 *                      writes one summary and one set of reports.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cbtest.h"
#include "cbtrace.h"

/* ---- --emit-jobs ---------------------------------------------------------------- */

typedef struct {
   const cbt_suite *s;
   size_t lines;
} emit_ctx;

static void write_jobs(FILE *f, const void *arg)
{
   emit_ctx *c = (emit_ctx *)arg;
   const cbt_suite *s = c->s;
   char self[PATH_MAX + 16];
   cbt_fmt(self, sizeof self, "%s/cbtest", s->bindir);
   for (size_t i = 0; i < s->ntests; i++) {
      const cbt_test *t = &s->tests[i];
      if (!t->jobs_emitted)
         continue;
      for (size_t r = 0; r < t->nruns; r++) {
         char line[3 * PATH_MAX] = "";
         cb_append_shell_quoted(line, sizeof line, self);
         if (s->o->all_bugs) /* the job forces as the plain run would (--pin) */
            cb_append_shell_quoted(line, sizeof line, "--all-bugs");
         cb_append_shell_quoted(line, sizeof line, "--run-job");
         cb_append_shell_quoted(line, sizeof line, t->dir);
         cb_append_shell_quoted(line, sizeof line, t->runs[r].name);
         fprintf(f, "%s\n", line);
         c->lines++;
      }
   }
}

int cbt_emit_jobs(const cbt_suite *s, const char *path)
{
   emit_ctx c = {.s = s};
   char why[PATH_MAX + 256];
   if (cbt_write_atomic(path, write_jobs, &c, why, sizeof why) != 0) {
      fprintf(stderr, "cbtest: %s\n", why);
      return -1;
   }
   for (size_t i = 0; i < s->ntests; i++) {
      const cbt_test *t = &s->tests[i];
      if (t->jobs_emitted)
         printf("%s: %zu forced run%s to do\n", t->id, t->nruns,
                t->nruns == 1 ? "" : "s");
      else if (t->outcome == CBT_O_FAILED_NATIVELY || t->outcome == CBT_O_ERROR)
         printf("%s: %s (%s)\n", t->id, cbt_outcome_name(t->outcome),
                t->error);
      else
         printf("%s: %s\n", t->id, t->nruns ? "not finished"
                                            : "no schedule predicted");
   }
   printf("cbtest: %zu job%s written to %s: run each line (sh, GNU parallel, "
          "a Slurm job array), then: cbtest --merge %s\n",
          c.lines, c.lines == 1 ? "" : "s", path, s->out_dir);
   return 0;
}

/* ---- --run-job ------------------------------------------------------------------ */

static int job_error(const char *fmt, const char *a, const char *b)
{
   fputs("cbtest: --run-job: ", stderr);
   fprintf(stderr, fmt, a, b);
   fputc('\n', stderr);
   return CBT_EXIT_USAGE;
}

/* Runs one cbreplay to its end through a pool of one slot (its limit, its
 * process group, stopping it when cbtest is interrupted).  0, minus the
 * stop signal when interrupted, or CBT_EXIT_USAGE after saying why. */
static int force_one(const cbt_suite *s, cbt_test *t, cbt_run *r)
{
   char num[32], rec[PATH_MAX];
   char **argv = calloc((size_t)t->cmd.argc + CBT_REPLAY_WORDS + 1, sizeof *argv);
   cb_pool *pool = cb_pool_new(1, CBT_GRACE_S);
   if (!argv || !pool)
      return job_error("%s%s", "out of memory", "");
   /* The plain run's command line: a job's verdict must mean the same. */
   cbt_replay_argv(s, t, (size_t)(r - t->runs), t->timeout_s, argv, num, rec, sizeof rec);
   cb_job job;
   cbt_program_job(&job, argv, r->out_path, r->err_path,
                   CBT_DEFAULT_RECORD_TIMEOUT_S + 4 * t->timeout_s + 60.0,
                   NULL);
   job.pin = 1; /* a forced run: on one CPU (trace/launch.c) */
   cb_job_end e;
   if (cb_pool_start(pool, &job, &e) == 0)
      while (!cb_pool_wait(pool, 0.5, &e))
         if (cb_stop_requested()) {
            cb_pool_kill_all(pool);
            cb_pool_free(pool);
            free(argv);
            return -cb_stop_requested();
         }
   cb_pool_free(pool);
   free(argv);
   cbt_judge_replay(r, &e);
   return 0;
}

int cbt_main_run_job(const cbt_options *o)
{
   cbt_suite s;
   memset(&s, 0, sizeof s);
   s.o = o;
   if (cbt_find_siblings(&s) != 0)
      return CBT_EXIT_USAGE;
   char dir[PATH_MAX], why[PATH_MAX + 256];
   if (!realpath(o->run_job_dir, dir))
      return job_error("%s: %s", o->run_job_dir, strerror(errno));
   cbt_test t;
   if (cbt_load_test(dir, &t, why, sizeof why) != 0)
      return job_error("%s%s", why, "");
   cbt_run *r = NULL;
   for (size_t i = 0; i < t.nruns; i++)
      if (!strcmp(t.runs[i].name, o->run_job_name))
         r = &t.runs[i];
   int rc = 0;
   if (!r) {
      rc = job_error("%s has no schedule %s", dir, o->run_job_name);
   } else if (chdir(t.cwd) != 0) {
      /* The test's relative arguments mean something only there. */
      rc = job_error("cannot enter %s, where the test runs: %s", t.cwd,
                     strerror(errno));
   } else if ((rc = force_one(&s, &t, r)) == 0 &&
              cbt_save_run(&t, r, why, sizeof why) != 0) {
      rc = job_error("%s%s", why, "");
   }
   cbt_free_words(t.cmd.argv);
   free(t.runs);
   if (rc < 0) { /* interrupted: nothing saved */
      fprintf(stderr, "cbtest: --run-job: interrupted by SIG%s: %s was not "
                      "forced\n", sigabbrev_np(-rc), o->run_job_name);
      cbt_private_tmp_remove();
      cb_die_of_signal(-rc);
   }
   return rc;
}

/* ---- --merge --------------------------------------------------------------------- */

static int has_state(const char *dir)
{
   char path[PATH_MAX + 16];
   cbt_fmt(path, sizeof path, "%s/test.state", dir);
   return access(path, F_OK) == 0;
}

static int add_test(cbt_suite *s, const char *dir)
{
   cbt_test *more = realloc(s->tests, (s->ntests + 1) * sizeof *more);
   if (!more) {
      fprintf(stderr, "cbtest: out of memory\n");
      return -1;
   }
   s->tests = more;
   cbt_test *t = &more[s->ntests];
   char why[PATH_MAX + 256];
   if (cbt_load_test(dir, t, why, sizeof why) != 0) {
      fprintf(stderr, "cbtest: --merge: %s\n", why);
      return -1;
   }
   /* Ids stay unique when folders of several runs are merged. */
   char id[sizeof t->id];
   cbt_fmt(id, sizeof id, "%s", t->id);
   for (int k = 2;; k++) {
      size_t i;
      for (i = 0; i < s->ntests && strcmp(s->tests[i].id, t->id); i++)
         ;
      if (i == s->ntests)
         break;
      cbt_fmt(t->id, sizeof t->id, "%s#%d", id, k);
   }
   /* Emitted jobs were forced elsewhere: the outcome follows their
    * results. */
   if (t->jobs_emitted && t->outcome == CBT_O_NONE) {
      t->outcome = t->failed_each ? CBT_O_FAILED_NATIVELY : CBT_O_CLEAN;
      for (size_t r = 0; r < t->nruns; r++)
         if (cbt_is_bug(t->runs[r].verdict))
            t->outcome = CBT_O_BUGS;
   }
   s->ntests++;
   return 0;
}

static int skip_dots(const struct dirent *d) { return d->d_name[0] != '.'; }

/* DIR itself when it is a test's folder, else every DIR/tests/X with a
 * saved result, in order of name. */
static int add_folder(cbt_suite *s, const char *arg)
{
   char dir[PATH_MAX];
   if (!realpath(arg, dir)) {
      fprintf(stderr, "cbtest: --merge: %s: %s\n", arg, strerror(errno));
      return -1;
   }
   if (has_state(dir))
      return add_test(s, dir);
   char tests[PATH_MAX + 8];
   cbt_fmt(tests, sizeof tests, "%s/tests", dir);
   struct dirent **names;
   int n = scandir(tests, &names, skip_dots, alphasort);
   if (n < 0) {
      fprintf(stderr, "cbtest: --merge: %s: no cbtest results in it (no "
                      "test.state, no tests/ folder)\n", arg);
      return -1;
   }
   int rc = 0, found = 0;
   for (int i = 0; i < n; i++) {
      char sub[PATH_MAX + 300];
      cbt_fmt(sub, sizeof sub, "%s/%s", tests, names[i]->d_name);
      if (!rc && has_state(sub)) {
         found++;
         rc = add_test(s, sub);
      } else if (!rc) {
         fprintf(stderr, "cbtest: --merge: %s: no results (the test did "
                         "not finish)\n", sub);
      }
      free(names[i]);
   }
   free(names);
   if (!rc && !found)
      fprintf(stderr, "cbtest: --merge: %s: no finished test in it\n", arg);
   return rc;
}

int cbt_main_merge(const cbt_options *o)
{
   cbt_options mo = *o;
   cbt_suite s;
   memset(&s, 0, sizeof s);
   s.o = &mo;
   int rc = CBT_EXIT_USAGE;
   if (cbt_find_siblings(&s) != 0)
      return rc;
   for (int i = 0; i < o->prog_argc; i++)
      if (add_folder(&s, o->prog_argv[i]) != 0)
         goto out;
   if (s.ntests == 0) {
      fprintf(stderr, "cbtest: --merge: no test results to merge\n");
      goto out;
   }
   const char *out = o->out_dir_given ? o->out_dir : o->prog_argv[0];
   if (cbt_mkdir_p(out) != 0 || !realpath(out, s.out_dir)) {
      fprintf(stderr, "cbtest: cannot create the output folder %s: %s\n",
              out, strerror(errno));
      goto out;
   }
   /* The report says what the runs used, not what this command line did. */
   mo.timeout_s = s.tests[0].timeout_s > 0 ? s.tests[0].timeout_s
                                            : CBT_DEFAULT_TIMEOUT_S;
   for (size_t i = 0; i < s.ntests; i++)
      s.seconds += s.tests[i].seconds;
   cbt_collect_bugs(&s);
   cbt_print_summary(stdout, &s);
   rc = cbt_exit_status(&s, cbt_write_reports(&s, stdout) == 0);
out:
   cbt_free_suite(&s);
   return rc;
}
