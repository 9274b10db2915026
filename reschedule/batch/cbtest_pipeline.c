/* cbtest_pipeline.c: the stages of every test, fed to one pool of jobs.
 *
 * A test moves WAITING -> RECORDING -> RECORDED -> PREDICTING -> REPLAYING
 * -> DONE.  Whenever a slot is free the next job is chosen in this order:
 * a prediction (cheap, and it releases the replays of its test), then a
 * forced run of the earliest test that has one waiting, then the recording
 * of the next test.  So tests finish roughly in order, and recordings of
 * later tests fill the slots the replays leave free.
 *
 * Every job runs in the folder cbtest was started from (a test's relative
 * arguments keep their meaning); everything it writes is named by an
 * absolute path in the test's work folder.
 * What a forced run's cbreplay job says is judged in cbtest_judge.c.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cbtest.h"
#include "cbtest_explore.h"
#include "cbtrace.h"

#define CBT_STR(x) CBT_STR_(x)
#define CBT_STR_(x) #x

enum job_kind { JOB_RECORD, JOB_PREDICT, JOB_REPLAY };

typedef struct {
   enum job_kind kind;
   size_t test, run;
   char *argv[64 + 16];   /* the words, pointing into storage below */
   char **heap_argv;      /* for a test with many arguments */
   char out[PATH_MAX], err[PATH_MAX];
   char num[32];
   char rec[PATH_MAX];    /* cbreplay --record FILE (--explore) */
} job_ref;

/* ---- Building the command lines -------------------------------------------- */

static char **argv_space(job_ref *j, size_t words)
{
   if (words <= sizeof j->argv / sizeof j->argv[0])
      return j->argv;
   j->heap_argv = calloc(words, sizeof *j->heap_argv);
   return j->heap_argv;
}

/* The test's own command (program already absolute) after "--". */
static size_t put_test_command(char **argv, size_t k, const cbt_test *t)
{
   for (int a = 0; a < t->cmd.argc; a++)
      argv[k++] = t->cmd.argv[a];
   return k;
}

size_t cbt_replay_argv(const cbt_suite *s, const cbt_test *t, size_t ri, double timeout_s,
                       char **argv, char num[32], char *rec, size_t reclen)
{
   size_t k = 0;
   snprintf(num, 32, "%g", timeout_s);
   argv[k++] = (char *)s->cbreplay;
   argv[k++] = "--schedule";
   argv[k++] = (char *)t->runs[ri].path;
   argv[k++] = "--timeout";
   argv[k++] = num;
   argv[k++] = "--confirm";
   argv[k++] = CBT_STR(CBT_CONFIRM);
   /* A failure's reproducer is its whole order.  Not under --all-bugs,
    * where every failing schedule of a bug would be pinned (about five
    * more forced runs each), not only the one that reproduces it. */
   if (!s->o->all_bugs)
      argv[k++] = "--pin";
   /* The recorded run, beside which a pinned failing run's misread is
    * found (reschedule/misread.c, cbtest_crash.c); not for a schedule
    * exploration took from another trace, which --trace would refuse. */
   const cbt_run *r = &t->runs[ri];
   if (r->has_trace_id && t->trace_id && r->trace_id == t->trace_id) {
      argv[k++] = "--trace";
      argv[k++] = (char *)t->trace;
   }
   if (cbt_explore_record_path(t, ri, rec, reclen)) {
      argv[k++] = "--record";
      argv[k++] = rec;
   }
   argv[k++] = "--";
   return put_test_command(argv, k, t);
}

static job_ref *new_job(const cbt_suite *s, enum job_kind kind, size_t ti,
                        size_t ri)
{
   const cbt_test *t = &s->tests[ti];
   job_ref *j = calloc(1, sizeof *j);
   if (!j)
      return NULL;
   j->kind = kind;
   j->test = ti;
   j->run = ri;
   char **argv = argv_space(j, (size_t)t->cmd.argc + 16);
   if (!argv) {
      free(j);
      return NULL;
   }
   size_t k = 0;
   switch (kind) {
   case JOB_RECORD:
      argv[k++] = (char *)s->cbtrace;
      argv[k++] = "record";
      if (cbt_explore_recording(t)) { /* exploration's second recording */
         k += cbt_explore_record_args(t, argv + k, j->out, j->err,
                                      sizeof j->out);
      } else {
         argv[k++] = "-o";
         argv[k++] = (char *)t->trace;
         if (t->record_failures % 2) /* every other run again: creators first */
            argv[k++] = "--parent-first";
         cbt_fmt(j->out, sizeof j->out, "%s/record.out", t->dir);
         cbt_fmt(j->err, sizeof j->err, "%s/record.err", t->dir);
      }
      if (s->o->instrument) {
         cbt_fmt(j->num, sizeof j->num, "--instrument=%s", s->o->instrument);
         argv[k++] = j->num;
      }
      argv[k++] = "--";
      k = put_test_command(argv, k, t);
      break;
   case JOB_PREDICT:
      if (t->explore) { /* an exploration round (cbtest_explore.c) */
         argv[0] = (char *)s->cbpredict;
         k = 1 + cbt_explore_predict_args(s, t, argv + 1, j->out, j->err,
                                          sizeof j->out);
         break;
      }
      argv[k++] = (char *)s->cbpredict;
      argv[k++] = "-o";
      argv[k++] = (char *)t->schedules;
      if (s->o->z3)
         argv[k++] = "--z3";
      if (t->failed_each) /* exit 1 is the failure, not the run's normal */
         argv[k++] = "--recorded-failed";
      if (t->failed_each && t->more_tries) /* each of 8 failed: the flips */
         argv[k++] = "--cures";
      argv[k++] = (char *)t->trace;
      cbt_fmt(j->out, sizeof j->out, "%s/predict.out", t->dir);
      cbt_fmt(j->err, sizeof j->err, "%s/predict.err", t->dir);
      break;
   case JOB_REPLAY:
      k = cbt_replay_argv(s, t, ri, s->o->timeout_s, argv, j->num, j->rec, sizeof j->rec);
      cbt_fmt(j->out, sizeof j->out, "%s", t->runs[ri].out_path);
      cbt_fmt(j->err, sizeof j->err, "%s", t->runs[ri].err_path);
      break;
   }
   argv[k] = NULL;
   return j;
}

static void free_job(job_ref *j)
{
   if (!j)
      return;
   free(j->heap_argv);
   free(j);
}

static double job_limit(const cbt_suite *s, enum job_kind kind)
{
   switch (kind) {
   case JOB_RECORD: return s->o->record_timeout_s;
   case JOB_PREDICT: return 600.0; /* a stuck cbpredict is a tool bug */
   case JOB_REPLAY:
      /* cbreplay ends a hung run itself after --timeout; this only guards
       * against cbreplay itself never ending. */
      return s->o->record_timeout_s + 4 * s->o->timeout_s + 60.0;
   }
   return 600.0;
}

/* ---- What happens when a job ends ------------------------------------------ */

static void test_finished(cbt_suite *s, size_t ti)
{
   cbt_test *t = &s->tests[ti];
   if (cbt_explore_continue(s, ti))
      return; /* --explore: another round */
   t->state = CBT_T_DONE;
   t->seconds = cb_now() - t->started;
   if (t->outcome == CBT_O_NONE && !t->jobs_emitted) {
      t->outcome = t->record_failures || t->failed_each ? CBT_O_FAILED_NATIVELY
                                                        : CBT_O_CLEAN;
      for (size_t i = 0; i < t->nruns; i++)
         if (cbt_is_bug(t->runs[i].verdict))
            t->outcome = CBT_O_BUGS;
   }
   /* Saved for --merge; a test that cannot be saved is still reported
    * here. */
   char why[PATH_MAX + 256];
   if (cbt_save_test(t, why, sizeof why) != 0)
      fprintf(stderr, "cbtest: %s\n", why);
   cbt_progress_test_done(s, ti);
}

static void test_error(cbt_suite *s, size_t ti, const char *what,
                       const char *why)
{
   cbt_test *t = &s->tests[ti];
   t->outcome = CBT_O_ERROR;
   cbt_fmt(t->error, sizeof t->error, "%s%s%s", what, *why ? ": " : "", why);
   test_finished(s, ti);
}

/* A recorded run that failed is one interleaving of many, and under
 * Valgrind's scheduler, on a loaded machine, the test's own race can
 * strike in it: the test is recorded again, up to CBT_RECORD_TRIES runs in
 * all, and a run that passes is predicted from (the schedules then show
 * whether the failure can be forced; if none fails, the test is still
 * reported as failed natively).  Every other run again uses cbtrace
 * record --parent-first: under Valgrind a new thread often runs before
 * its creator goes on, natively the creator mostly does, and a test whose
 * creator publishes what its threads read fails in every such recorded
 * run; the others run as the first did, since a race that strikes in about
 * half the runs either way (which thread leaves a barrier first) is
 * recorded passing by one of five far more often than by one of three.
 * The first failure's output is kept as record-failed.out and .err.  A run
 * that did not end is not tried again. */
#define CBT_RECORD_TRIES 5
/* When the last of them showed nothing to force (cbpredict
 * --recorded-failed wrote no schedule: its cause is not one thread's pair
 * of accesses), up to this many more, for a run that passes: blind trial
 * 18's mailbox failed in about 4 recordings of 5 and passed natively in
 * 219 of 220 runs; 5 tries all failed in a third of cbtest runs, 8 in a
 * sixth. */
#define CBT_RECORD_MORE 3

static int record_again(cbt_suite *s, size_t ti, int code, const char *line)
{
   cbt_test *t = &s->tests[ti];
   if (t->record_failures + 1 >= CBT_RECORD_TRIES + t->more_tries)
      return 0;
   if (t->record_failures++ == 0) {
      char from[PATH_MAX + 32], to[PATH_MAX + 32];
      t->native_code = code;
      cbt_fmt(t->error, sizeof t->error, "%s %d%s%s",
              code > 128 ? "killed by signal" : "exit",
              code > 128 ? code - 128 : code, *line ? ": " : "", line);
      for (int k = 0; k < 2; k++) {
         cbt_fmt(from, sizeof from, "%s/record.%s", t->dir, k ? "err" : "out");
         cbt_fmt(to, sizeof to, "%s/record-failed.%s", t->dir, k ? "err" : "out");
         (void)rename(from, to);
      }
   }
   t->state = CBT_T_WAITING;
   return 1;
}

/* The "; each of N recorded runs failed" record_ended put at the end of
 * error, taken off. */
static void drop_tries(char *error)
{
   char *p = NULL;
   for (char *q = error; (q = strstr(q, "; each of ")); q++)
      p = q;
   if (p && strstr(p, " recorded runs failed"))
      *p = '\0';
}

/* A test that failed in each recorded run is predicted from the last of
 * them with cbpredict --recorded-failed: only the violations that happened
 * in that run are written (predict/rank_failed.c), and a forced run that
 * fails names the variable and the lines, where "failed natively" alone
 * names nothing (a textbook `tmp = x; usleep(1); x = tmp + 1` fails so under
 * Valgrind's scheduler every time).  Every forced run of such a test may
 * fail whatever it forces, hence nothing else is forced (a test failing
 * for a reason of its own gets no race named), and the report says the
 * test fails on its own.  A deadlock (cbtrace named its threads and
 * locks) has no such pair: its cures come at once (--cures), the waits
 * that began after the signal meant for them (predict/cure_wake.c).  A
 * run stopped at --record-timeout never gets here. */
static int recorded_deadlock(const cbt_test *t, int code)
{
   return code == 6 && strstr(t->error, ": the program deadlocked: ");
}

static int predict_failed_run(cbt_test *t, int code)
{
   if (t->explore)
      return 0;
   if (recorded_deadlock(t, code))
      t->more_tries = CBT_RECORD_MORE;
   t->failed_each = 1;
   t->state = CBT_T_RECORDED;
   return 1;
}

static void record_ended(cbt_suite *s, size_t ti, const cb_job_end *e,
                         const job_ref *j)
{
   cbt_test *t = &s->tests[ti];
   char line[512];
   if (cbt_explore_recording(t)) {
      cbt_explore_recorded(t, e->code, e->timed_out);
      test_finished(s, ti);
      return;
   }
   cbt_last_line(j->err, 0, line, sizeof line);
   if (!t->record_failures)
      t->native_code = e->code;
   if (e->code == 0 && !e->timed_out) {
      t->state = CBT_T_RECORDED;
      return;
   }
   if (e->timed_out) {
      t->outcome = CBT_O_FAILED_NATIVELY;
      t->native_timed_out = 1;
      cbt_fmt(t->error, sizeof t->error,
               "the recorded run did not end within %g s and was stopped",
               s->o->record_timeout_s);
   } else if (e->code == 2 && strncmp(line, "cbtrace: ", 9) == 0) {
      /* cbtrace itself failed (its messages start so); a program that
       * exits 2 on its own is a native failure. */
      t->outcome = CBT_O_ERROR;
      cbt_fmt(t->error, sizeof t->error, "%s", line);
   } else if (record_again(s, ti, e->code, line)) {
      return;
   } else {
      char tries[64] = "";
      if (t->record_failures)
         cbt_fmt(tries, sizeof tries, "; each of %d recorded runs failed",
                 t->record_failures + 1);
      t->record_failures = 0; /* none passed */
      if (e->code > 128)
         cbt_fmt(t->error, sizeof t->error, "killed by signal %d%s%s%s",
                  e->code - 128, *line ? ": " : "", line, tries);
      else
         cbt_fmt(t->error, sizeof t->error, "exit %d%s%s%s", e->code,
                  *line ? ": " : "", line, tries);
      if (predict_failed_run(t, e->code))
         return;
      t->outcome = CBT_O_FAILED_NATIVELY;
   }
   test_finished(s, ti);
}

static void predict_ended(cbt_suite *s, size_t ti, const cb_job_end *e,
                          const job_ref *j)
{
   cbt_test *t = &s->tests[ti];
   char line[512];
   if (t->explore) { /* an exploration round: never the test's error */
      cbt_last_line(j->err, 0, line, sizeof line);
      if (cbt_explore_adopt(s, ti, e->code == 0 && !e->timed_out, line))
         t->state = CBT_T_REPLAYING;
      else
         test_finished(s, ti);
      return;
   }
   if ((e->code != 0 || e->timed_out) && t->failed_each) {
      /* its trace unreadable: what the recordings said stays the word */
      t->outcome = CBT_O_FAILED_NATIVELY;
      test_finished(s, ti);
      return;
   }
   if (e->code != 0 || e->timed_out) {
      cbt_last_line(j->err, 0, line, sizeof line);
      char what[64];
      cbt_fmt(what, sizeof what, e->timed_out ? "cbpredict did not end"
                                               : "cbpredict failed (exit %d)",
               e->code);
      test_error(s, ti, what, line);
      return;
   }
   char why[512];
   /* A test that failed in each recording is not explored: the whole
    * --max-runs goes to its predicted schedules. */
   size_t cap = t->failed_each ? s->o->max_runs : cbt_predicted_cap(s->o);
   if (cbt_load_runs(t, cap, why, sizeof why) != 0) {
      test_error(s, ti, "cbpredict", why);
      return;
   }
   if (t->failed_each && t->nruns == 0 && recorded_deadlock(t, t->native_code)) {
      /* No wait to move: the deadlock's own words, as recorded. */
      t->failed_each = 0;
      t->outcome = CBT_O_FAILED_NATIVELY;
      test_finished(s, ti);
      return;
   }
   if (t->failed_each && t->nruns == 0 && !t->more_tries) {
      /* Nothing to force from the failing run: a few more recordings. */
      t->more_tries = CBT_RECORD_MORE;
      t->failed_each = 0;
      t->record_failures = CBT_RECORD_TRIES; /* the count goes on */
      drop_tries(t->error); /* a run may pass: the first failure's words */
      t->state = CBT_T_WAITING;
      return;
   }
   t->state = CBT_T_REPLAYING;
   if (s->o->emit_jobs) { /* forced elsewhere: cbt_emit_jobs */
      t->jobs_emitted = 1;
      t->next_run = t->nruns;
   }
   if (t->nruns == 0 || t->jobs_emitted)
      test_finished(s, ti);
}

/* How many of t's schedules still to force after its first confirmed
 * bug r (once a test; they are moved next in line): after a crash away
 * from the pattern's own accesses, those with an access where the program
 * died (cbtest_crash.c); after a failure once the run had left the
 * schedule's path, or one whose violation did not happen (the failure
 * came from elsewhere: blind trial 20's consumers waiting with `if`
 * were named by a flag's order violation that never happened, ranked
 * first), the next few, for one whose violation is seen to happen
 * (cbt_collect_bugs ranks it first); else none. */
static size_t runs_to_keep(cbt_test *t, const cbt_run *r)
{
   size_t left = t->nruns - t->next_run;
   cbt_crash c;
   if (t->looked_again)
      return 0;
   t->looked_again = 1;
   if (cbt_crash_site(r, &c) && cbt_crash_distance(r, &c) < 0) {
      size_t n = cbt_crash_runs_first(t, t->next_run, &c, CBT_CRASH_RUNS);
      if (n > 0)
         return n;
      /* No schedule touches what the run misread (a count main reads at
       * the end): a run that left its path still earns its few more
       * (blind trial 17's seat booking stopped at such an RWR, its
       * order violation, seen to happen, never forced). */
   }
   if (r->violation == CBT_LEFT_PATH || r->violation == 0)
      return left < CBT_LEFT_PATH_RUNS ? left : CBT_LEFT_PATH_RUNS;
   return 0;
}

static void replay_ended(cbt_suite *s, size_t ti, size_t ri,
                         const cb_job_end *e)
{
   cbt_test *t = &s->tests[ti];
   cbt_run *r = &t->runs[ri];
   cbt_judge_replay(r, e);
   if (r->verdict == CBT_INFEASIBLE)
      cbt_runs_after_infeasible(t, ri);
   /* The first confirmed bug ends the test's forcing unless --all-bugs:
    * runs in flight finish, the rest are counted as not forced.  A failure
    * that did not come back when forced again does not (cbtest_bugs.c). */
   if (cbt_stops_forcing(r) && !s->o->all_bugs && t->next_run < t->nruns) {
      size_t keep = runs_to_keep(t, r);
      t->not_forced += t->nruns - t->next_run - keep;
      t->nruns = t->next_run + keep;
   }
   if (++t->runs_done == t->nruns)
      test_finished(s, ti);
}

void cbt_program_job(cb_job *job, char *const *argv, const char *out_path,
                     const char *err_path, double limit_s, void *tag)
{
   *job = (cb_job){.spawn = {.argv = argv, .fd_in = -1, .fd_out = -1,
                             .fd_err = -1, .new_group = 1,
                             .default_signals = 1},
                   .in_path = "/dev/null", .out_path = out_path,
                   .err_path = err_path, .limit_s = limit_s, .tag = tag};
}

/* ---- The loop ----------------------------------------------------------------- */

static job_ref *next_job(cbt_suite *s)
{
   for (size_t i = 0; i < s->ntests; i++)
      if (s->tests[i].state == CBT_T_RECORDED) {
         s->tests[i].state = CBT_T_PREDICTING;
         return new_job(s, JOB_PREDICT, i, 0);
      }
   for (size_t i = 0; i < s->ntests; i++) {
      cbt_test *t = &s->tests[i];
      if (t->state == CBT_T_REPLAYING && t->next_run < t->nruns)
         return new_job(s, JOB_REPLAY, i, t->next_run++);
   }
   for (size_t i = 0; i < s->ntests; i++)
      if (s->tests[i].state == CBT_T_WAITING) {
         s->tests[i].state = CBT_T_RECORDING;
         if (!s->tests[i].record_failures && !s->tests[i].explore)
            /* not a recording again, nor exploration's second */
            s->tests[i].started = cb_now();
         return new_job(s, JOB_RECORD, i, 0);
      }
   return NULL;
}

/* Whether next_job would find something to start. */
static int next_ready(const cbt_suite *s)
{
   for (size_t i = 0; i < s->ntests; i++) {
      const cbt_test *t = &s->tests[i];
      if (t->state == CBT_T_RECORDED || t->state == CBT_T_WAITING ||
          (t->state == CBT_T_REPLAYING && t->next_run < t->nruns))
         return 1;
   }
   return 0;
}

static void job_ended(cbt_suite *s, job_ref *j, const cb_job_end *e)
{
   if (e->code < 0 && e->error[0]) {
      /* The job did not start at all. */
      if (j->kind == JOB_REPLAY) {
         replay_ended(s, j->test, j->run, e);
      } else {
         test_error(s, j->test, e->error, "");
      }
      return;
   }
   switch (j->kind) {
   case JOB_RECORD: record_ended(s, j->test, e, j); break;
   case JOB_PREDICT: predict_ended(s, j->test, e, j); break;
   case JOB_REPLAY: replay_ended(s, j->test, j->run, e); break;
   }
}

static size_t tests_done(const cbt_suite *s)
{
   size_t k = 0;
   for (size_t i = 0; i < s->ntests; i++)
      k += s->tests[i].state == CBT_T_DONE;
   return k;
}

int cbt_run_suite(cbt_suite *s)
{
   cb_pool *pool = cb_pool_new(s->o->jobs, CBT_GRACE_S);
   if (!pool) {
      fprintf(stderr, "cbtest: cannot start the job pool: %s\n",
              strerror(errno));
      return -1;
   }
   s->started = cb_now();
   /* Tests already settled (a missing program) count as done at once. */
   for (size_t i = 0; i < s->ntests; i++)
      if (s->tests[i].state == CBT_T_DONE)
         cbt_progress_test_done(s, i);
   cbt_progress_update(s);
   while (tests_done(s) < s->ntests && !cb_stop_requested()) {
      job_ref *j;
      while (cb_pool_free_slots(pool) > 0 && (j = next_job(s))) {
         cb_job jb;
         cbt_program_job(&jb, j->heap_argv ? j->heap_argv : j->argv, j->out,
                         j->err, job_limit(s, j->kind), j);
         jb.pin = j->kind == JOB_REPLAY; /* -j N forced runs on N CPUs */
         cb_job_end e;
         if (cb_pool_start(pool, &jb, &e) != 0) {
            job_ended(s, j, &e);
            free_job(j);
         }
      }
      if (cb_pool_running(pool) == 0) {
         if (tests_done(s) < s->ntests && !next_ready(s)) {
            /* Nothing runs and nothing can start (out of memory when a job
             * was made): settle what is left rather than spin. */
            for (size_t i = 0; i < s->ntests; i++)
               if (s->tests[i].state != CBT_T_DONE)
                  test_error(s, i, "cbtest could not start its next job",
                             "out of memory");
         }
         continue;
      }
      cb_job_end e;
      if (cb_pool_wait(pool, 0.5, &e)) {
         job_ref *ended = e.tag;
         job_ended(s, ended, &e);
         free_job(ended);
      }
      cbt_progress_update(s);
   }
   if ((s->interrupted = cb_stop_requested())) {
      /* Every job and its process group ends (SIGTERM, then SIGKILL after
       * the grace); what they were writing is not a result. */
      cb_pool_kill_all(pool);
      for (size_t i = 0; i < s->ntests; i++)
         if (s->tests[i].state != CBT_T_DONE)
            cbt_sweep_partial(s->tests[i].dir);
   }
   s->seconds = cb_now() - s->started;
   cb_pool_free(pool);
   return 0;
}
