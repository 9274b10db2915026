/* run_one.c: one forced run: spawn the program under the tool in replay
 * mode, watch its status lines, time it out, and judge it.
 *
 * Process layout.  cbreplay forks a small "keeper" process that makes itself
 * the leader of a new process group and then calls cb_tool_spawn, so that
 * Valgrind, the program and anything the program forks share that group
 * whatever launch.c does about groups; cbreplay kills the whole group
 * (and, in case launch.c gave Valgrind a group of its own, that one too)
 * when the run hangs or cbreplay itself is interrupted.  The keeper waits for
 * Valgrind and passes on its wait status as a line on the same status pipe
 * the tool writes to, then exits:
 *   cbreplay-pid N      Valgrind's pid
 *   cbreplay-wait W     Valgrind's raw wait status
 *   cbreplay-error MSG  cb_tool_spawn failed
 *
 * Hang detection.  A run is hung when it has not ended --timeout seconds
 * after the last scheduling fact the tool reported (the start, prefix-done,
 * tail-done, released, infeasible): that is --timeout after the release for
 * a run that reached it.  The tool itself guarantees that a plan it cannot
 * follow is released after --stall-ms, so a hang is the program's own
 * deadlock or livelock.
 *
 * Verdict, first rule that applies:
 *   error       the run could not start;
 *   infeasible  the tool reported "infeasible" (whatever the
 *               program did afterwards: the run did not test the schedule);
 *   hung        killed after --timeout;
 *   failed      non-zero exit, fatal signal (abort included), or --check
 *               CMD exited non-zero;
 *   passed      otherwise.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"
#include "replay.h"

double cbr_now(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The run in progress, for the signal handler: cbreplay interrupted must not
 * leave a forced program behind. */
static volatile sig_atomic_t g_group, g_vgpid;

static void kill_run(void)
{
   if (g_group > 0)
      kill(-(pid_t)g_group, SIGKILL);
   if (g_vgpid > 0) {
      kill(-(pid_t)g_vgpid, SIGKILL); /* ESRCH unless it leads a group */
      kill((pid_t)g_vgpid, SIGKILL);
   }
}

static void on_fatal_signal(int sig)
{
   kill_run();
   signal(sig, SIG_DFL);
   raise(sig);
}

static const int caught[] = {SIGINT, SIGTERM, SIGHUP};

static void catch_signals(struct sigaction *old)
{
   struct sigaction sa;
   memset(&sa, 0, sizeof sa);
   sa.sa_handler = on_fatal_signal;
   sigemptyset(&sa.sa_mask);
   for (size_t i = 0; i < sizeof caught / sizeof *caught; i++)
      sigaction(caught[i], &sa, &old[i]);
}

static void restore_signals(const struct sigaction *old)
{
   for (size_t i = 0; i < sizeof caught / sizeof *caught; i++)
      sigaction(caught[i], &old[i], NULL);
}

/* ---- The keeper (child of cbreplay) ------------------------------------- */

static void keep_open(int fd)
{
   int fl = fcntl(fd, F_GETFD);
   if (fl >= 0)
      fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC);
}

static void keeper(const cbr_options *o, const char *plan_path, int statusw,
                   int in_fd, int out_fd, int err_fd, int events_fd)
{
   setpgid(0, 0);
   for (size_t i = 0; i < sizeof caught / sizeof *caught; i++)
      signal(caught[i], SIG_DFL);
   if (in_fd >= 0)
      dup2(in_fd, 0);
   if (out_fd >= 0)
      dup2(out_fd, 1);
   if (err_fd >= 0)
      dup2(err_fd, 2);
   keep_open(statusw);
   if (events_fd >= 0)
      keep_open(events_fd);

   char plan_arg[PATH_MAX + 64], status_arg[32], out_arg[32];
   snprintf(plan_arg, sizeof plan_arg, "--cb-plan=%s", plan_path);
   snprintf(status_arg, sizeof status_arg, "--cb-status-fd=%d", statusw);
   snprintf(out_arg, sizeof out_arg, "--cb-out-fd=%d", events_fd);
   const char *args[] = {"--cb-mode=replay", plan_arg, status_arg,
                         events_fd >= 0 ? out_arg : NULL, NULL};
   cb_launch l;
   memset(&l, 0, sizeof l);
   l.tool_args = args;
   l.keep_fds[l.nkeep++] = statusw;
   if (events_fd >= 0)
      l.keep_fds[l.nkeep++] = events_fd;
   l.replay = 1;

   cb_error err;
   pid_t pid = cb_tool_spawn(&l, o->prog_argv, &err);
   if (pid < 0) {
      dprintf(statusw, "cbreplay-error %s\n", err.msg);
      _exit(2);
   }
   dprintf(statusw, "cbreplay-pid %d\n", (int)pid);
   int ws;
   while (waitpid(pid, &ws, 0) < 0)
      if (errno != EINTR)
         _exit(3);
   dprintf(statusw, "cbreplay-wait %d\n", ws);
   _exit(0);
}

/* ---- Watching ------------------------------------------------------------- */

typedef struct {
   const cbr_options *o;
   cbr_result *r;
   char line[1024];
   size_t have;
   int got_wait, wstatus;
   int spawn_failed;
   double last_progress;
} watch;

static void handle_line(watch *w, const char *line)
{
   if (w->o->verbose && strncmp(line, "cbreplay-", 9) != 0)
      fprintf(stderr, "cbreplay: tool: %s\n", line);
   if (strncmp(line, "cbreplay-pid ", 13) == 0) {
      g_vgpid = atoi(line + 13);
   } else if (strncmp(line, "cbreplay-wait ", 14) == 0) {
      w->got_wait = 1;
      w->wstatus = atoi(line + 14);
      g_vgpid = 0;
   } else if (strncmp(line, "cbreplay-error ", 15) == 0) {
      w->spawn_failed = 1;
      snprintf(w->r->error, sizeof w->r->error, "%s", line + 15);
   } else {
      cbr_status *st = &w->r->status;
      st->progress = 0;
      cbr_status_line(st, line);
      if (st->progress)
         w->last_progress = cbr_now();
   }
}

/* Reads what is there: 1 read something, 2 nothing there yet, 0 end of
 * file (every writer is gone). */
static int read_status(watch *w, int fd)
{
   char buf[4096];
   ssize_t n = read(fd, buf, sizeof buf);
   if (n == 0)
      return 0;
   if (n < 0)
      return errno == EINTR || errno == EAGAIN ? 2 : 0;
   for (ssize_t i = 0; i < n; i++) {
      if (buf[i] == '\n') {
         w->line[w->have] = 0;
         handle_line(w, w->line);
         w->have = 0;
      } else if (w->have < sizeof w->line - 1) {
         w->line[w->have++] = buf[i];
      }
   }
   return 1;
}

static void stderr_tail(const char *path, char *out, size_t len)
{
   out[0] = 0;
   int fd = open(path, O_RDONLY | O_CLOEXEC);
   if (fd < 0)
      return;
   struct stat sb;
   if (fstat(fd, &sb) == 0 && sb.st_size > 0) {
      off_t from = sb.st_size > (off_t)(len - 1) ? sb.st_size - (off_t)(len - 1)
                                                 : 0;
      ssize_t n = pread(fd, out, len - 1, from);
      if (n > 0) {
         out[n] = 0;
         /* Start at a whole line when the file was cut. */
         char *nl = from > 0 ? strchr(out, '\n') : NULL;
         if (nl)
            memmove(out, nl + 1, strlen(nl + 1) + 1);
      } else {
         out[0] = 0;
      }
   }
   close(fd);
}

/* ---- One run ---------------------------------------------------------------- */

static void judge(const cbr_options *o, cbr_result *r, int killed)
{
   if (r->status.infeasible)
      r->verdict = CBR_INFEASIBLE;
   else if (killed)
      r->verdict = CBR_HUNG;
   else if (r->exit_code != 0)
      r->verdict = CBR_FAILED;
   else if (o->check && r->check_code != 0)
      r->verdict = CBR_FAILED;
   else
      r->verdict = CBR_PASSED;
}

static int open_out(const char *path)
{
   return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

int cbr_run_one(const cbr_options *o, const cbr_io *io,
                const cbr_schedule *cs, cbr_result *r)
{
   char dir[PATH_MAX], plan[PATH_MAX + 16], outp[PATH_MAX + 16],
      errp[PATH_MAX + 16];
   int statusp[2] = {-1, -1}, in_fd = -1, out_fd = -1, err_fd = -1,
       events_fd = -1;
   cb_error err;
   watch w;
   int killed = 0;

   memset(r, 0, sizeof *r);
   cbr_status_init(&r->status);
   r->verdict = CBR_ERROR;
   r->exit_code = -1;
   r->check_code = -1;
   memset(&w, 0, sizeof w);
   w.o = o;
   w.r = r;

   const char *tmp = getenv("TMPDIR");
   snprintf(dir, sizeof dir, "%s/cbreplay.XXXXXX", tmp && *tmp ? tmp : "/tmp");
   if (!mkdtemp(dir)) {
      snprintf(r->error, sizeof r->error, "cannot create a temporary folder "
               "in %s: %s", tmp && *tmp ? tmp : "/tmp", strerror(errno));
      return -1;
   }
   snprintf(plan, sizeof plan, "%s/plan", dir);
   snprintf(outp, sizeof outp, "%s/stdout", dir);
   snprintf(errp, sizeof errp, "%s/stderr", dir);

   double start = cbr_now();
   if (cbr_write_plan(plan, cs->s, o->stall_ms, &err) != 0) {
      snprintf(r->error, sizeof r->error, "%s", err.msg);
      goto out;
   }
   if (io->capture_stdout && (out_fd = open_out(outp)) < 0) {
      snprintf(r->error, sizeof r->error, "cannot create %.300s: %s", outp,
               strerror(errno));
      goto out;
   }
   if (io->capture_stderr && (err_fd = open_out(errp)) < 0) {
      snprintf(r->error, sizeof r->error, "cannot create %.300s: %s", errp,
               strerror(errno));
      goto out;
   }
   if (io->null_stdin)
      in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
   if (o->events_out && (events_fd = open_out(o->events_out)) < 0) {
      snprintf(r->error, sizeof r->error, "cannot create --events-out %s: %s",
               o->events_out, strerror(errno));
      goto out;
   }
   if (pipe2(statusp, O_CLOEXEC) != 0) {
      snprintf(r->error, sizeof r->error, "pipe: %s", strerror(errno));
      goto out;
   }

   struct sigaction old[3];
   catch_signals(old);
   fflush(NULL);
   pid_t kid = fork();
   if (kid < 0) {
      restore_signals(old);
      snprintf(r->error, sizeof r->error, "fork: %s", strerror(errno));
      goto out;
   }
   if (kid == 0) {
      close(statusp[0]);
      keeper(o, plan, statusp[1], in_fd, out_fd, err_fd, events_fd);
   }
   setpgid(kid, kid); /* also done by the keeper: no race either way */
   g_group = kid;
   close(statusp[1]);
   statusp[1] = -1;
   fcntl(statusp[0], F_SETFL, O_NONBLOCK);

   w.last_progress = start;
   int reaped = 0, eof = 0, ks;
   while (!reaped) {
      double now = cbr_now();
      double deadline = w.last_progress + o->timeout_s;
      if (now >= deadline) {
         kill_run();
         killed = 1;
         while (waitpid(kid, &ks, 0) < 0 && errno == EINTR)
            ;
         reaped = 1;
         break;
      }
      if (!eof) {
         struct pollfd p = {statusp[0], POLLIN, 0};
         double wait_ms = (deadline - now) * 1000;
         int ms = wait_ms > 100 ? 100 : (int)wait_ms + 1;
         if (poll(&p, 1, ms) > 0)
            eof = !read_status(&w, statusp[0]);
      } else {
         /* The pipe is closed but the keeper has not been reaped yet. */
         struct timespec nap = {0, 2 * 1000 * 1000};
         nanosleep(&nap, NULL);
      }
      pid_t got = waitpid(kid, &ks, WNOHANG);
      if (got == kid)
         reaped = 1;
   }
   /* Whatever is left in the pipe: the keeper's last line, the tool's. */
   while (!eof && read_status(&w, statusp[0]) == 1)
      ;
   g_group = 0;
   g_vgpid = 0;
   restore_signals(old);
   r->seconds = cbr_now() - start;

   if (w.spawn_failed)
      goto out;
   if (killed) {
      r->hung_before_release = !r->status.released;
   } else if (w.got_wait) {
      r->exit_code = cb_wait_status_code(w.wstatus);
      r->signal = WIFSIGNALED(w.wstatus) ? WTERMSIG(w.wstatus) : 0;
   } else {
      snprintf(r->error, sizeof r->error, "lost track of the run (the "
               "process that waits for Valgrind ended with status %d)",
               cb_wait_status_code(ks));
      goto out;
   }
   if (!killed && !r->status.infeasible && r->exit_code == 0 && o->check) {
      int to = o->json || o->all ? 2 : 1;
      r->check_code = cbr_run_check(o->check, outp, to, o->timeout_s);
      if (r->check_code < 0) {
         snprintf(r->error, sizeof r->error, "cannot run --check '%s'",
                  o->check);
         goto out;
      }
   }
   judge(o, r, killed);
   if (io->capture_stderr)
      stderr_tail(errp, r->stderr_tail, sizeof r->stderr_tail);

out:
   if (statusp[0] >= 0)
      close(statusp[0]);
   if (statusp[1] >= 0)
      close(statusp[1]);
   if (in_fd >= 0)
      close(in_fd);
   if (out_fd >= 0)
      close(out_fd);
   if (err_fd >= 0)
      close(err_fd);
   if (events_fd >= 0)
      close(events_fd);
   unlink(plan);
   unlink(outp);
   unlink(errp);
   rmdir(dir);
   if (r->seconds == 0)
      r->seconds = cbr_now() - start;
   return r->verdict == CBR_ERROR ? -1 : 0;
}
