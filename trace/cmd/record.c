/* record.c: `cbtrace record`: runs a program under the cbtools tool and
 * encodes the tool's raw records (cb_wire.h) into a trace while it runs;
 * and `cbtrace encode`, the same encoding from a file of raw records (for
 * tests and for debugging the tool).
 *
 * The trace survives the program: cbtrace is a separate process, so an
 * abort, a segfault or a SIGKILL of the program only ends the stream; the
 * footer then says how the program ended and whether the tool saw the end.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cbtrace_cmd.h"
#include "launch.h"
#include "trace_internal.h"

static const char record_help[] =
    "usage: cbtrace record [-o trace.pb] [--instrument=WHAT] [--parent-first]\n"
    "                      -- PROG [ARGS...]\n"
    "Runs PROG under the cbtools Valgrind tool and writes its trace.\n"
    "  -o, --output FILE   the trace (default: trace.pb in this folder)\n"
    "  --parent-first      a new thread lets its creator run on for a while\n"
    "                      (it yields a few times) before its start routine:\n"
    "                      under Valgrind a new thread often runs first, the\n"
    "                      opposite of a native run (cbtest records a test\n"
    "                      whose recorded run failed again so)\n"
    "  --instrument=WHAT   which code is watched:\n"
    "      default  every object except the C runtime (libc, ld.so, libgcc,\n"
    "               libstdc++): a library under test is seen\n"
    "      main     the main executable only\n"
    "      all      every object, the C runtime included\n"
    "SIGINT and SIGTERM sent to cbtrace are passed on to the program.  The\n"
    "trace stays readable when the program crashes or is killed: everything\n"
    "the tool reported before that is kept.\n"
    "A program that deadlocks (every thread waits for a lock, a join, a\n"
    "condition, a semaphore or a barrier that only another waiting thread\n"
    "could give) is ended at once: cbtrace says which thread waits for what\n"
    "and who holds it, and the trace keeps it (cbtrace dump --header).\n"
    "Exit: the program's own exit status (128+N if signal N killed it);\n"
    "6 when the program deadlocked; 2 when cbtrace itself failed (usage,\n"
    "program missing or not executable, tool not built, trace not writable).\n";

static const char encode_help[] =
    "usage: cbtrace encode [-o trace.pb] RAW\n"
    "Encodes a file of raw tool records (proto/cb_wire.h: HELLO, LOCDEF,\n"
    "SYMDEF, events, END) into a trace, as `record` does while a program\n"
    "runs.  For tests and for debugging the tool.\n"
    "Exit: 0 the stream was whole (HELLO ... END); 3 it was cut short or\n"
    "broken (the trace holds what came before); 2 bad usage, unreadable\n"
    "input or unwritable output.\n";

/* ---- Signals: SIGCHLD wakes the loop; SIGINT/SIGTERM go to the child ---- */
static volatile sig_atomic_t child_pid;
static int sig_pipe[2] = {-1, -1};

static void on_chld(int sig)
{
   (void)sig;
   int e = errno;
   ssize_t w = write(sig_pipe[1], "c", 1);
   (void)w;
   errno = e;
}

static void on_term(int sig, siginfo_t *si, void *ctx)
{
   (void)ctx;
   /* A terminal's ^C already reached the child (same process group); pass
    * on only signals that were sent to cbtrace alone. */
   if (child_pid > 0 && (si->si_code == SI_USER || si->si_code == SI_QUEUE))
      kill(child_pid, sig);
}

static void install_signals(void)
{
   struct sigaction sa;
   memset(&sa, 0, sizeof sa);
   sa.sa_handler = on_chld;
   sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
   sigaction(SIGCHLD, &sa, NULL);
   memset(&sa, 0, sizeof sa);
   sa.sa_sigaction = on_term;
   sa.sa_flags = SA_RESTART | SA_SIGINFO;
   sigaction(SIGINT, &sa, NULL);
   sigaction(SIGTERM, &sa, NULL);
   sigaction(SIGHUP, &sa, NULL);
}

static int parse_output(int argc, char **argv, int *i, const char **out,
                        const char *sub)
{
   const char *a = argv[*i];
   if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
      if (*i + 1 >= argc) {
         cbt_error(sub, "%s needs a file name", a);
         return -1;
      }
      *out = argv[++*i];
      return 1;
   }
   if (!strncmp(a, "--output=", 9)) {
      *out = a + 9;
      return 1;
   }
   if (!strncmp(a, "-o", 2) && a[2]) {
      *out = a + 2;
      return 1;
   }
   return 0;
}

/* Drains whatever the pipe holds now, without waiting. */
static void drain_nonblocking(int fd, cb_wire_decoder *d, unsigned char *buf,
                              size_t len)
{
   int fl = fcntl(fd, F_GETFL);
   fcntl(fd, F_SETFL, fl | O_NONBLOCK);
   for (;;) {
      ssize_t n = read(fd, buf, len);
      if (n > 0)
         cb_wire_feed(d, buf, (size_t)n);
      else if (n < 0 && errno == EINTR)
         continue;
      else
         break;
   }
}

/* The deadlock the tool ended the run for, as the trace names things: its
 * locks and locations are defined in the trace, so it is read back. */
static void say_deadlock(const char *out, size_t nblocked)
{
   cb_trace t;
   cb_error err;
   static char line[16384];
   if (cb_trace_read(out, &t, &err) == 0 && t.footer.nblocked) {
      fprintf(stderr, "cbtrace: the program deadlocked: %s\n",
              cb_deadlock_str(&t, line, sizeof line));
      cb_trace_free(&t);
      return;
   }
   fprintf(stderr, "cbtrace: the program deadlocked: %zu threads wait for "
                   "each other (cbtrace dump --header %s says which)\n",
           nblocked, out);
}

/* --parent-first: the yields of a new thread before its start routine.
 * 20 let the creator reach its next system calls on an idle machine; on
 * a loaded one (load average 7) 1 recording in 3 of test 60's initorder
 * still ran the thread first.  A yield costs a few microseconds. */
#define PARENT_FIRST_YIELDS 100
static int parent_first;

/* The command line of `record`: 0 with *first the program's index, 1 after
 * --help, or CBTRACE_EXIT_USAGE after saying why. */
static int record_args(int argc, char **argv, const char **out,
                       const char **instrument, int *first)
{
   int i = 1;
   for (; i < argc; i++) {
      const char *a = argv[i];
      int k;
      if (!strcmp(a, "--")) {
         i++;
         break;
      }
      if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
         fputs(record_help, stdout);
         return 1;
      }
      if ((k = parse_output(argc, argv, &i, out, "record")) < 0)
         return CBTRACE_EXIT_USAGE;
      if (k)
         continue;
      if (!strncmp(a, "--instrument=", 13)) {
         *instrument = a + 13;
         continue;
      }
      if (!strcmp(a, "--parent-first")) {
         parent_first = 1;
         continue;
      }
      if (a[0] == '-') {
         cbt_error("record", "unknown option '%s' (try cbtrace record --help)",
                   a);
         return CBTRACE_EXIT_USAGE;
      }
      break; /* the program, without "--" */
   }
   if (i >= argc) {
      cbt_error("record", "no program given (try cbtrace record --help)");
      return CBTRACE_EXIT_USAGE;
   }
   if (!cb_instrument_words(*instrument)) {
      cbt_error("record", "--instrument=%s: expected default, main or all",
                *instrument);
      return CBTRACE_EXIT_USAGE;
   }
   if (!**out) {
      cbt_error("record", "empty output file name");
      return CBTRACE_EXIT_USAGE;
   }
   *first = i;
   return 0;
}

/* Checks program and tool, then creates the trace with its header; NULL
 * after saying why. */
static cb_writer *open_trace(const char *out, const char *instrument,
                             char **prog_argv, int prog_argc, char *resolved,
                             size_t len)
{
   cb_error err;
   if (cb_find_program(prog_argv[0], resolved, len, &err) < 0) {
      cbt_error("record", "%s", err.msg);
      return NULL;
   }
   char tooldir[PATH_MAX];
   if (cb_tool_dir(tooldir, sizeof tooldir, &err) < 0) {
      cbt_error("record", "%s", err.msg);
      return NULL;
   }
   cb_header h;
   if (cb_run_header(&h, resolved, prog_argv, prog_argc,
                     cb_instrument_words(instrument), &err) < 0) {
      cbt_error("record", "%s", err.msg);
      return NULL;
   }
   cb_writer *w = cb_writer_open(out, &h, &err);
   if (!w)
      cbt_error("record", "cannot write %s: %s", out, err.msg);
   return w;
}

/* Starts the program under the tool in record mode, its records on
 * data_w; its pid, or -1 after saying why. */
static pid_t start_program(const char *instrument, const char *resolved,
                           char **prog_argv, int prog_argc, int data_w)
{
   char fdopt[32], instopt[64], pfopt[48];
   snprintf(fdopt, sizeof fdopt, "--cb-out-fd=%d", data_w);
   snprintf(instopt, sizeof instopt, "--cb-instrument=%s", instrument);
   snprintf(pfopt, sizeof pfopt, "--cb-parent-first=%d",
            parent_first ? PARENT_FIRST_YIELDS : 0);
   const char *tool_args[] = {"--cb-mode=record", fdopt, instopt, pfopt, NULL};
   cb_launch l = {0};
   l.tool_args = tool_args;
   l.keep_fds[0] = data_w;
   l.nkeep = 1;
   char *spawn_argv[prog_argc + 1];
   spawn_argv[0] = (char *)resolved;
   for (int k = 1; k < prog_argc; k++)
      spawn_argv[k] = prog_argv[k];
   spawn_argv[prog_argc] = NULL;

   install_signals();
   cb_error err;
   pid_t pid = cb_tool_spawn(&l, spawn_argv, &err);
   if (pid < 0)
      cbt_error("record", "%s", err.msg);
   return pid;
}

/* Encodes the stream on fd while the program runs, until the tool closes
 * it or the program is reaped; returns the program's wait status. */
static int pump(int fd, pid_t pid, cb_wire_decoder *d, cb_writer *w)
{
   /* Large reads: fewer system calls, and long runs of records for the
    * writer's loop. */
   static unsigned char buf[1 << 20];
   int status = 0, reaped = 0;
   double last_flush = cb_now();
   for (;;) {
      struct pollfd p[2] = {{fd, POLLIN, 0}, {sig_pipe[0], POLLIN, 0}};
      int n = poll(p, 2, 1000);
      if (n < 0 && errno != EINTR)
         break;
      if (n > 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR))) {
         ssize_t r = read(fd, buf, sizeof buf);
         if (r > 0)
            cb_wire_feed(d, buf, (size_t)r);
         else if (r == 0 || errno != EINTR)
            break; /* the tool closed the stream: the program has ended */
      }
      if (n > 0 && (p[1].revents & POLLIN)) {
         char c[64];
         while (read(sig_pipe[0], c, sizeof c) > 0)
            ;
         if (waitpid(pid, &status, WNOHANG) == pid) {
            /* A forked child of the program may still hold the stream
             * open: take what is there and stop. */
            reaped = 1;
            drain_nonblocking(fd, d, buf, sizeof buf);
            break;
         }
      }
      /* Keep the file current, so that even a SIGKILL of cbtrace itself
       * loses at most about a second of events. */
      if (cb_now() - last_flush >= 1.0) {
         if (!d->write_failed && cb_writer_flush(w, &d->write_err) < 0)
            d->write_failed = 1;
         last_flush = cb_now();
      }
   }
   if (!reaped && cb_wait(pid, &status, 0) != pid)
      status = 0;
   return status;
}

/* Ends the trace with how the program ended; the exit status of record. */
static int close_trace(cb_writer *w, const char *out, cb_wire_decoder *d,
                       int status)
{
   cb_error err;
   cb_footer f = {0};
   f.present = 1;
   f.tool_ended = d->end_seen && !d->broken;
   f.blocked = d->blocked;
   f.nblocked = d->nblocked;
   int rc = CBTRACE_EXIT_DEADLOCK;
   if (!d->nblocked) { /* else the tool ended it: no status of the program's */
      f.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
      f.exit_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
      rc = cb_wait_status_code(status);
   }
   if (d->write_failed) {
      cbt_error("record", "writing %s: %s", out, d->write_err.msg);
      cb_writer_close(w, NULL, &err);
      rc = CBTRACE_EXIT_USAGE;
   } else if (cb_writer_close(w, &f, &err) < 0) {
      cbt_error("record", "writing %s: %s", out, err.msg);
      rc = CBTRACE_EXIT_USAGE;
   }
   if (!d->hello_seen && !d->broken && !WIFSIGNALED(status))
      cbt_error("record", "warning: the tool sent nothing: the trace has no "
                          "events (did Valgrind start the program?)");
   cbt_wire_report(d, "record");
   /* The tool sends END when the process ends by itself; without it an
    * exit status may be Valgrind's own (an assertion of its exits 1). */
   if (d->hello_seen && !d->end_seen && !d->broken && !d->nblocked &&
       WIFEXITED(status))
      cbt_error("record", "warning: the tool's stream has no END: Valgrind or "
                          "the tool stopped before the program ended (its "
                          "message is above), unless the program replaced "
                          "itself by exec; exit %d may not be the program's",
                WEXITSTATUS(status));
   if (d->nblocked && rc == CBTRACE_EXIT_DEADLOCK)
      say_deadlock(out, d->nblocked);
   return rc;
}

int cmd_record(int argc, char **argv)
{
   const char *out = "trace.pb", *instrument = "default";
   int first = 0;
   int rc = record_args(argc, argv, &out, &instrument, &first);
   if (rc)
      return rc == 1 ? CBTRACE_EXIT_OK : rc;
   char **prog_argv = argv + first;
   int prog_argc = argc - first;
   char resolved[PATH_MAX];
   cb_writer *w = open_trace(out, instrument, prog_argv, prog_argc, resolved,
                             sizeof resolved);
   if (!w)
      return CBTRACE_EXIT_USAGE;

   cb_error err;
   int data[2];
   if (pipe2(data, O_CLOEXEC) < 0 || pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
      cbt_error("record", "pipe: %s", strerror(errno));
      cb_writer_close(w, NULL, &err);
      unlink(out);
      return CBTRACE_EXIT_USAGE;
   }
   /* A 1 MiB pipe (the default is 64 KiB, one write of the tool): the
    * tool blocks only when cbtrace falls that far behind, not whenever it
    * is descheduled for a moment.  Best effort: the limit is
    * /proc/sys/fs/pipe-max-size. */
   fcntl(data[0], F_SETPIPE_SZ, 1 << 20);
   pid_t pid = start_program(instrument, resolved, prog_argv, prog_argc,
                             data[1]);
   if (pid < 0) {
      cb_writer_close(w, NULL, &err);
      unlink(out);
      return CBTRACE_EXIT_USAGE;
   }
   child_pid = pid;
   close(data[1]);

   cb_wire_decoder d;
   cb_wire_init(&d, w);
   int status = pump(data[0], pid, &d, w);
   child_pid = 0;
   close(data[0]);
   cb_wire_finish(&d);
   rc = close_trace(w, out, &d, status);
   cb_wire_free(&d);
   return rc;
}

/* The command line of `encode`, as record_args. */
static int encode_args(int argc, char **argv, const char **out,
                       const char **in)
{
   for (int i = 1; i < argc; i++) {
      int k;
      if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
         fputs(encode_help, stdout);
         return 1;
      }
      if ((k = parse_output(argc, argv, &i, out, "encode")) < 0)
         return CBTRACE_EXIT_USAGE;
      if (k)
         continue;
      if (argv[i][0] == '-' && argv[i][1]) {
         cbt_error("encode", "unknown option '%s' (try cbtrace encode --help)",
                   argv[i]);
         return CBTRACE_EXIT_USAGE;
      }
      if (*in) {
         cbt_error("encode", "one input at a time");
         return CBTRACE_EXIT_USAGE;
      }
      *in = argv[i];
   }
   if (!*in) {
      cbt_error("encode", "no input given (try cbtrace encode --help)");
      return CBTRACE_EXIT_USAGE;
   }
   return 0;
}

int cmd_encode(int argc, char **argv)
{
   const char *out = "trace.pb", *in = NULL;
   int args = encode_args(argc, argv, &out, &in);
   if (args)
      return args == 1 ? CBTRACE_EXIT_OK : args;
   int fd = !strcmp(in, "-") ? 0 : open(in, O_RDONLY | O_CLOEXEC);
   if (fd < 0) {
      cbt_error("encode", "%s: %s", in, strerror(errno));
      return CBTRACE_EXIT_USAGE;
   }
   cb_header h = {0};
   h.program = "";
   h.tool_version = "cbtools " CB_TOOLS_VERSION " (encoded from raw records)";
   h.instrumented = "";
   h.trace_id = cb_random_id();
   h.start_time_unix = (uint64_t)time(NULL);
   cb_error err;
   cb_writer *w = cb_writer_open(out, &h, &err);
   if (!w) {
      cbt_error("encode", "cannot write %s: %s", out, err.msg);
      if (fd)
         close(fd);
      return CBTRACE_EXIT_USAGE;
   }
   cb_wire_decoder d;
   cb_wire_init(&d, w);
   static unsigned char buf[1 << 20];
   int rc = CBTRACE_EXIT_OK;
   for (;;) {
      ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR)
         continue;
      if (n < 0) {
         cbt_error("encode", "%s: %s", in, strerror(errno));
         rc = CBTRACE_EXIT_USAGE;
         break;
      }
      if (n == 0)
         break;
      cb_wire_feed(&d, buf, (size_t)n);
   }
   if (fd)
      close(fd);
   cb_wire_finish(&d);
   cb_footer f = {.present = 1, .tool_ended = d.end_seen && !d.broken,
                  .blocked = d.blocked, .nblocked = d.nblocked};
   if (d.write_failed) {
      cbt_error("encode", "writing %s: %s", out, d.write_err.msg);
      cb_writer_close(w, NULL, &err);
      rc = CBTRACE_EXIT_USAGE;
   } else if (cb_writer_close(w, &f, &err) < 0) {
      cbt_error("encode", "writing %s: %s", out, err.msg);
      rc = CBTRACE_EXIT_USAGE;
   }
   cbt_wire_report(&d, "encode");
   if (rc == CBTRACE_EXIT_OK && (!d.end_seen || d.broken)) {
      if (!d.hello_seen && !d.broken)
         cbt_error("encode", "warning: %s: no HELLO record: not a raw tool "
                             "stream",
                   in);
      else if (!d.end_seen && !d.broken)
         cbt_error("encode", "warning: %s: no END record: the stream was cut "
                             "short",
                   in);
      rc = CBTRACE_EXIT_TRUNCATED;
   }
   cb_wire_free(&d);
   return rc;
}
