/* run_one.c: one forced run: spawn the program under the tool in replay
 * mode (keeper.c), watch its status lines and its stderr, time it out, and
 * have it judged (judge.c).
 *
 * The run's stderr (the program's and Valgrind's) comes through a pipe:
 * cbreplay passes it on to its own stderr as it arrives (unless the caller
 * captures it, as --all does) and keeps its last lines, which a report
 * shows when Valgrind or the tool died.
 *
 * Hang detection.  A run is hung when it has not ended --timeout seconds
 * after the last scheduling fact the tool reported (the start, prefix-done,
 * step K N, tail-done, released, infeasible): that is --timeout after the
 * release for a run that reached it.  The tool itself guarantees that a
 * plan it cannot follow is released after --stall-ms, so a hang is the
 * program's own livelock, or a deadlock through waits the tool does not
 * see (a thread in read(), a futex by hand): a deadlock among locks,
 * joins, conditions, semaphores and barriers the tool ends at once
 * ("end deadlock", judged deadlock), without waiting for --timeout.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"
#include "replay.h"

/* ---- Watching ------------------------------------------------------------- */

typedef struct {
   const cbr_options *o;
   cbr_result *r;
   char line[1024];
   size_t have;
   int got_wait, wstatus;
   int spawn_failed;
   double last_progress;
   int pass_stderr;           /* copy the run's stderr to ours */
   char tail[sizeof ((cbr_result *)0)->stderr_tail];
   size_t tail_len;
   int tail_cut;              /* the tail lost its beginning */
} watch;

static void handle_line(watch *w, const char *line)
{
   if (w->o->verbose && strncmp(line, "cbreplay-", 9) != 0)
      fprintf(stderr, "cbreplay: tool: %s\n", line);
   if (strncmp(line, "cbreplay-pid ", 13) == 0) {
      cbr_keeper_vgpid(atoi(line + 13));
   } else if (strncmp(line, "cbreplay-wait ", 14) == 0) {
      w->got_wait = 1;
      w->wstatus = atoi(line + 14);
      cbr_keeper_vgpid(0);
   } else if (strncmp(line, "cbreplay-error ", 15) == 0) {
      w->spawn_failed = 1;
      snprintf(w->r->error, sizeof w->r->error, "%s", line + 15);
   } else {
      cbr_status *st = &w->r->status;
      st->progress = 0;
      cbr_status_line(st, line);
      if (st->progress)
         w->last_progress = cb_now();
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

static void keep_tail(watch *w, const char *buf, size_t n)
{
   size_t cap = sizeof w->tail - 1;
   if (n >= cap) {
      memcpy(w->tail, buf + n - cap, cap);
      w->tail_len = cap;
      w->tail_cut = 1;
      return;
   }
   if (w->tail_len + n > cap) {
      size_t drop = w->tail_len + n - cap;
      memmove(w->tail, w->tail + drop, w->tail_len - drop);
      w->tail_len -= drop;
      w->tail_cut = 1;
   }
   memcpy(w->tail + w->tail_len, buf, n);
   w->tail_len += n;
}

/* Like read_status, for the run's stderr. */
static int read_stderr(watch *w, int fd)
{
   char buf[4096];
   ssize_t n = read(fd, buf, sizeof buf);
   if (n == 0)
      return 0;
   if (n < 0)
      return errno == EINTR || errno == EAGAIN ? 2 : 0;
   if (w->pass_stderr) {
      ssize_t off = 0;
      while (off < n) {
         ssize_t k = write(2, buf + off, (size_t)(n - off));
         if (k < 0 && errno == EINTR)
            continue;
         if (k <= 0)
            break;
         off += k;
      }
   }
   keep_tail(w, buf, (size_t)n);
   return 1;
}

/* The tail from its first whole line. */
static void finish_tail(const watch *w, char *out, size_t len)
{
   size_t from = 0;
   if (w->tail_cut) {
      const char *nl = memchr(w->tail, '\n', w->tail_len);
      if (nl)
         from = (size_t)(nl - w->tail) + 1;
   }
   size_t n = w->tail_len - from;
   if (n >= len)
      n = len - 1;
   memcpy(out, w->tail + from, n);
   out[n] = 0;
}

/* Polls the status and stderr pipes until the keeper is reaped or the run
 * times out (then kills it).  fds[i] < 0 once closed.  Returns 1 when it
 * killed the run. */
static int watch_run(watch *w, pid_t kid, int fds[2], int *ks)
{
   for (;;) {
      double now = cb_now();
      double deadline = w->last_progress + w->o->timeout_s;
      if (now >= deadline) {
         cbr_kill_run();
         while (waitpid(kid, ks, 0) < 0 && errno == EINTR)
            ;
         return 1;
      }
      struct pollfd p[2] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}};
      double wait_ms = (deadline - now) * 1000;
      int ms = wait_ms > 100 ? 100 : (int)wait_ms + 1;
      if (fds[0] < 0 && fds[1] < 0) {
         /* Both pipes closed but the keeper has not been reaped yet. */
         struct timespec nap = {0, 2 * 1000 * 1000};
         nanosleep(&nap, NULL);
      } else if (poll(p, 2, ms) > 0) {
         if (p[0].revents && !read_status(w, fds[0])) {
            close(fds[0]);
            fds[0] = -1;
         }
         if (p[1].revents && !read_stderr(w, fds[1])) {
            close(fds[1]);
            fds[1] = -1;
         }
      }
      if (waitpid(kid, ks, WNOHANG) == kid)
         return 0;
   }
}

/* --record: a run that cannot be recorded still has its verdict. */
static void record(const cbr_options *o, const char *raw, const cbr_result *r)
{
   cb_error err;
   if (cbr_record_trace(o, raw, r, &err) != 0)
      fprintf(stderr, "cbreplay: cannot record the run in %s: %s\n",
              o->record, err.msg);
}

/* ---- One run ---------------------------------------------------------------- */

static int open_out(const char *path)
{
   return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

static void close_fd(int *fd)
{
   if (*fd >= 0)
      close(*fd);
   *fd = -1;
}

/* The output files of a run and the pipes; -1 when not open. */
typedef struct {
   char dir[PATH_MAX], plan[PATH_MAX + 16], outp[PATH_MAX + 16];
   char events[PATH_MAX + 16]; /* --record without --events-out */
   int statusp[2], errp[2], in_fd, out_fd, events_fd;
} run_files;

static int open_files(const cbr_options *o, const cbr_io *io,
                      const cbr_schedule *cs, unsigned variant, run_files *f,
                      cbr_result *r)
{
   cb_error err;
   const char *tmp = getenv("TMPDIR");
   snprintf(f->dir, sizeof f->dir, "%s/cbreplay.XXXXXX",
            tmp && *tmp ? tmp : "/tmp");
   if (!mkdtemp(f->dir)) {
      snprintf(r->error, sizeof r->error, "cannot create a temporary folder "
               "in %s: %s", tmp && *tmp ? tmp : "/tmp", strerror(errno));
      f->dir[0] = 0;
      return -1;
   }
   snprintf(f->plan, sizeof f->plan, "%s/plan", f->dir);
   snprintf(f->outp, sizeof f->outp, "%s/stdout", f->dir);
   if (cbr_write_plan(f->plan, cs->s, variant, o->stall_ms, &err) != 0) {
      snprintf(r->error, sizeof r->error, "%s", err.msg);
      return -1;
   }
   if (io->capture_stdout && (f->out_fd = open_out(f->outp)) < 0) {
      snprintf(r->error, sizeof r->error, "cannot create %.300s: %s", f->outp,
               strerror(errno));
      return -1;
   }
   /* Every run reads the same input from its start (--stdin FILE), or
    * cbreplay's own ("-", one schedule only). */
   if (strcmp(o->stdin_path, "-") != 0 &&
       (f->in_fd = open(o->stdin_path, O_RDONLY | O_CLOEXEC)) < 0) {
      snprintf(r->error, sizeof r->error, "cannot read --stdin %s: %s",
               o->stdin_path, strerror(errno));
      return -1;
   }
   if (o->events_out && (f->events_fd = open_out(o->events_out)) < 0) {
      snprintf(r->error, sizeof r->error, "cannot create --events-out %s: %s",
               o->events_out, strerror(errno));
      return -1;
   }
   /* --record: the raw stream goes to a file, encoded after the run. */
   if (o->record && !o->events_out) {
      snprintf(f->events, sizeof f->events, "%s/events", f->dir);
      if ((f->events_fd = open_out(f->events)) < 0) {
         snprintf(r->error, sizeof r->error, "cannot create %.300s: %s",
                  f->events, strerror(errno));
         f->events[0] = 0;
         return -1;
      }
   }
   if (pipe2(f->statusp, O_CLOEXEC) != 0 || pipe2(f->errp, O_CLOEXEC) != 0) {
      snprintf(r->error, sizeof r->error, "pipe: %s", strerror(errno));
      return -1;
   }
   return 0;
}

static void close_files(run_files *f)
{
   close_fd(&f->statusp[0]);
   close_fd(&f->statusp[1]);
   close_fd(&f->errp[0]);
   close_fd(&f->errp[1]);
   close_fd(&f->in_fd);
   close_fd(&f->out_fd);
   close_fd(&f->events_fd);
   if (f->dir[0]) {
      unlink(f->plan);
      unlink(f->outp);
      if (f->events[0])
         unlink(f->events);
      rmdir(f->dir);
   }
}

static void init_result(const cbr_schedule *cs, unsigned variant,
                        cbr_result *r)
{
   cb_sched_step *const *tail;
   size_t ntail = 0;
   const char *name;
   memset(r, 0, sizeof *r);
   cbr_status_init(&r->status);
   r->verdict = CBR_ERROR;
   r->exit_code = -1;
   r->check_code = -1;
   r->variant = variant;
   r->variants_tried = 1;
   r->nvariants = (unsigned)cb_schedule_nvariants(cs->s);
   if (cb_schedule_variant(cs->s, variant, &tail, &ntail, &name) == 0)
      r->nsteps = (unsigned)ntail;
}

/* After the run: the check command, the divergence and the names in
 * words, the verdict, and the recorded trace (--record).  ks: how the
 * keeper process ended. */
static void judge_run(const cbr_options *o, const cbr_schedule *cs,
                      unsigned variant, const run_files *f, const watch *w,
                      cbr_ending *e, int ks, cbr_result *r)
{
   if (!e->killed && !w->got_wait) {
      snprintf(r->error, sizeof r->error, "lost track of the run (the "
               "process that waits for Valgrind ended with status %d)",
               cb_wait_status_code(ks));
      return;
   }
   e->wstatus = w->wstatus;
   if (!e->killed && o->check && cbr_exit_normal(e, &r->status)) {
      int to = o->json || o->all ? 2 : 1;
      r->check_code = cbr_run_check(o->check, f->outp, to, o->timeout_s);
      if (r->check_code < 0) {
         snprintf(r->error, sizeof r->error, "cannot run --check '%s'",
                  o->check);
         return;
      }
   }
   if (r->status.unexpected) {
      cbr_describe_divergence(cs->s, variant, &r->status);
      cbr_divergence_spoils_pattern(cs->s, &r->status);
   }
   cbr_plan_values_by_role(cs->s, &r->status);
   cbr_name_blocked(cs->s, &r->status);
   cbr_judge(o, e, r);
   if (o->record)
      record(o, f->events[0] ? f->events : o->events_out, r);
}

int cbr_run_one(const cbr_options *o, const cbr_io *io,
                const cbr_schedule *cs, unsigned variant, cbr_result *r)
{
   run_files f = {.statusp = {-1, -1}, .errp = {-1, -1}, .in_fd = -1,
                  .out_fd = -1, .events_fd = -1};
   watch w;
   init_result(cs, variant, r);
   memset(&w, 0, sizeof w);
   w.o = o;
   w.r = r;
   w.pass_stderr = !io->capture_stderr;
   r->stderr_shown = w.pass_stderr;

   double start = cb_now();
   /* From before its temporary folder exists to after it is gone, a
    * signal that ends cbreplay kills the run and removes the folder. */
   cbr_catch_signals();
   cbr_remove_on_signal(f.plan, f.outp, f.events, f.dir);
   if (open_files(o, io, cs, variant, &f, r) != 0)
      goto out;
   pid_t kid = cbr_start_keeper(o, f.plan, f.statusp[1], f.in_fd, f.out_fd,
                                f.errp[1], f.events_fd);
   if (kid < 0) {
      snprintf(r->error, sizeof r->error, "fork: %s", strerror(errno));
      goto out;
   }
   close_fd(&f.statusp[1]);
   close_fd(&f.errp[1]);
   fcntl(f.statusp[0], F_SETFL, O_NONBLOCK);
   fcntl(f.errp[0], F_SETFL, O_NONBLOCK);

   w.last_progress = start;
   int fds[2] = {f.statusp[0], f.errp[0]}, ks;
   cbr_ending e = {.recorded_exit = cs->recorded_exit, .cure = cs->s->cure};
   e.killed = watch_run(&w, kid, fds, &ks);
   /* Whatever is left in the pipes: the keeper's last line, the tool's, and
    * what the program wrote last (not what a child it left behind writes
    * later: the reads do not wait). */
   while (fds[0] >= 0 && read_status(&w, fds[0]) == 1)
      ;
   while (fds[1] >= 0 && read_stderr(&w, fds[1]) == 1)
      ;
   f.statusp[0] = fds[0];
   f.errp[0] = fds[1];
   cbr_keeper_gone();
   r->seconds = cb_now() - start;
   finish_tail(&w, r->stderr_tail, sizeof r->stderr_tail);

   if (!w.spawn_failed)
      judge_run(o, cs, variant, &f, &w, &e, ks, r);

out:
   close_files(&f);
   cbr_remove_on_signal(NULL, NULL, NULL, NULL);
   cbr_restore_signals();
   if (r->seconds == 0)
      r->seconds = cb_now() - start;
   return r->verdict == CBR_ERROR ? -1 : 0;
}
