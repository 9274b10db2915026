/* cbtest_wrap.c: `cbtest --wrap -- PROG ARGS`, one test as the user's test
 * runner (meson, automake, ctest, prove) runs it.
 *
 * To the runner it must look like the test itself: its stdout and stderr
 * are the recorded run's (prove reads TAP from stdout), and its exit status
 * is the test's own (0, 77 for skip, 1, a signal raised again) unless a
 * forced run confirmed a bug, which exits 1.  cbtest's own words go to
 * stderr after the test's.  When cbtools cannot run the test at all (a tool
 * failure, a missing stage) the test is run plainly, so that a problem of
 * cbtools never turns into a false test failure; stderr says so.
 *
 * Results go to REPORT_DIR/tests/NAME/, NAME made from the command.  Many
 * wrapped tests run at once under a parallel runner: mkdir(2) claims a
 * folder name exclusively (NAME, NAME-2, ... when taken), and every file in
 * it is written by this process only, through a temporary name and rename.
 * `cbtest --merge REPORT_DIR` makes the report of the whole suite.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cbtest.h"
#include "spawn.h"

/* The test's status as the runner should see it: exit N, or death by the
 * same signal (128+N is how cbtrace reports one). */
static int pass_through(int code)
{
   fflush(stdout);
   fflush(stderr);
   if (code > 128 && code < 128 + 32) {
      cbt_private_tmp_remove(); /* no atexit after a signal */
      cb_die_of_signal(code - 128);
   }
   return code;
}

/* The test without cbtools: its own stdio, its own status. */
static int run_plainly(char **argv, const char *why)
{
   fprintf(stderr, "cbtest: %s; running the test without cbtools\n", why);
   fflush(stderr);
   cb_spawn_spec sp = CB_SPAWN_SPEC_INIT;
   sp.argv = argv;
   sp.search_path = 1;
   cb_error err;
   pid_t pid = cb_spawn(&sp, &err);
   if (pid == -2) { /* "cannot run PROG: why", as a shell would fail */
      fprintf(stderr, "cbtest: %s\n", err.msg);
      return pass_through(127);
   }
   if (pid < 0) {
      fprintf(stderr, "cbtest: cannot start %s: %s\n", argv[0],
              strerror(errno));
      return CBT_EXIT_USAGE;
   }
   int st = 0;
   cb_wait(pid, &st, 0);
   return pass_through(cb_wait_status_code(st));
}

/* A folder name from the command: the program's base name and the
 * arguments, in safe characters, cut at 64. */
static void wrap_name(char **argv, char *buf, size_t len)
{
   size_t n = 0;
   for (int a = 0; argv[a] && n + 2 < len && n < 64; a++) {
      const char *w = argv[a];
      if (a == 0) {
         const char *slash = strrchr(w, '/');
         w = slash ? slash + 1 : w;
      } else {
         buf[n++] = '_';
      }
      for (; *w && n + 1 < len && n < 64; w++)
         buf[n++] = (strchr("-_.+", *w) || (*w >= '0' && *w <= '9') ||
                     (*w >= 'a' && *w <= 'z') || (*w >= 'A' && *w <= 'Z'))
                       ? *w
                       : '_';
   }
   buf[n] = 0;
   if (!n)
      cbt_fmt(buf, len, "test");
   if (buf[0] == '.') /* never "." or "..", never hidden */
      buf[0] = '_';
   /* NNN-NAME is what a plain cbtest run removes as its own old work. */
   size_t digits = strspn(buf, "0123456789");
   if (digits && buf[digits] == '-') {
      char tmp[96];
      cbt_fmt(tmp, sizeof tmp, "%s", buf);
      cbt_fmt(buf, len, "t-%s", tmp);
   }
}

/* Claims REPORT/tests/NAME (or NAME-2, ...) for this process. */
static int claim_folder(const char *out_dir, char **argv, char *dir,
                        size_t len)
{
   char name[80], tests[PATH_MAX];
   wrap_name(argv, name, sizeof name);
   cbt_fmt(tests, sizeof tests, "%s/tests", out_dir);
   if (cbt_mkdir_p(tests) != 0)
      return -1;
   for (int k = 1; k < 100000; k++) {
      if (k == 1)
         cbt_fmt(dir, len, "%s/%s", tests, name);
      else
         cbt_fmt(dir, len, "%s/%s-%d", tests, name, k);
      if (mkdir(dir, 0755) == 0)
         return 0;
      if (errno != EEXIST)
         return -1;
   }
   errno = EEXIST;
   return -1;
}

/* The recorded run's output, as the test's own. */
static void copy_file(const char *path, FILE *to)
{
   FILE *f = fopen(path, "r");
   if (!f)
      return;
   char buf[65536];
   size_t n;
   while ((n = fread(buf, 1, sizeof buf, f)) > 0)
      fwrite(buf, 1, n, to);
   fclose(f);
   fflush(to);
}

static int set_up(const cbt_options *o, cbt_suite *s, char *why, size_t len)
{
   if (cbt_find_siblings(s) != 0) {
      cbt_fmt(why, len, "the cbtools stages are missing");
      return -1;
   }
   char dir[PATH_MAX];
   if (cbt_mkdir_p(o->out_dir) != 0 || !realpath(o->out_dir, s->out_dir) ||
       strlen(s->out_dir) > PATH_MAX - 512 ||
       claim_folder(s->out_dir, o->prog_argv, dir, sizeof dir) != 0) {
      cbt_fmt(why, len, "cannot make a folder in the report folder %s: %s",
              o->out_dir, strerror(errno));
      return -1;
   }
   cbt_command cmd = {.argc = o->prog_argc, .line = 0};
   cmd.argv = calloc((size_t)o->prog_argc + 1, sizeof *cmd.argv);
   s->tests = calloc(1, sizeof *s->tests);
   if (!cmd.argv || !s->tests) {
      cbt_fmt(why, len, "out of memory");
      return -1;
   }
   for (int a = 0; a < o->prog_argc; a++)
      if (!(cmd.argv[a] = strdup(o->prog_argv[a]))) {
         cbt_fmt(why, len, "out of memory");
         return -1;
      }
   s->ntests = 1;
   if (cbt_setup_test(s, 0, cmd, dir) != 0) {
      cbt_fmt(why, len, "cannot set up %s", dir);
      return -1;
   }
   return 0;
}

int cbt_main_wrap(const cbt_options *o)
{
   cbt_suite s;
   memset(&s, 0, sizeof s);
   s.o = o;
   char why[PATH_MAX + 256];
   if (set_up(o, &s, why, sizeof why) != 0)
      return run_plainly(o->prog_argv, why);
   cbt_progress_quiet();
   if (cbt_run_suite(&s) != 0)
      return run_plainly(o->prog_argv, "cbtest could not start its jobs");
   const cbt_test *t = &s.tests[0];
   if (s.interrupted)
      cbt_die_interrupted(&s);
   if (t->outcome == CBT_O_ERROR) {
      cbt_fmt(why, sizeof why, "cbtools could not run the test (%s)",
              t->error);
      int rc = run_plainly(o->prog_argv, why);
      cbt_free_suite(&s);
      return rc;
   }
   /* The test's own output, of the recorded run that failed when it was
    * recorded again (its exit status is the one passed through below). */
   char path[PATH_MAX + 32];
   const char *run = t->record_failures ? "record-failed" : "record";
   cbt_fmt(path, sizeof path, "%s/%s.out", t->dir, run);
   copy_file(path, stdout);
   cbt_fmt(path, sizeof path, "%s/%s.err", t->dir, run);
   copy_file(path, stderr);
   cbt_collect_bugs(&s);
   cbt_print_summary(stderr, &s);
   fprintf(stderr, "results: %s (cbtest --merge %s makes the report)\n",
           t->dir, s.out_dir);
   int rc;
   if (s.nbugs > 0)
      rc = CBT_EXIT_BUG;
   else if (t->native_timed_out)
      rc = 1;
   else
      rc = pass_through(t->native_code);
   cbt_free_suite(&s);
   return rc;
}
