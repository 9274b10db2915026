/* cbtest_state.c: a test's results saved as a file, so that the report can
 * be made later and elsewhere: `cbtest --merge` reads what cbtest runs,
 * `cbtest --wrap` runs and emitted jobs (`--run-job`) left behind.
 *
 * TESTDIR/test.state       the test (its command, outcome, where it ran)
 *                          and every schedule with its verdict so far
 * TESTDIR/runs/sN.result   one forced run, written by an emitted job; it
 *                          overrides the run of the same name in test.state
 *
 * Text, one record a line: a tag, then fields separated by tabs, with
 * backslash, tab, newline and carriage return escaped as \\ \t \n \r.  Paths
 * inside the test folder are not saved: they are rebuilt from where the file
 * is found, so a folder moved or mounted elsewhere still reads.  Every file
 * is written under a unique temporary name (mkstemp) and renamed into
 * place: two writers never mix their bytes and a reader never sees half.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cbtest.h"
#include "cbtrace.h"

#define STATE_MAGIC "cbtest-state"
/* Version 2 added the verdict "deadlock" and a run's deadlock (its last
 * field), version 3 how often a bug was forced again and came back (two
 * more), version 5 whether cbreplay pinned it (one more: the file is
 * sN-pinned.pb beside the schedule), version 6 the verdict "cured" and
 * whether the schedule is a cure (one more: a job forced elsewhere is
 * judged as one); older files still read. */
#define STATE_VERSION 6
#define MAX_FIELDS 40

int cbt_write_atomic(const char *path, void (*fn)(FILE *, const void *),
                     const void *arg, char *why, size_t whylen)
{
   /* The trace library's one way to write into a shared folder: an
    * unguessable O_EXCL name beside path, then rename (outfile.c). */
   char tmp[PATH_MAX + 16];
   cb_error err;
   int fd = cb_temp_beside(path, tmp, sizeof tmp, &err);
   FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
   if (!f) {
      cbt_fmt(why, whylen, "cannot write %s: %s", path,
              fd < 0 ? err.msg : strerror(errno));
      if (fd >= 0) {
         close(fd);
         unlink(tmp);
      }
      return -1;
   }
   fn(f, arg);
   if (ferror(f) | (fclose(f) != 0)) {
      cbt_fmt(why, whylen, "cannot write %s: %s", tmp, strerror(errno));
      unlink(tmp);
      return -1;
   }
   if (cb_rename_into_place(tmp, path, &err) != 0) {
      cbt_fmt(why, whylen, "cannot write %s: %s", path, err.msg);
      return -1;
   }
   return 0;
}

/* ---- Writing ---------------------------------------------------------------- */

static void put(FILE *f, const char *s)
{
   fputc('\t', f);
   for (; *s; s++) {
      switch (*s) {
      case '\\': fputs("\\\\", f); break;
      case '\t': fputs("\\t", f); break;
      case '\n': fputs("\\n", f); break;
      case '\r': fputs("\\r", f); break;
      default: fputc(*s, f);
      }
   }
}

static void putf(FILE *f, const char *fmt, ...)
   __attribute__((format(printf, 2, 3)));
static void putf(FILE *f, const char *fmt, ...)
{
   char buf[64];
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(buf, sizeof buf, fmt, ap);
   va_end(ap);
   put(f, buf);
}

static void put_event(FILE *f, const cbt_event *e)
{
   put(f, e->kind);
   put(f, e->file);
   putf(f, "%u", e->line);
   put(f, e->function);
   putf(f, "%u", e->tid);
   putf(f, "%llu", (unsigned long long)e->index);
}

static void put_run(FILE *f, const cbt_run *r)
{
   fputs("run", f);
   put(f, r->name);
   putf(f, "%d", r->readable);
   put(f, r->pattern);
   put(f, r->variable);
   put(f, cbt_verdict_name(r->verdict));
   putf(f, "%d", r->exit_code);
   putf(f, "%d", r->variant);
   putf(f, "%.17g", r->seconds);
   put(f, r->note);
   put_event(f, &r->e1);
   put_event(f, &r->f);
   put_event(f, &r->e2);
   put(f, r->deadlock);
   putf(f, "%u", r->again);
   putf(f, "%u", r->again_failed);
   putf(f, "%d", r->violation);
   putf(f, "%d", r->pinned[0] != 0);
   putf(f, "%d", r->cure); /* a job forced elsewhere is judged as a cure */
   fputc('\n', f);
}

static void write_state(FILE *f, const void *arg)
{
   const cbt_test *t = arg;
   fprintf(f, "%s\t%d\n", STATE_MAGIC, STATE_VERSION);
   fputs("test", f);
   put(f, t->id);
   put(f, cbt_outcome_name(t->outcome));
   putf(f, "%d", t->native_code);
   putf(f, "%d", t->native_timed_out);
   putf(f, "%zu", t->not_forced);
   putf(f, "%.17g", t->seconds);
   putf(f, "%.17g", t->timeout_s);
   putf(f, "%d", t->jobs_emitted);
   putf(f, "%d", t->cmd.line);
   putf(f, "%d", t->failed_each);
   fputc('\n', f);
   fputs("cwd", f);
   put(f, t->cwd);
   fputs("\nerror", f);
   put(f, t->error);
   fputc('\n', f);
   for (int a = 0; a < t->cmd.argc; a++) {
      fputs("arg", f);
      put(f, t->cmd.argv[a]);
      fputc('\n', f);
   }
   for (size_t r = 0; r < t->nruns; r++)
      put_run(f, &t->runs[r]);
}

int cbt_save_test(const cbt_test *t, char *why, size_t whylen)
{
   char path[PATH_MAX + 16];
   cbt_fmt(path, sizeof path, "%s/test.state", t->dir);
   return cbt_write_atomic(path, write_state, t, why, whylen);
}

static void write_one_run(FILE *f, const void *arg)
{
   fprintf(f, "%s\t%d\n", STATE_MAGIC, STATE_VERSION);
   put_run(f, arg);
}

int cbt_save_run(const cbt_test *t, const cbt_run *r, char *why,
                 size_t whylen)
{
   char path[PATH_MAX + 64];
   cbt_fmt(path, sizeof path, "%s/runs", t->dir);
   if (cbt_mkdir_p(path) != 0) {
      cbt_fmt(why, whylen, "cannot create %s: %s", path, strerror(errno));
      return -1;
   }
   cbt_fmt(path, sizeof path, "%s/runs/%s.result", t->dir, r->name);
   return cbt_write_atomic(path, write_one_run, r, why, whylen);
}

/* ---- Reading ---------------------------------------------------------------- */

/* Splits a line in place into unescaped fields; returns how many. */
static int split_fields(char *line, char **field, int max)
{
   int n = 0;
   char *in = line, *out = line;
   field[n++] = out;
   for (; *in && *in != '\n'; in++) {
      if (*in == '\t') {
         *out++ = 0;
         if (n == max)
            return n;
         field[n++] = out;
      } else if (*in == '\\' && in[1]) {
         in++;
         *out++ = *in == 't' ? '\t' : *in == 'n' ? '\n' : *in == 'r' ? '\r'
                                                                     : *in;
      } else {
         *out++ = *in;
      }
   }
   *out = 0;
   return n;
}

static void copy(char *dst, size_t len, const char *src)
{
   cbt_fmt(dst, len, "%s", src);
}

static int verdict_of(const char *name)
{
   for (int v = CBT_PENDING; v < CBT_NVERDICTS; v++)
      if (!strcmp(cbt_verdict_name((enum cbt_verdict)v), name))
         return v;
   return -1;
}

static int outcome_of(const char *name)
{
   for (int o = CBT_O_NONE; o <= CBT_O_BUGS; o++)
      if (!strcmp(cbt_outcome_name((enum cbt_outcome)o), name))
         return o;
   return -1;
}

static void get_event(cbt_event *e, char **f)
{
   copy(e->kind, sizeof e->kind, f[0]);
   copy(e->file, sizeof e->file, f[1]);
   e->line = (unsigned)strtoul(f[2], NULL, 10);
   copy(e->function, sizeof e->function, f[3]);
   e->tid = (unsigned)strtoul(f[4], NULL, 10);
   e->index = strtoull(f[5], NULL, 10);
}

/* A "run" record into r, its paths rebuilt under the test's folder. */
static int get_run(const cbt_test *t, cbt_run *r, char **f, int n)
{
   if (n != 28 && n != 29 && n != 31 && n != 32 && n != 33 && n != 34) /* versions 1-6 */
      return -1;
   int v = verdict_of(f[5]);
   if (v < 0 || f[1][0] != 's' || strchr(f[1], '/'))
      return -1;
   memset(r, 0, sizeof *r);
   copy(r->name, sizeof r->name, f[1]);
   r->readable = atoi(f[2]);
   copy(r->pattern, sizeof r->pattern, f[3]);
   copy(r->variable, sizeof r->variable, f[4]);
   r->verdict = (enum cbt_verdict)v;
   r->exit_code = atoi(f[6]);
   r->variant = atoi(f[7]);
   r->seconds = strtod(f[8], NULL);
   copy(r->note, sizeof r->note, f[9]);
   get_event(&r->e1, f + 10);
   get_event(&r->f, f + 16);
   get_event(&r->e2, f + 22);
   if (n > 28)
      copy(r->deadlock, sizeof r->deadlock, f[28]);
   if (n > 29) {
      r->again = (unsigned)strtoul(f[29], NULL, 10);
      r->again_failed = (unsigned)strtoul(f[30], NULL, 10);
   }
   r->violation = n > 31 ? atoi(f[31]) : -1;
   cbt_fmt(r->path, sizeof r->path, "%s/%s.pb", t->schedules, r->name);
   if (n > 32 && atoi(f[32]))
      cbt_fmt(r->pinned, sizeof r->pinned, "%s/%s-pinned.pb", t->schedules, r->name);
   r->cure = n > 33 && atoi(f[33]);
   cbt_fmt(r->out_path, sizeof r->out_path, "%s/replay-%s.out", t->dir,
           r->name);
   cbt_fmt(r->err_path, sizeof r->err_path, "%s/replay-%s.err", t->dir,
           r->name);
   return 0;
}

static int add_word(cbt_command *c, const char *w)
{
   char **more = realloc(c->argv, (size_t)(c->argc + 2) * sizeof *more);
   if (!more)
      return -1;
   c->argv = more;
   if (!(more[c->argc] = strdup(w)))
      return -1;
   more[++c->argc] = NULL;
   return 0;
}

static int add_run(cbt_test *t, char **f, int n)
{
   cbt_run r;
   if (get_run(t, &r, f, n) != 0)
      return -1;
   cbt_run *more = realloc(t->runs, (t->nruns + 1) * sizeof *more);
   if (!more)
      return -1;
   t->runs = more;
   t->runs[t->nruns++] = r;
   return 0;
}

static int get_test(cbt_test *t, char **f, int n)
{
   /* 11 fields; 10 before failed_each was kept */
   int o = n == 10 || n == 11 ? outcome_of(f[2]) : -1;
   if (o < 0)
      return -1;
   copy(t->id, sizeof t->id, f[1]);
   t->outcome = (enum cbt_outcome)o;
   t->native_code = atoi(f[3]);
   t->native_timed_out = atoi(f[4]);
   t->not_forced = (size_t)strtoull(f[5], NULL, 10);
   t->seconds = strtod(f[6], NULL);
   t->timeout_s = strtod(f[7], NULL);
   t->jobs_emitted = atoi(f[8]);
   t->cmd.line = atoi(f[9]);
   t->failed_each = n == 11 && atoi(f[10]);
   return 0;
}

/* One record of a state file into t; -1 when it is not one we know. */
static int get_record(cbt_test *t, char **f, int n, int *seen_test)
{
   if (!strcmp(f[0], "test")) {
      *seen_test = 1;
      return get_test(t, f, n);
   }
   if (!strcmp(f[0], "cwd") && n == 2) {
      copy(t->cwd, sizeof t->cwd, f[1]);
      return 0;
   }
   if (!strcmp(f[0], "error") && n == 2) {
      copy(t->error, sizeof t->error, f[1]);
      return 0;
   }
   if (!strcmp(f[0], "arg") && n == 2)
      return add_word(&t->cmd, f[1]);
   if (!strcmp(f[0], "run"))
      return add_run(t, f, n);
   return -1;
}

typedef int (*record_fn)(cbt_test *t, char **f, int n, void *arg);

/* Reads a state file record by record; -1 with why. */
static int read_records(const char *path, cbt_test *t, record_fn fn,
                        void *arg, char *why, size_t whylen)
{
   FILE *in = fopen(path, "r");
   if (!in) {
      cbt_fmt(why, whylen, "cannot read %s: %s", path, strerror(errno));
      return -1;
   }
   char *line = NULL;
   size_t cap = 0;
   int lineno = 0, rc = 0;
   while (getline(&line, &cap, in) > 0) {
      char *f[MAX_FIELDS];
      int n = split_fields(line, f, MAX_FIELDS);
      if (++lineno == 1) {
         if (n != 2 || strcmp(f[0], STATE_MAGIC) || atoi(f[1]) < 1 ||
             atoi(f[1]) > STATE_VERSION) {
            cbt_fmt(why, whylen, "%s: not a cbtest result file (or of "
                                 "another version)", path);
            rc = -1;
            break;
         }
         continue;
      }
      if (fn(t, f, n, arg) != 0) {
         cbt_fmt(why, whylen, "%s:%d: a damaged record (%s)", path, lineno,
                 f[0]);
         rc = -1;
         break;
      }
   }
   free(line);
   fclose(in);
   return rc;
}

static int state_record(cbt_test *t, char **f, int n, void *arg)
{
   return get_record(t, f, n, arg);
}

/* runs/sN.result: replaces the run of the same name. */
static int result_record(cbt_test *t, char **f, int n, void *arg)
{
   (void)arg;
   cbt_run r;
   if (strcmp(f[0], "run") || get_run(t, &r, f, n) != 0)
      return -1;
   for (size_t i = 0; i < t->nruns; i++)
      if (!strcmp(t->runs[i].name, r.name)) {
         t->runs[i] = r;
         return 0;
      }
   return -1; /* a result for a schedule the test does not have */
}

int cbt_load_test(const char *dir, cbt_test *t, char *why, size_t whylen)
{
   memset(t, 0, sizeof *t);
   cbt_fmt(t->dir, sizeof t->dir, "%s", dir);
   cbt_fmt(t->trace, sizeof t->trace, "%s/trace.pb", dir);
   cbt_fmt(t->schedules, sizeof t->schedules, "%s/schedules", dir);
   t->state = CBT_T_DONE;
   char path[PATH_MAX + 64];
   cbt_fmt(path, sizeof path, "%s/test.state", dir);
   int seen_test = 0;
   if (read_records(path, t, state_record, &seen_test, why, whylen) != 0)
      goto bad;
   if (!seen_test || t->cmd.argc == 0) {
      cbt_fmt(why, whylen, "%s: no test in it", path);
      goto bad;
   }
   for (size_t i = 0; i < t->nruns; i++) {
      cbt_fmt(path, sizeof path, "%s/runs/%s.result", dir, t->runs[i].name);
      if (access(path, F_OK) != 0)
         continue;
      if (read_records(path, t, result_record, NULL, why, whylen) != 0)
         goto bad;
   }
   return 0;
bad:
   cbt_free_words(t->cmd.argv);
   free(t->runs);
   memset(t, 0, sizeof *t);
   return -1;
}
