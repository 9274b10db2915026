/* spawn.h: the one way host code starts a process (fork, then exec a
 * program or call a function), and the small things every starter needs:
 * waiting, the shell's reading of a wait status, a monotonic clock.
 *
 * Users: launch.c (Valgrind with the tool), pool.c (the jobs of `cbtest`
 * and `cbreplay --all`), reschedule/keeper.c (the process that starts one
 * forced run), reschedule/check_cmd.c (--check CMD), cbtest --wrap (the
 * test run plainly).  The Valgrind tool (vgtool/) starts nothing.
 *
 * The child starts with the signal state exec would give it whether or not
 * it execs: the parent's handlers are back to their default (so a function
 * child never runs the parent's handler), ignored signals stay ignored, the
 * parent's mask is kept; `default_signals` also resets ignored signals and
 * empties the mask.  Every signal is blocked from the fork until the child
 * has done so, so that no handler of the parent's runs in the child.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CB_SPAWN_H
#define CB_SPAWN_H

#include <sys/types.h>

#include "cbtrace.h"

typedef struct {
   /* What runs: fn(arg) when fn is set (the child _exits with what it
    * returns), else the program `file` (argv[0] when NULL) with argv. */
   char *const *argv;
   const char *file;
   int search_path;          /* look file up in PATH as execvp does */
   int (*fn)(void *arg);
   void *arg;
   /* Descriptors that become the child's 0, 1, 2; -1 keeps the parent's. */
   int fd_in, fd_out, fd_err;
   const int *keep_fds;      /* left open across exec */
   int nkeep;
   const char *env_name;     /* set in the child's environment, if not NULL */
   const char *env_value;
   int new_group;            /* the child leads a process group of its own */
   int default_signals;      /* every signal default, none blocked */
   int pin_cpu;              /* 1 + the one CPU the child may run on (its
                                threads and children inherit it); 0: any */
} cb_spawn_spec;

/* A spec with no descriptors redirected (fd_in, fd_out, fd_err = -1). */
#define CB_SPAWN_SPEC_INIT {.fd_in = -1, .fd_out = -1, .fd_err = -1}

/* Starts the child; returns its pid.  -1 with *err set when it could not
 * be started (pipe, fork: "fork: ..."); -2 when the program could not be
 * executed ("cannot run PROG: why"; the child has been reaped).  stdio is
 * flushed first, so that nothing buffered is written twice. */
pid_t cb_spawn(const cb_spawn_spec *s, cb_error *err);

/* 1 + the CPU the caller runs on now (sched_getcpu), 0 when unknown: a
 * cb_spawn_spec.pin_cpu.  A caller pinned to one CPU gets that one. */
int cb_this_cpu(void);

/* waitpid(pid, wstatus, flags) again while a signal interrupts it. */
pid_t cb_wait(pid_t pid, int *wstatus, int flags);

/* Turns a wait status into the shell's convention: the exit code, or
 * 128 + signal for a program killed by a signal. */
int cb_wait_status_code(int wstatus);

/* Seconds on the monotonic clock. */
double cb_now(void);

#endif /* CB_SPAWN_H */
