/* cbtest_pool.c: at most N child processes at once.
 *
 * Each job runs in a process group of its own, so that stopping it (its
 * wall-clock limit, or an interrupted cbtest) reaches Valgrind and the
 * program under it too; cbtrace and cbreplay pass SIGTERM on to what they
 * started.  stdin is /dev/null (parallel jobs must not share the terminal's
 * input), stdout and stderr go to files in the test's work folder.
 *
 * SIGCHLD writes a byte to a pipe (the self-pipe trick), so the wait sleeps
 * in poll() and still wakes at once when a job ends.
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
#include <time.h>
#include <unistd.h>

#include "cbtest.h"

/* After SIGTERM, a job gets this long to clean up before SIGKILL. */
#define GRACE_S 3.0

typedef struct {
   pid_t pid; /* 0: free slot */
   void *tag;
   double started, deadline, term_sent;
   int timed_out;
} slot;

struct cbt_pool {
   slot *slots;
   int n;
};

static int g_wake[2] = {-1, -1};

static void on_sigchld(int sig)
{
   (void)sig;
   int saved = errno;
   if (g_wake[1] >= 0) {
      ssize_t rc = write(g_wake[1], "c", 1);
      (void)rc; /* a full pipe already holds a wake-up */
   }
   errno = saved;
}

double cbt_now(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

cbt_pool *cbt_pool_new(int slots)
{
   cbt_pool *p = calloc(1, sizeof *p);
   if (!p)
      return NULL;
   p->slots = calloc((size_t)slots, sizeof *p->slots);
   if (!p->slots) {
      free(p);
      return NULL;
   }
   p->n = slots;
   if (g_wake[0] < 0) {
      if (pipe2(g_wake, O_CLOEXEC | O_NONBLOCK) != 0) {
         free(p->slots);
         free(p);
         return NULL;
      }
      struct sigaction sa;
      memset(&sa, 0, sizeof sa);
      sa.sa_handler = on_sigchld;
      sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
      sigemptyset(&sa.sa_mask);
      sigaction(SIGCHLD, &sa, NULL);
   }
   return p;
}

void cbt_pool_free(cbt_pool *p)
{
   if (!p)
      return;
   free(p->slots);
   free(p);
}

int cbt_pool_running(const cbt_pool *p)
{
   int k = 0;
   for (int i = 0; i < p->n; i++)
      k += p->slots[i].pid != 0;
   return k;
}

int cbt_pool_free_slots(const cbt_pool *p)
{
   return p->n - cbt_pool_running(p);
}

/* In the child: never returns.  A failure before exec is reported to the
 * parent as an errno on the pipe `report`. */
static void child(const cbt_job *job, int report)
{
   setpgid(0, 0);
   struct sigaction dfl;
   memset(&dfl, 0, sizeof dfl);
   dfl.sa_handler = SIG_DFL;
   sigemptyset(&dfl.sa_mask);
   for (int s = 1; s < NSIG; s++)
      if (s != SIGKILL && s != SIGSTOP)
         sigaction(s, &dfl, NULL);
   sigset_t none;
   sigemptyset(&none);
   sigprocmask(SIG_SETMASK, &none, NULL);

   int in = open("/dev/null", O_RDONLY);
   int out = open(job->out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
   int err = open(job->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
   if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
       dup2(err, 2) < 0)
      goto fail;
   execv(job->argv[0], job->argv);
fail:;
   int e = errno;
   ssize_t rc = write(report, &e, sizeof e);
   (void)rc;
   _exit(127);
}

int cbt_pool_start(cbt_pool *p, const cbt_job *job, cbt_job_end *end)
{
   memset(end, 0, sizeof *end);
   end->tag = job->tag;
   end->code = -1;
   slot *s = NULL;
   for (int i = 0; i < p->n && !s; i++)
      if (p->slots[i].pid == 0)
         s = &p->slots[i];
   if (!s) {
      snprintf(end->error, sizeof end->error, "no free job slot");
      return -1;
   }
   int rep[2];
   if (pipe2(rep, O_CLOEXEC) != 0) {
      snprintf(end->error, sizeof end->error, "pipe: %s", strerror(errno));
      return -1;
   }
   fflush(NULL);
   pid_t pid = fork();
   if (pid < 0) {
      snprintf(end->error, sizeof end->error, "fork: %s", strerror(errno));
      close(rep[0]);
      close(rep[1]);
      return -1;
   }
   if (pid == 0) {
      close(rep[0]);
      child(job, rep[1]);
   }
   setpgid(pid, pid); /* also here: no race with a kill right after */
   close(rep[1]);
   int e = 0;
   ssize_t got;
   do
      got = read(rep[0], &e, sizeof e);
   while (got < 0 && errno == EINTR);
   close(rep[0]);
   if (got == (ssize_t)sizeof e) {
      /* exec failed: collect the child and say why. */
      while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
         ;
      snprintf(end->error, sizeof end->error, "cannot run %s: %s",
               job->argv[0], strerror(e));
      return -1;
   }
   double now = cbt_now();
   s->pid = pid;
   s->tag = job->tag;
   s->started = now;
   s->deadline = now + job->limit_s;
   s->term_sent = 0;
   s->timed_out = 0;
   return 0;
}

static slot *find(cbt_pool *p, pid_t pid)
{
   for (int i = 0; i < p->n; i++)
      if (p->slots[i].pid == pid)
         return &p->slots[i];
   return NULL;
}

/* Reaps one ended job of ours, if any. */
static int reap(cbt_pool *p, cbt_job_end *end)
{
   for (;;) {
      int ws;
      pid_t pid = waitpid(-1, &ws, WNOHANG);
      if (pid < 0 && errno == EINTR)
         continue;
      if (pid <= 0)
         return 0;
      slot *s = find(p, pid);
      if (!s)
         continue; /* not a job (cannot happen: cbtest has no others) */
      memset(end, 0, sizeof *end);
      end->tag = s->tag;
      end->code = WIFEXITED(ws)     ? WEXITSTATUS(ws)
                  : WIFSIGNALED(ws) ? 128 + WTERMSIG(ws)
                                    : -1;
      end->timed_out = s->timed_out;
      end->seconds = cbt_now() - s->started;
      /* Whatever the job left behind in its group goes too. */
      kill(-pid, SIGKILL);
      s->pid = 0;
      return 1;
   }
}

static void enforce_limits(cbt_pool *p)
{
   double now = cbt_now();
   for (int i = 0; i < p->n; i++) {
      slot *s = &p->slots[i];
      if (!s->pid)
         continue;
      if (!s->term_sent && now >= s->deadline) {
         s->timed_out = 1;
         s->term_sent = now;
         kill(-s->pid, SIGTERM);
      } else if (s->term_sent && now >= s->term_sent + GRACE_S) {
         kill(-s->pid, SIGKILL);
      }
   }
}

int cbt_pool_wait(cbt_pool *p, double wait_s, cbt_job_end *end)
{
   double until = cbt_now() + wait_s;
   for (;;) {
      if (reap(p, end))
         return 1;
      enforce_limits(p);
      double left = until - cbt_now();
      if (left <= 0)
         return 0;
      int ms = (int)(left * 1000) + 1;
      if (ms > 200)
         ms = 200; /* limits are checked at least this often */
      struct pollfd pfd = {.fd = g_wake[0], .events = POLLIN};
      if (poll(&pfd, 1, ms) > 0) {
         char buf[64];
         while (read(g_wake[0], buf, sizeof buf) > 0)
            ;
      }
   }
}

void cbt_pool_kill_all(cbt_pool *p)
{
   for (int i = 0; i < p->n; i++)
      if (p->slots[i].pid)
         kill(-p->slots[i].pid, SIGTERM);
   double until = cbt_now() + GRACE_S;
   while (cbt_pool_running(p) > 0 && cbt_now() < until) {
      cbt_job_end e;
      cbt_pool_wait(p, 0.1, &e);
   }
   for (int i = 0; i < p->n; i++)
      if (p->slots[i].pid) {
         kill(-p->slots[i].pid, SIGKILL);
         while (waitpid(p->slots[i].pid, NULL, 0) < 0 && errno == EINTR)
            ;
         p->slots[i].pid = 0;
      }
}
