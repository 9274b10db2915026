/* cbtest_html.c: report.html, one self-contained page (no script, no file
 * beside it): the summary table on top, then for every confirmed bug, by
 * rank, its forced interleaving drawn down the page with one lane per
 * thread, each event with its file:line and the source line when the
 * source file can be found.  People see an interleaving faster than they
 * read one.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <string.h>

#include "cbtest.h"
#include "cbtrace.h"

static const char style[] =
   "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}"
   "h1{font-size:22px}h2{font-size:17px;margin-top:32px}"
   "table{border-collapse:collapse}"
   "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;"
   "vertical-align:top}th{background:#f0f0f0}"
   "code,pre{font:12px/1.35 ui-monospace,monospace}"
   "pre{background:#f6f6f6;padding:8px;white-space:pre-wrap}"
   ".bug{color:#b00;font-weight:bold}.ok{color:#070}"
   ".flow td{border:none;border-left:3px solid #dde;min-width:260px;"
   "padding:4px 10px}.flow th{min-width:260px}"
   ".flow td.n,.flow th.n{border:none;min-width:0;color:#888;"
   "text-align:right}"
   ".ev{background:#eef3ff;border:1px solid #9ab;border-radius:4px;"
   "padding:3px 6px}.ev.role{background:#ffe9e6;border-color:#d66}"
   ".role b{color:#b00}.src{color:#555;display:block;white-space:pre}"
   ".where{color:#666;font-size:12px}";

static void esc(FILE *f, const char *s)
{
   for (; *s; s++) {
      switch (*s) {
      case '<': fputs("&lt;", f); break;
      case '>': fputs("&gt;", f); break;
      case '&': fputs("&amp;", f); break;
      case '"': fputs("&quot;", f); break;
      default: fputc(*s, f);
      }
   }
}

static void where(FILE *f, const char *file, unsigned line)
{
   if (!file[0]) {
      fputs("?", f);
      return;
   }
   esc(f, file);
   if (line)
      fprintf(f, ":%u", line);
}

static void summary_tables(FILE *f, const cbt_suite *s)
{
   cbt_totals tt;
   cbt_totals_of(s, &tt);
   fprintf(f, "<p>%zu bug%s confirmed in %zu of %zu tests (%zu clean, %zu "
              "failed natively, %zu errors); forced runs: %zu passed, %zu "
              "failed, %zu deadlocked, %zu infeasible, %zu hung.</p>\n",
           tt.bugs, tt.bugs == 1 ? "" : "s", tt.with_bugs, tt.tests, tt.clean,
           tt.failed_natively, tt.errors, tt.passed, tt.failed, tt.deadlocks,
           tt.infeasible, tt.hung);
   fputs("<table><tr><th>rank</th><th>score</th><th>test</th><th>pattern"
         "</th><th>variable</th><th>e1</th><th>f</th><th>e2</th><th>forced "
         "run</th></tr>\n", f);
   for (size_t b = 0; b < s->nbugs; b++) {
      const cbt_bug *bug = &s->bugs[b];
      const cbt_test *t = &s->tests[bug->test];
      const cbt_run *r = &t->runs[bug->run];
      fprintf(f, "<tr><td><a href=\"#bug%d\">#%d</a></td><td>%.2f</td><td>",
              bug->rank, bug->rank, bug->score);
      esc(f, t->id);
      fprintf(f, "</td><td class=bug>%s</td><td><code>", r->pattern);
      esc(f, r->variable);
      fputs("</code></td>", f);
      const cbt_event *ev[3] = {&r->e1, &r->f, &r->e2};
      for (int i = 0; i < 3; i++) {
         fputs("<td><code>", f);
         where(f, ev[i]->file, ev[i]->line);
         fprintf(f, "</code> T%u</td>", ev[i]->tid);
      }
      fprintf(f, "<td class=bug>%s</td></tr>\n",
              cbt_verdict_words(bug->verdict));
   }
   fputs("</table>\n<h2>Tests</h2>\n<table><tr><th>test</th><th>command"
         "</th><th>outcome</th><th>forced runs</th></tr>\n", f);
   for (size_t i = 0; i < s->ntests; i++) {
      const cbt_test *t = &s->tests[i];
      size_t k[CBT_NVERDICTS] = {0};
      for (size_t r = 0; r < t->nruns; r++)
         k[t->runs[r].verdict]++;
      char cmd[4096] = "";
      for (int a = 0; a < t->cmd.argc; a++)
         cb_append_shell_quoted(cmd, sizeof cmd, t->cmd.argv[a]);
      fputs("<tr><td>", f);
      esc(f, t->id);
      fputs("</td><td><code>", f);
      esc(f, cmd);
      fprintf(f, "</code></td><td class=%s>%s", t->outcome == CBT_O_BUGS ?
              "bug" : "ok", cbt_outcome_name(t->outcome));
      if (t->error[0]) {
         fputs(": ", f);
         esc(f, t->error);
      }
      fprintf(f, "</td><td>%zu passed, %zu failed, %zu deadlocked, %zu "
                 "infeasible, %zu hung%s</td></tr>\n", k[CBT_PASSED],
              k[CBT_FAILED], k[CBT_DEADLOCK], k[CBT_INFEASIBLE], k[CBT_HUNG],
              t->not_forced ? ", some not forced" : "");
   }
   fputs("</table>\n", f);
}

/* The interleaving: a row per event in the forced order, a column (lane)
 * per thread. */
static void flow_lanes(FILE *f, const cbt_suite *s, const cbt_test *t,
                       const cbt_run *r)
{
   cbt_flow fl;
   cbt_flow_of(t, r, &fl);
   fputs("<table class=flow><tr><th class=n></th>", f);
   for (int k = 0; k < fl.nthreads; k++)
      fprintf(f, "<th>thread T%u</th>", fl.threads[k]);
   fputs("</tr>\n", f);
   for (size_t i = 0; i < fl.n; i++) {
      const cbt_flow_event *e = &fl.ev[i];
      fprintf(f, "<tr><td class=n>%zu</td>", i + 1);
      for (int k = 0; k < fl.nthreads; k++) {
         if (fl.threads[k] != e->tid) {
            fputs("<td></td>", f);
            continue;
         }
         fprintf(f, "<td><div class=\"ev%s\">", e->role ? " role" : "");
         if (e->role)
            fprintf(f, "<b>%s</b> ", e->role);
         esc(f, e->what);
         fputs(" <span class=where>", f);
         where(f, e->file, e->line);
         if (e->function[0]) {
            fputs(" in ", f);
            esc(f, e->function);
         }
         fputs("</span>", f);
         char src[1024];
         cbt_source_line(s, t, e->dir, e->object, e->file, e->line, src,
                         sizeof src);
         if (src[0]) {
            fputs("<code class=src>", f);
            esc(f, src);
            fputs("</code>", f);
         }
         fputs("</div></td>", f);
      }
      fputs("</tr>\n", f);
   }
   fputs("</table>\n", f);
   if (!fl.from_trace)
      fputs("<p><i>Only e1, f and e2: the recorded trace or the schedule "
            "could not be read.</i></p>\n", f);
   cbt_flow_free(&fl);
}

static void write_html(FILE *f, const void *arg)
{
   const cbt_suite *s = arg;
   fprintf(f, "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
              "<title>cbtest report</title><style>%s</style></head><body>\n"
              "<h1>cbtest report</h1>\n", style);
   summary_tables(f, s);
   for (size_t b = 0; b < s->nbugs; b++) {
      const cbt_bug *bug = &s->bugs[b];
      const cbt_test *t = &s->tests[bug->test];
      const cbt_run *r = &t->runs[bug->run];
      fprintf(f, "<h2 id=bug%d>#%d %s on <code>", bug->rank, bug->rank,
              r->pattern);
      esc(f, r->variable);
      fputs("</code> in test ", f);
      esc(f, t->id);
      fprintf(f, " (score %.2f)</h2>\n<p>", bug->score);
      esc(f, cbt_pattern_description(r->pattern));
      fprintf(f, ". Schedule %s %s when forced; the events down the page "
                 "are in the forced order.</p>\n", r->name,
              cbt_verdict_words(bug->verdict));
      if (r->verdict == CBT_DEADLOCK && r->deadlock[0]) {
         fputs("<p>When the tool ended the run, every thread waited:</p>"
               "<pre>", f);
         esc(f, r->deadlock);
         fputs("</pre>\n", f);
      }
      char said[512];
      if (cbt_said(r, said, sizeof said)) {
         fputs("<p>The program said:</p><pre>", f);
         esc(f, said);
         fputs("</pre>\n", f);
      }
      flow_lanes(f, s, t, r);
      fputs(cbt_reproduced(r) == 0
               ? "<p>Not reproduced: when forced again, the run did not fail "
                 "every time. Run again:</p><pre>"
               : "<p>Reproduce:</p><pre>", f);
      esc(f, bug->reproduce);
      fputs("</pre>\n", f);
   }
   fputs("</body></html>\n", f);
}

int cbt_write_html_report(const cbt_suite *s, const char *path, char *why,
                          size_t whylen)
{
   return cbt_write_atomic(path, write_html, s, why, whylen);
}
