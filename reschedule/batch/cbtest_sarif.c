/* cbtest_sarif.c: report.sarif (SARIF 2.1.0: one result per confirmed bug, with
 * its forced interleaving as thread flows, for code-scanning tools).  Written
 * to a temporary name and renamed, as report.json is (cbt_json_write_file,
 * cbtest_json.c).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <string.h>

#include "cbtest.h"
#include "cbtrace.h"

/* The rules of the report: one per pattern, in this order. */
static const char *const patterns[] = {"RWR", "RWW", "WRW", "WWR", "WWW",
                                       "ORD", "DLK", "explore"};
enum { NPATTERNS = 8 };

/* The bug shape a pattern name stands for, in words. */
static const char *cbt_shape_name(const char *pattern)
{
   if (!strcmp(pattern, "ORD")) return "order violation";
   if (!strcmp(pattern, "DLK")) return "lock-order inversion";
   if (!strcmp(pattern, "explore")) return "explored schedule";
   return "atomicity violation";
}

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
   cbt_json_deadlock(j, r);
   cbt_json_string(j, "reproduce", b->reproduce);
   cbt_json_reproduced(j, r);
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
   return cbt_json_write_file(path, write_sarif, s, why, whylen);
}
