/* launch.c: finding the tool and starting a program under it (launch.h).
 * The only place that knows the tool's folder and Valgrind's options; the
 * process itself is started by cb_spawn (spawn.c).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"
#include "trace_internal.h"

#define TOOL_FILE "cbtools-amd64-linux"

int cb_tool_dir(char *buf, size_t len, cb_error *err)
{
   const char *env = getenv("CBTOOLS_LIB");
   char dir[PATH_MAX];
   if (env && *env) {
      if ((size_t)snprintf(dir, sizeof dir, "%s", env) >= sizeof dir)
         return cb_fail(err, "CBTOOLS_LIB is too long");
   } else {
      char exe[PATH_MAX];
      ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
      if (n < 0)
         return cb_fail(err, "cannot find my own path: %s", strerror(errno));
      exe[n] = 0;
      char *slash = strrchr(exe, '/');
      if (slash)
         *slash = 0;
      if ((size_t)snprintf(dir, sizeof dir, "%s/../lib/cbtools", exe) >=
          sizeof dir)
         return cb_fail(err, "path of the tool folder is too long");
   }
   char tool[PATH_MAX + 32];
   snprintf(tool, sizeof tool, "%s/%s", dir, TOOL_FILE);
   if (access(tool, R_OK | X_OK) != 0)
      return cb_fail(err, "the cbtools Valgrind tool is not built (%s: %s); "
                          "run make",
                     tool, strerror(errno));
   char real[PATH_MAX];
   const char *use = realpath(dir, real) ? real : dir;
   if ((size_t)snprintf(buf, len, "%s", use) >= len)
      return cb_fail(err, "path of the tool folder is too long");
   return 0;
}

static int check_file(const char *path, const char *prog, cb_error *err)
{
   struct stat st;
   if (stat(path, &st) != 0)
      return cb_fail(err, "%s: no such program", prog);
   if (S_ISDIR(st.st_mode))
      return cb_fail(err, "%s: is a directory, not a program", prog);
   if (access(path, X_OK) != 0)
      return cb_fail(err, "%s: not executable", prog);
   return 0;
}

int cb_find_program(const char *prog, char *resolved, size_t len,
                    cb_error *err)
{
   if (!prog || !*prog)
      return cb_fail(err, "no program given");
   if (strchr(prog, '/')) {
      if (check_file(prog, prog, err) < 0)
         return -1;
      if ((size_t)snprintf(resolved, len, "%s", prog) >= len)
         return cb_fail(err, "%s: path too long", prog);
      return 0;
   }
   const char *path = getenv("PATH");
   if (!path || !*path)
      path = "/usr/local/bin:/usr/bin:/bin";
   int seen_not_exec = 0;
   while (*path) {
      const char *end = strchr(path, ':');
      size_t dl = end ? (size_t)(end - path) : strlen(path);
      char cand[PATH_MAX];
      if (dl == 0)
         snprintf(cand, sizeof cand, "./%s", prog);
      else
         snprintf(cand, sizeof cand, "%.*s/%s", (int)dl, path, prog);
      struct stat st;
      if (stat(cand, &st) == 0 && !S_ISDIR(st.st_mode)) {
         if (access(cand, X_OK) == 0) {
            if ((size_t)snprintf(resolved, len, "%s", cand) >= len)
               return cb_fail(err, "%s: path too long", prog);
            return 0;
         }
         seen_not_exec = 1;
      }
      path += dl;
      if (*path == ':')
         path++;
   }
   return cb_fail(err, "%s: %s", prog,
                  seen_not_exec ? "not executable" : "no such program");
}

pid_t cb_tool_spawn(const cb_launch *l, char *const prog_argv[], cb_error *err)
{
   char dir[PATH_MAX];
   if (cb_tool_dir(dir, sizeof dir, err) < 0)
      return -1;
   size_t nt = 0, np = 0;
   while (l->tool_args && l->tool_args[nt])
      nt++;
   while (prog_argv[np])
      np++;
   const char **argv = calloc(nt + np + 10, sizeof *argv);
   if (!argv) {
      cb_fail(err, "out of memory");
      return -1;
   }
   size_t a = 0;
   argv[a++] = "valgrind";
   argv[a++] = "--tool=cbtools";
   argv[a++] = "-q";
   argv[a++] = "--fair-sched=yes";
   /* Locations name the innermost inlined function (vgtool/cb_output.c). */
   argv[a++] = "--read-inline-info=yes";
   /* No gdbserver: nobody attaches gdb to these runs, and a Valgrind killed
    * (a hung forced run, an interrupted cbreplay) would leave its three
    * vgdb-pipe-* files in $TMPDIR. */
   argv[a++] = "--vgdb=no";
   /* A forced run's gate (vgtool/cb_emit.c) leaves a superblock by a side
    * exit that retries the instruction later, so the guest registers must
    * be exact at every instruction, not only at memory accesses: the
    * optimiser folds a function's `sub $8,%rsp` into its `call`'s own
    * update of %rsp, and a gate at the call that said "not yet" then
    * retried it with %rsp 8 bytes too high: the function returned to
    * whatever lay there (blind trial 19's correct mailbox, a sensor
    * thread held after its usleep, died of SIGSEGV at address 0 in every
    * forced run and was reported as a bug).  No cost measured: 100,000
    * forced switches 0.91-0.94 s either way, a spin ring's forced run
    * 7.36-7.54 s against 7.48-7.49. */
   if (l->replay)
      argv[a++] = "--px-default=allregs-at-each-insn";
   /* The variables of the objects the tool watches: data is named as the
    * source names it (vgtool/cb_names.c) when records go out, and a local
    * handed to pthread_create is shared whole (vgtool/cb_stacks.c), which
    * a forced run must do as its recording did, so every run reads them.
    * Start-up cost: lost in the noise for a small program (spin_slot -O2,
    * 0.81-0.89 s with against 0.81-1.05 s without), 0.07-0.08 s for a
    * 1.3 MB program built with -g (cbpredict itself: 0.37-0.39 s against
    * 0.30-0.31 s, 3 rounds), paid by every forced run. */
   argv[a++] = "--read-var-info=yes";
   for (size_t i = 0; i < nt; i++)
      argv[a++] = l->tool_args[i];
   argv[a++] = "--";
   for (size_t i = 0; i < np; i++)
      argv[a++] = prog_argv[i];
   argv[a] = NULL;

   cb_spawn_spec s = CB_SPAWN_SPEC_INIT;
   s.argv = (char *const *)argv;
   s.search_path = 1;
   s.keep_fds = l->keep_fds;
   s.nkeep = l->nkeep;
   s.env_name = "VALGRIND_LIB";
   s.env_value = dir;
   /* A forced run on one CPU: Valgrind runs one thread at a time anyway,
    * and each forced switch is then a hand-over on one CPU, not a wake-up
    * of an idle one (bench-replay on an idle machine: 100,000 switches in
    * 0.88 s pinned, 2.7 s free; with both CPUs busy 1.1-1.5 s against
    * 2.7-3.7 s).  Not a recording: cbtrace encodes the stream beside it. */
   if (l->replay)
      s.pin_cpu = cb_this_cpu();
   pid_t pid = cb_spawn(&s, err); /* "cannot run valgrind: ..." */
   free(argv);
   return pid < 0 ? -1 : pid;
}

/* The words a trace's header keeps for each --instrument=WHAT; the option
 * is the first word, so that replay can find it again. */
static const char *const instrument_table[][2] = {
   {"default", "default: every object except the C runtime (libc, ld.so, "
               "libgcc, libstdc++)"},
   {"main", "main: the main executable only"},
   {"all", "all: every object, the C runtime included"},
};
enum { NINSTRUMENT = sizeof instrument_table / sizeof *instrument_table };

const char *cb_instrument_words(const char *what)
{
   for (int i = 0; i < NINSTRUMENT; i++)
      if (!strcmp(what, instrument_table[i][0]))
         return instrument_table[i][1];
   return NULL;
}

const char *cb_instrument_option(const char *words, char *buf, size_t len)
{
   const char *colon = words ? strchr(words, ':') : NULL;
   size_t n = colon ? (size_t)(colon - words) : 0;
   if (n >= len || strcspn(words, " ") < n)
      n = 0; /* not "WORD: ...": not words of the tool's */
   memcpy(buf, words, n);
   buf[n] = 0;
   return buf;
}

uint64_t cb_random_id(void)
{
   uint64_t id = 0;
   if (getrandom(&id, sizeof id, 0) != (ssize_t)sizeof id) {
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      id = ((uint64_t)ts.tv_sec * 1000000007ull) ^ (uint64_t)ts.tv_nsec ^
           ((uint64_t)getpid() << 32);
   }
   return id;
}

int cb_run_header(cb_header *h, const char *resolved, char *const prog_argv[],
                  int prog_argc, const char *words, cb_error *err)
{
   memset(h, 0, sizeof *h);
   h->format_version = CB_TRACE_FORMAT_VERSION;
   h->program = prog_argv[0];
   h->argc = prog_argc;
   h->argv = (const char **)prog_argv;
   h->tool_version = "cbtools " CB_TOOLS_VERSION " (wire version 1)";
   h->instrumented = words;
   h->trace_id = cb_random_id();
   h->start_time_unix = (uint64_t)time(NULL);
   cb_error why;
   if (cb_file_digest(resolved, &h->program_digest, &why) < 0)
      return cb_fail(err, "%s: %s", prog_argv[0], why.msg);
   return 0;
}
