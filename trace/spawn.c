/* spawn.c: starting a process (spawn.h).
 *
 * A failed exec is told to the parent as an errno on a pipe that exec
 * closes (O_CLOEXEC): the parent's read returns 0 bytes when the program
 * runs, the errno when it does not.  Only async-signal-safe calls happen
 * in the child before exec, except setenv (host commands that spawn are
 * single-threaded).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"

/* In the child: the signal state of spawn.h, then the old mask or none. */
static void child_signals(const cb_spawn_spec *s, const sigset_t *old)
{
   struct sigaction dfl;
   memset(&dfl, 0, sizeof dfl);
   dfl.sa_handler = SIG_DFL;
   sigemptyset(&dfl.sa_mask);
   for (int sig = 1; sig < NSIG; sig++) {
      if (sig == SIGKILL || sig == SIGSTOP)
         continue;
      struct sigaction cur;
      if (sigaction(sig, NULL, &cur) != 0)
         continue; /* not a signal this system has */
      int handled = (cur.sa_flags & SA_SIGINFO) ||
                    (cur.sa_handler != SIG_DFL && cur.sa_handler != SIG_IGN);
      if (handled || (s->default_signals && cur.sa_handler == SIG_IGN))
         sigaction(sig, &dfl, NULL);
   }
   sigset_t none;
   sigemptyset(&none);
   sigprocmask(SIG_SETMASK, s->default_signals ? &none : old, NULL);
}

static void keep_open(int fd)
{
   int fl = fcntl(fd, F_GETFD);
   if (fl >= 0)
      fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC);
}

/* fd becomes `to`; -1 when dup2 failed. */
static int move_fd(int fd, int to)
{
   if (fd < 0)
      return 0;
   if (fd == to) {
      keep_open(fd);
      return 0;
   }
   return dup2(fd, to) < 0 ? -1 : 0;
}

/* In the child: never returns.  A failure before exec goes to the parent
 * as an errno on `report`. */
static void child(const cb_spawn_spec *s, const sigset_t *old, int report)
{
   if (s->new_group)
      setpgid(0, 0);
   if (s->pin_cpu > 0 && s->pin_cpu <= CPU_SETSIZE) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(s->pin_cpu - 1, &one);
      (void)sched_setaffinity(0, sizeof one, &one); /* a cpuset may refuse:
                                                       then it runs anywhere */
   }
   child_signals(s, old);
   if (move_fd(s->fd_in, 0) < 0 || move_fd(s->fd_out, 1) < 0 ||
       move_fd(s->fd_err, 2) < 0)
      goto fail;
   for (int i = 0; i < s->nkeep; i++)
      keep_open(s->keep_fds[i]);
   if (s->env_name && setenv(s->env_name, s->env_value, 1) != 0)
      goto fail;
   if (s->fn) {
      int rc = s->fn(s->arg);
      fflush(NULL);
      _exit(rc);
   }
   const char *file = s->file ? s->file : s->argv[0];
   if (s->search_path)
      execvp(file, s->argv);
   else
      execv(file, s->argv);
fail:;
   int e = errno;
   if (report >= 0) {
      ssize_t w = write(report, &e, sizeof e);
      (void)w; /* the parent then sees no errno: it goes by the status */
   }
   _exit(127);
}

/* In the parent: whether the child's exec failed (then reaped, *err set). */
static int exec_failed(const cb_spawn_spec *s, pid_t pid, int report,
                       cb_error *err)
{
   int e = 0;
   ssize_t n;
   do
      n = read(report, &e, sizeof e);
   while (n < 0 && errno == EINTR);
   close(report);
   if (n != (ssize_t)sizeof e)
      return 0;
   cb_wait(pid, NULL, 0);
   cb_fail(err, "cannot run %s: %s", s->file ? s->file : s->argv[0],
           strerror(e));
   return 1;
}

pid_t cb_spawn(const cb_spawn_spec *s, cb_error *err)
{
   /* A function child has nothing to exec: no pipe to wait on. */
   int rep[2] = {-1, -1};
   if (!s->fn && pipe2(rep, O_CLOEXEC) < 0)
      return cb_fail(err, "pipe: %s", strerror(errno));
   fflush(NULL);
   sigset_t all, old;
   sigfillset(&all);
   sigprocmask(SIG_SETMASK, &all, &old);
   pid_t pid = fork();
   if (pid == 0) {
      if (rep[0] >= 0)
         close(rep[0]);
      child(s, &old, rep[1]);
   }
   int fork_errno = errno;
   if (pid > 0 && s->new_group)
      setpgid(pid, pid); /* also here: no race with a kill right after */
   sigprocmask(SIG_SETMASK, &old, NULL);
   if (rep[1] >= 0)
      close(rep[1]);
   if (pid < 0) {
      if (rep[0] >= 0)
         close(rep[0]);
      cb_fail(err, "fork: %s", strerror(fork_errno));
      errno = fork_errno;
      return -1;
   }
   if (rep[0] >= 0 && exec_failed(s, pid, rep[0], err))
      return -2;
   return pid;
}

pid_t cb_wait(pid_t pid, int *wstatus, int flags)
{
   pid_t r;
   do
      r = waitpid(pid, wstatus, flags);
   while (r < 0 && errno == EINTR);
   return r;
}

int cb_wait_status_code(int wstatus)
{
   if (WIFEXITED(wstatus))
      return WEXITSTATUS(wstatus);
   if (WIFSIGNALED(wstatus))
      return 128 + WTERMSIG(wstatus);
   return 255;
}

double cb_now(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int cb_this_cpu(void)
{
   int cpu = sched_getcpu();
   return cpu < 0 ? 0 : cpu + 1;
}
