/* pool.h: at most N child processes at once, the one job pool of `cbtest`
 * (its record, predict and cbreplay jobs) and `cbreplay --all` (one worker
 * process per schedule).
 *
 * A job is a program (argv, its stdin, stdout and stderr from or to files)
 * or a function run in a child process that hands back plain data (a
 * result of result_size bytes, read by the pool as it comes, so a large
 * one never blocks its writer).  Each is started by cb_spawn (spawn.h).
 * A job with a limit is sent SIGTERM when it runs past it; cb_pool_stop
 * sends SIGTERM to every job; both reach the job's whole process group
 * when it leads one, and a job still there `grace_s` (of cb_pool_new)
 * after its SIGTERM gets SIGKILL (never, when grace_s is 0).
 *
 * SIGCHLD writes a byte to a pipe (the self-pipe trick), so the wait
 * sleeps in poll() and still wakes at once when a job ends; cb_pool_wake,
 * safe in a signal handler, wakes it too.  The SIGCHLD handler stays
 * installed once a pool was made; only the pool's own children are reaped.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CB_POOL_H
#define CB_POOL_H

#include <stddef.h>

#include "spawn.h"

typedef struct cb_pool cb_pool;

typedef struct {
   /* A program: spawn.argv and the rest of spawn (not spawn.fn).  Its
    * stdin, stdout and stderr are opened from these files when given (in:
    * read; out, err: created or truncated). */
   cb_spawn_spec spawn;
   const char *in_path, *out_path, *err_path;
   /* Or a function: fn(arg, result) runs in a child process and fills
    * result_size bytes of result; it returns the child's exit code. */
   int (*fn)(void *arg, void *result);
   void *arg;
   size_t result_size;
   double limit_s;        /* > 0: stopped (SIGTERM) after this long */
   int pin;               /* run on one CPU, the one with the fewest of the
                             pool's pinned jobs (a forced run: launch.c) */
   void *tag;             /* handed back when it ends */
} cb_job;

typedef struct {
   void *tag;
   int code;           /* exit code, 128+N for signal N, -1: not started */
   int wstatus;        /* the raw wait status */
   int timed_out;      /* stopped by its limit */
   double seconds;
   void *result;       /* a function job's whole result (malloc'd, the
                          caller frees it), NULL when it did not give one */
   char error[256];    /* why it did not start */
} cb_job_end;

/* NULL when out of memory or without a pipe. */
cb_pool *cb_pool_new(int slots, double grace_s);
void cb_pool_free(cb_pool *p);
int cb_pool_free_slots(const cb_pool *p);
int cb_pool_running(const cb_pool *p);
/* Starts a job.  Returns 0, or -1 with end->error set when it could not
 * start (end then describes that job: code -1, its tag). */
int cb_pool_start(cb_pool *p, const cb_job *job, cb_job_end *end);
/* Waits until one job ends (returns 1 and fills *end), wait_s passes (a
 * negative wait_s: no limit) or cb_pool_wake is called (returns 0).
 * Stops jobs past their limit on the way. */
int cb_pool_wait(cb_pool *p, double wait_s, cb_job_end *end);
/* Makes a cb_pool_wait in progress (or the next one) return; for signal
 * handlers. */
void cb_pool_wake(void);
/* Sends SIGTERM to every running job that has not had one. */
void cb_pool_stop(cb_pool *p);
/* cb_pool_stop, then waits up to the grace for the jobs to end, then
 * SIGKILL; every job is reaped and its end dropped (an interrupted run). */
void cb_pool_kill_all(cb_pool *p);

/* ---- Interrupted (stop.c) ----------------------------------------------------
 * SIGINT, SIGTERM and SIGHUP caught as a request to stop: the handler notes
 * the first of them and wakes cb_pool_wait; the caller then stops its jobs
 * (cb_pool_stop, cb_pool_kill_all), reports what had finished and cleans
 * up, and dies of the signal.  cb_spawn's children start with the default
 * actions back. */
void cb_stop_catch(void);
/* The first stop signal since cb_stop_catch, 0 when none came. */
int cb_stop_requested(void);
/* The actions from before cb_stop_catch. */
void cb_stop_restore(void);
/* Flushes stdio and dies of sig with its default action (unblocked), as if
 * it had never been caught: the parent sees the signal (the shell 128+N). */
void cb_die_of_signal(int sig) __attribute__((noreturn));

#endif /* CB_POOL_H */
