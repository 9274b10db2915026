/* cbtest: the whole pipeline (record, predict, replay every schedule) over a
 * test suite, with a progress line, a summary and JSON/SARIF reports.  See
 * `cbtest --help` (cbtest_options.c) and cbtest.h for how the parts fit.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cbtest.h"
#include "launch.h"

/* The stages live next to this command: BINDIR/cbtrace and so on, the same
 * way they find the tool (BINDIR/../lib/cbtools). */
int cbt_find_siblings(cbt_suite *s)
{
   char self[PATH_MAX];
   ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
   if (n <= 0) {
      fprintf(stderr, "cbtest: cannot find where cbtest lives: %s\n",
              strerror(errno));
      return -1;
   }
   self[n] = 0;
   char *slash = strrchr(self, '/');
   *slash = 0;
   cbt_fmt(s->bindir, sizeof s->bindir, "%s", self);
   struct {
      char *path;
      const char *name;
   } need[] = {{s->cbtrace, "cbtrace"},
               {s->cbpredict, "cbpredict"},
               {s->cbreplay, "cbreplay"}};
   for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
      cbt_fmt(need[i].path, PATH_MAX, "%s/%s", s->bindir, need[i].name);
      if (access(need[i].path, X_OK) != 0) {
         fprintf(stderr, "cbtest: cannot run %s: %s (it must sit next to "
                         "cbtest)\n", need[i].path, strerror(errno));
         return -1;
      }
   }
   return 0;
}

int cbt_mkdir_p(const char *path)
{
   char tmp[PATH_MAX];
   cbt_fmt(tmp, sizeof tmp, "%s", path);
   for (char *p = tmp + 1; *p; p++) {
      if (*p != '/')
         continue;
      *p = 0;
      if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
         return -1;
      *p = '/';
   }
   if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
      return -1;
   struct stat st;
   if (stat(tmp, &st) != 0)
      return -1;
   if (!S_ISDIR(st.st_mode)) {
      errno = ENOTDIR;
      return -1;
   }
   return 0;
}

/* Work folders of an earlier run (DIR/tests/NNN-*) would be mistaken for
 * this run's: remove them.  Nothing else in DIR is touched. */
static void remove_old_work(const char *tests_dir)
{
   DIR *d = opendir(tests_dir);
   if (!d)
      return;
   struct dirent *de;
   while ((de = readdir(d))) {
      const char *p = de->d_name;
      size_t digits = strspn(p, "0123456789");
      if (digits < 3 || p[digits] != '-')
         continue;
      char path[PATH_MAX];
      cbt_fmt(path, sizeof path, "%s/%s", tests_dir, p);
      cbt_remove_tree(path);
   }
   closedir(d);
}

/* "001-rww": the number keeps names unique and in order, the program's
 * name makes the folder easy to find. */
static void test_id(size_t index, size_t ntests, const char *prog, char *buf,
                    size_t len)
{
   const char *base = strrchr(prog, '/');
   base = base ? base + 1 : prog;
   char name[48];
   size_t n = 0;
   for (const char *p = base; *p && n + 1 < sizeof name; p++)
      name[n++] = (strchr("-_.", *p) || (*p >= '0' && *p <= '9') ||
                   (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))
                     ? *p
                     : '_';
   name[n] = 0;
   if (!n || !strcmp(name, ".") || !strcmp(name, ".."))
      cbt_fmt(name, sizeof name, "test");
   int width = ntests >= 1000 ? (ntests >= 10000 ? 6 : 4) : 3;
   cbt_fmt(buf, len, "%0*zu-%s", width, index + 1, name);
}

/* Fills the test's folders and makes its program absolute (relative to the
 * folder cbtest runs in; symlinks are kept, argv[0] may matter to it).
 * A program that cannot run settles the test as an error at once. */
int cbt_setup_test(cbt_suite *s, size_t i, cbt_command cmd, const char *dir)
{
   cbt_test *t = &s->tests[i];
   memset(t, 0, sizeof *t);
   t->cmd = cmd;
   t->timeout_s = s->o->timeout_s;
   if (!getcwd(t->cwd, sizeof t->cwd))
      cbt_fmt(t->cwd, sizeof t->cwd, ".");
   if (dir) {
      const char *base = strrchr(dir, '/');
      cbt_fmt(t->id, sizeof t->id, "%s", base ? base + 1 : dir);
      cbt_fmt(t->dir, sizeof t->dir, "%s", dir);
   } else {
      test_id(i, s->ntests, cmd.argv[0], t->id, sizeof t->id);
      cbt_fmt(t->dir, sizeof t->dir, "%s/tests/%s", s->out_dir, t->id);
   }
   cbt_fmt(t->trace, sizeof t->trace, "%s/trace.pb", t->dir);
   cbt_fmt(t->schedules, sizeof t->schedules, "%s/schedules", t->dir);
   if (cbt_mkdir_p(t->dir) != 0) {
      fprintf(stderr, "cbtest: cannot create %s: %s\n", t->dir,
              strerror(errno));
      return -1;
   }
   char found[PATH_MAX];
   cb_error err;
   if (cb_find_program(cmd.argv[0], found, sizeof found, &err) != 0) {
      t->outcome = CBT_O_ERROR;
      t->state = CBT_T_DONE;
      cbt_fmt(t->error, sizeof t->error, "%s", err.msg);
      return 0;
   }
   char abs[PATH_MAX];
   if (found[0] == '/') {
      cbt_fmt(abs, sizeof abs, "%s", found);
   } else {
      if (cbt_fmt(abs, sizeof abs, "%s/%s", t->cwd,
                  strncmp(found, "./", 2) ? found : found + 2) != 0) {
         t->outcome = CBT_O_ERROR;
         t->state = CBT_T_DONE;
         cbt_fmt(t->error, sizeof t->error, "%s: path too long", found);
         return 0;
      }
   }
   char *copy = strdup(abs);
   if (!copy) {
      fprintf(stderr, "cbtest: out of memory\n");
      return -1;
   }
   free(t->cmd.argv[0]);
   t->cmd.argv[0] = copy;
   return 0;
}

/* The tests, from --tests FILE or from `-- PROG ARGS`. */
static int load_commands(const cbt_options *o, cbt_command **cmds, size_t *n)
{
   if (o->tests_file) {
      char why[PATH_MAX + 256];
      if (cbt_read_suite(o->tests_file, cmds, n, why, sizeof why) != 0) {
         fprintf(stderr, "cbtest: %s\n", why);
         return -1;
      }
      if (*n == 0) {
         fprintf(stderr, "cbtest: %s: no tests in it (every line is blank "
                         "or a comment)\n", o->tests_file);
         return -1;
      }
      return 0;
   }
   cbt_command *c = calloc(1, sizeof *c);
   char **argv = calloc((size_t)o->prog_argc + 1, sizeof *argv);
   if (!c || !argv) {
      fprintf(stderr, "cbtest: out of memory\n");
      return -1;
   }
   for (int a = 0; a < o->prog_argc; a++)
      if (!(argv[a] = strdup(o->prog_argv[a]))) {
         fprintf(stderr, "cbtest: out of memory\n");
         return -1;
      }
   c->argv = argv;
   c->argc = o->prog_argc;
   *cmds = c;
   *n = 1;
   return 0;
}

int cbt_write_reports(const cbt_suite *s, FILE *say)
{
   static const struct {
      const char *name;
      int (*fn)(const cbt_suite *, const char *, char *, size_t);
   } reports[] = {{"report.json", cbt_write_json_report},
                  {"report.sarif", cbt_write_sarif_report},
                  {"report.html", cbt_write_html_report}};
   char path[PATH_MAX + 32], why[PATH_MAX + 256];
   int ok = 1;
   for (size_t i = 0; i < sizeof reports / sizeof reports[0]; i++) {
      cbt_fmt(path, sizeof path, "%s/%s", s->out_dir, reports[i].name);
      if (reports[i].fn(s, path, why, sizeof why) != 0) {
         fprintf(stderr, "cbtest: %s\n", why);
         ok = 0;
      }
   }
   if (ok)
      fprintf(say, "reports: %s/report.json %s/report.sarif %s/report.html\n",
              s->out_dir, s->out_dir, s->out_dir);
   fflush(say);
   return ok ? 0 : -1;
}

int cbt_exit_status(const cbt_suite *s, int reports_ok)
{
   cbt_totals t;
   cbt_totals_of(s, &t);
   if (s->interrupted)
      return 128 + s->interrupted;
   if (t.bugs > 0)
      return CBT_EXIT_BUG;
   if (t.errors == t.tests || !reports_ok)
      return CBT_EXIT_USAGE; /* nothing could run, or no report */
   if (t.failed_natively > 0 || t.errors > 0)
      return CBT_EXIT_FAILED;
   return CBT_EXIT_CLEAN;
}

void cbt_die_interrupted(const cbt_suite *s)
{
   size_t done = 0;
   for (size_t i = 0; i < s->ntests; i++)
      done += s->tests[i].state == CBT_T_DONE;
   fflush(stdout);
   fprintf(stderr, "cbtest: interrupted by SIG%s: every job was stopped; "
                   "%zu of %zu test%s had finished\n",
           sigabbrev_np(s->interrupted), done, s->ntests,
           s->ntests == 1 ? "" : "s");
   cbt_private_tmp_remove();
   cb_die_of_signal(s->interrupted);
}

/* The output folder, absolute, with DIR/tests/ in it and no work folder of
 * an earlier run. */
static int prepare_out_dir(const cbt_options *o, cbt_suite *s)
{
   char tests_dir[PATH_MAX];
   if (cbt_mkdir_p(o->out_dir) != 0 || !realpath(o->out_dir, s->out_dir)) {
      fprintf(stderr, "cbtest: cannot create the output folder %s: %s\n",
              o->out_dir, strerror(errno));
      return -1;
   }
   /* Every file cbtest names lives under DIR/tests/NNN-NAME/ with short
    * names; checking DIR's length once keeps all of them whole. */
   if (strlen(s->out_dir) > PATH_MAX - 256) {
      fprintf(stderr, "cbtest: the output folder's path is too long: %s\n",
              s->out_dir);
      return -1;
   }
   cbt_fmt(tests_dir, sizeof tests_dir, "%s/tests", s->out_dir);
   if (cbt_mkdir_p(tests_dir) != 0) {
      fprintf(stderr, "cbtest: cannot create %s: %s\n", tests_dir,
              strerror(errno));
      return -1;
   }
   remove_old_work(tests_dir);
   return 0;
}

int main(int argc, char **argv)
{
   cbt_options o;
   int rc = cbt_parse_options(argc, argv, &o);
   if (rc == 1)
      return 0;
   if (rc != 0)
      return rc;
   if (o.merge)
      return cbt_main_merge(&o);
   cb_stop_catch();
   char why[PATH_MAX + 256];
   if (cbt_private_tmp(why, sizeof why) != 0 && !o.wrap) {
      fprintf(stderr, "cbtest: %s\n", why);
      return CBT_EXIT_USAGE;
   }
   if (o.run_job_dir)
      return cbt_main_run_job(&o);
   if (o.wrap)
      return cbt_main_wrap(&o); /* without a private TMPDIR, if need be */

   cbt_suite s;
   memset(&s, 0, sizeof s);
   s.o = &o;
   if (cbt_find_siblings(&s) != 0)
      return CBT_EXIT_USAGE;

   cbt_command *cmds;
   size_t ncmds;
   if (load_commands(&o, &cmds, &ncmds) != 0 || prepare_out_dir(&o, &s) != 0)
      return CBT_EXIT_USAGE;
   s.ntests = ncmds;
   s.tests = calloc(ncmds, sizeof *s.tests);
   if (!s.tests) {
      fprintf(stderr, "cbtest: out of memory\n");
      return CBT_EXIT_USAGE;
   }
   for (size_t i = 0; i < ncmds; i++)
      if (cbt_setup_test(&s, i, cmds[i], NULL) != 0)
         return CBT_EXIT_USAGE;
   free(cmds);

   cbt_progress_init();
   if (cbt_run_suite(&s) != 0)
      return CBT_EXIT_USAGE;
   cbt_progress_end();
   if (o.emit_jobs) {
      rc = cbt_emit_jobs(&s, o.emit_jobs) == 0 ? CBT_EXIT_CLEAN
                                                 : CBT_EXIT_USAGE;
      if (s.interrupted)
         cbt_die_interrupted(&s);
      cbt_free_suite(&s);
      return rc;
   }
   cbt_collect_bugs(&s);
   cbt_print_summary(stdout, &s);
   rc = cbt_exit_status(&s, cbt_write_reports(&s, stdout) == 0);
   if (s.interrupted)
      cbt_die_interrupted(&s);
   cbt_free_suite(&s);
   return rc;
}
