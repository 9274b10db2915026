/* run_all.c: many schedules forced in parallel.
 *
 * Each schedule is forced in a worker process (a fork of cbreplay) that
 * calls cbr_run_schedule (its tail variants one after another) and writes
 * its cbr_result, plain data, back on a pipe.  At most o->jobs workers run
 * at once; each of them keeps its forced program in a
 * process group of its own and kills it when it hangs.  The runs are
 * independent: every one reads its own plan and writes its own output files.
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

/* Workers alive, for the signal handler: an interrupted cbreplay stops them
 * all, and each stops its forced program. */
#define MAX_JOBS 1024
static volatile sig_atomic_t g_workers[MAX_JOBS];

static void on_fatal_signal(int sig)
{
   for (int i = 0; i < MAX_JOBS; i++)
      if (g_workers[i] > 0)
         kill((pid_t)g_workers[i], SIGTERM);
   signal(sig, SIG_DFL);
   raise(sig);
}

static int start_worker(const cbr_options *o, const cbr_schedule *cs,
                        size_t index, worker *wk)
{
   int p[2];
   if (pipe2(p, O_CLOEXEC) != 0)
      return -1;
   fflush(NULL);
   pid_t pid = fork();
   if (pid < 0) {
      close(p[0]);
      close(p[1]);
      return -1;
   }
   if (pid == 0) {
      signal(SIGINT, SIG_DFL);
      signal(SIGTERM, SIG_DFL);
      signal(SIGHUP, SIG_DFL);
      close(p[0]);
      cbr_io io = {.capture_stdout = 1, .capture_stderr = 1, .null_stdin = 1};
      cbr_result r;
      cbr_run_schedule(o, &io, &cs[index], &r);
      const char *b = (const char *)&r;
      size_t left = sizeof r;
      while (left > 0) {
         ssize_t n = write(p[1], b, left);
         if (n < 0 && errno == EINTR)
            continue;
         if (n <= 0)
            _exit(1);
         b += n;
         left -= (size_t)n;
      }
      _exit(0);
   }
   close(p[1]);
   memset(wk, 0, sizeof *wk);
   wk->pid = pid;
   wk->fd = p[0];
   wk->index = index;
   return 0;
}

static void progress(size_t done, size_t n, const cbr_schedule *cs,
                     const cbr_result *r)
{
   if (!isatty(2))
      return;
   fprintf(stderr, "cbreplay: [%zu/%zu] %s %s (%.1f s)\n", done, n, cs->name,
           cbr_verdict_name(r->verdict), r->seconds);
}

int cbr_run_all(const cbr_options *o, const cbr_schedule *cs, size_t n,
                cbr_result *results)
{
   int jobs = o->jobs < MAX_JOBS ? o->jobs : MAX_JOBS;
   if ((size_t)jobs > n)
      jobs = (int)n;
   worker *wk = calloc((size_t)jobs, sizeof *wk);
   struct pollfd *pf = calloc((size_t)jobs, sizeof *pf);
   if (!wk || !pf) {
      free(wk);
      free(pf);
      return -1;
   }
   struct sigaction sa, old[3];
   memset(&sa, 0, sizeof sa);
   sa.sa_handler = on_fatal_signal;
   sigemptyset(&sa.sa_mask);
   sigaction(SIGINT, &sa, &old[0]);
   sigaction(SIGTERM, &sa, &old[1]);
   sigaction(SIGHUP, &sa, &old[2]);

   size_t next = 0, done = 0;
   int active = 0;
   while (done < n) {
      /* Fill free slots. */
      for (int s = 0; s < jobs && next < n; s++) {
         if (wk[s].pid > 0)
            continue;
         if (start_worker(o, cs, next, &wk[s]) != 0) {
            cbr_result *r = &results[next];
            memset(r, 0, sizeof *r);
            r->verdict = CBR_ERROR;
            snprintf(r->error, sizeof r->error, "cannot start a worker: %s",
                     strerror(errno));
            next++;
            done++;
            continue;
         }
         g_workers[s] = wk[s].pid;
         next++;
         active++;
      }
      if (active == 0)
         continue;
      for (int s = 0; s < jobs; s++) {
         pf[s].fd = wk[s].pid > 0 ? wk[s].fd : -1;
         pf[s].events = POLLIN;
         pf[s].revents = 0;
      }
      if (poll(pf, (nfds_t)jobs, -1) < 0) {
         if (errno == EINTR)
            continue;
         break;
      }
      for (int s = 0; s < jobs; s++) {
         if (wk[s].pid <= 0 || !pf[s].revents)
            continue;
         char *b = (char *)&wk[s].r + wk[s].got;
         ssize_t k = read(wk[s].fd, b, sizeof wk[s].r - wk[s].got);
         if (k < 0 && errno == EINTR)
            continue;
         if (k > 0) {
            wk[s].got += (size_t)k;
            if (wk[s].got < sizeof wk[s].r)
               continue;
         }
         /* A whole result, or the worker is gone. */
         cbr_result *r = &results[wk[s].index];
         int ws;
         while (waitpid(wk[s].pid, &ws, 0) < 0 && errno == EINTR)
            ;
         if (wk[s].got == sizeof wk[s].r) {
            *r = wk[s].r;
         } else {
            memset(r, 0, sizeof *r);
            r->verdict = CBR_ERROR;
            snprintf(r->error, sizeof r->error, "the worker of %s died "
                     "(status %d)", cs[wk[s].index].name, ws);
         }
         close(wk[s].fd);
         g_workers[s] = 0;
         wk[s].pid = 0;
         active--;
         done++;
         progress(done, n, &cs[wk[s].index], r);
      }
   }
   sigaction(SIGINT, &old[0], NULL);
   sigaction(SIGTERM, &old[1], NULL);
   sigaction(SIGHUP, &old[2], NULL);
   free(wk);
   free(pf);
   return 0;
}
