/* cbtest_report.c: report.json, everything cbtest learned: tests, schedules,
 * verdicts, bugs (report.sarif, for code-scanning tools: cbtest_sarif.c).
 * Written to a temporary name and renamed, so a reader never sees half a
 * report (cbt_json_write_file, cbtest_json.c).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <string.h>

#include "cbtest.h"
#include "cbtest_explore.h"
#include "cbtrace.h"

static void json_event(cbt_json *j, const char *key, const cbt_event *e)
{
   cbt_json_object(j, key);
   cbt_json_string(j, "kind", e->kind);
   cbt_json_uint(j, "thread", e->tid);
   cbt_json_string(j, "file", e->file);
   cbt_json_uint(j, "line", e->line);
   cbt_json_string(j, "function", e->function);
   if (e->source[0])
      cbt_json_string(j, "source", e->source);
   cbt_json_end(j);
}

static void json_command(cbt_json *j, const char *key, const cbt_command *c)
{
   cbt_json_array(j, key);
   for (int a = 0; a < c->argc; a++)
      cbt_json_string(j, NULL, c->argv[a]);
   cbt_json_end(j);
}

/* A deadlocked run: what each thread waited for, a string a thread. */
void cbt_json_deadlock(cbt_json *j, const cbt_run *r)
{
   if (r->verdict != CBT_DEADLOCK)
      return;
   cbt_json_array(j, "deadlock");
   char line[sizeof r->deadlock];
   for (const char *p = r->deadlock; *p;) {
      size_t n = strcspn(p, "\n");
      cbt_fmt(line, sizeof line, "%.*s", (int)n, p);
      cbt_json_string(j, NULL, line);
      p += n + (p[n] == '\n');
   }
   cbt_json_end(j);
}

static void json_run(cbt_json *j, const cbt_run *r)
{
   cbt_json_object(j, NULL);
   cbt_json_string(j, "id", r->name);
   cbt_json_string(j, "schedule", r->path);
   cbt_json_string(j, "verdict", cbt_verdict_name(r->verdict));
   cbt_json_int(j, "exit_code", r->exit_code);
   if (r->variant >= 0)
      cbt_json_int(j, "variant", r->variant);
   cbt_json_double(j, "seconds", r->seconds);
   if (r->readable) {
      cbt_json_string(j, "pattern", r->pattern);
      cbt_json_string(j, "variable", r->variable);
      json_event(j, "e1", &r->e1);
      json_event(j, "f", &r->f);
      json_event(j, "e2", &r->e2);
   }
   cbt_json_deadlock(j, r);
   if (r->note[0])
      cbt_json_string(j, "note", r->note);
   cbt_json_string(j, "output", r->out_path);
   cbt_json_end(j);
}


/* "reproduced": true when the bug came back every time it was forced
 * again, false when not (then `reproduce` only runs it again), null when
 * it was not forced again. */
void cbt_json_reproduced(cbt_json *j, const cbt_run *r)
{
   int rep = cbt_reproduced(r);
   if (rep < 0)
      cbt_json_string(j, "reproduced", NULL);
   else
      cbt_json_bool(j, "reproduced", rep);
   cbt_json_uint(j, "forced_again", r->again);
   cbt_json_uint(j, "failed_again", r->again_failed);
   /* The reproducer when the schedule alone was not (cbreplay's pin.c). */
   cbt_json_string(j, "pinned", r->pinned[0] ? r->pinned : NULL);
   if (r->violation < 0)
      cbt_json_string(j, "violation_happened", NULL);
   else
      cbt_json_bool(j, "violation_happened", r->violation);
}
/* "misread": what the failing thread read otherwise than the recorded
 * run (cbtest_crash.c), and whether none of the bug's accesses is that
 * read; null when cbreplay did not say. */
static void json_misread(cbt_json *j, const cbt_crash *c, const cbt_bug *b)
{
   if (!c) {
      cbt_json_string(j, "misread", NULL);
      return;
   }
   cbt_json_object(j, "misread");
   cbt_json_string(j, "words", c->misread);
   cbt_json_string(j, "variable", c->variable);
   cbt_json_string(j, "function", c->function[0] ? c->function : NULL);
   cbt_json_string(j, "file", c->file);
   cbt_json_int(j, "line", (long long)c->line);
   cbt_json_bool(j, "away_from_pattern", b->crash_away);
   cbt_json_end(j);
}

/* "crash": where a forced run that crashed died (cbtest_crash.c), and
 * whether that is away from every access of the bug's pattern; null
 * when it did not crash. */
static void json_crash(cbt_json *j, const cbt_run *r, const cbt_bug *b)
{
   cbt_crash c;
   int site = cbt_crash_site(r, &c);
   if (!site || !c.signal[0]) {
      cbt_json_string(j, "crash", NULL);
      json_misread(j, site ? &c : NULL, b);
      return;
   }
   json_misread(j, NULL, b);
   cbt_json_object(j, "crash");
   cbt_json_string(j, "signal", c.signal);
   cbt_json_string(j, "function", c.function);
   cbt_json_string(j, "file", c.file);
   cbt_json_int(j, "line", (long long)c.line);
   cbt_json_bool(j, "away_from_pattern", b->crash_away);
   cbt_json_end(j);
}

static void json_bug(cbt_json *j, const cbt_suite *s, const cbt_bug *b)
{
   const cbt_test *t = &s->tests[b->test];
   const cbt_run *r = &t->runs[b->run];
   cbt_json_object(j, NULL);
   cbt_json_int(j, "rank", b->rank);
   cbt_json_double(j, "score", b->score);
   cbt_json_double(j, "test_score", b->test_score);
   cbt_json_string(j, "test", t->id);
   cbt_json_string(j, "pattern", r->pattern);
   cbt_json_string(j, "variable", r->variable);
   cbt_json_string(j, "verdict", cbt_verdict_name(r->verdict));
   cbt_json_deadlock(j, r);
   json_crash(j, r, b);
   char said[512];
   cbt_json_string(j, "said", cbt_said(r, said, sizeof said) ? said : NULL);
   json_event(j, "e1", &r->e1);
   json_event(j, "f", &r->f);
   json_event(j, "e2", &r->e2);
   cbt_json_array(j, "schedules");
   for (size_t i = 0; i < t->nruns; i++)
      if (cbt_is_bug(t->runs[i].verdict) &&
          !strcmp(t->runs[i].pattern, r->pattern) &&
          !strcmp(t->runs[i].variable, r->variable) &&
          !strcmp(t->runs[i].e1.file, r->e1.file) &&
          t->runs[i].e1.line == r->e1.line &&
          !strcmp(t->runs[i].f.file, r->f.file) &&
          t->runs[i].f.line == r->f.line &&
          !strcmp(t->runs[i].e2.file, r->e2.file) &&
          t->runs[i].e2.line == r->e2.line)
         cbt_json_string(j, NULL, t->runs[i].name);
   cbt_json_end(j);
   cbt_json_string(j, "reproduce", b->reproduce);
   cbt_json_reproduced(j, r);
   cbt_json_end(j);
}

static void json_counts(cbt_json *j, const cbt_test *t)
{
   size_t k[CBT_NVERDICTS] = {0};
   for (size_t r = 0; r < t->nruns; r++)
      k[t->runs[r].verdict]++;
   cbt_json_object(j, "verdicts");
   cbt_json_uint(j, "passed", k[CBT_PASSED]);
   cbt_json_uint(j, "failed", k[CBT_FAILED]);
   cbt_json_uint(j, "infeasible", k[CBT_INFEASIBLE]);
   cbt_json_uint(j, "not_forced", t->not_forced);
   cbt_json_uint(j, "hung", k[CBT_HUNG]);
   cbt_json_uint(j, "deadlock", k[CBT_DEADLOCK]);
   cbt_json_uint(j, "error", k[CBT_ERROR]);
   cbt_json_uint(j, "not_run", k[CBT_PENDING]);
   if (k[CBT_CURED])
      cbt_json_uint(j, "cured", k[CBT_CURED]);
   cbt_json_end(j);
}

/* Every access pattern forced, by rank: the Falcon score and its counts. */
static void json_patterns(cbt_json *j, const cbt_suite *s)
{
   cbt_json_array(j, "patterns");
   for (size_t k = 0; k < s->npatterns; k++) {
      const cbt_pattern *p = &s->patterns[k];
      const cbt_run *r = &s->tests[p->test].runs[p->run];
      cbt_json_object(j, NULL);
      cbt_json_int(j, "rank", p->rank);
      cbt_json_double(j, "score", p->score);
      cbt_json_uint(j, "failed", p->failed);
      cbt_json_uint(j, "passed", p->passed);
      cbt_json_string(j, "pattern", r->pattern);
      cbt_json_string(j, "variable", r->variable);
      json_event(j, "e1", &r->e1);
      json_event(j, "f", &r->f);
      json_event(j, "e2", &r->e2);
      cbt_json_end(j);
   }
   cbt_json_end(j);
}

static void write_json(cbt_json *j, const cbt_suite *s)
{
   cbt_totals tt;
   cbt_totals_of(s, &tt);
   cbt_json_object(j, NULL);
   cbt_json_string(j, "tool", "cbtest");
   cbt_json_uint(j, "format_version", 1);
   cbt_json_string(j, "output_dir", s->out_dir);
   cbt_json_int(j, "jobs", s->o->jobs);
   cbt_json_double(j, "timeout", s->o->timeout_s);
   cbt_json_bool(j, "z3", s->o->z3);
   cbt_json_double(j, "seconds", s->seconds);
   cbt_json_bool(j, "interrupted", s->interrupted);

   cbt_json_object(j, "summary");
   cbt_json_uint(j, "tests", tt.tests);
   cbt_json_uint(j, "clean", tt.clean);
   cbt_json_uint(j, "with_bugs", tt.with_bugs);
   cbt_json_uint(j, "failed_natively", tt.failed_natively);
   cbt_json_uint(j, "errors", tt.errors);
   cbt_json_uint(j, "schedules", tt.runs);
   cbt_json_uint(j, "passed", tt.passed);
   cbt_json_uint(j, "failed", tt.failed);
   cbt_json_uint(j, "infeasible", tt.infeasible);
   cbt_json_uint(j, "hung", tt.hung);
   cbt_json_uint(j, "deadlock", tt.deadlocks);
   cbt_json_uint(j, "run_errors", tt.run_errors);
   if (tt.cured)
      cbt_json_uint(j, "cured", tt.cured);
   cbt_json_uint(j, "bugs", tt.bugs);
   cbt_json_end(j);

   cbt_json_array(j, "tests");
   for (size_t i = 0; i < s->ntests; i++) {
      const cbt_test *t = &s->tests[i];
      cbt_json_object(j, NULL);
      cbt_json_string(j, "id", t->id);
      json_command(j, "command", &t->cmd);
      if (t->cmd.line)
         cbt_json_int(j, "line", t->cmd.line);
      cbt_json_string(j, "dir", t->dir);
      cbt_json_string(j, "outcome", cbt_outcome_name(t->outcome));
      if (s->interrupted && t->state != CBT_T_DONE)
         cbt_json_bool(j, "interrupted", 1); /* its finished runs below */
      if (t->state >= CBT_T_RECORDED || t->outcome == CBT_O_FAILED_NATIVELY)
         cbt_json_int(j, "native_exit", t->native_code);
      if (t->outcome == CBT_O_ERROR || t->outcome == CBT_O_FAILED_NATIVELY)
         cbt_json_string(j, "error", t->error);
      if (t->failed_each) /* predicted from a run that failed, as each did */
         cbt_json_bool(j, "failed_in_each_recording", 1);
      cbt_json_double(j, "seconds", t->seconds);
      /* As the summary counts them: the forced and the left unforced. */
      cbt_json_uint(j, "schedules_predicted", t->nruns + t->not_forced);
      json_counts(j, t);
      cbt_explore_json(j, t);
      cbt_json_array(j, "schedules");
      for (size_t r = 0; r < t->nruns; r++)
         json_run(j, &t->runs[r]);
      cbt_json_end(j);
      cbt_json_end(j);
   }
   cbt_json_end(j);

   cbt_json_array(j, "bugs");
   for (size_t b = 0; b < s->nbugs; b++)
      json_bug(j, s, &s->bugs[b]);
   cbt_json_end(j);
   json_patterns(j, s);
   cbt_json_end(j);
}

int cbt_write_json_report(const cbt_suite *s, const char *path, char *why,
                          size_t whylen)
{
   return cbt_json_write_file(path, write_json, s, why, whylen);
}
