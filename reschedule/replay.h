/* replay.h: what the parts of cbreplay share.
 *
 * cbreplay forces one schedule (or every schedule of a folder) on a program
 * run under the cbtools Valgrind tool in replay mode, and judges each run.
 * The parts, one job each:
 *   options.c        command line -> cbr_options
 *   find_schedule.c  "s17" / "17" / a path -> a schedule file; a folder's list
 *   validate.c       refuses schedules of another program, trace or counting
 *   plan.c           schedule -> the binary plan file of cb_wire.h
 *   status.c         the tool's status lines -> facts about a run
 *   keeper.c         the process that starts Valgrind; killing a run
 *   run_one.c        one forced run: spawn, watch, time out
 *   judge.c          the verdict of one forced run, and how far it got
 *   diverged.c       an expected event that did not come, in words
 *   variants.c       a schedule's tail variants, forced one after another
 *   check_cmd.c      the --check CMD that judges the program's output
 *   run_all.c        many schedules in parallel
 *   progress.c       what --all says while it runs
 *   report.c         result table, bug reports
 *   report_json.c    --json
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CB_REPLAY_H
#define CB_REPLAY_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "cbtrace.h"

/* Exit codes of one forced run (DESIGN.md, command-line contract). */
enum {
   CBR_EXIT_PASSED = 0,
   CBR_EXIT_FAILED = 1,
   CBR_EXIT_USAGE = 2,
   CBR_EXIT_INFEASIBLE = 3,
   CBR_EXIT_HUNG = 4,
   CBR_EXIT_ERROR = 5, /* the tool or Valgrind failed, or a run could not start */
   CBR_EXIT_DEADLOCK = 6
};

#define CBR_DEFAULT_TIMEOUT_S 20.0
#define CBR_DEFAULT_STALL_MS 3000u
/* Where `cbtrace record` + `cbpredict` put schedules by default. */
#define CBR_DEFAULT_SCHEDULES "trace.pb.schedules"

typedef struct {
   const char *schedule;   /* --schedule ID|PATH, NULL with --all */
   const char *schedules;  /* --schedules DIR, NULL: see find_schedule.c */
   const char *trace;      /* --trace T */
   const char *check;      /* --check CMD */
   const char *events_out; /* --events-out FILE */
   const char *record;     /* --record FILE: the run's trace */
   int all;                /* --all */
   int variant;            /* --variant N, -1: try them in turn */
   int confirm;            /* --confirm N: forced again after a bug */
   int pin;                /* --pin: pin every confirmed failure (pin.c) */
   int jobs;               /* -j N */
   int json;               /* --json */
   double timeout_s;       /* --timeout S */
   unsigned stall_ms;      /* --stall-ms MS */
   int verbose;            /* --verbose: echo the tool's status lines */
   const char *stdin_path; /* --stdin FILE, "/dev/null" by default; "-":
                              cbreplay's own (one schedule only) */
   const char *instrument; /* --cb-instrument of the runs: how the trace
                              was recorded (set from the schedules) */
   char **prog_argv;       /* PROG ARGS..., NULL-terminated */
   int prog_argc;
} cbr_options;

/* Parses argv.  Returns 0 to go on, 1 when --help was printed (exit 0), or
 * CBR_EXIT_USAGE after printing "cbreplay: ..." to stderr. */
int cbr_parse_options(int argc, char **argv, cbr_options *o);

/* ---- Finding schedules --------------------------------------------------- */

/* The folder to look ids up in: --schedules DIR, else TRACE.schedules when
 * --trace was given, else ./trace.pb.schedules. */
const char *cbr_schedules_dir(const cbr_options *o, char *buf, size_t len);
/* Resolves --schedule ARG into an absolute path of an existing file. */
int cbr_find_schedule(const cbr_options *o, const char *arg, char *path,
                      size_t len, cb_error *err);
/* Every sN.pb of dir, absolute, sorted by N (none is fine: cbpredict found
 * nothing).  Fails when dir cannot be read.  Caller frees each and the array. */
int cbr_list_schedules(const char *dir, char ***paths, size_t *n,
                       cb_error *err);

/* ---- One schedule, loaded and checked --------------------------------------- */

typedef struct {
   char path[PATH_MAX]; /* absolute */
   char name[64];       /* "s17" */
   cb_schedule *s;
   int recorded_exit;   /* exit status of the recorded run, -1 unknown */
   char origin[PATH_MAX]; /* the trace it came from (--trace, or the one
                             beside TRACE.schedules/), "" unknown */
} cbr_schedule;

/* Reads and validates a schedule against the program (digest already
 * computed) and, when trace_id_known, the trace.  The message in err is the
 * whole line after "cbreplay: ". */
int cbr_load_schedule(const char *path, uint64_t program_digest,
                      int trace_id_known, uint64_t trace_id,
                      cbr_schedule *out, cb_error *err);
void cbr_free_schedule(cbr_schedule *cs);

/* Writes the plan file of cb_wire.h for s with tail variant `variant`. */
int cbr_write_plan(const char *path, const cb_schedule *s,
                   size_t variant, unsigned stall_ms, cb_error *err);

/* ---- Status lines ------------------------------------------------------------ */

/* A "blocked" line (cb_wire.h): one thread of a deadlock. */
typedef struct {
   unsigned tid, kind, holder;  /* kind: enum cb_wait_kind */
   unsigned long long object, value;
   char where[64], holder_where[64], name[64];
} cbr_blocked;
/* Threads of a deadlock kept for the report; more are only counted. */
#define CBR_MAX_BLOCKED 8

typedef struct {
   int prefix_done, tail_done, released;
   int infeasible;        /* "infeasible ..." seen */
   char reason[512];      /* why it was infeasible, in words */
   int pattern;           /* -1 unknown, 0 or 1: did e1, f, e2 run in order */
   /* "value K V": what e1 (0), f (1), e2 (2) read or wrote in this run */
   int has_value[3];
   unsigned long long value[3];
   int diverged;          /* "diverged T I" seen (first one): a note */
   unsigned diverged_tid;
   unsigned long long diverged_index;
   /* "unexpected T I KIND CODE DATA WHERE FORCING" (first one): thread T's
    * counted event I was not the one the schedule expects there */
   int unexpected;
   unsigned unexp_tid, unexp_kind;
   unsigned long long unexp_index, unexp_code, unexp_data;
   int unexp_forcing;     /* the plan still held threads */
   char unexp_where[128]; /* file:line of the event found, or "?" */
   char divergence[512];  /* in words (cbr_describe_divergence) */
   /* "prefix-order-dropped [T I U C]": the prefix's waits were given up,
    * T's counted event I waiting for U to run C events (0s: not said) */
   int order_dropped;
   unsigned long long order_wait[4];
   unsigned step, nsteps; /* last "step K N": tail step K of N started */
   unsigned run_outs;     /* run-out steps that ended (exit or blocked) */
   int end;               /* the tool's last line: 0 none (it died),
                             CBR_END_EXIT, CBR_END_SIGNAL or
                             CBR_END_DEADLOCK (the tool ended the run) */
   int end_exit;          /* CBR_END_EXIT: the program's exit code */
   unsigned end_tid;      /* the thread that called exit (CBR_END_EXIT) or
                             raised SIGABRT (CBR_END_SIGNAL), 0 unknown */
   int execd;             /* "exec": the program replaced itself, so no
                             "end" will come */
   int progress;          /* set by cbr_status_line when a scheduling fact
                             arrived (resets the hang timer) */
   unsigned nblocked;     /* "blocked" lines: the deadlock's threads */
   cbr_blocked blocked[CBR_MAX_BLOCKED]; /* the first of them */
   /* The hunt: the thread it held last, its holds, f's thread (0 none) */
   unsigned hunt_held, hunt_holds, hunt_f_tid;
} cbr_status;

/* The tool reports "value K V" by the plan's pattern slot K, which for an
 * order violation holds f, e1, e2 (cbr_write_plan): puts st's values in
 * role order, 0 e1, 1 f, 2 e2, as the reports read them. */
void cbr_plan_values_by_role(const cb_schedule *s, cbr_status *st);
/* The tool names what a blocked thread waits for by the nearest symbol
 * (acc+64): a plain forced run reads no variable information.  A global
 * (in a symbol, or an address the schedule says is the same in every run)
 * that e1, f or e2 acts on gets the recording's name instead
 * (acc[1].lock), as the report's title has it. */
void cbr_name_blocked(const cb_schedule *s, cbr_status *st);
enum { CBR_END_EXIT = 1, CBR_END_SIGNAL = 2, CBR_END_DEADLOCK = 3 };

void cbr_status_init(cbr_status *st);
/* Applies one line (without its newline).  Unknown lines are ignored, so
 * that the tool can say more in later versions.  Returns 1 when the line was
 * understood. */
int cbr_status_line(cbr_status *st, const char *line);

/* ---- Running ----------------------------------------------------------------- */

enum cbr_verdict {
   CBR_PASSED = 0,
   CBR_FAILED,
   CBR_INFEASIBLE,
   CBR_HUNG,
   CBR_DEADLOCK, /* every thread waited for another: the tool ended it */
   CBR_ERROR, /* the tool or Valgrind failed, or the run could not start */
   CBR_CURED  /* a cure schedule (Schedule.cure) whose run passed: the order
                 it forced the other way round is the recorded failure's
                 cause; a finding, exit 1 as failed */
};
const char *cbr_verdict_name(enum cbr_verdict v);
/* The exit code of a single forced run with this verdict. */
int cbr_verdict_exit(enum cbr_verdict v);
/* failed, deadlock, hung, cured: a bug of the program. */
int cbr_verdict_is_bug(enum cbr_verdict v);

/* The last value the thread that ended a failing run read where the
 * recorded run read another, on the path both runs took (misread.c). */
typedef struct {
   int found;
   unsigned tid;
   unsigned long long value, recorded;
   char variable[256];  /* as the recorded trace names it */
   char where[160];     /* file:line */
   char function[128];  /* "" when unknown */
} cbr_misread;

/* Plain data, so that a worker process can hand it to the pool in one write. */
typedef struct {
   enum cbr_verdict verdict;
   int cure;          /* of a cure schedule: passed means it failed as the
                         recording did (cbr_verdict_text says "not cured") */
   int exit_code;     /* shell convention (128+sig), -1 when killed by us */
   int signal;        /* fatal signal of the program, 0 if none */
   int check_code;    /* --check CMD's exit code, -1 when it did not run */
   int hung_before_release; /* killed while the plan still held threads */
   double seconds;    /* of every variant's run */
   unsigned variant;  /* the tail variant whose run this is */
   unsigned variants_tried;
   unsigned variants_skipped; /* not forced: they would stop where an
                                 infeasible one did (variants.c) */
   unsigned nvariants;  /* the schedule's */
   int hunted;          /* the hunt was forced after them (hunt.c):
                           CBR_HUNT_AFTER_INFEASIBLE or _ELSEWHERE, 0 not */
   unsigned nsteps;   /* steps of the variant's tail */
   cbr_status status;
   char error[512];   /* CBR_ERROR: why */
   char stderr_tail[1024]; /* last lines of the run's stderr (the program's
                              and Valgrind's) */
   int stderr_shown;  /* it also went to cbreplay's stderr as it came */
   unsigned confirm_runs;  /* the bug's variant forced again (--confirm) */
   unsigned confirm_bugs;  /* of which failed, deadlocked or hung again */
   char pinned[PATH_MAX];  /* when not reproduced: the schedule of a failing
                              run's whole order that failed every time
                              (pin.c), "" when none */
   unsigned pinned_runs;   /* the times it was forced */
   cbr_misread misread;    /* from the failing run pin.c recorded, when the
                              schedule's trace is known */
} cbr_result;
/* A bug that --confirm forced again and that did not come back every time,
 * and whose failing run, forced whole, did not either: no reproducer. */
int cbr_not_reproduced(const cbr_result *r);
/* Whether the violation the schedule aims at happened: 1, 0, or -1 not
 * known.  The tool follows e1, f and e2 by their counted indexes; once the
 * run left the schedule's path (an unexpected event: another branch, a
 * heap block reused) those indexes may name other events, so its "no"
 * means nothing then. */
int cbr_violation_happened(const cbr_result *r);

/* How one run sends its program's output (its input: o->stdin_path). */
typedef struct {
   int capture_stdout; /* to a file (needed by --check; --all and --json keep
                          stdout for the report) */
   int capture_stderr; /* to a file, its tail kept in the result (--all) */
} cbr_io;

/* One forced run of tail variant `variant` of cs on o->prog_argv (argv[0]
 * resolved).  Always fills r; returns 0, or -1 when it could not run
 * (r->verdict == CBR_ERROR). */
int cbr_run_one(const cbr_options *o, const cbr_io *io,
                const cbr_schedule *cs, unsigned variant, cbr_result *r);

/* The schedule's verdict: o->variant when given, else variant 0, 1, ... in
 * turn while each passes or is infeasible (variants.c).  r is the run that
 * decided: the first that failed, hung or could not run; else the first
 * that passed; else the last. */
void cbr_run_schedule(const cbr_options *o, const cbr_io *io,
                      const cbr_schedule *cs, cbr_result *r);
/* Forces cs's variant up to `times` more times, its output kept quiet (the
 * program's stderr was shown once) and no --events-out written; each run
 * records its trace into `record` when not NULL.  Stops at the first run
 * that is a bug (CBR_UNTIL_BUG) or is not (CBR_UNTIL_PASS), or never
 * (CBR_UNTIL_END).  Adds the time to r->seconds; returns the runs, *bugs
 * of them failed, deadlocked or hung; the last such run's status lines in
 * *bug_status when not NULL. */
enum cbr_until { CBR_UNTIL_END, CBR_UNTIL_BUG, CBR_UNTIL_PASS };
unsigned cbr_force_again(const cbr_options *o, const cbr_io *io, const cbr_schedule *cs,
                         unsigned variant, int times, enum cbr_until until,
                         const char *record, cbr_result *r, unsigned *bugs,
                         cbr_status *bug_status);
/* When r is such a bug (or, with --pin, any confirmed failure): records a
 * failing run of its variant and forces that run's whole order (pin.c);
 * r->pinned names the schedule file when it failed every time. */
void cbr_pin(const cbr_options *o, const cbr_io *io, const cbr_schedule *cs,
             cbr_result *r);
/* The last read of thread tid on the path both runs took whose value in
 * trace `run` differs from the recorded trace's (misread.c): 1 and *m when
 * there is one, 0 when none, -1 when out of memory. */
int cbr_find_misread(const cb_trace *rec, const cb_trace *run, unsigned tid,
                     cbr_misread *m);
/* The same from the two traces' files; 0 when recorded is "" or tid 0, -1
 * when a trace cannot be read. */
int cbr_misread_of_run(const char *recorded, const char *failed, unsigned tid,
                       cbr_misread *m);

/* Fills st->divergence when st->unexpected: "diverged: T2 event 17
 * expected read checking+40 at bank.c:34, found write at bank.c:40", the
 * expectation taken from s's variant `variant` (its steps' expect, e1, f,
 * e2). */
void cbr_describe_divergence(const cb_schedule *s, unsigned variant,
                             cbr_status *st);
/* The tool follows e1, f and e2 by counted index: when the run left the
 * schedule's path at or before one of them in its thread, that index names
 * another event, and its "pattern 1" is not known to be the violation
 * (st->pattern becomes -1: "unknown"). */
void cbr_divergence_spoils_pattern(const cb_schedule *s, cbr_status *st);

/* ---- Judging (judge.c) ------------------------------------------------------- */

/* How the run ended, as cbreplay saw it. */
typedef struct {
   int killed;        /* by cbreplay after --timeout */
   int wstatus;       /* Valgrind's wait status (when not killed) */
   int recorded_exit; /* -1 unknown */
   int cure;          /* the schedule is a cure: judged the other way round */
} cbr_ending;

/* Fills r->exit_code and r->signal from e, then the verdict, first rule
 * that applies: error (no "end" from the tool, or Valgrind ended otherwise
 * than the program did; r->error says how), deadlock (the tool ended the
 * run: "end deadlock"), failed (fatal signal, exit code non-zero and not
 * the recorded run's, --check failed), hung,
 * infeasible (the tool could not follow the plan and the violation did not
 * happen, or the run diverged from the schedule: an expected event was
 * another; the reason is the divergence), passed.  r->check_code must be set (-1: did not run). */
void cbr_judge(const cbr_options *o, const cbr_ending *e, cbr_result *r);
/* Whether the program ended as the recorded run did (so --check may run). */
int cbr_exit_normal(const cbr_ending *e, const cbr_status *st);
/* "after following the schedule to step 7 of 9", "after following the
 * whole schedule", "before its prefix was done", "after leaving the
 * schedule's path at T2's event 8" (an unexpected event while forced). */
const char *cbr_how_far(const cbr_result *r, char *buf, size_t len);

/* ---- The keeper (keeper.c) ---------------------------------------------------- */

/* Forks the keeper, which leads a new process group, starts Valgrind with
 * the tool in replay mode on `plan` and reports on statusw: "cbreplay-pid
 * N", then "cbreplay-wait W" (Valgrind's wait status) or "cbreplay-error
 * MSG".  in/out/err: the program's stdin/stdout/stderr (-1: cbreplay's).
 * Returns the keeper's pid or -1. */
pid_t cbr_start_keeper(const cbr_options *o, const char *plan, int statusw,
                       int in_fd, int out_fd, int err_fd, int events_fd);
/* Valgrind's pid once known (from "cbreplay-pid"), 0 when it has ended. */
void cbr_keeper_vgpid(pid_t pid);
/* Kills the run's process groups (a hang). */
void cbr_kill_run(void);
/* The keeper has been reaped: nothing left to kill. */
void cbr_keeper_gone(void);
/* While a run is in progress, SIGINT/SIGTERM/SIGHUP kill it first. */
void cbr_catch_signals(void);
void cbr_restore_signals(void);
/* Files the signal handler removes (unlink the first three, rmdir the
 * fourth; NULL: none), the run's temporary files. */
void cbr_remove_on_signal(const char *plan, const char *out,
                          const char *events, const char *dir);
/* The same for pin.c's recorded trace and its folder (NULL, NULL: none). */
void cbr_remove_pin_on_signal(const char *trace, const char *dir);

/* --record (record_run.c): encodes the raw stream the run wrote to `raw`
 * into the trace o->record, its header naming the program as `cbtrace
 * record` does and its footer how the run r ended.  -1 with err. */
int cbr_record_trace(const cbr_options *o, const char *raw,
                     const cbr_result *r, cb_error *err);

/* Runs `sh -c CMD` with stdin from the file in_path; its stdout goes to
 * out_fd.  Returns its exit code (shell convention), 124 when it ran past
 * timeout_s and was killed, -1 when it could not start. */
int cbr_run_check(const char *cmd, const char *in_path, int out_fd,
                  double timeout_s);

/* Runs every schedule, at most o->jobs at a time; results[i] for cs[i],
 * valid where finished[i] is set.  Returns 0, -1 when it could not start,
 * or the signal (SIGINT, SIGTERM, SIGHUP) that interrupted it: then the
 * runs in progress were stopped and their temporary files removed. */
int cbr_run_all(const cbr_options *o, const cbr_schedule *cs, size_t n,
                cbr_result *results, int *finished);
/* Progress on stderr as results come (progress.c). */
void cbr_progress_start(size_t n, int jobs);
void cbr_progress_done(size_t done, size_t n, int running,
                       const cbr_schedule *cs, const cbr_result *r);
void cbr_progress_end(void);

/* ---- Reporting ---------------------------------------------------------------- */

typedef struct {
   const cbr_options *o;
   const char *program;  /* absolute path of PROG */
   const cbr_schedule *cs;
   const cbr_result *results;
   size_t n;
} cbr_report;

void cbr_print_table(FILE *out, const cbr_report *rep);
void cbr_print_bug_reports(FILE *out, const cbr_report *rep);
void cbr_print_json(FILE *out, const cbr_report *rep);
/* One thread of a run's deadlock in words (cb_blocked_describe). */
const char *cbr_blocked_text(const cbr_blocked *b, char *buf, size_t len);
/* The command that reproduces run i, shell-quoted, into buf (with
 * --variant N when the schedule has more than one tail variant). */
const char *cbr_reproduce_command(const cbr_report *rep, size_t i, char *buf,
                                  size_t len);
/* Pieces report.c and report_json.c share. */
const char *cbr_event_where(const cb_sched_event *e, int shortname,
                            char *buf, size_t len);
const char *cbr_variable_of(const cb_schedule *s, char *buf, size_t len);
const char *cbr_pattern_of(const cb_schedule *s);
/* The text of a location's source line (cb_source_line: from the folder the
 * trace recorded, else as named); 1 when there is one to quote. */
int cbr_source_of(const cb_sched_location *l, char *buf, size_t len);
/* A delay schedule of cbpredict --delays (pattern "explore"): its e1, f,
 * e2 are its first, second and last delay point, not a violation. */
int cbr_is_explore(const cb_schedule *s);
/* Pattern ORD (cbpredict's orders.c): e1 = e2 = T1's access that ran
 * first in the recorded run, f = T2's conflicting access forced before
 * it.  Pattern DLK (deadlocks.c): e1 = T1 takes lock A, f = T2 takes lock
 * B (the schedule's variable), e2 = T1 asks for B. */
int cbr_is_order(const cb_schedule *s);
int cbr_is_deadlock(const cb_schedule *s);
int cbr_shows_value(const cb_sched_event *e);
const char *cbr_variant_name(const cbr_schedule *cs, unsigned variant);

/* The hunt (hunt.c): a schedule forced by its events' code, tried when
 * none of its tail variants could be followed.  Its variant number is the
 * schedule's number of tail variants; -1: the schedule has none (its e1 or
 * f is no memory access, or e1's code address is unknown). */
#define CBR_HUNT_WORDS 8
enum { CBR_HUNT_AFTER_INFEASIBLE = 1, CBR_HUNT_AFTER_ELSEWHERE = 2 };
int cbr_hunt_index(const cb_schedule *s);
int cbr_is_hunt(const cb_schedule *s, unsigned variant);
const char *cbr_hunt_name(const cb_schedule *s);
/* The plan's hunt words (cb_wire.h). */
void cbr_hunt_words(const cb_schedule *s, uint64_t w[CBR_HUNT_WORDS]);
/* "failed (exit 1)", "hung (before release)", ... */
const char *cbr_verdict_text(const cbr_result *r, char *buf, size_t len);
/* The tool could not follow the plan after all: worth saying, unless the
 * deadlock is why. */
int cbr_then_stuck(const cbr_result *r);
/* The "blocked" lines of a run: each thread that waited, what for, and
 * who held it. */
void cbr_print_waits(FILE *out, const cbr_result *r);

#endif /* CB_REPLAY_H */
