/* cbtest_bugs.c: what the finished runs add up to: the totals, the confirmed
 * bugs, and their ranking.
 *
 * Ranking follows Falcon (Park, Vuduc, Harrold, ICSE 2010): every access
 * pattern (the pattern and its three code sites e1, f, e2) is scored over
 * the forced runs that forced it as
 *      score(s) = failed(s) / (totalfailed + passed(s))
 * (the Jaccard index), a failed run being one that failed, deadlocked or
 * hung.  A pattern whose forcing fails every time while the
 * others pass scores highest; one whose forcing also passes often, or that
 * fails only now and then among many failures, lower.  Infeasible runs,
 * errors and runs not forced say nothing about the pattern and are not
 * counted, so the ranking works on whatever was forced (the first bug of
 * each test by default, everything with --all-bugs).  Bugs are ordered by
 * the suite-wide score, then by the score within their test.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdlib.h>
#include <string.h>

#include "cbtest.h"
#include "cbtest_explore.h"
#include "cbtrace.h"

void cbt_totals_of(const cbt_suite *s, cbt_totals *tt)
{
   memset(tt, 0, sizeof *tt);
   tt->tests = s->ntests;
   for (size_t i = 0; i < s->ntests; i++) {
      const cbt_test *t = &s->tests[i];
      tt->done += t->state == CBT_T_DONE;
      switch (t->outcome) {
      case CBT_O_ERROR: tt->errors++; break;
      case CBT_O_FAILED_NATIVELY: tt->failed_natively++; break;
      case CBT_O_CLEAN: tt->clean++; break;
      case CBT_O_BUGS: tt->with_bugs++; break;
      case CBT_O_NONE: break;
      }
      tt->runs += t->nruns;
      for (size_t r = 0; r < t->nruns; r++) {
         switch (t->runs[r].verdict) {
         case CBT_PENDING: continue;
         case CBT_PASSED: tt->passed++; break;
         case CBT_FAILED: tt->failed++; break;
         case CBT_INFEASIBLE: tt->infeasible++; break;
         case CBT_HUNG: tt->hung++; break;
         case CBT_DEADLOCK: tt->deadlocks++; break;
         case CBT_ERROR: tt->run_errors++; break;
         case CBT_CURED: tt->cured++; break;
         case CBT_NVERDICTS: break;
         }
         tt->runs_done++;
      }
   }
   tt->bugs = s->nbugs;
   for (size_t b = 0; b < s->nbugs; b++)
      tt->not_reproduced += s->bugs[b].reproduced == 0;
}

static int same_sites(const cbt_run *a, const cbt_run *b)
{
   return !strcmp(a->pattern, b->pattern) &&
          !strcmp(a->e1.file, b->e1.file) && a->e1.line == b->e1.line &&
          !strcmp(a->f.file, b->f.file) && a->f.line == b->f.line &&
          !strcmp(a->e2.file, b->e2.file) && a->e2.line == b->e2.line;
}

/* A variable's name up to what stands beside the source's expression:
 * "it->stock" of "it->stock (heap block of 144 bytes from inv.c:68,
 * offset 40)" (trace/names.c, cb_access_name). */
static size_t source_name_len(const char *v)
{
   const char *paren = strstr(v, " (");
   return paren ? (size_t)(paren - v) : strlen(v);
}

/* Runs of one test with the same pattern, variable and three locations are
 * one bug (T2/T3 and T3/T2 are the same mistake); so are runs whose
 * variables the source names alike there (two elements of one array
 * reached by the same lines: items[i].stock at offsets 40 and 136). */
static int same_bug(const cbt_run *a, const cbt_run *b)
{
   size_t la = source_name_len(a->variable);
   return same_sites(a, b) && la == source_name_len(b->variable) &&
          !strncmp(a->variable, b->variable, la);
}

/* The runs that say something about their pattern: a failure (cbt_is_bug)
 * or a pass. */
static int counts(enum cbt_verdict v)
{
   return cbt_is_bug(v) || v == CBT_PASSED;
}

int cbt_reproduced(const cbt_run *r)
{
   if (!r->again)
      return -1;
   return r->again_failed == r->again || r->pinned[0]; /* pinned: every time */
}

int cbt_stops_forcing(const cbt_run *r)
{
   return cbt_is_bug(r->verdict) && cbt_reproduced(r) != 0;
}

static void make_reproduce(const cbt_suite *s, const cbt_test *t,
                           const cbt_run *r, char *buf, size_t len)
{
   buf[0] = 0;
   cb_append_shell_quoted(buf, len, s->cbreplay);
   cb_append_shell_quoted(buf, len, "--schedule");
   cb_append_shell_quoted(buf, len, r->pinned[0] ? r->pinned : r->path);
   char num[32];
   if (r->variant >= 0 && !r->pinned[0]) {
      cbt_fmt(num, sizeof num, "%d", r->variant);
      cb_append_shell_quoted(buf, len, "--variant");
      cb_append_shell_quoted(buf, len, num);
   }
   double timeout = t->timeout_s > 0 ? t->timeout_s : CBT_DEFAULT_TIMEOUT_S;
   if (timeout != CBT_DEFAULT_TIMEOUT_S) {
      cbt_fmt(num, sizeof num, "%g", timeout);
      cb_append_shell_quoted(buf, len, "--timeout");
      cb_append_shell_quoted(buf, len, num);
   }
   cb_append_shell_quoted(buf, len, "--");
   for (int a = 0; a < t->cmd.argc; a++)
      cb_append_shell_quoted(buf, len, t->cmd.argv[a]);
}

/* Every distinct access pattern forced, with its suite-wide counts; each
 * run's key points at its pattern. */
static void collect_patterns(cbt_suite *s)
{
   free(s->patterns);
   s->patterns = NULL;
   s->npatterns = 0;
   size_t total_failed = 0;
   for (size_t ti = 0; ti < s->ntests; ti++) {
      cbt_test *t = &s->tests[ti];
      for (size_t ri = 0; ri < t->nruns; ri++) {
         cbt_run *r = &t->runs[ri];
         r->key = (size_t)-1;
         if (!r->readable || !counts(r->verdict))
            continue;
         size_t k;
         for (k = 0; k < s->npatterns; k++) {
            const cbt_pattern *p = &s->patterns[k];
            if (same_sites(&s->tests[p->test].runs[p->run], r))
               break;
         }
         if (k == s->npatterns) {
            cbt_pattern *more =
               realloc(s->patterns, (k + 1) * sizeof *s->patterns);
            if (!more)
               continue;
            s->patterns = more;
            memset(&more[k], 0, sizeof *more);
            more[k].test = ti;
            more[k].run = ri;
            s->npatterns++;
         }
         r->key = k;
         if (cbt_is_bug(r->verdict)) {
            s->patterns[k].failed++;
            total_failed++;
         } else {
            s->patterns[k].passed++;
         }
      }
   }
   for (size_t k = 0; k < s->npatterns; k++) {
      cbt_pattern *p = &s->patterns[k];
      p->score = total_failed ? (double)p->failed /
                                   (double)(total_failed + p->passed)
                              : 0.0;
   }
}

/* The same score over one test's forced runs only. */
static double test_score(const cbt_test *t, size_t key)
{
   size_t total_failed = 0, failed = 0, passed = 0;
   for (size_t ri = 0; ri < t->nruns; ri++) {
      const cbt_run *r = &t->runs[ri];
      if (!r->readable || !counts(r->verdict))
         continue;
      total_failed += cbt_is_bug(r->verdict);
      if (r->key == key) {
         failed += cbt_is_bug(r->verdict);
         passed += r->verdict == CBT_PASSED;
      }
   }
   return total_failed ? (double)failed / (double)(total_failed + passed) : 0;
}

/* A bug whose schedule reproduced its failure comes before one whose did
 * not come back when forced again: the user's first bug is one they can
 * see again.  Then higher score first; on equal scores, a bug whose
 * violation happened in its run before one whose failure came from
 * elsewhere (its title would send the user to the wrong place), and one
 * whose run crashed in a function of its own accesses before one whose
 * crashed elsewhere (cbtest_crash.c), and one whose violation was seen
 * to happen before one whose run left the schedule's path; ties keep
 * the order they were found in (tests in order, schedules in cbpredict's
 * order of likelihood). */
static int cmp_bug(const void *a, const void *b)
{
   const cbt_bug *x = a, *y = b;
   if ((x->reproduced == 0) != (y->reproduced == 0))
      return x->reproduced == 0 ? 1 : -1;
   if (x->score != y->score)
      return x->score < y->score ? 1 : -1;
   if (x->missed != y->missed)
      return x->missed ? 1 : -1;
   if (x->crash_away != y->crash_away)
      return x->crash_away ? 1 : -1;
   if (x->left_path != y->left_path)
      return x->left_path ? 1 : -1;
   if (x->test_score != y->test_score)
      return x->test_score < y->test_score ? 1 : -1;
   if (x->test != y->test)
      return x->test < y->test ? -1 : 1;
   return (x->run > y->run) - (x->run < y->run);
}

static int cmp_pattern(const void *a, const void *b)
{
   const cbt_pattern *x = a, *y = b;
   if (x->score != y->score)
      return x->score < y->score ? 1 : -1;
   if (x->failed != y->failed)
      return x->failed < y->failed ? 1 : -1;
   if (x->test != y->test)
      return x->test < y->test ? -1 : 1;
   return (x->run > y->run) - (x->run < y->run);
}

/* Sorting moves patterns: keys of the runs follow. */
static void rank_patterns(cbt_suite *s)
{
   for (size_t k = 0; k < s->npatterns; k++)
      s->patterns[k].rank = (int)k; /* the old index, for now */
   if (s->npatterns > 1)
      qsort(s->patterns, s->npatterns, sizeof *s->patterns, cmp_pattern);
   size_t *where = calloc(s->npatterns + 1, sizeof *where);
   for (size_t k = 0; k < s->npatterns; k++) {
      if (where)
         where[s->patterns[k].rank] = k;
      s->patterns[k].rank = (int)k + 1;
   }
   for (size_t ti = 0; ti < s->ntests; ti++)
      for (size_t ri = 0; ri < s->tests[ti].nruns; ri++) {
         cbt_run *r = &s->tests[ti].runs[ri];
         if (r->key != (size_t)-1)
            r->key = where ? where[r->key] : (size_t)-1;
      }
   free(where);
}

void cbt_collect_bugs(cbt_suite *s)
{
   free(s->bugs);
   s->bugs = NULL;
   s->nbugs = 0;
   collect_patterns(s);
   rank_patterns(s);
   for (size_t ti = 0; ti < s->ntests; ti++) {
      const cbt_test *t = &s->tests[ti];
      size_t first_bug = s->nbugs;
      for (size_t ri = 0; ri < t->nruns; ri++) {
         const cbt_run *r = &t->runs[ri];
         if (!cbt_is_bug(r->verdict))
            continue;
         size_t b;
         for (b = first_bug; b < s->nbugs; b++)
            if (same_bug(&t->runs[s->bugs[b].run], r))
               break;
         if (b < s->nbugs) {
            cbt_bug *bug = &s->bugs[b];
            bug->nruns++;
            /* A run whose schedule reproduces the bug stands for it; of
             * those, one where the violation happened. */
            int better = cbt_reproduced(r) == 1 &&
                         cbt_reproduced(&t->runs[bug->run]) == 0;
            better |= cbt_reproduced(r) == bug->reproduced && bug->missed &&
                      r->violation == 1;
            if (better) {
               bug->run = ri;
               bug->verdict = r->verdict;
               bug->reproduced = cbt_reproduced(r);
               bug->missed = 0;
               make_reproduce(s, t, r, bug->reproduce, sizeof bug->reproduce);
            }
            continue;
         }
         cbt_bug *more = realloc(s->bugs, (s->nbugs + 1) * sizeof *more);
         if (!more)
            return;
         s->bugs = more;
         cbt_bug *bug = &s->bugs[s->nbugs++];
         memset(bug, 0, sizeof *bug);
         bug->test = ti;
         bug->run = ri;
         bug->nruns = 1;
         bug->verdict = r->verdict;
         bug->reproduced = cbt_reproduced(r);
         bug->missed = r->violation == 0;
         bug->left_path = r->violation == CBT_LEFT_PATH;
         cbt_crash c;
         bug->crash_away = cbt_crash_site(r, &c) && cbt_crash_distance(r, &c) < 0;
         if (r->key != (size_t)-1) {
            bug->score = s->patterns[r->key].score;
            bug->test_score = test_score(t, r->key);
         }
         make_reproduce(s, t, r, bug->reproduce, sizeof bug->reproduce);
      }
   }
   if (s->nbugs > 1)
      qsort(s->bugs, s->nbugs, sizeof *s->bugs, cmp_bug);
   for (size_t b = 0; b < s->nbugs; b++) {
      s->bugs[b].rank = (int)b + 1;
      cbt_test *t = &s->tests[s->bugs[b].test];
      cbt_quote_sources(s, t, &t->runs[s->bugs[b].run], &s->bugs[b]);
   }
}

void cbt_free_suite(cbt_suite *s)
{
   for (size_t i = 0; i < s->ntests; i++) {
      cbt_free_words(s->tests[i].cmd.argv);
      free(s->tests[i].runs);
      cbt_explore_free(&s->tests[i]);
   }
   free(s->tests);
   free(s->bugs);
   free(s->patterns);
   s->tests = NULL;
   s->bugs = NULL;
   s->patterns = NULL;
   s->ntests = s->nbugs = s->npatterns = 0;
}
