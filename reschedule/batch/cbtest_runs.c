/* cbtest_runs.c: a test's schedule folder as runs waiting to be forced:
 * the sN.pb files in order of N, each run's paths and what its schedule
 * says (pattern, variable, e1, f, e2) for the reports.  The pipeline loads
 * cbpredict's schedules; --explore (cbtest_explore.c) adds the ones its
 * rounds take.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cbtest.h"
#include "cbtrace.h"

static void copy_event(cbt_event *out, const cb_sched_event *e)
{
   memset(out, 0, sizeof *out);
   if (!e)
      return;
   out->tid = e->tid;
   out->index = e->index;
   if (e->variable_name)
      cbt_fmt(out->variable, sizeof out->variable, "%s", e->variable_name);
   cbt_fmt(out->kind, sizeof out->kind, "%s",
            e->has_kind ? cb_event_kind_name(e->kind) : "?");
   if (e->location) {
      if (e->location->file)
         cbt_fmt(out->file, sizeof out->file, "%s", e->location->file);
      out->line = e->location->line;
      if (e->location->function)
         cbt_fmt(out->function, sizeof out->function, "%s",
                  e->location->function);
   }
}

static int schedule_number(const char *name)
{
   /* "s17.pb" -> 17; anything else -> -1 */
   if (name[0] != 's' || name[1] < '0' || name[1] > '9')
      return -1;
   char *end;
   long n = strtol(name + 1, &end, 10);
   if (strcmp(end, ".pb") != 0 || n <= 0 || n > 100000000)
      return -1;
   return (int)n;
}

static int cmp_int(const void *a, const void *b)
{
   int x = *(const int *)a, y = *(const int *)b;
   return (x > y) - (x < y);
}

int cbt_list_schedules(const char *dir, int **nums, size_t *n, char *why,
                       size_t whylen)
{
   *nums = NULL;
   *n = 0;
   DIR *d = opendir(dir);
   if (!d) {
      cbt_fmt(why, whylen, "cannot read the schedule folder %s: %s", dir,
              strerror(errno));
      return -1;
   }
   size_t cap = 0;
   struct dirent *de;
   while ((de = readdir(d))) {
      int k = schedule_number(de->d_name);
      if (k < 0)
         continue;
      if (*n == cap) {
         cap = cap ? 2 * cap : 64;
         int *more = realloc(*nums, cap * sizeof *more);
         if (!more) {
            free(*nums);
            *nums = NULL;
            *n = 0;
            closedir(d);
            cbt_fmt(why, whylen, "out of memory");
            return -1;
         }
         *nums = more;
      }
      (*nums)[(*n)++] = k;
   }
   closedir(d);
   if (*n)
      qsort(*nums, *n, sizeof **nums, cmp_int);
   return 0;
}

/* Every sN.pb cbpredict wrote, in order of N, as runs waiting to be forced. */
int cbt_load_runs(cbt_test *t, size_t max_runs, char *why, size_t whylen)
{
   int *nums;
   size_t n;
   if (cbt_list_schedules(t->schedules, &nums, &n, why, whylen) != 0)
      return -1;
   if (max_runs && n > max_runs) { /* the first N: cbpredict's likeliest */
      t->not_forced += n - max_runs;
      n = max_runs;
   }
   t->runs = n ? calloc(n, sizeof *t->runs) : NULL;
   if (n && !t->runs) {
      free(nums);
      cbt_fmt(why, whylen, "out of memory");
      return -1;
   }
   t->nruns = n;
   for (size_t i = 0; i < n; i++) {
      char name[32];
      cbt_fmt(name, sizeof name, "s%d", nums[i]);
      cbt_fill_run(t, &t->runs[i], name);
      if (!t->trace_id && t->runs[i].has_trace_id)
         t->trace_id = t->runs[i].trace_id; /* cbpredict's, from t->trace */
   }
   free(nums);
   return 0;
}

void cbt_fill_run(const cbt_test *t, cbt_run *r, const char *name)
{
   memset(r, 0, sizeof *r);
   r->variant = -1;
   cbt_fmt(r->name, sizeof r->name, "%s", name);
   cbt_fmt(r->path, sizeof r->path, "%s/%s.pb", t->schedules, r->name);
   cbt_fmt(r->out_path, sizeof r->out_path, "%s/replay-%s.out", t->dir,
           r->name);
   cbt_fmt(r->err_path, sizeof r->err_path, "%s/replay-%s.err", t->dir,
           r->name);
   cb_schedule *sch = NULL;
   cb_error err;
   if (cb_schedule_read(r->path, &sch, &err) != 0) {
      /* cbreplay will refuse it too; say why here already. */
      cbt_fmt(r->note, sizeof r->note, "unreadable schedule: %s", err.msg);
      return;
   }
   r->readable = 1;
   cbt_fmt(r->pattern, sizeof r->pattern, "%s",
           sch->pattern ? sch->pattern : "?");
   cbt_fmt(r->variable, sizeof r->variable, "%s",
           sch->variable_name && *sch->variable_name ? sch->variable_name
                                                     : "?");
   r->cure = sch->cure;
   r->has_trace_id = sch->has_trace_id;
   r->trace_id = sch->trace_id;
   copy_event(&r->e1, sch->e1);
   copy_event(&r->f, sch->f);
   copy_event(&r->e2, sch->e2);
   cb_schedule_free(sch);
}

void cbt_source_line(const cbt_suite *s, const cbt_test *t, const char *dir,
                     const char *object, const char *file, unsigned line,
                     char *buf, size_t len)
{
   buf[0] = 0;
   char prog_dir[PATH_MAX], up_dir[PATH_MAX];
   cbt_fmt(prog_dir, sizeof prog_dir, "%s", t->cmd.argc ? t->cmd.argv[0] : "");
   char *slash = strrchr(prog_dir, '/');
   if (slash)
      *slash = 0;
   cbt_fmt(up_dir, sizeof up_dir, "%s", prog_dir);
   char *up = strrchr(up_dir, '/');
   if (up)
      *up = 0;
   /* The folder the debug information gave; then as named, --source-dir,
    * the folder the test ran in, the program's folder and the one above
    * it (a build folder beside or below the sources: meson, cmake). */
   const char *dirs[6] = {dir, "", s->o->source_dir, t->cwd,
                          slash ? prog_dir : NULL, up ? up_dir : NULL};
   if (!cb_source_line(dirs, 6, file, line, object, buf, len))
      buf[0] = 0;
}

/* The source lines of a bug's e1, f and e2, from its schedule (the only
 * place that keeps each location's folder and object): read for the few
 * runs reports show, not for every schedule loaded. */
void cbt_quote_sources(const cbt_suite *s, const cbt_test *t, cbt_run *r,
                       cbt_bug *b)
{
   cb_schedule *sch = NULL;
   cb_error err;
   if (!r->readable || cb_schedule_read(r->path, &sch, &err) != 0)
      return;
   const cb_sched_event *in[3] = {sch->e1, sch->f, sch->e2};
   cbt_event *out[3] = {&r->e1, &r->f, &r->e2};
   for (int k = 0; k < 3; k++) {
      const cb_sched_location *l = in[k] ? in[k]->location : NULL;
      if (l && l->file && l->has_line)
         cbt_source_line(s, t, l->dir, l->object, l->file, l->line,
                         out[k]->source, sizeof out[k]->source);
      b->src_path[k][0] = 0;
      if (l && l->file && *l->file && l->file[0] != '/' && l->dir && *l->dir)
         cbt_fmt(b->src_path[k], sizeof b->src_path[k], "%s/%s", l->dir,
                 l->file);
      else if (l && l->file && *l->file)
         cbt_fmt(b->src_path[k], sizeof b->src_path[k], "%s", l->file);
   }
   cb_schedule_free(sch);
}

/* Run ri was infeasible: its forced run left the recorded path (a loop
 * over a table another thread grew, a branch on a value the reordering
 * changed) and could not follow the schedule.  Once two runs of t whose e1
 * is in one function were, that function's code decides on data the
 * reorderings change: the runs still waiting whose e1 is there go after
 * the others, in their order (trial 14's symtab: 16 schedules reordering
 * the sections of its intern(), each infeasible, came before the one on
 * the pointer its parser kept, the bug).  Only the order changes. */
void cbt_runs_after_infeasible(cbt_test *t, size_t ri)
{
   const cbt_run *r = &t->runs[ri];
   const char *fn = r->e1.function;
   /* Exploration keeps its runs by index (cbtest_explore.c): its queue is
    * not reordered. */
   if (!fn[0] || t->explore || t->next_run >= t->nruns)
      return;
   size_t seen = 0;
   for (size_t i = 0; i < t->next_run; i++)
      seen += t->runs[i].verdict == CBT_INFEASIBLE &&
              !strcmp(t->runs[i].e1.function, fn);
   if (seen < 2)
      return;
   size_t n = t->nruns - t->next_run, k = 0;
   cbt_run *rest = malloc(n * sizeof *rest);
   if (!rest)
      return; /* only an order: keep it as it is */
   for (int late = 0; late < 2; late++)
      for (size_t i = t->next_run; i < t->nruns; i++)
         if ((strcmp(t->runs[i].e1.function, fn) == 0) == late)
            rest[k++] = t->runs[i];
   memcpy(&t->runs[t->next_run], rest, n * sizeof *rest);
   free(rest);
}
