/* cbtest_report.c: report.json (everything cbtest learned: tests, schedules,
 * verdicts, bugs) and report.sarif (SARIF 2.1.0: one result per confirmed
 * bug, for code-scanning tools).  Both are written to a temporary name and
 * renamed, so a reader never sees half a report (write_file).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cbtest.h"
#include "cbtrace.h"

static const char *const patterns[] = {"RWR", "RWW", "WRW", "WWR", "WWW",
                                       "ORD", "DLK", "explore"};
enum { NPATTERNS = 8 };

typedef void (*writer_fn)(cbt_json *j, const cbt_suite *s);

typedef struct {
   writer_fn fn;
   const cbt_suite *s;
   int bad; /* unbalanced JSON: a bug of cbtest */
} json_job;

static void write_json_doc(FILE *f, const void *arg)
{
   json_job *jj = (json_job *)arg;
   cbt_json j;
   cbt_json_init(&j, f);
   jj->fn(&j, jj->s);
   jj->bad = cbt_json_finish(&j);
}

static int write_file(const char *path, writer_fn fn, const cbt_suite *s,
                      char *why, size_t whylen)
{
   json_job jj = {.fn = fn, .s = s};
   if (cbt_write_atomic(path, write_json_doc, &jj, why, whylen) != 0)
      return -1;
   if (jj.bad) {
      snprintf(why, whylen, "internal error: unbalanced JSON in %s", path);
      unlink(path);
      return -1;
   }
   return 0;
}

/* ---- report.json ------------------------------------------------------------- */

/* The bug shape a pattern name stands for, in words. */
static const char *cbt_shape_name(const char *pattern)
{
   if (!strcmp(pattern, "ORD")) return "order violation";
   if (!strcmp(pattern, "DLK")) return "lock-order inversion";
   if (!strcmp(pattern, "explore")) return "explored schedule";
   return "atomicity violation";
}

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
static void json_deadlock(cbt_json *j, const cbt_run *r)
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
   json_deadlock(j, r);
   if (r->note[0])
      cbt_json_string(j, "note", r->note);
   cbt_json_string(j, "output", r->out_path);
   cbt_json_end(j);
}


/* "reproduced": true when the bug came back every time it was forced
 * again, false when not (then `reproduce` only runs it again), null when
 * it was not forced again. */
static void json_reproduced(cbt_json *j, const cbt_run *r)
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
   json_deadlock(j, r);
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
   json_reproduced(j, r);
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
   return write_file(path, write_json, s, why, whylen);
}

/* ---- report.sarif ------------------------------------------------------------- */

/* A file name as a URI reference: absolute paths become file:// URIs, and
 * anything outside the unreserved characters is percent-encoded. */
static void file_uri(const char *file, char *buf, size_t len)
{
   static const char hex[] = "0123456789ABCDEF";
   size_t n = 0;
   if (file[0] == '/')
      n = (size_t)snprintf(buf, len, "file://");
   for (const unsigned char *p = (const unsigned char *)file; *p; p++) {
      int plain = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
                  (*p >= '0' && *p <= '9') || strchr("-._~/", *p);
      if (plain && n + 1 < len) {
         buf[n++] = (char)*p;
      } else if (!plain && n + 3 < len) {
         buf[n++] = '%';
         buf[n++] = hex[*p >> 4];
         buf[n++] = hex[*p & 15];
      }
   }
   buf[n < len ? n : len - 1] = 0;
}

static int has_place(const cbt_event *e) { return e->file[0] && e->line > 0; }

static void sarif_physical_at(cbt_json *j, const char *file, unsigned line,
                              const char *snippet)
{
   char uri[PATH_MAX * 3 + 16];
   file_uri(file, uri, sizeof uri);
   cbt_json_object(j, "physicalLocation");
   cbt_json_object(j, "artifactLocation");
   cbt_json_string(j, "uri", uri);
   cbt_json_end(j);
   cbt_json_object(j, "region");
   cbt_json_uint(j, "startLine", line);
   if (snippet && *snippet) { /* SARIF 2.1.0 3.30.13: the region's text */
      cbt_json_object(j, "snippet");
      cbt_json_string(j, "text", snippet);
      cbt_json_end(j);
   }
   cbt_json_end(j);
   cbt_json_end(j);
}

/* A bug's event, its file by the path the debug information gives (path,
 * may be ""): relative to the folder cbtest runs in when it lies below it
 * (run from a repository's root, as CI does, that is the path code
 * scanning matches), else absolute (a file:// URI); without a path, the
 * file as the event names it. */
static void sarif_physical_path(cbt_json *j, const cbt_event *e,
                                const char *path)
{
   char cwd[PATH_MAX];
   size_t n;
   if (!path[0] || path[0] != '/' || !getcwd(cwd, sizeof cwd)) {
      sarif_physical_at(j, path[0] ? path : e->file, e->line, e->source);
      return;
   }
   n = strlen(cwd);
   if (n > 1 && strncmp(path, cwd, n) == 0 && path[n] == '/')
      sarif_physical_at(j, path + n + 1, e->line, e->source);
   else
      sarif_physical_at(j, path, e->line, e->source);
}

/* One threadFlow per thread, each location numbered by its place in the
 * forced order (executionOrder), so viewers can step through the
 * interleaving across the flows. */
static void sarif_code_flows(cbt_json *j, const cbt_test *t, const cbt_run *r)
{
   cbt_flow fl;
   cbt_flow_of(t, r, &fl);
   cbt_json_array(j, "codeFlows");
   cbt_json_object(j, NULL);
   cbt_json_object(j, "message");
   char msg[512];
   snprintf(msg, sizeof msg, "The forced interleaving of schedule %s%s: %s",
            r->name,
            fl.from_trace ? "" : " (e1, f and e2 only: its trace was not "
                                 "readable)",
            !strcmp(r->pattern, "ORD")
               ? "f in another thread, then e1 (= e2)"
               : "e1, then f in another thread, then e2");
   cbt_json_string(j, "text", msg);
   cbt_json_end(j);
   cbt_json_array(j, "threadFlows");
   for (int k = 0; k < fl.nthreads; k++) {
      char id[32];
      snprintf(id, sizeof id, "T%u", fl.threads[k]);
      cbt_json_object(j, NULL);
      cbt_json_string(j, "id", id);
      cbt_json_object(j, "message");
      cbt_json_string(j, "text", id);
      cbt_json_end(j);
      cbt_json_array(j, "locations");
      for (size_t i = 0; i < fl.n; i++) {
         const cbt_flow_event *e = &fl.ev[i];
         if (e->tid != fl.threads[k])
            continue;
         char words[512];
         snprintf(words, sizeof words, "%s%s%s%s%s", e->role ? e->role : "",
                  e->role ? ": " : "", e->what,
                  e->function[0] ? " in " : "", e->function);
         cbt_json_object(j, NULL);
         cbt_json_object(j, "location");
         if (e->file[0] && e->line > 0)
            sarif_physical_at(j, e->file, e->line, NULL);
         cbt_json_object(j, "message");
         cbt_json_string(j, "text", words);
         cbt_json_end(j);
         cbt_json_end(j);
         cbt_json_int(j, "executionOrder", (long long)i + 1);
         cbt_json_string(j, "importance", e->role ? "essential" : "important");
         cbt_json_end(j);
      }
      cbt_json_end(j); /* locations */
      cbt_json_end(j);
   }
   cbt_json_end(j); /* threadFlows */
   cbt_json_end(j);
   cbt_json_end(j); /* codeFlows */
   cbt_flow_free(&fl);
}

static void event_words(const char *role, const cbt_event *e,
                        const char *variable, char *buf, size_t len)
{
   char where[PATH_MAX + 32];
   snprintf(buf, len, "%s: %s of %s by thread T%u at %s%s%s", role,
            e->kind[0] ? e->kind : "access",
            e->variable[0] ? e->variable : variable, e->tid,
            cbt_event_where(e, where, sizeof where),
            e->function[0] ? " in " : "", e->function);
}

/* The result's message: the bug in one sentence, a deadlock's threads, a
 * crash's place, e1, f and e2, and how to see it again. */
static void sarif_message(const cbt_test *t, const cbt_run *r,
                          const cbt_bug *b, const char *const w[3], char *msg,
                          size_t len)
{
   /* A deadlock names its threads, what each waited for and who held it. */
   char waits[2 * sizeof r->deadlock] = "";
   size_t nw = 0;
   for (const char *p = r->deadlock; r->verdict == CBT_DEADLOCK && *p;) {
      size_t n = strcspn(p, "\n");
      nw += (size_t)snprintf(waits + nw, sizeof waits - nw, "%s%.*s",
                             nw ? "; " : ": ", (int)n, p);
      p += n + (p[n] == '\n');
   }
   char crash[512] = "";
   cbt_crash c;
   if (cbt_crash_site(r, &c)) {
      crash[0] = ':';
      crash[1] = ' ';
      cbt_crash_words(&c, crash + 2, sizeof crash - 2);
   }
   char line[512], said[sizeof line + 16] = "";
   if (cbt_said(r, line, sizeof line))
      snprintf(said, sizeof said, "; it said \"%s\"", line);
   snprintf(msg, len,
            "%s %s on %s, confirmed: the forced run %s "
            "(test %s, schedule %s)%s%s%s. %s; %s; %s. %s: %s",
            r->pattern, cbt_shape_name(r->pattern), r->variable,
            cbt_verdict_words(b->verdict), t->id, r->name, waits, crash, said,
            w[0], w[1], w[2],
            cbt_reproduced(r) == 0 ? "Not reproduced when forced again; run "
                                     "again"
                                   : "Reproduce",
            b->reproduce);
}

/* e2 as the result's location, e1 and f as related ones. */
static void sarif_locations(cbt_json *j, const cbt_run *r, const cbt_bug *b,
                            const char *const w[3])
{
   cbt_json_array(j, "locations");
   if (has_place(&r->e2)) {
      cbt_json_object(j, NULL);
      sarif_physical_path(j, &r->e2, b->src_path[2]);
      cbt_json_object(j, "message");
      cbt_json_string(j, "text", w[2]);
      cbt_json_end(j);
      cbt_json_end(j);
   }
   cbt_json_end(j);
   cbt_json_array(j, "relatedLocations");
   const cbt_event *rel[2] = {&r->e1, &r->f};
   for (int i = 0; i < 2; i++) {
      if (!has_place(rel[i]))
         continue;
      cbt_json_object(j, NULL);
      cbt_json_int(j, "id", i + 1);
      sarif_physical_path(j, rel[i], b->src_path[i]);
      cbt_json_object(j, "message");
      cbt_json_string(j, "text", w[i]);
      cbt_json_end(j);
      cbt_json_end(j);
   }
   cbt_json_end(j);
}

static void sarif_result(cbt_json *j, const cbt_suite *s, const cbt_bug *b)
{
   const cbt_test *t = &s->tests[b->test];
   const cbt_run *r = &t->runs[b->run];
   int rule = -1;
   for (int i = 0; i < NPATTERNS; i++)
      if (!strcmp(patterns[i], r->pattern))
         rule = i;
   char w1[PATH_MAX + 256], wf[PATH_MAX + 256], w2[PATH_MAX + 256];
   event_words("e1", &r->e1, r->variable, w1, sizeof w1);
   event_words("f", &r->f, r->variable, wf, sizeof wf);
   event_words("e2", &r->e2, r->variable, w2, sizeof w2);
   const char *const w[3] = {w1, wf, w2};
   char msg[4 * PATH_MAX + 10000 + 2 * sizeof r->deadlock + 512];
   sarif_message(t, r, b, w, msg, sizeof msg);

   cbt_json_object(j, NULL);
   cbt_json_string(j, "ruleId", r->pattern);
   if (rule >= 0)
      cbt_json_int(j, "ruleIndex", rule);
   cbt_json_string(j, "level", "error");
   /* SARIF's rank: 0 to 100, higher is more important. */
   cbt_json_double(j, "rank", b->score * 100.0);
   cbt_json_object(j, "message");
   cbt_json_string(j, "text", msg);
   cbt_json_end(j);
   sarif_locations(j, r, b, w);
   sarif_code_flows(j, t, r);
   cbt_json_object(j, "properties");
   cbt_json_int(j, "rank", b->rank);
   cbt_json_double(j, "score", b->score);
   cbt_json_string(j, "test", t->id);
   cbt_json_string(j, "variable", r->variable);
   cbt_json_string(j, "schedule", r->path);
   cbt_json_string(j, "verdict", cbt_verdict_name(r->verdict));
   json_deadlock(j, r);
   cbt_json_string(j, "reproduce", b->reproduce);
   json_reproduced(j, r);
   cbt_json_end(j);
   cbt_json_end(j);
}

static void write_sarif(cbt_json *j, const cbt_suite *s)
{
   cbt_json_object(j, NULL);
   cbt_json_string(j, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
   cbt_json_string(j, "version", "2.1.0");
   cbt_json_array(j, "runs");
   cbt_json_object(j, NULL);

   cbt_json_object(j, "tool");
   cbt_json_object(j, "driver");
   cbt_json_string(j, "name", "cbtools");
   cbt_json_string(j, "version", "0.1");
   cbt_json_array(j, "rules");
   for (int i = 0; i < NPATTERNS; i++) {
      const char *full = cbt_pattern_description(patterns[i]);
      char name[64];
      if (!strcmp(patterns[i], "ORD"))
         snprintf(name, sizeof name, "OrderViolation");
      else if (!strcmp(patterns[i], "DLK"))
         snprintf(name, sizeof name, "LockOrderInversion");
      else if (!strcmp(patterns[i], "explore"))
         snprintf(name, sizeof name, "ExploredSchedule");
      else
         snprintf(name, sizeof name, "AtomicityViolation%s", patterns[i]);
      const char *brief = cbt_pattern_short(patterns[i]);
      cbt_json_object(j, NULL);
      cbt_json_string(j, "id", patterns[i]);
      cbt_json_string(j, "name", name);
      cbt_json_object(j, "shortDescription");
      cbt_json_string(j, "text", brief);
      cbt_json_end(j);
      cbt_json_object(j, "fullDescription");
      cbt_json_string(j, "text", full);
      cbt_json_end(j);
      cbt_json_object(j, "defaultConfiguration");
      cbt_json_string(j, "level", "error");
      cbt_json_end(j);
      cbt_json_end(j);
   }
   cbt_json_end(j); /* rules */
   cbt_json_end(j); /* driver */
   cbt_json_end(j); /* tool */

   cbt_json_array(j, "invocations");
   cbt_json_object(j, NULL);
   cbt_json_bool(j, "executionSuccessful", !s->interrupted);
   cbt_json_end(j);
   cbt_json_end(j);

   cbt_json_array(j, "results");
   for (size_t b = 0; b < s->nbugs; b++)
      sarif_result(j, s, &s->bugs[b]);
   cbt_json_end(j);

   cbt_json_end(j); /* the run */
   cbt_json_end(j); /* runs */
   cbt_json_end(j);
}

int cbt_write_sarif_report(const cbt_suite *s, const char *path, char *why,
                           size_t whylen)
{
   return write_file(path, write_sarif, s, why, whylen);
}
