/* run_all.c: many schedules forced in parallel.
 *
 * Each schedule is forced in a worker process (a fork of cbreplay) that
 * calls cbr_run_schedule (its tail variants one after another) and writes
 * its cbr_result, plain data, back on a pipe.  At most o->jobs workers run
 * at once; each of them keeps its forced program in a process group of its
 * own and kills it when it hangs.  The runs are independent: every one
 * reads its own plan and writes its own output files.  Each result is
 * reported as it comes (progress.c).
 *
 * Interrupted (SIGINT, SIGTERM, SIGHUP), cbreplay stops starting runs and
 * sends SIGTERM to its workers; each kills its forced program and removes
 * its temporary files (keeper.c) before it dies.  cbr_run_all then returns
 * the signal, with finished[i] set for the schedules whose result had come:
 * the caller reports those and dies of the same signal.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay.h"

typedef struct {
   pid_t pid;
   int fd;
   size_t index;
   size_t got;
   cbr_result r;
} worker;

/* Workers alive, for the signal handler. */
#define MAX_JOBS 1024
static volatile sig_atomic_t g_workers[MAX_JOBS];
static volatile sig_atomic_t g_stop;  /* the signal that interrupted us */
static int g_wake[2] = {-1, -1};      /* wakes the poll loop */

static void on_stop_signal(int sig)
{
   int e = errno;
   if (!g_stop)
      g_stop = sig;
   for (int i = 0; i < MAX_JOBS; i++)
      if (g_workers[i] > 0)
         kill((pid_t)g_workers[i], SIGTERM);
   if (g_wake[1] >= 0) {
      ssize_t w = write(g_wake[1], "", 1);
      (void)w;
   }
   errno = e;
}

static void worker_main(const cbr_options *o, const cbr_schedule *cs,
                        int out)
{
   close(g_wake[0]);
   close(g_wake[1]);
   cbr_io io = {.capture_stdout = 1, .capture_stderr = 1};
   cbr_result r;
   cbr_run_schedule(o, &io, cs, &r);
   const char *b = (const char *)&r;
   size_t left = sizeof r;
   while (left > 0) {
      ssize_t n = write(out, b, left);
      if (n < 0 && errno == EINTR)
         continue;
      if (n <= 0)
         _exit(1);
      b += n;
      left -= (size_t)n;
   }
   _exit(0);
}

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
enum { NSTOP = sizeof stop_signals / sizeof *stop_signals };

static void block_stop_signals(int how)
{
   sigset_t set;
   sigemptyset(&set);
   for (int i = 0; i < NSTOP; i++)
      sigaddset(&set, stop_signals[i]);
   sigprocmask(how, &set, NULL);
}

/* The stop signals are blocked across the fork, so that a worker never
 * runs the parent's handler: it takes them with their default action, or
 * with run_one's, which cleans up. */
static int start_worker(const cbr_options *o, const cbr_schedule *cs,
                        size_t index, worker *wk, int slot)
{
   int p[2];
   if (pipe2(p, O_CLOEXEC) != 0)
      return -1;
   fflush(NULL);
   block_stop_signals(SIG_BLOCK);
   pid_t pid = fork();
   if (pid == 0) {
      for (int i = 0; i < NSTOP; i++)
         signal(stop_signals[i], SIG_DFL);
      block_stop_signals(SIG_UNBLOCK);
      close(p[0]);
      worker_main(o, &cs[index], p[1]);
   }
   if (pid > 0)
      g_workers[slot] = pid;
   block_stop_signals(SIG_UNBLOCK);
   close(p[1]);
   if (pid < 0) {
      close(p[0]);
      return -1;
   }
   memset(wk, 0, sizeof *wk);
   wk->pid = pid;
   wk->fd = p[0];
   wk->index = index;
   if (g_stop) /* came before the worker was listed */
      kill(pid, SIGTERM);
   return 0;
}

/* Reads what a worker wrote; 1 when it is done (a whole result, or gone:
 * then reaped, its result in results[] or, when it died without one, an
 * error unless we are stopping). */
static int collect(worker *wk, const cbr_schedule *cs, cbr_result *results,
                   int *finished)
{
   char *b = (char *)&wk->r + wk->got;
   ssize_t k = read(wk->fd, b, sizeof wk->r - wk->got);
   if (k < 0 && errno == EINTR)
      return 0;
   if (k > 0) {
      wk->got += (size_t)k;
      if (wk->got < sizeof wk->r)
         return 0;
   }
   cbr_result *r = &results[wk->index];
   int ws = 0;
   while (waitpid(wk->pid, &ws, 0) < 0 && errno == EINTR)
      ;
   if (wk->got == sizeof wk->r) {
      *r = wk->r;
      finished[wk->index] = 1;
   } else if (!g_stop) {
      memset(r, 0, sizeof *r);
      r->verdict = CBR_ERROR;
      snprintf(r->error, sizeof r->error, "the worker of %s died (status %d)",
               cs[wk->index].name, ws);
      finished[wk->index] = 1;
   }
   close(wk->fd);
   wk->pid = 0;
   return 1;
}

static void start_error(cbr_result *r)
{
   memset(r, 0, sizeof *r);
   r->verdict = CBR_ERROR;
   snprintf(r->error, sizeof r->error, "cannot start a worker: %s",
            strerror(errno));
}

static void catch_stop(struct sigaction old[NSTOP])
{
   struct sigaction sa;
   memset(&sa, 0, sizeof sa);
   sa.sa_handler = on_stop_signal;
   sigemptyset(&sa.sa_mask);
   g_stop = 0;
   for (int i = 0; i < NSTOP; i++)
      sigaction(stop_signals[i], &sa, &old[i]);
}

static void restore_stop(const struct sigaction old[NSTOP])
{
   for (int i = 0; i < NSTOP; i++)
      sigaction(stop_signals[i], &old[i], NULL);
   close(g_wake[0]);
   close(g_wake[1]);
   g_wake[0] = g_wake[1] = -1;
}

int cbr_run_all(const cbr_options *o, const cbr_schedule *cs, size_t n,
                cbr_result *results, int *finished)
{
   int jobs = o->jobs < MAX_JOBS ? o->jobs : MAX_JOBS;
   if ((size_t)jobs > n)
      jobs = (int)n;
   worker *wk = calloc((size_t)jobs, sizeof *wk);
   struct pollfd *pf = calloc((size_t)jobs + 1, sizeof *pf);
   if (!wk || !pf || pipe2(g_wake, O_CLOEXEC | O_NONBLOCK) != 0) {
      free(wk);
      free(pf);
      return -1;
   }
   memset(finished, 0, n * sizeof *finished);
   struct sigaction old[NSTOP];
   catch_stop(old);
   cbr_progress_start(n, jobs);
   size_t next = 0, done = 0;
   int active = 0;
   while (done < n && (!g_stop || active > 0)) {
      for (int s = 0; s < jobs && next < n && !g_stop; s++) {
         if (wk[s].pid > 0)
            continue;
         if (start_worker(o, cs, next, &wk[s], s) != 0) {
            start_error(&results[next]);
            finished[next++] = 1;
            done++;
            continue;
         }
         next++;
         active++;
      }
      if (active == 0)
         continue;
      for (int s = 0; s < jobs; s++)
         pf[s] = (struct pollfd){wk[s].pid > 0 ? wk[s].fd : -1, POLLIN, 0};
      pf[jobs] = (struct pollfd){g_wake[0], POLLIN, 0};
      if (poll(pf, (nfds_t)jobs + 1, -1) < 0 && errno != EINTR)
         break;
      char drain[64];
      while (read(g_wake[0], drain, sizeof drain) > 0)
         ;
      for (int s = 0; s < jobs; s++) {
         size_t idx = wk[s].index;
         if (wk[s].pid <= 0 || !pf[s].revents ||
             !collect(&wk[s], cs, results, finished))
            continue;
         g_workers[s] = 0;
         active--;
         if (finished[idx])
            cbr_progress_done(++done, n, active, &cs[idx], &results[idx]);
      }
   }
   cbr_progress_end();
   restore_stop(old);
   free(wk);
   free(pf);
   return g_stop;
}
