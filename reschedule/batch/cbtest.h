/* cbtest.h: what the parts of cbtest share.
 *
 * cbtest runs the whole pipeline over a test suite: for every test command,
 * `cbtrace record`, then `cbpredict`, then `cbreplay --schedule sK` for every
 * predicted schedule, all through one pool of N parallel jobs (the trace
 * library's, trace/pool.h, each job in its own process group with a
 * wall-clock limit); then a human
 * summary on stdout and two reports (JSON, SARIF 2.1.0).  The parts, one job
 * each:
 *   cbtest_options.c   command line -> cbt_options, --help
 *   cbtest_suite.c     the tests file: lines -> words, like a simple shell
 *   cbtest_pipeline.c  the stages of every test, fed to the pool
 *   cbtest_judge.c     a forced run's verdict, from its cbreplay job
 *   cbtest_progress.c  the progress line on stderr
 *   cbtest_summary.c   the human summary, bugs and reproduce commands
 *   cbtest_json.c      one small JSON writer (both reports use it)
 *   cbtest_report.c    report.json
 *   cbtest_sarif.c     report.sarif
 *   cbtest_state.c     a test's results as a file (test.state, runs/sN.result)
 *                      that --merge, --wrap and the emitted jobs share
 *   cbtest_wrap.c      --wrap: one test under the user's test runner
 *   cbtest_merge.c     --emit-jobs, --run-job, --merge
 *   cbtest_bugs.c      totals, bugs, and their ranking (Falcon's score)
 *   cbtest_flow.c      the forced interleaving of a run, from its schedule and
 *                      the recorded trace (SARIF thread flows, report.html)
 *   cbtest_html.c      report.html
 *   cbtest_runs.c      a test's schedule folder as runs to force
 *   cbtest_explore.c   --explore: rounds of delay schedules and of
 *                      prediction from forced runs, when prediction finds
 *                      no bug (cbtest_explore.h)
 *   cbtest_compose.c   a schedule predicted from a forced run's trace, made
 *                      to reach its cut as that run did (--explore,
 *                      cbtest_explore.h)
 *   cbtest_clean.c     the private TMPDIR of the stages; what an
 *                      interrupted test leaves half-written
 *   cbtest_main.c      puts them together, exit status, interruption
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CB_CBTEST_H
#define CB_CBTEST_H

#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "pool.h"

/* Exit status of cbtest. */
enum {
   CBT_EXIT_CLEAN = 0, /* no bug confirmed, every test ran and passed */
   CBT_EXIT_BUG = 1,   /* a forced run failed, deadlocked or hung */
   CBT_EXIT_USAGE = 2, /* bad usage or input, or nothing could run */
   CBT_EXIT_FAILED = 3 /* no bug confirmed, but a test failed natively (no
                          schedule reproduces it) or could not run: a CI
                          job must not read that as a pass */
};

#define CBT_DEFAULT_OUT "cbtest-out"
#define CBT_DEFAULT_TIMEOUT_S 20.0
/* A recorded run that has not ended after this long is stopped and reported
 * as failed natively (a test that hangs on its own). */
#define CBT_DEFAULT_RECORD_TIMEOUT_S 300.0

typedef struct {
   int jobs;                 /* -j N */
   const char *out_dir;      /* -o DIR */
   double timeout_s;         /* --timeout S, passed to cbreplay */
   double record_timeout_s;  /* --record-timeout S */
   int z3;                   /* --z3 asked for */
   const char *instrument;   /* --instrument WHAT for cbtrace record, or
                                NULL: its default */
   int all_bugs;             /* --all-bugs: force every schedule */
   size_t max_runs;          /* --max-runs N per test, 0: no cap */
   const char *tests_file;   /* --tests FILE, or NULL */
   char **prog_argv;         /* -- PROG ARGS..., or NULL; the folders of
                                --merge */
   int prog_argc;
   int wrap;                 /* --wrap: one test under the user's runner */
   int merge;                /* --merge DIR...: reports from saved results */
   const char *emit_jobs;    /* --emit-jobs FILE: record, predict, write the
                                forced runs as command lines */
   const char *run_job_dir;  /* --run-job DIR sN: one emitted forced run */
   const char *run_job_name;
   int out_dir_given;        /* -o or --report-dir was given */
   const char *source_dir;   /* --source-dir: where report.html looks for
                                the source files */
   unsigned delays;          /* delays a schedule of exploration (on by
                                default, --delays N); 0 no exploration */
   int explore_given;        /* --explore or --delays was given */
   int no_explore;           /* --no-explore */
   unsigned long long seed;  /* --seed: of the first exploration round */
} cbt_options;

/* Returns 0 to go on, 1 when --help was printed (exit 0), or CBT_EXIT_USAGE
 * after printing "cbtest: ..." on stderr. */
int cbt_parse_options(int argc, char **argv, cbt_options *o);

/* ---- The suite --------------------------------------------------------------- */

typedef struct {
   char **argv;   /* NULL-terminated words of the command */
   int argc;
   int line;      /* in the tests file, 0 for `-- PROG` */
} cbt_command;

/* Splits one line into words like a simple shell: blanks separate words;
 * '...' is literal; "..." is literal except \" \\ \$ \` ; a backslash outside
 * quotes takes the next character as is; an unquoted # at the start of a
 * word ends the line.  No variables, globs or redirections.  Returns the
 * number of words (0: blank or a comment), or -1 with *why set (an
 * unterminated quote).  Caller frees with cbt_free_words. */
int cbt_split_words(const char *line, char ***words, const char **why);
void cbt_free_words(char **words);

/* Reads the tests file: one test command a line.  Returns 0 and the list
 * (possibly empty), or -1 with a one-line reason in why (no "cbtest:").
 * Only a regular file or a pipe, of at most CBT_SUITE_MAX_BYTES, lines of at
 * most CBT_SUITE_MAX_LINE bytes and CBT_SUITE_MAX_TESTS tests (every test
 * costs some 20 KB of bookkeeping before anything runs). */
#define CBT_SUITE_MAX_BYTES (4 << 20)
#define CBT_SUITE_MAX_LINE 65536
#define CBT_SUITE_MAX_TESTS 10000
int cbt_read_suite(const char *path, cbt_command **cmds, size_t *n,
                   char *why, size_t whylen);

/* snprintf that may cut its output short: for messages and for paths whose
 * length was checked once up front (the output folder).  Returns -1 when
 * the output was cut. */
int cbt_fmt(char *buf, size_t len, const char *fmt, ...)
   __attribute__((format(printf, 3, 4)));


/* ---- Tests and their results --------------------------------------------------- */

/* How a forced run ended.  A deadlock (cbreplay exit 6: every thread waited
 * for another, and the tool ended the run at once) is a failure of the
 * program as much as a failed run, and more certain than a hang (a run
 * that did not end in time). */
enum cbt_verdict {
   CBT_PENDING = 0,
   CBT_PASSED,
   CBT_FAILED,
   CBT_INFEASIBLE,
   CBT_HUNG,
   CBT_DEADLOCK,
   CBT_ERROR,
   CBT_CURED, /* a cure (cbpredict --cures) passed: the order it forced
                 the other way round is why the test failed in every
                 recorded run; a bug found */
   CBT_NVERDICTS
};
/* "passed", "failed", "deadlock", ...: the word of the reports. */
const char *cbt_verdict_name(enum cbt_verdict v);
/* "failed", "deadlocked", "hung": how the forced run of a bug ended, in
 * the sentence "the forced run ...". */
const char *cbt_verdict_words(enum cbt_verdict v);
/* A verdict that confirms a bug: failed, deadlock, hung, cured. */
int cbt_is_bug(enum cbt_verdict v);

/* One event of a pattern, from the schedule file. */
typedef struct {
   char kind[16];      /* "read", "write" */
   uint64_t index;     /* counted index within its thread */
   char file[PATH_MAX];
   unsigned line;
   char function[256];
   unsigned tid;
   char variable[256]; /* what it acts on, "" in older schedules */
   char source[160];   /* the source line's text, "" when not readable */
} cbt_event;

typedef struct {
   char name[32];          /* "s17" */
   char path[PATH_MAX];    /* absolute */
   int readable;           /* the schedule file could be read */
   char pattern[8];
   char variable[256];
   int cure;               /* the schedule is a cure (Schedule.cure) */
   cbt_event e1, f, e2;
   enum cbt_verdict verdict;
   int exit_code;
   int variant;            /* the tail variant cbreplay's verdict is of, -1
                              when the schedule has one tail only */
   double seconds;
   char note[256];         /* why error, or cbreplay's last stderr line */
   char deadlock[1024];    /* CBT_DEADLOCK: what each thread waited for, as
                              cbreplay named the threads, locks and lines,
                              one thread a line (no final newline) */
   char out_path[PATH_MAX], err_path[PATH_MAX]; /* cbreplay's output */
   unsigned again, again_failed; /* a bug forced again (cbreplay --confirm)
                                    this often, and failed this often: the
                                    schedule reproduces it when they agree */
   int has_trace_id;       /* the schedule names the trace it came from */
   uint64_t trace_id;
   char pinned[PATH_MAX];  /* when they did not: the schedule of a failing
                              run's whole order that reproduced it
                              (cbreplay's "pinned:" line), else "" */
   int violation;          /* cbreplay said the violation happened in the
                              run: 1 yes, 0 no (the failure came from
                              elsewhere), -1 not said, CBT_LEFT_PATH not
                              known (the run left the schedule's path) */
   size_t key;             /* its access pattern in cbt_suite.patterns */
} cbt_run;
#define CBT_LEFT_PATH (-2)

/* A confirmed bug: runs of one test with the same pattern, variable and
 * three locations are one bug (T2/T3 and T3/T2 are the same mistake). */
typedef struct {
   size_t test;       /* index into the tests */
   size_t run;        /* its first run that confirmed it */
   int nruns;         /* how many runs confirmed it */
   enum cbt_verdict verdict; /* of the first confirming run */
   int reproduced;    /* cbt_reproduced of that run: 0 when its failure
                         did not come back when forced again */
   int missed;        /* its run failed, but the violation its schedule
                         aimed at did not happen there (cbt_run.violation
                         0): the failure's cause is elsewhere */
   int crash_away;    /* its run crashed (a signal) in a function none of
                         its accesses is in (cbtest_crash.c) */
   int left_path;     /* its run failed after it left the schedule's path:
                         whether the violation led there is not known */
   int rank;          /* 1 = most tied to failures (cbt_rank_bugs) */
   double score;      /* its access pattern's suite-wide Falcon score */
   double test_score; /* the same over its test's forced runs only */
   char reproduce[8192];
   /* The source files of its e1, f and e2 as the debug information names
    * them (the recorded folder joined to the file), "" when not known:
    * report.sarif's URIs (cbt_quote_sources) */
   char src_path[3][PATH_MAX];
} cbt_bug;

/* Where a forced run failed in the program's own terms (cbtest_crash.c):
 * where it crashed (its signal, and the first frame of Valgrind's stack in
 * a source file of its pattern), or else the value its failing thread
 * read otherwise than the recorded run (cbreplay's "misread:" line,
 * reschedule/misread.c). */
/* Schedules forced after a first bug that crashed away from its pattern,
 * and after one that failed once its run had left the schedule's path. */
#define CBT_CRASH_RUNS 2
#define CBT_LEFT_PATH_RUNS 3
typedef struct {
   char signal[16];      /* "SIGSEGV"; "" for a misread */
   char function[128];
   char file[128];       /* base name */
   unsigned line;
   char variable[256];   /* a misread's variable */
   char misread[512];    /* a misread in words: "T2 read r->deadline_ms =
                            0 (recorded run: 250) at q.c:47 in handler()" */
} cbt_crash;
/* r's crash site from its stderr, else its misread from cbreplay's
 * report; 0 when neither. */
int cbt_crash_site(const cbt_run *r, cbt_crash *c);
/* How many lines from the crashing line r's nearest access in the
 * crashing function is, -1 when it has none there; for a misread, 0 when
 * r's variable is the one misread or r has an access at its line, else
 * -1. */
int cbt_crash_distance(const cbt_run *r, const cbt_crash *c);
/* "the program died of SIGSEGV in log_msg() at log.c:20", or the
 * misread's words */
void cbt_crash_words(const cbt_crash *c, char *buf, size_t len);
/* ---- cbtest_lastline.c ---- */
/* The last line of a job's output file that is not empty nor Valgrind's,
 * into buf; 0 when none.  CBT_LL_PROGRAM: the program's, not cbreplay's,
 * and a detail line's unindented head (the line a list below details). */
#define CBT_LL_PROGRAM 1u
int cbt_last_line(const char *path, unsigned flags, char *buf, size_t len);
/* What a failed forced run's program said last: its last line on stderr
 * (CBT_LL_PROGRAM), else, when it exited non-zero, its last line on
 * stdout; into buf, 0 when nothing (or r did not fail). */
int cbt_said(const cbt_run *r, char *buf, size_t len);

/* Whether r's schedule reproduces its bug: 1 when every forced-again run
 * failed too, 0 when one passed, -1 when it was not forced again. */
int cbt_reproduced(const cbt_run *r);
/* A failure that ends the forcing of its test (and --explore): a bug whose
 * schedule reproduced it when forced again, or was not forced again.  One
 * that did not come back is kept and reported, and the next schedules are
 * forced all the same: one of them may reproduce. */
int cbt_stops_forcing(const cbt_run *r);

/* An access pattern (pattern and the three code sites) over the forced runs
 * that forced it, scored after Falcon (ICSE 2010): failed / (totalfailed +
 * passed), infeasible and unfinished runs not counted. */
typedef struct {
   size_t test, run;  /* the first run that forced it */
   size_t failed, passed;
   double score;
   int rank;          /* 1, 2, ... by score */
} cbt_pattern;

enum cbt_test_state {
   CBT_T_WAITING = 0, /* record not started */
   CBT_T_RECORDING,
   CBT_T_RECORDED,    /* ready for cbpredict */
   CBT_T_PREDICTING,
   CBT_T_REPLAYING,   /* runs in flight or waiting */
   CBT_T_DONE
};

enum cbt_outcome {
   CBT_O_NONE = 0,
   CBT_O_ERROR,           /* could not run (missing program, tool failure) */
   CBT_O_FAILED_NATIVELY, /* the recorded run failed: not predicted */
   CBT_O_CLEAN,           /* every forced run passed or was infeasible */
   CBT_O_BUGS             /* a forced run failed, deadlocked or hung */
};
const char *cbt_outcome_name(enum cbt_outcome o);
/* Whether two lines a failing program said are the same words, whatever
 * the numbers in them ("job 66 printed twice", "job 67 printed twice"):
 * the same failure, met by another schedule. */
int cbt_same_said(const char *a, const char *b);

typedef struct {
   cbt_command cmd;       /* argv[0] replaced by its absolute path if found */
   char id[96];           /* "001-rww" */
   char dir[PATH_MAX];    /* DIR/tests/001-rww, absolute */
   char trace[PATH_MAX];
   uint64_t trace_id;     /* trace's id, as its first schedule names it (0
                             unknown): explored schedules come from others */
   char schedules[PATH_MAX];
   enum cbt_test_state state;
   enum cbt_outcome outcome;
   int native_code;       /* exit code of the recorded run, or of the
                             first one that failed when it was recorded
                             again (record_failures) */
   int native_timed_out;
   int record_failures;   /* recorded runs that failed before one passed
                             (cbtest_pipeline.c, CBT_RECORD_TRIES) */
   int failed_each;       /* each of those runs failed: predicted from the
                             last (cbtest_pipeline.c, record_ended) */
   int more_tries;        /* recordings allowed past CBT_RECORD_TRIES
                             (cbtest_pipeline.c, CBT_RECORD_MORE) */
   char error[512];       /* CBT_O_ERROR / FAILED_NATIVELY: in words */
   char cwd[PATH_MAX];    /* where its jobs run (relative arguments) */
   double timeout_s;      /* cbreplay --timeout of its forced runs */
   int jobs_emitted;      /* --emit-jobs: runs forced elsewhere */
   cbt_run *runs;
   size_t nruns;
   size_t next_run;       /* next run to start */
   size_t runs_done;
   size_t not_forced;     /* schedules left unforced: --max-runs, or the
                             test's first bug (without --all-bugs) */
   int looked_again;      /* its first bug decided whether more schedules
                             were forced (cbtest_pipeline.c, runs_to_keep) */
   double started, seconds;
   struct cbt_explore *explore; /* --explore: the test's exploration, once
                                   started (cbtest_explore.c) */
} cbt_test;

/* Moves up to max of t's runs from `from` on with an access in the
 * function a crash happened in (cbtest_crash.c) to from, from + 1, ...
 * (nearest the crashing line first); returns how many. */
size_t cbt_crash_runs_first(cbt_test *t, size_t from, const cbt_crash *c,
                            size_t max);

/* A test that failed in a recorded run and passed when recorded again
 * (then predicted from the run that passed): its outcome is still "failed
 * natively" unless a forced run failed. */
static inline int cbt_failed_then_passed(const cbt_test *t)
{
   return t->native_code != 0 && !t->native_timed_out && !t->failed_each &&
          (t->record_failures > 0 || t->nruns > 0);
}

/* The words for a test whose recorded run did not pass: "failed natively",
 * or, when it was stopped at --record-timeout, "did not end when
 * recorded" (a program the tool made too slow is not one that failed). */
static inline const char *cbt_native_words(const cbt_test *t)
{
   return t->native_timed_out ? "did not end when recorded" : "failed natively";
}

/* Counts over all tests, for the summary, the reports and the progress. */
typedef struct {
   size_t tests, done, errors, failed_natively, clean, with_bugs;
   size_t runs, runs_done, passed, failed, infeasible, hung, deadlocks,
      run_errors, cured;
   size_t bugs;
   size_t not_reproduced; /* of the bugs: no forced run came back every time */
} cbt_totals;

typedef struct {
   const cbt_options *o;
   char bindir[PATH_MAX];
   char cbtrace[PATH_MAX], cbpredict[PATH_MAX], cbreplay[PATH_MAX];
   char out_dir[PATH_MAX];  /* absolute */
   cbt_test *tests;
   size_t ntests;
   cbt_bug *bugs;         /* in order of rank */
   size_t nbugs;
   cbt_pattern *patterns; /* in order of rank */
   size_t npatterns;
   double started, seconds;
   int interrupted;       /* the stop signal that ended the run, 0 none */
} cbt_suite;

/* A job of the pool that runs the program argv (argv[0] an absolute path)
 * as cbtest runs every stage: stdin /dev/null (parallel jobs must not share
 * the terminal's input), stdout and stderr into files of the test's work
 * folder, a process group of its own (stopping it reaches Valgrind and the
 * program under it; cbtrace and cbreplay pass SIGTERM on to what they
 * started), stopped after limit_s. */
void cbt_program_job(cb_job *job, char *const *argv, const char *out_path,
                     const char *err_path, double limit_s, void *tag);
/* After SIGTERM, a job gets this long to clean up before SIGKILL. */
#define CBT_GRACE_S 3.0

/* Interrupted (SIGINT, SIGTERM, SIGHUP: the pool's stop signals, pool.h):
 * the loop stops every job, each with its process group, half-written
 * files of unfinished tests are removed (cbt_sweep_partial), the summary
 * and reports say what had finished, the private TMPDIR goes, and cbtest
 * dies of the signal (cbt_die_interrupted). */
void cbt_die_interrupted(const cbt_suite *s) __attribute__((noreturn));

/* ---- Cleaning up (cbtest_clean.c) ---- */
/* A private temporary folder, $TMPDIR/cbtest-run.XXXXXX, made the TMPDIR of
 * every stage and removed at exit (atexit, and cbt_private_tmp_remove
 * before dying of a signal); -1 with why. */
int cbt_private_tmp(char *why, size_t whylen);
void cbt_private_tmp_remove(void);
/* Removes path and everything under it (symbolic links not followed). */
void cbt_remove_tree(const char *path);
/* Removes, under dir, the files a stage stopped before its rename left
 * under a temporary name (cb_is_temp_name). */
void cbt_sweep_partial(const char *dir);

/* Runs every test of the suite through a pool of o->jobs slots, calling the
 * progress functions as things end.  Fills results, bugs and timings. */
int cbt_run_suite(cbt_suite *s);
void cbt_totals_of(const cbt_suite *s, cbt_totals *t);
/* Frees the tests (their words too), runs and bugs. */
void cbt_free_suite(cbt_suite *s);
/* Fills s->bugs from the finished runs, scores every access pattern and
 * orders both by rank (cbtest_bugs.c). */
void cbt_collect_bugs(cbt_suite *s);
/* Line `line` of a source file (cb_source_line), looked for in the folder
 * the trace recorded (dir, may be NULL), as named, in --source-dir, the
 * folder the test ran in, the program's folder and the one above it; ""
 * when not found, or newer than object (may be NULL). */
void cbt_source_line(const cbt_suite *s, const cbt_test *t, const char *dir,
                     const char *object, const char *file, unsigned line,
                     char *buf, size_t len);
/* Fills r's e1, f and e2 source lines from its schedule file, and b's
 * source paths. */
void cbt_quote_sources(const cbt_suite *s, const cbt_test *t, cbt_run *r,
                       cbt_bug *b);
/* A failing forced run is forced this many more times (cbreplay --confirm)
 * before its schedule is called reproduced.  After the last forced step
 * the threads run free and may decide the failure: in blind trial 13, 6 of
 * 63 schedules confirmed by one more run failed in only 10-65 % of later
 * runs (cond_if 7 of 20, async_result 1 of 10), and their "reproduce"
 * commands did not.  Three more runs let such a schedule through at a
 * rate p only with p^3, and make cbreplay try its next tail variant.
 * Even so 6 of 10 such commands failed only 2-9 runs of 10 later, where
 * each failure pinned (its failing run's whole order forced, pin.c)
 * failed 10 of 10: cbreplay --pin pins every confirmed failure. */
#define CBT_CONFIRM 3
/* The cbreplay command line that forces t's run ri, the one for cbtest's
 * own forced runs and for --run-job's: at most CBT_REPLAY_WORDS words, then
 * the test's command.  num (32 bytes) and rec hold words it points to.
 * Returns the words written (no NULL after them). */
#define CBT_REPLAY_WORDS 13
size_t cbt_replay_argv(const cbt_suite *s, const cbt_test *t, size_t ri, double timeout_s,
                       char **argv, char num[32], char *rec, size_t reclen);
/* The verdict of a forced run from how its cbreplay job ended
 * (cbtest_judge.c). */
void cbt_judge_replay(cbt_run *r, const cb_job_end *e);
/* Sets up a test in s->tests[i] (folder DIR/tests/ID, or `dir` when not
 * NULL), its program made absolute; -1 only when its folder cannot be
 * made. */
int cbt_setup_test(cbt_suite *s, size_t i, cbt_command cmd, const char *dir);
/* cbtest_runs.c: the N of every sN.pb in dir, in order (*nums: caller
 * frees; NULL when none); -1 with why when dir cannot be read. */
int cbt_list_schedules(const char *dir, int **nums, size_t *n, char *why,
                       size_t whylen);
/* Fills t->runs from the test's schedule folder; -1 with why. */
int cbt_load_runs(cbt_test *t, size_t max_runs, char *why, size_t whylen);
/* Run ri's forced run was infeasible: after two such runs with e1 in one
 * function, the waiting runs with e1 there are forced after the others. */
void cbt_runs_after_infeasible(cbt_test *t, size_t ri);
/* Fills r as a run waiting to force the test's schedule NAME ("s17"). */
void cbt_fill_run(const cbt_test *t, cbt_run *r, const char *name);
int cbt_mkdir_p(const char *path);
/* Writes the reports into s->out_dir and prints where; 0, or -1 when one
 * could not be written. */
int cbt_write_reports(const cbt_suite *s, FILE *say);
/* Exit status of a finished suite (CBT_EXIT_*; 128+N when signal N
 * interrupted it, as the shell would see cbt_die_interrupted). */
int cbt_exit_status(const cbt_suite *s, int reports_ok);
/* Where the stages live (next to cbtest); -1 after saying why. */
int cbt_find_siblings(cbt_suite *s);

/* ---- Saved results (cbtest_state.c) -------------------------------------------
 * DIR/test.state: the test and every run; DIR/runs/sN.result: one forced run
 * (an emitted job).  Text, one record a line, tab-separated fields with
 * \\, \t, \n escaped.  Written to a unique temporary name and renamed, so
 * readers and other writers never see half a file. */
int cbt_save_test(const cbt_test *t, char *why, size_t whylen);
int cbt_save_run(const cbt_test *t, const cbt_run *r, char *why, size_t whylen);
/* Reads DIR/test.state into *t (and overlays DIR/runs/ *.result); -1 with
 * why.  t->dir is DIR; paths inside are rebuilt from it. */
int cbt_load_test(const char *dir, cbt_test *t, char *why, size_t whylen);
/* Writes a file through a unique temporary name in the same folder and
 * rename(2); fn writes the content.  -1 with why. */
int cbt_write_atomic(const char *path, void (*fn)(FILE *, const void *),
                     const void *arg, char *why, size_t whylen);

/* ---- Modes (cbtest_wrap.c, cbtest_merge.c) ------------------------------------------------------ */
int cbt_main_wrap(const cbt_options *o);
int cbt_main_merge(const cbt_options *o);
int cbt_main_run_job(const cbt_options *o);
/* --emit-jobs: writes the job lines of a finished (recorded and predicted)
 * suite; -1 after saying why. */
int cbt_emit_jobs(const cbt_suite *s, const char *path);

/* ---- The forced interleaving (cbtest_flow.c) ------------------------------------ */
typedef struct {
   unsigned tid;
   char what[320];     /* "read balance", "lock m", "unlock m" */
   char file[PATH_MAX];
   unsigned line;
   char function[128];
   const char *role;   /* "e1", "f", "e2" or NULL */
   char dir[PATH_MAX];    /* the file's folder, "" when not known */
   char object[PATH_MAX]; /* the program or library it ran in, or "" */
} cbt_flow_event;

typedef struct {
   cbt_flow_event *ev; /* in the forced order */
   size_t n;
   unsigned threads[16]; /* the threads in the flow, in order of first use */
   int nthreads;
   int from_trace;     /* 0: only e1, f, e2 (no trace or schedule) */
} cbt_flow;

/* The forced order of run r of t from e1 to e2: its schedule's prefix and
 * (failing) tail variant laid over the recorded trace, keeping the
 * accesses to the variable and the synchronisation calls of the threads
 * involved.  Falls back to e1, f, e2 alone.  Free with cbt_flow_free. */
void cbt_flow_of(const cbt_test *t, const cbt_run *r, cbt_flow *fl);
void cbt_flow_free(cbt_flow *fl);

int cbt_write_html_report(const cbt_suite *s, const char *path, char *why,
                          size_t whylen);
/* "file:line", "file" or "?" into buf. */
const char *cbt_event_where(const cbt_event *e, char *buf, size_t len);

/* ---- Output ------------------------------------------------------------------- */

/* The progress line: in place on a terminal, one line per finished test
 * otherwise.  cbt_progress_end clears a line left in place. */
void cbt_progress_init(void);
void cbt_progress_quiet(void); /* nothing at all (--wrap) */
void cbt_progress_update(const cbt_suite *s);
void cbt_progress_test_done(const cbt_suite *s, size_t test);
void cbt_progress_end(void);

void cbt_print_summary(FILE *out, const cbt_suite *s);
/* Write DIR/report.json (cbtest_report.c) and DIR/report.sarif
 * (cbtest_sarif.c); -1 with why on failure. */
int cbt_write_json_report(const cbt_suite *s, const char *path, char *why,
                          size_t whylen);
int cbt_write_sarif_report(const cbt_suite *s, const char *path, char *why,
                           size_t whylen);

/* ---- A small JSON writer (cbtest_json.c) ----------------------------------------
 * Nesting is tracked, commas and indentation come by themselves.  `key` is
 * the member name inside an object and must be NULL inside an array.
 * Strings are escaped as RFC 8259 wants; bytes that are not valid UTF-8
 * become U+FFFD, so the document always parses. */
#define CBT_JSON_MAX_DEPTH 32
typedef struct {
   FILE *out;
   int depth;
   int count[CBT_JSON_MAX_DEPTH]; /* members written at each level */
   char closer[CBT_JSON_MAX_DEPTH]; /* '}' or ']' for each open level */
   int overflow;                  /* nested too deep: a bug, seen in tests */
} cbt_json;

void cbt_json_init(cbt_json *j, FILE *out);
void cbt_json_object(cbt_json *j, const char *key);  /* { */
void cbt_json_array(cbt_json *j, const char *key);   /* [ */
void cbt_json_end(cbt_json *j);                      /* } or ], by nesting */
void cbt_json_string(cbt_json *j, const char *key, const char *s); /* NULL: null */
void cbt_json_int(cbt_json *j, const char *key, long long v);
void cbt_json_uint(cbt_json *j, const char *key, unsigned long long v);
void cbt_json_double(cbt_json *j, const char *key, double v);
void cbt_json_bool(cbt_json *j, const char *key, int v);
/* Ends the document with a newline; 0, or -1 when nesting was unbalanced. */
int cbt_json_finish(cbt_json *j);
/* Writes the document fn makes of s to path, through a temporary name; -1
 * with why on failure (unbalanced JSON included). */
typedef void (*cbt_json_writer_fn)(cbt_json *j, const cbt_suite *s);
int cbt_json_write_file(const char *path, cbt_json_writer_fn fn,
                        const cbt_suite *s, char *why, size_t whylen);
/* A run's facts both reports give alike (cbtest_report.c): "deadlock", what
 * each thread waited for; "reproduced" and how often it was forced again. */
void cbt_json_deadlock(cbt_json *j, const cbt_run *r);
void cbt_json_reproduced(cbt_json *j, const cbt_run *r);

/* One-line descriptions of the five patterns, for the summary and SARIF. */
const char *cbt_pattern_description(const char *pattern);
const char *cbt_pattern_short(const char *pattern);

/* Exploration and the composition of explored schedules: cbtest_explore.h. */

#endif /* CB_CBTEST_H */
