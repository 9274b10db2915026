/* cbtest_progress.c: the progress line on stderr.
 *
 * On a terminal one line is redrawn in place with \r (tests done, forced
 * runs done, bugs so far, time), and a line per finished test scrolls above
 * it.  Anywhere else (a log, a CI job) only the line per finished test is
 * written, so the log stays readable.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <string.h>
#include <unistd.h>

#include "cbtest.h"

static int g_tty;
static int g_quiet;        /* --wrap: the summary alone, no progress */
static int g_drawn;        /* a progress line is on the screen */
static double g_last_draw;

void cbt_progress_quiet(void)
{
   g_quiet = 1;
}

void cbt_progress_init(void)
{
   g_tty = isatty(STDERR_FILENO);
   g_drawn = 0;
   g_last_draw = 0;
}

static void clear_line(void)
{
   if (g_drawn) {
      fputs("\r\033[K", stderr);
      g_drawn = 0;
   }
}

static void draw(const cbt_suite *s)
{
   cbt_totals t;
   cbt_totals_of(s, &t);
   size_t bugs = t.failed + t.deadlocks + t.hung + t.cured;
   clear_line();
   fprintf(stderr,
           "cbtest: %zu/%zu tests, %zu/%zu forced runs, %zu failing, "
           "%.0f s",
           t.done, t.tests, t.runs_done, t.runs, bugs, cb_now() - s->started);
   fflush(stderr);
   g_drawn = 1;
   g_last_draw = cb_now();
}

void cbt_progress_update(const cbt_suite *s)
{
   if (g_quiet)
      return;
   if (!g_tty)
      return;
   if (g_drawn && cb_now() - g_last_draw < 0.1)
      return;
   draw(s);
}

void cbt_progress_test_done(const cbt_suite *s, size_t ti)
{
   if (g_quiet)
      return;
   const cbt_test *t = &s->tests[ti];
   size_t done = 0;
   for (size_t i = 0; i < s->ntests; i++)
      done += s->tests[i].state == CBT_T_DONE;
   clear_line();
   fprintf(stderr, "cbtest: [%zu/%zu] %s: ", done, s->ntests, t->id);
   switch (t->outcome) {
   case CBT_O_ERROR:
      fprintf(stderr, "error: %s\n", t->error);
      break;
   case CBT_O_FAILED_NATIVELY:
      if (t->failed_each) {
         int cures = t->nruns && t->runs[0].cure;
         fprintf(stderr, "failed natively (%s); predicted from the last: %zu "
                         "%s%s, none %s (%.1f s)\n", t->error, t->nruns,
                 cures ? "cure" : "schedule", t->nruns == 1 ? "" : "s",
                 cures ? "cured it" : "failed", t->seconds);
         break;
      }
      if (!cbt_failed_then_passed(t)) {
         fprintf(stderr, "%s (%s), not predicted\n", cbt_native_words(t),
                 t->error);
         break;
      }
      fprintf(stderr, "failed natively once (%s), passed when recorded "
                      "again; %zu schedule%s, none failed (%.1f s)\n",
              t->error, t->nruns, t->nruns == 1 ? "" : "s", t->seconds);
      break;
   default: {
      size_t k[CBT_NVERDICTS] = {0};
      for (size_t r = 0; r < t->nruns; r++)
         k[t->runs[r].verdict]++;
      fprintf(stderr, "%zu schedule%s", t->nruns, t->nruns == 1 ? "" : "s");
      if (t->nruns && t->runs[0].cure) /* passed: failed as recorded */
         fprintf(stderr, ": %zu cured, %zu not cured, %zu infeasible", k[CBT_CURED],
                 k[CBT_PASSED], k[CBT_INFEASIBLE]);
      else if (t->nruns)
         fprintf(stderr, ": %zu passed, %zu failed, %zu deadlocked, "
                         "%zu infeasible, %zu hung",
                 k[CBT_PASSED], k[CBT_FAILED], k[CBT_DEADLOCK],
                 k[CBT_INFEASIBLE], k[CBT_HUNG]);
      if (k[CBT_CURED] && !t->runs[0].cure)
         fprintf(stderr, ", %zu cured", k[CBT_CURED]);
      if (k[CBT_ERROR])
         fprintf(stderr, ", %zu errors", k[CBT_ERROR]);
      fprintf(stderr, "%s (%.1f s)\n",
              t->outcome == CBT_O_BUGS ? ": BUG" : "", t->seconds);
      break;
   }
   }
   if (g_tty)
      draw(s);
   fflush(stderr);
}

void cbt_progress_end(void)
{
   if (g_quiet)
      return;
   clear_line();
   fflush(stderr);
}
