/* cbtest_options.c: cbtest's command line and --help.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cbtest.h"
#include "cbtest_explore.h"
#include "launch.h"

static const char usage_text[] =
"usage: cbtest [-j N] [-o DIR] [--timeout S] [--z3] --tests FILE\n"
"       cbtest [-j N] [-o DIR] [--timeout S] [--z3] -- PROG [ARGS...]\n"
"       cbtest --wrap [--report-dir DIR] [options] -- PROG [ARGS...]\n"
"       cbtest --emit-jobs FILE [-o DIR] [options] (--tests FILE | -- PROG...)\n"
"       cbtest --run-job TESTDIR sN\n"
"       cbtest --merge [-o OUT] DIR...\n"
"\n"
"Runs the whole cbtools pipeline over a test suite.  For every test:\n"
"  cbtrace record    one watched run; one that fails is recorded again,\n"
"                    up to 5 runs: one that passes later is predicted\n"
"                    from that run (and still reported as failed natively\n"
"                    unless a forced run fails); a test that fails in each\n"
"                    is predicted from the last, only the violations that\n"
"                    happened in it forced (cbpredict --recorded-failed),\n"
"                    and reported as failed natively unless one fails;\n"
"                    when none happened, up to 3 more runs, for one that\n"
"                    passes, and when all 8 fail, its orders of two\n"
"                    threads forced the other way round (cbpredict\n"
"                    --cures): one that lets it pass is its bug (cured);\n"
"                    one that deadlocks in each, at once its waits that\n"
"                    began after the signal meant for them, forced first\n"
"                    (a lost wake-up, cured the same way), or its lock\n"
"                    cycle forced again (a DLK that deadlocks every time);\n"
"  cbpredict         the schedules that would break a block's atomicity;\n"
"  cbreplay          every schedule forced, and the test's own exit status\n"
"                    judges the run.\n"
"The independent runs of all tests share one pool of N parallel jobs.\n"
"\n"
"The suite:\n"
"  --tests FILE        one test command a line; blank lines and lines that\n"
"                      start with # are skipped; a line is split into words\n"
"                      like a simple shell (blanks, '...', \"...\", \\);\n"
"                      a regular file or a pipe of at most 4 MiB, lines\n"
"                      of at most 64 KiB, at most 10000 tests\n"
"  -- PROG [ARGS...]   a single test\n"
"\n"
"Options:\n"
"  -j, --jobs N        jobs at once (default: one per core)\n"
"  -o, --output DIR    work folders and reports (default ./cbtest-out):\n"
"                      DIR/tests/NNN-NAME/ (trace.pb, schedules/, the\n"
"                      output of every stage), DIR/report.json,\n"
"                      DIR/report.sarif (SARIF 2.1.0)\n"
"  --timeout S         a forced run that has not ended S seconds after its\n"
"                      threads were released is hung (cbreplay --timeout;\n"
"                      default 20)\n"
"  --record-timeout S  stop a recorded run after S seconds and report the\n"
"                      test as failed natively (default 300)\n"
"  --z3                have cbpredict prove each schedule possible first\n"
"                      (cbpredict --z3)\n"
"  --instrument WHAT   which code cbtrace record watches: default (all\n"
"                      but the C runtime), main (the executable only) or\n"
"                      all (the C library too: a race inside snprintf or\n"
"                      memcpy on shared memory; much more to predict)\n"
"  --all-bugs          force every schedule of a test; by default a test's\n"
"                      schedules stop being forced at its first confirmed\n"
"                      bug (cbpredict numbers the likeliest first); a\n"
"                      failure that does not come back when forced again\n"
"                      is reported, and forcing goes on.  Without it, a\n"
"                      confirmed failure is pinned (cbreplay --pin: its\n"
"                      failing run's whole order is its reproducer when\n"
"                      that fails every time); with it, only a failure\n"
"                      that does not come back every time is\n"
"  --max-runs N        force at most N schedules per test (default: all\n"
"                      predicted ones, and 40 explored); with exploration\n"
"                      on, the predicted ones get at most N - N/4 of them;\n"
"                      the summary counts the ones left unforced\n"
"  --explore           when a test's predicted schedules confirm no bug, go\n"
"                      on exploring (the default; --no-explore turns it\n"
"                      off; --emit-jobs and --merge do without), in\n"
"                      rounds: delay schedules on its\n"
"                      trace (cbpredict --delays: a thread held back before\n"
"                      a conflicting access or a synchronisation call while\n"
"                      the others run, up to N such delays), then prediction\n"
"                      and delays again from the trace of each forced run\n"
"                      that passed (every explored run is recorded too,\n"
"                      cbreplay --record), never forcing one ordering twice;\n"
"                      a round takes at most half the runs still allowed;\n"
"                      until a bug is confirmed (unless --all-bugs), no new\n"
"                      trace is left, or the test's forced runs reach\n"
"                      --max-runs (default: the predicted ones and 40 more)\n"
"  --delays N          explore with up to N delays a schedule (1 to 7;\n"
"                      default 2)\n"
"  --no-explore        force the predicted schedules only: a test whose\n"
"                      schedules all pass ends there (faster on a suite of\n"
"                      correct tests; bugs on paths the recorded run never\n"
"                      took are not looked for)\n"
"  --seed S            the draws of the first exploration round (default 1;\n"
"                      round R uses S+R-1): the same seed, the same runs\n"
"  --source-dir DIR    where report.html finds the source files it quotes\n"
"                      (else: as named, the folder the test ran in, the\n"
"                      program's folder and the one above it)\n"
"  -h, --help          this text\n"
"\n"
"Under a test runner (README: meson, automake, ctest, prove):\n"
"  --wrap              run one test, `-- PROG ARGS`, as the runner would,\n"
"                      through the whole pipeline: its stdout and stderr are\n"
"                      the recorded run's; exit 1 when a bug is confirmed,\n"
"                      else the test's own exit status (a signal is raised\n"
"                      again).  When cbtools itself cannot run the test,\n"
"                      it runs it plainly and says so on stderr.  The\n"
"                      results go to DIR/tests/NAME/, NAME made from the\n"
"                      command and unique among tests running at once;\n"
"                      a test that passes is explored too (tens of seconds\n"
"                      more): --wrap --no-explore for a quick runner\n"
"  --report-dir DIR    the report folder of --wrap (-o; default: the\n"
"                      environment variable CBTEST_REPORT_DIR, else\n"
"                      ./cbtest-out)\n"
"  --merge DIR...      one report (summary, report.json, report.sarif,\n"
"                      report.html) from the saved results of cbtest runs:\n"
"                      output folders, --wrap report folders, or folders of\n"
"                      emitted jobs; written to -o OUT (default: the first\n"
"                      DIR)\n"
"\n"
"Beyond one machine:\n"
"  --emit-jobs FILE    record and predict here, then write every forced run\n"
"                      as one independent command line to FILE instead of\n"
"                      running it (all schedules, as with --all-bugs; up to\n"
"                      --max-runs).  Any machine that sees the program and\n"
"                      DIR at the same paths may run a line; each writes\n"
"                      its own result file.  Then `cbtest --merge DIR`\n"
"  --run-job TESTDIR sN  what an emitted line runs: force schedule sN of\n"
"                      that test and save its result (exit 0 once saved,\n"
"                      whatever the verdict; 2 when it could not run)\n"
"\n"
"Output: a progress line on stderr (kept in place on a terminal), then a\n"
"summary on stdout: per test the schedules predicted and how their forced\n"
"runs ended (passed, failed, deadlocked, infeasible, hung), and for each\n"
"confirmed bug its pattern, variable, the three file:line locations, for a\n"
"deadlock what each thread waited for and who held it, and the command\n"
"that reproduces it.  A deadlocked run (every thread waited for another,\n"
"and the tool ended the run at once: cbreplay exit 6) is a failure of the\n"
"program, counted, reported and ranked as one.\n"
"\n"
"Exit status:\n"
"  0  no bug confirmed, and every test ran and passed\n"
"  1  a bug was confirmed: a forced run failed, deadlocked or hung\n"
"  2  bad usage or input: unknown option, missing or empty tests file;\n"
"     or no test could run at all.  A test whose program is missing is\n"
"     reported as an error and the others go on.\n"
"  3  no bug confirmed, but a test failed natively (each of its recorded\n"
"     runs failed, or no forced run reproduced its failure) or could not\n"
"     run (an error): the suite did not pass\n"
"  With --wrap: 1 when a bug is confirmed, else the test's own status.\n"
"  130, 143, 129  interrupted by SIGINT, SIGTERM, SIGHUP: every job is\n"
"     stopped with its process group, the summary and reports say what\n"
"     had finished, the half-written files of the stopped stages are\n"
"     removed, and cbtest dies of the signal.\n"
"\n"
"Every stage runs with TMPDIR set to a private folder, $TMPDIR/cbtest-run.*,\n"
"which cbtest removes when it ends, with whatever was left in it.\n";

static int usage_error(const char *fmt, ...)
   __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   fputs("cbtest: ", stderr);
   vfprintf(stderr, fmt, ap);
   va_end(ap);
   fputs("\n(cbtest --help for usage)\n", stderr);
   return CBT_EXIT_USAGE;
}

static int parse_seconds(const char *s, double *out)
{
   char *end;
   errno = 0;
   double v = strtod(s, &end);
   if (end == s || *end || errno || !isfinite(v) || v <= 0 || v > 86400)
      return -1;
   *out = v;
   return 0;
}

static int default_jobs(void)
{
   long n = sysconf(_SC_NPROCESSORS_ONLN);
   return n > 0 ? (int)(n > 256 ? 256 : n) : 1;
}

enum { OPT_TIMEOUT = 256, OPT_RECORD_TIMEOUT, OPT_Z3, OPT_TESTS, OPT_ALL_BUGS,
       OPT_MAX_RUNS, OPT_WRAP, OPT_REPORT_DIR, OPT_MERGE, OPT_EMIT_JOBS,
       OPT_RUN_JOB, OPT_SOURCE_DIR, OPT_EXPLORE, OPT_NO_EXPLORE, OPT_DELAYS,
       OPT_SEED,
       OPT_INSTRUMENT };

static int check_modes(cbt_options *o);

static const struct option longopts[] = {
   {"jobs", required_argument, 0, 'j'},
   {"output", required_argument, 0, 'o'},
   {"timeout", required_argument, 0, OPT_TIMEOUT},
   {"record-timeout", required_argument, 0, OPT_RECORD_TIMEOUT},
   {"z3", no_argument, 0, OPT_Z3},
   {"instrument", required_argument, 0, OPT_INSTRUMENT},
   {"tests", required_argument, 0, OPT_TESTS},
   {"all-bugs", no_argument, 0, OPT_ALL_BUGS},
   {"max-runs", required_argument, 0, OPT_MAX_RUNS},
   {"wrap", no_argument, 0, OPT_WRAP},
   {"report-dir", required_argument, 0, OPT_REPORT_DIR},
   {"merge", no_argument, 0, OPT_MERGE},
   {"emit-jobs", required_argument, 0, OPT_EMIT_JOBS},
   {"run-job", required_argument, 0, OPT_RUN_JOB},
   {"source-dir", required_argument, 0, OPT_SOURCE_DIR},
   {"explore", no_argument, 0, OPT_EXPLORE},
   {"no-explore", no_argument, 0, OPT_NO_EXPLORE},
   {"delays", required_argument, 0, OPT_DELAYS},
   {"seed", required_argument, 0, OPT_SEED},
   {"help", no_argument, 0, 'h'},
   {0, 0, 0, 0}};

/* --explore, --delays N, --seed S (cbtest_explore.c). */
static int explore_option(int c, cbt_options *o)
{
   char *end;
   errno = 0;
   unsigned long long n = c == OPT_EXPLORE || c == OPT_NO_EXPLORE
                             ? 0 : strtoull(optarg, &end, 10);
   switch (c) {
   case OPT_NO_EXPLORE:
      o->no_explore = 1;
      break;
   case OPT_EXPLORE:
      o->explore_given = 1;
      if (!o->delays)
         o->delays = CBT_DEFAULT_DELAYS;
      break;
   case OPT_DELAYS:
      if (end == optarg || *end || errno || optarg[0] == '-' || n < 1 || n > 7)
         return usage_error("--delays wants a number of delays from 1 to 7, "
                            "not '%s'", optarg);
      o->delays = (unsigned)n;
      o->explore_given = 1;
      break;
   case OPT_SEED:
      if (end == optarg || *end || errno || optarg[0] == '-')
         return usage_error("--seed wants a number, not '%s'", optarg);
      o->seed = n;
      break;
   }
   return 0;
}

/* The options of --wrap, --merge and the jobs (cbtest_wrap.c,
 * cbtest_merge.c). */
static int mode_option(int c, cbt_options *o)
{
   switch (c) {
   case OPT_WRAP: o->wrap = 1; break;
   case OPT_MERGE: o->merge = 1; break;
   case OPT_SOURCE_DIR: o->source_dir = optarg; break;
   case OPT_RUN_JOB: o->run_job_dir = optarg; break;
   case OPT_EMIT_JOBS:
      if (!*optarg)
         return usage_error("--emit-jobs wants a file");
      o->emit_jobs = optarg;
      break;
   }
   return 0;
}

/* -j N and --max-runs N. */
static int count_option(int c, cbt_options *o)
{
   char *end;
   errno = 0;
   long long n = strtoll(optarg, &end, 10);
   int bad = end == optarg || *end || errno || n < 1;
   if (c == 'j') {
      if (bad || n > 1024)
         return usage_error("-j wants a number of jobs from 1 to 1024, "
                            "not '%s'", optarg);
      o->jobs = (int)n;
   } else {
      if (bad || n > 100000000)
         return usage_error("--max-runs wants a number of forced runs "
                            "(1 or more), not '%s'", optarg);
      o->max_runs = (size_t)n;
   }
   return 0;
}

int cbt_parse_options(int argc, char **argv, cbt_options *o)
{
   memset(o, 0, sizeof *o);
   o->jobs = default_jobs();
   o->out_dir = CBT_DEFAULT_OUT;
   o->timeout_s = CBT_DEFAULT_TIMEOUT_S;
   o->record_timeout_s = CBT_DEFAULT_RECORD_TIMEOUT_S;
   o->seed = 1;

   opterr = 0;
   optind = 1;
   int c;
   /* '+': stop at the first word that is not an option, which is the
    * program; "--" ends the options the same way. */
   while ((c = getopt_long(argc, argv, "+:j:o:h", longopts, NULL)) != -1) {
      switch (c) {
      case 'j': case OPT_MAX_RUNS:
         if (count_option(c, o) != 0)
            return CBT_EXIT_USAGE;
         break;
      case 'o':
      case OPT_REPORT_DIR:
         if (!*optarg)
            return usage_error("%s wants a folder",
                               c == 'o' ? "-o" : "--report-dir");
         o->out_dir = optarg;
         o->out_dir_given = 1;
         break;
      case OPT_WRAP: case OPT_MERGE: case OPT_EMIT_JOBS: case OPT_SOURCE_DIR:
      case OPT_RUN_JOB:
         if (mode_option(c, o) != 0)
            return CBT_EXIT_USAGE;
         break;
      case OPT_EXPLORE: case OPT_NO_EXPLORE: case OPT_DELAYS: case OPT_SEED:
         if (explore_option(c, o) != 0)
            return CBT_EXIT_USAGE;
         break;
      case OPT_TIMEOUT:
         if (parse_seconds(optarg, &o->timeout_s) != 0)
            return usage_error("--timeout wants seconds (> 0), not '%s'",
                               optarg);
         break;
      case OPT_RECORD_TIMEOUT:
         if (parse_seconds(optarg, &o->record_timeout_s) != 0)
            return usage_error("--record-timeout wants seconds (> 0), "
                               "not '%s'", optarg);
         break;
      case OPT_Z3:
         o->z3 = 1;
         break;
      case OPT_INSTRUMENT:
         if (!cb_instrument_words(optarg))
            return usage_error("--instrument wants default, main or all, "
                               "not '%s'", optarg);
         o->instrument = optarg;
         break;
      case OPT_TESTS:
         o->tests_file = optarg;
         break;
      case OPT_ALL_BUGS:
         o->all_bugs = 1;
         break;
      case 'h':
         fputs(usage_text, stdout);
         return 1;
      case ':':
         return usage_error("%s wants an argument", argv[optind - 1]);
      default:
         if (optopt)
            return usage_error("unknown option '-%c'", optopt);
         return usage_error("unknown option '%s'", argv[optind - 1]);
      }
   }
   if (optind < argc) {
      o->prog_argv = argv + optind;
      o->prog_argc = argc - optind;
   }
   return check_modes(o);
}

/* The modes exclude one another; each wants its own operands. */
static int check_modes(cbt_options *o)
{
   if (o->wrap + o->merge + !!o->emit_jobs + !!o->run_job_dir > 1)
      return usage_error("--wrap, --merge, --emit-jobs and --run-job go "
                         "alone");
   if (o->run_job_dir) {
      if (o->prog_argc != 1 || o->tests_file)
         return usage_error("--run-job wants a test folder and a schedule "
                            "name: --run-job TESTDIR sN");
      o->run_job_name = o->prog_argv[0];
      return 0;
   }
   if (o->no_explore && o->explore_given)
      return usage_error("--no-explore cannot go with --explore or --delays");
   if (o->explore_given && (o->emit_jobs || o->merge))
      return usage_error("--explore decides each round from the forced runs "
                         "before it: it cannot go with %s",
                         o->merge ? "--merge" : "--emit-jobs");
   /* Exploring is the default where it can be: prediction only reorders
    * what the recorded run did, and a bug on a path it never took (a
    * failed trylock, a branch the other order would take) is out of its
    * reach. */
   if (!o->no_explore && !o->delays && !o->emit_jobs && !o->merge)
      o->delays = CBT_DEFAULT_DELAYS;
   if (o->merge) {
      if (!o->prog_argv || o->tests_file)
         return usage_error("--merge wants the folders to merge: --merge "
                            "DIR...");
      /* The first folder ends the options (as PROG does): an option after
       * it would be taken for a folder and fail as one. */
      for (int i = 0; i < o->prog_argc; i++)
         if (o->prog_argv[i][0] == '-')
            return usage_error("--merge: %s comes after a folder; options go "
                               "first: cbtest --merge [-o OUT] DIR...",
                               o->prog_argv[i]);
      return 0;
   }
   if (o->wrap) {
      if (!o->prog_argv || o->tests_file)
         return usage_error("--wrap runs one test: --wrap -- PROG [ARGS...]");
      const char *env = getenv("CBTEST_REPORT_DIR");
      if (!o->out_dir_given && env && *env)
         o->out_dir = env;
      return 0;
   }
   if (o->tests_file && o->prog_argv)
      return usage_error("give either --tests FILE or -- PROG, not both");
   if (!o->tests_file && !o->prog_argv)
      return usage_error("nothing to test: give --tests FILE or -- PROG "
                         "[ARGS...]");
   return 0;
}

size_t cbt_predicted_cap(const cbt_options *o)
{
   if (!o->max_runs || !o->delays || o->max_runs < CBT_EXPLORE_SHARE)
      return o->max_runs;
   return o->max_runs - o->max_runs / CBT_EXPLORE_SHARE;
}
