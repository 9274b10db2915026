/* pool.c: at most N child processes at once (pool.h).
 *
 * Each slot holds one running job: its pid, its limit, and for a function
 * job the pipe its result comes back on and the bytes read so far.  Only
 * the pool's own pids are waited for, so a process with other children
 * (a cbreplay worker's keeper) is never confused by it.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pool.h"

typedef struct {
   pid_t pid;            /* 0: free slot */
   void *tag;
   int group;            /* leads a process group of its own */
   double started, deadline; /* deadline 0: no limit */
   double term_sent;     /* when the pool sent SIGTERM */
   int termed, timed_out;
   int fd;               /* the result's pipe, -1: none or closed */
   unsigned char *result;
   size_t size, got;
   int cpu;              /* 1 + the CPU a pinned job runs on, 0: any */
} slot;

struct cb_pool {
   slot *slots;
   struct pollfd *pfd; /* the wake pipe, then each slot's result pipe */
   int n;
   double grace;
   cpu_set_t cpus;       /* where the pool's pinned jobs may go */
};

static int g_wake[2] = {-1, -1};

static void poke(char c)
{
   int saved = errno;
   if (g_wake[1] >= 0) {
      ssize_t rc = write(g_wake[1], &c, 1);
      (void)rc; /* a full pipe already holds a wake-up */
   }
   errno = saved;
}

static void on_sigchld(int sig)
{
   (void)sig;
   poke('c');
}

void cb_pool_wake(void)
{
   poke('w');
}

cb_pool *cb_pool_new(int slots, double grace_s)
{
   cb_pool *p = calloc(1, sizeof *p);
   if (!p)
      return NULL;
   p->slots = calloc((size_t)slots, sizeof *p->slots);
   p->pfd = calloc((size_t)slots + 1, sizeof *p->pfd);
   if (!p->slots || !p->pfd) {
      free(p->slots);
      free(p->pfd);
      free(p);
      return NULL;
   }
   p->n = slots;
   p->grace = grace_s;
   if (sched_getaffinity(0, sizeof p->cpus, &p->cpus) != 0)
      CPU_ZERO(&p->cpus); /* then no job is pinned */
   for (int i = 0; i < slots; i++)
      p->slots[i].fd = -1;
   if (g_wake[0] < 0) {
      if (pipe2(g_wake, O_CLOEXEC | O_NONBLOCK) != 0) {
         cb_pool_free(p);
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

void cb_pool_free(cb_pool *p)
{
   if (!p)
      return;
   for (int i = 0; i < p->n; i++) {
      if (p->slots[i].fd >= 0)
         close(p->slots[i].fd);
      free(p->slots[i].result);
   }
   free(p->slots);
   free(p->pfd);
   free(p);
}

int cb_pool_running(const cb_pool *p)
{
   int k = 0;
   for (int i = 0; i < p->n; i++)
      k += p->slots[i].pid != 0;
   return k;
}

int cb_pool_free_slots(const cb_pool *p)
{
   return p->n - cb_pool_running(p);
}

/* ---- Starting ---------------------------------------------------------------- */

/* A function job's child: what cb_spawn runs. */
typedef struct {
   const cb_pool *p;
   const cb_job *job;
   int out;
} fn_child;

static int write_all(int fd, const unsigned char *b, size_t left)
{
   while (left > 0) {
      ssize_t n = write(fd, b, left);
      if (n < 0 && errno == EINTR)
         continue;
      if (n <= 0)
         return -1;
      b += n;
      left -= (size_t)n;
   }
   return 0;
}

static int run_fn(void *arg)
{
   const fn_child *c = arg;
   /* Without an exec nothing closes the pool's descriptors for us. */
   close(g_wake[0]);
   close(g_wake[1]);
   g_wake[0] = g_wake[1] = -1;
   for (int i = 0; i < c->p->n; i++)
      if (c->p->slots[i].fd >= 0)
         close(c->p->slots[i].fd);
   void *buf = calloc(1, c->job->result_size ? c->job->result_size : 1);
   if (!buf)
      return 127;
   int rc = c->job->fn(c->job->arg, buf);
   if (write_all(c->out, buf, c->job->result_size) != 0)
      rc = 1;
   return rc;
}

static void close_fds(int *fds, int n)
{
   for (int i = 0; i < n; i++)
      if (fds[i] >= 0)
         close(fds[i]);
}

/* Opens a program job's stdio files into spec; -1 with errno. */
static int open_stdio(const cb_job *job, cb_spawn_spec *spec, int fds[3])
{
   const int wr = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
   if (job->in_path &&
       (spec->fd_in = fds[0] = open(job->in_path, O_RDONLY | O_CLOEXEC)) < 0)
      return -1;
   if (job->out_path &&
       (spec->fd_out = fds[1] = open(job->out_path, wr, 0644)) < 0)
      return -1;
   if (job->err_path &&
       (spec->fd_err = fds[2] = open(job->err_path, wr, 0644)) < 0)
      return -1;
   return 0;
}

/* 1 + the CPU for a pinned job: of those the pool may use, one with the
 * fewest of its pinned jobs running; on a tie the one this process runs
 * on now (where the kernel found room: two cbtest -j 1 side by side then
 * seldom share one), else the lowest; 0: none. */
static int pick_cpu(const cb_pool *p)
{
   int best = 0, best_n = 0, here = cb_this_cpu();
   for (int c = 0; c < CPU_SETSIZE; c++) {
      if (!CPU_ISSET(c, &p->cpus))
         continue;
      int n = 0;
      for (int i = 0; i < p->n; i++)
         n += p->slots[i].pid != 0 && p->slots[i].cpu == c + 1;
      if (!best || n < best_n || (n == best_n && c + 1 == here)) {
         best = c + 1;
         best_n = n;
      }
   }
   return best;
}

/* Starts the job's process, on CPU cpu - 1 when cpu is not 0; its pid,
 * or -1 with end->error set.  *fd: the read end of a function job's
 * result pipe. */
static pid_t start(cb_pool *p, const cb_job *job, int cpu, int *fd,
                   cb_job_end *end)
{
   cb_spawn_spec spec = job->spawn;
   spec.pin_cpu = cpu;
   int fds[3] = {-1, -1, -1}, rp[2] = {-1, -1};
   fn_child c = {p, job, -1};
   cb_error err;
   pid_t pid = -1;
   if (job->fn) {
      if (pipe2(rp, O_CLOEXEC) != 0) {
         snprintf(end->error, sizeof end->error, "pipe: %s", strerror(errno));
         return -1;
      }
      c.out = rp[1];
      spec.fn = run_fn;
      spec.arg = &c;
   } else if (open_stdio(job, &spec, fds) != 0) {
      snprintf(end->error, sizeof end->error, "cannot run %s: %s",
               spec.argv[0], strerror(errno));
      close_fds(fds, 3);
      return -1;
   }
   pid = cb_spawn(&spec, &err);
   close_fds(fds, 3);
   if (rp[1] >= 0)
      close(rp[1]);
   if (pid < 0) {
      snprintf(end->error, sizeof end->error, "%.255s", err.msg);
      if (rp[0] >= 0)
         close(rp[0]);
      return -1;
   }
   if (rp[0] >= 0)
      fcntl(rp[0], F_SETFL, O_NONBLOCK);
   *fd = rp[0];
   return pid;
}

int cb_pool_start(cb_pool *p, const cb_job *job, cb_job_end *end)
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
   unsigned char *result = NULL;
   if (job->fn && !(result = calloc(1, job->result_size ? job->result_size
                                                        : 1))) {
      snprintf(end->error, sizeof end->error, "out of memory");
      return -1;
   }
   int fd = -1;
   int cpu = job->pin ? pick_cpu(p) : 0;
   pid_t pid = start(p, job, cpu, &fd, end);
   if (pid < 0) {
      free(result);
      return -1;
   }
   double now = cb_now();
   *s = (slot){.pid = pid, .tag = job->tag, .group = job->spawn.new_group,
               .started = now,
               .deadline = job->limit_s > 0 ? now + job->limit_s : 0,
               .fd = fd, .result = result, .size = job->result_size,
               .cpu = cpu};
   return 0;
}

/* ---- Watching ------------------------------------------------------------------ */

static void signal_job(slot *s, int sig)
{
   if (s->group)
      kill(-s->pid, sig);
   else
      kill(s->pid, sig);
}

/* Reads what the job's result pipe holds now; closes it at its end. */
static void read_result(slot *s)
{
   while (s->fd >= 0) {
      unsigned char spill[512];
      int full = s->got >= s->size;
      unsigned char *to = full ? spill : s->result + s->got;
      size_t room = full ? sizeof spill : s->size - s->got;
      ssize_t n = read(s->fd, to, room);
      if (n < 0 && errno == EINTR)
         continue;
      if (n < 0 && errno == EAGAIN)
         return;
      if (n <= 0) {
         close(s->fd);
         s->fd = -1;
         return;
      }
      if (!full)
         s->got += (size_t)n;
   }
}

/* The job in s ended with wait status ws: describe it, free the slot. */
static void finish(slot *s, int ws, cb_job_end *end)
{
   memset(end, 0, sizeof *end);
   end->tag = s->tag;
   end->code = WIFEXITED(ws) || WIFSIGNALED(ws) ? cb_wait_status_code(ws) : -1;
   end->wstatus = ws;
   end->timed_out = s->timed_out;
   end->seconds = cb_now() - s->started;
   /* Whatever the job left behind in its group goes too. */
   if (s->group)
      kill(-s->pid, SIGKILL);
   read_result(s); /* what is left in the pipe (it does not wait) */
   if (s->fd >= 0)
      close(s->fd);
   if (s->result && s->got == s->size)
      end->result = s->result;
   else
      free(s->result);
   *s = (slot){.fd = -1};
}

/* Reaps one ended job, if any. */
static int reap(cb_pool *p, cb_job_end *end)
{
   for (int i = 0; i < p->n; i++) {
      slot *s = &p->slots[i];
      int ws;
      if (s->pid && cb_wait(s->pid, &ws, WNOHANG) == s->pid) {
         finish(s, ws, end);
         return 1;
      }
   }
   return 0;
}

static void enforce_limits(cb_pool *p)
{
   double now = cb_now();
   for (int i = 0; i < p->n; i++) {
      slot *s = &p->slots[i];
      if (!s->pid)
         continue;
      if (!s->termed && s->deadline > 0 && now >= s->deadline) {
         s->timed_out = 1;
         s->termed = 1;
         s->term_sent = now;
         signal_job(s, SIGTERM);
      } else if (s->termed && p->grace > 0 &&
                 now >= s->term_sent + p->grace) {
         signal_job(s, SIGKILL);
      }
   }
}

/* Sleeps in poll() up to ms on the wake pipe and the result pipes, reading
 * what comes.  Returns 1 when cb_pool_wake was called. */
static int sleep_poll(cb_pool *p, int ms)
{
   struct pollfd *pfd = p->pfd;
   pfd[0] = (struct pollfd){.fd = g_wake[0], .events = POLLIN};
   for (int i = 0; i < p->n; i++)
      pfd[i + 1] = (struct pollfd){.fd = p->slots[i].fd, .events = POLLIN};
   if (poll(pfd, (nfds_t)p->n + 1, ms) <= 0)
      return 0;
   for (int i = 0; i < p->n; i++)
      if (pfd[i + 1].revents)
         read_result(&p->slots[i]);
   int woken = 0;
   char buf[64];
   ssize_t n;
   while ((n = read(g_wake[0], buf, sizeof buf)) > 0)
      woken |= memchr(buf, 'w', (size_t)n) != NULL;
   return woken;
}

int cb_pool_wait(cb_pool *p, double wait_s, cb_job_end *end)
{
   double until = cb_now() + wait_s;
   for (;;) {
      if (reap(p, end))
         return 1;
      enforce_limits(p);
      int ms = 200; /* limits are checked at least this often */
      if (wait_s >= 0) {
         double left = until - cb_now();
         if (left <= 0)
            return 0;
         if (left * 1000 < ms)
            ms = (int)(left * 1000) + 1;
      }
      if (sleep_poll(p, ms))
         return 0;
   }
}

void cb_pool_stop(cb_pool *p)
{
   double now = cb_now();
   for (int i = 0; i < p->n; i++) {
      slot *s = &p->slots[i];
      if (s->pid && !s->termed) {
         s->termed = 1;
         s->term_sent = now;
         signal_job(s, SIGTERM);
      }
   }
}

void cb_pool_kill_all(cb_pool *p)
{
   cb_pool_stop(p);
   double until = cb_now() + p->grace;
   cb_job_end e;
   while (cb_pool_running(p) > 0 && cb_now() < until)
      if (cb_pool_wait(p, 0.1, &e))
         free(e.result);
   for (int i = 0; i < p->n; i++) {
      slot *s = &p->slots[i];
      if (!s->pid)
         continue;
      signal_job(s, SIGKILL);
      int ws = 0;
      cb_wait(s->pid, &ws, 0);
      finish(s, ws, &e);
      free(e.result);
   }
}
