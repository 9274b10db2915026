/* keeper.c: the process that starts Valgrind for one forced run, and
 * killing a run.
 *
 * cbreplay starts a small "keeper" process (cb_spawn, spawn.h) that leads
 * a new process group and then calls cb_tool_spawn, so that Valgrind, the
 * program and anything the program forks share that group whatever
 * launch.c does about groups; cbreplay kills the whole group (and, in case
 * launch.c gave Valgrind a group of its own, that one too) when the run
 * hangs or cbreplay itself is interrupted.  The keeper waits for Valgrind
 * and passes on its wait status as a line on the same status pipe the tool
 * writes to, then exits:
 *   cbreplay-pid N      Valgrind's pid
 *   cbreplay-wait W     Valgrind's raw wait status
 *   cbreplay-error MSG  cb_tool_spawn failed
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch.h"
#include "replay.h"

/* The run in progress, for the signal handler: cbreplay interrupted must not
 * leave a forced program behind. */
static volatile sig_atomic_t g_group, g_vgpid;

void cbr_kill_run(void)
{
   if (g_group > 0)
      kill(-(pid_t)g_group, SIGKILL);
   if (g_vgpid > 0) {
      kill(-(pid_t)g_vgpid, SIGKILL); /* ESRCH unless it leads a group */
      kill((pid_t)g_vgpid, SIGKILL);
   }
}

void cbr_keeper_vgpid(pid_t pid)
{
   g_vgpid = pid;
}

void cbr_keeper_gone(void)
{
   g_group = 0;
   g_vgpid = 0;
}

/* The temporary files of the run in progress (run_one.c), removed when a
 * signal ends cbreplay or its worker: unlink and rmdir are safe in a
 * handler. */
static const char *volatile g_files[4];

void cbr_remove_on_signal(const char *plan, const char *out,
                          const char *events, const char *dir)
{
   g_files[0] = plan;
   g_files[1] = out;
   g_files[2] = events;
   g_files[3] = dir;
}

/* Pinning's folder and the trace it records there (pin.c), around the
 * runs it makes. */
static const char *volatile g_pin[2];

void cbr_remove_pin_on_signal(const char *trace, const char *dir)
{
   g_pin[0] = trace;
   g_pin[1] = dir;
}

static void on_fatal_signal(int sig)
{
   cbr_kill_run();
   for (int i = 0; i < 3; i++)
      if (g_files[i])
         unlink(g_files[i]);
   if (g_files[3])
      rmdir(g_files[3]);
   if (g_pin[0])
      unlink(g_pin[0]);
   if (g_pin[1])
      rmdir(g_pin[1]);
   signal(sig, SIG_DFL);
   raise(sig);
}

/* SIGPIPE too: `cbreplay -v ... | grep -q LINE` ends cbreplay at its next
 * write, and left its cbreplay.XXXXXX folder behind. */
static const int caught[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
enum { NCAUGHT = sizeof caught / sizeof *caught };
static struct sigaction g_old[NCAUGHT];

void cbr_catch_signals(void)
{
   struct sigaction sa;
   memset(&sa, 0, sizeof sa);
   sa.sa_handler = on_fatal_signal;
   sigemptyset(&sa.sa_mask);
   for (size_t i = 0; i < NCAUGHT; i++)
      sigaction(caught[i], &sa, &g_old[i]);
}

void cbr_restore_signals(void)
{
   for (size_t i = 0; i < NCAUGHT; i++)
      sigaction(caught[i], &g_old[i], NULL);
}

/* What the keeper needs, handed to it through cb_spawn. */
typedef struct {
   const cbr_options *o;
   const char *plan;
   int statusw, events_fd;
} keeper_args;

/* The keeper, in its own process group with the program's stdio in place
 * (cb_spawn did both, and put the caught signals back to their default). */
static int keeper(void *arg)
{
   const keeper_args *k = arg;
   const cbr_options *o = k->o;
   char plan_arg[PATH_MAX + 64], status_arg[32], out_arg[32], instr[64];
   snprintf(plan_arg, sizeof plan_arg, "--cb-plan=%s", k->plan);
   snprintf(status_arg, sizeof status_arg, "--cb-status-fd=%d", k->statusw);
   snprintf(out_arg, sizeof out_arg, "--cb-out-fd=%d", k->events_fd);
   /* Instrumented as the recorded run was, or every count differs. */
   snprintf(instr, sizeof instr, "--cb-instrument=%s",
            o->instrument ? o->instrument : "default");
   const char *args[] = {"--cb-mode=replay", plan_arg, status_arg, instr,
                         k->events_fd >= 0 ? out_arg : NULL, NULL};
   cb_launch l;
   memset(&l, 0, sizeof l);
   l.tool_args = args;
   l.keep_fds[l.nkeep++] = k->statusw;
   if (k->events_fd >= 0)
      l.keep_fds[l.nkeep++] = k->events_fd;
   l.replay = 1;

   cb_error err;
   pid_t pid = cb_tool_spawn(&l, o->prog_argv, &err);
   if (pid < 0) {
      dprintf(k->statusw, "cbreplay-error %s\n", err.msg);
      _exit(2);
   }
   dprintf(k->statusw, "cbreplay-pid %d\n", (int)pid);
   int ws;
   if (cb_wait(pid, &ws, 0) < 0)
      _exit(3);
   dprintf(k->statusw, "cbreplay-wait %d\n", ws);
   _exit(0);
}

pid_t cbr_start_keeper(const cbr_options *o, const char *plan, int statusw,
                       int in_fd, int out_fd, int err_fd, int events_fd)
{
   keeper_args k = {o, plan, statusw, events_fd};
   cb_spawn_spec s = CB_SPAWN_SPEC_INIT;
   s.fn = keeper;
   s.arg = &k;
   s.fd_in = in_fd;
   s.fd_out = out_fd;
   s.fd_err = err_fd;
   s.new_group = 1;
   cb_error err;
   pid_t kid = cb_spawn(&s, &err);
   if (kid < 0)
      return -1;
   g_group = kid;
   return kid;
}
