/* cbtest_summary.c: the human summary on stdout, after every test ended.
 * Per test: what happened, the schedules predicted and how their forced runs
 * ended; per confirmed bug: pattern, variable, the three events with
 * file:line, and the command that reproduces it.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <string.h>

#include "cbtest.h"
#include "cbtest_explore.h"
#include "cbtrace.h"

const char *cbt_pattern_description(const char *p)
{
   if (!strcmp(p, "RWR"))
      return "Atomicity violation RWR: a block reads a variable twice and "
             "another thread writes it in between, so the two reads disagree";
   if (!strcmp(p, "RWW"))
      return "Atomicity violation RWW: a block reads a variable and writes it "
             "back, and another thread's write in between is lost";
   if (!strcmp(p, "WRW"))
      return "Atomicity violation WRW: a block writes a variable twice and "
             "another thread reads the intermediate value in between";
   if (!strcmp(p, "WWR"))
      return "Atomicity violation WWR: a block writes a variable and reads it "
             "back, and another thread's write in between changes what it "
             "reads";
   if (!strcmp(p, "WWW"))
      return "Atomicity violation WWW: a block writes a variable twice and "
             "another thread's write in between is lost or mixed with the "
             "block's";
   if (!strcmp(p, "ORD"))
      return "Order violation: two threads' conflicting accesses that nothing "
             "orders, forced the other way round: f runs before e1 (= e2), "
             "the access that came first in the recorded run";
   if (!strcmp(p, "DLK"))
      return "Lock-order inversion: two threads take two locks in opposite "
             "orders, and forced so, each waits for the other's";
   if (!strcmp(p, "explore"))
      return "Explored schedule (--explore): no predicted violation, but a "
             "thread held back at d1, before a conflicting access or a "
             "synchronisation call, while the others ran (and a chain of "
             "threads each held at its own point), made the program fail";
   return "Atomicity violation";
}

const char *cbt_pattern_short(const char *p)
{
   if (!strcmp(p, "RWR"))
      return "Two reads in one block disagree: a remote write in between";
   if (!strcmp(p, "RWW"))
      return "Lost update: a remote write between a block's read and write";
   if (!strcmp(p, "WRW"))
      return "A remote read sees a block's intermediate write";
   if (!strcmp(p, "WWR"))
      return "A block reads back another thread's write, not its own";
   if (!strcmp(p, "WWW"))
      return "A remote write between two writes of one block";
   if (!strcmp(p, "ORD"))
      return "Two unordered accesses forced the other way round";
   if (!strcmp(p, "DLK"))
      return "Two locks taken in opposite orders: a deadlock";
   if (!strcmp(p, "explore"))
      return "A thread held back at a delay point made the program fail";
   return "Atomicity violation";
}

static void print_event(FILE *out, const char *role, const char *pattern,
                        const cbt_event *e)
{
   char where[PATH_MAX + 32];
   const char *kind = cb_pattern_kind_word(pattern, role,
                                           e->kind[0] ? e->kind : "?");
   fprintf(out, "      %-2s %-5s %s", role, kind,
           cbt_event_where(e, where, sizeof where));
   if (e->function[0])
      fprintf(out, " in %s", e->function);
   if (e->tid)
      fprintf(out, " (T%u)", e->tid);
   fputc('\n', out);
   if (e->source[0])
      fprintf(out, "         %6u | %s\n", e->line, e->source);
}

/* A deadlock: what each of its threads waited for, from the forced run. */
static void print_deadlock(FILE *out, const cbt_run *r)
{
   if (r->verdict != CBT_DEADLOCK || !r->deadlock[0])
      return;
   fprintf(out, "      deadlock:\n");
   for (const char *p = r->deadlock; *p;) {
      size_t n = strcspn(p, "\n");
      fprintf(out, "        %.*s\n", (int)n, p);
      p += n + (p[n] == '\n');
   }
}

/* One confirmed bug: its pattern, events, and how to see it again. */
static void print_bug(FILE *out, const cbt_suite *s, const cbt_bug *bug)
{
   const cbt_run *r = &s->tests[bug->test].runs[bug->run];
   fprintf(out, "   BUG %s on %s%s: the forced run %s", r->pattern, r->variable,
           cb_is_lost_wakeup(r->pattern, cb_event_kind_from_name(r->e1.kind),
                             cb_event_kind_from_name(r->f.kind))
              ? " (a lost wake-up)" : "",
           cbt_verdict_words(bug->verdict));
   if (r->violation == 0 && strcmp(r->pattern, "DLK") && strcmp(r->pattern, "explore"))
      fprintf(out, ", though not by this violation, which did not happen: the "
                   "failure came from elsewhere in the interleaving its schedule forced");
   if (r->violation == CBT_LEFT_PATH && strcmp(r->pattern, "explore"))
      fprintf(out, ", after it left the schedule's path: the failure is the "
                   "program's own, but whether this %s led to it is not known",
              strcmp(r->pattern, "DLK") ? "violation" : "inversion");
   if (bug->nruns > 1)
      fprintf(out, " (%d schedules confirm it)", bug->nruns);
   fputc('\n', out);
   fprintf(out, "      rank %d of %zu, score %.2f\n", bug->rank, s->nbugs,
           bug->score);
   if (!strcmp(r->pattern, "explore")) { /* its delay points */
      print_event(out, "d1", NULL, &r->e1);
      if (r->f.tid != r->e1.tid || r->f.index != r->e1.index)
         print_event(out, "d2", NULL, &r->f);
   } else {
      print_event(out, "e1", r->pattern, &r->e1);
      print_event(out, "f", r->pattern, &r->f);
      print_event(out, "e2", r->pattern, &r->e2);
   }
   print_deadlock(out, r);
   cbt_crash c;
   if (cbt_crash_site(r, &c)) {
      char words[512];
      cbt_crash_words(&c, words, sizeof words);
      if (c.signal[0])
         fprintf(out, "      crash:     %s%s\n", words,
                 bug->crash_away ? ", away from the accesses above" : "");
      else
         fprintf(out, "      misread:   %s%s\n", words,
                 bug->crash_away ? ", none of the accesses above" : "");
   }
   char said[512];
   if (cbt_said(r, said, sizeof said))
      fprintf(out, "      said:      %s\n", said);
   fprintf(out, "      details:   %s\n", r->out_path);
   if (cbt_reproduced(r) == 0)
      fprintf(out, "      not reproduced: forced again %u time%s, it failed "
                   "%u (the failure does not come from this schedule "
                   "alone)\n      run again: %s\n",
              r->again, r->again == 1 ? "" : "s", r->again_failed,
              bug->reproduce);
   else
      fprintf(out, "      reproduce: %s\n", bug->reproduce);
}

/* A bug that was not reproduced and whose run failed with the words of a
 * bug of its test shown above it (the numbers aside): another schedule
 * that met the same failure, which the forced run's free threads may
 * have brought about.  That earlier bug, or NULL. */
static const cbt_bug *same_failure_before(const cbt_suite *s, size_t b)
{
   const cbt_bug *bug = &s->bugs[b];
   const cbt_run *r = &s->tests[bug->test].runs[bug->run];
   char said[512], other[512];
   if (cbt_reproduced(r) != 0 || !cbt_said(r, said, sizeof said))
      return NULL;
   for (size_t a = 0; a < b; a++) {
      const cbt_bug *e = &s->bugs[a];
      const cbt_run *er = &s->tests[e->test].runs[e->run];
      if (e->test == bug->test && er->verdict == r->verdict &&
          cbt_said(er, other, sizeof other) && cbt_same_said(said, other))
         return e; /* the first with these words: shown in full */
   }
   return NULL;
}

/* Such a bug in one line: the list names one failure once. */
static void print_same_failure(FILE *out, const cbt_suite *s,
                               const cbt_bug *bug, const cbt_bug *first)
{
   const cbt_run *r = &s->tests[bug->test].runs[bug->run];
   char said[512];
   cbt_said(r, said, sizeof said);
   fprintf(out, "   also BUG %s on %s (rank %d of %zu): the same failure as "
                "rank %d (said: %s), not reproduced; details: %s\n",
           r->pattern, r->variable, bug->rank, s->nbugs, first->rank, said,
           r->out_path);
}

/* The end of a test's counts line: what was not forced or could not run. */
static void print_counts_tail(FILE *out, const cbt_test *t, const size_t *k)
{
   if (t->not_forced)
      fprintf(out, ", %zu not forced (%s)", t->not_forced,
              k[CBT_FAILED] || k[CBT_DEADLOCK] || k[CBT_HUNG] || k[CBT_CURED]
                 ? "the test's bug was confirmed; --all-bugs forces them"
                 : "--max-runs");
   if (k[CBT_ERROR])
      fprintf(out, ", %zu could not run", k[CBT_ERROR]);
   if (k[CBT_PENDING])
      fprintf(out, ", %zu not run", k[CBT_PENDING]);
   fputc('\n', out);
}

/* Whether a cure of t passed: its bugs say why it fails on its own. */
static int any_cured(const cbt_test *t)
{
   for (size_t r = 0; r < t->nruns; r++)
      if (t->runs[r].verdict == CBT_CURED)
         return 1;
   return 0;
}

/* The lines under a test's command that say how it ended; 0 when
 * nothing more is to be said of it. */
static int print_outcome(FILE *out, const cbt_test *t)
{
   switch (t->outcome) {
   case CBT_O_NONE:
      if (t->jobs_emitted) {
         fprintf(out, "   %zu forced run%s emitted as jobs\n", t->nruns,
                 t->nruns == 1 ? "" : "s");
         return 0;
      }
      /* Interrupted: what it had done, its forced runs that finished. */
      fprintf(out, "   not finished: cbtest was interrupted %s\n",
              t->state == CBT_T_WAITING     ? "before it started"
              : t->state == CBT_T_RECORDING ? "while recording it"
              : t->state == CBT_T_REPLAYING ? "while forcing its schedules"
                                            : "while predicting");
      return t->nruns != 0;
   case CBT_O_ERROR:
      fprintf(out, "   error: %s\n", t->error);
      return 0;
   case CBT_O_FAILED_NATIVELY:
      if (t->failed_each) {
         if (t->nruns && t->runs[0].cure)
            fprintf(out, "   failed natively (%s); none of the orders of the last of "
                         "those runs, forced the other way round, let it pass\n",
                    t->error);
         else
            fprintf(out, "   failed natively (%s); predicted from the last of those "
                         "runs, no forced run failed\n", t->error);
         fprintf(out, "   its output: %s/record.err\n", t->dir);
         return 1;
      }
      if (!cbt_failed_then_passed(t)) {
         fprintf(out, "   %s (%s): not predicted\n", cbt_native_words(t),
                 t->error);
         fprintf(out, "   its output: %s/record.err\n", t->dir);
         return 0;
      }
      fprintf(out, "   failed natively in a recorded run (%s) and passed when "
                   "recorded again: no forced schedule made it fail\n",
              t->error);
      fprintf(out, "   the failed run's output: %s/record-failed.err\n", t->dir);
      return 1;
   default:
      if (t->outcome == CBT_O_BUGS && t->failed_each && any_cured(t))
         fprintf(out, "   it fails on its own (%s; output: %s/record.err): below, "
                      "an order of the last of those runs that, forced the other "
                      "way round, lets it pass: why it fails\n", t->error, t->dir);
      else if (t->outcome == CBT_O_BUGS && t->failed_each)
         fprintf(out, "   it fails on its own too (%s; output: %s/record.err): "
                      "below, what happened in the last of those runs, forced\n",
                 t->error, t->dir);
      else if (t->outcome == CBT_O_BUGS && t->native_code != 0)
         fprintf(out, "   it also failed on its own in a recorded run (%s; "
                      "output: %s/record-failed.err)\n", t->error, t->dir);
      return 1;
   }
}

/* A test's forced runs counted by verdict (its cures as cured or not). */
static void print_counts(FILE *out, const cbt_test *t)
{
   size_t k[CBT_NVERDICTS] = {0};
   for (size_t r = 0; r < t->nruns; r++)
      k[t->runs[r].verdict]++;
   size_t predicted = t->nruns + t->not_forced;
   if (t->runs[0].cure) /* a cure that passed is cured, one that failed not */
      fprintf(out, "   %zu cure%s (orders of the failing run the other way round): "
                   "%zu cured, %zu not cured, %zu infeasible",
              predicted, predicted == 1 ? "" : "s", k[CBT_CURED], k[CBT_PASSED],
              k[CBT_INFEASIBLE]);
   else
      fprintf(out,
              "   %zu schedule%s %s: %zu passed, %zu failed, %zu deadlocked, "
              "%zu infeasible, %zu hung",
              predicted, predicted == 1 ? "" : "s",
              t->explore ? "predicted and explored" : "predicted", k[CBT_PASSED],
              k[CBT_FAILED], k[CBT_DEADLOCK], k[CBT_INFEASIBLE], k[CBT_HUNG]);
   print_counts_tail(out, t, k);
}

static void print_test(FILE *out, const cbt_suite *s, size_t ti)
{
   const cbt_test *t = &s->tests[ti];
   char cmd[4096] = "";
   for (int a = 0; a < t->cmd.argc; a++)
      cb_append_shell_quoted(cmd, sizeof cmd, t->cmd.argv[a]);
   fprintf(out, "%s  %s\n", t->id, cmd);
   if (!print_outcome(out, t))
      return;
   if (t->nruns == 0) {
      fprintf(out, "   no schedule predicted\n");
      return;
   }
   print_counts(out, t);
   cbt_explore_summary(out, t);
   for (size_t r = 0; r < t->nruns; r++)
      if (t->runs[r].verdict == CBT_ERROR)
         fprintf(out, "   %s could not run: %s\n", t->runs[r].name,
                 t->runs[r].note);
   for (size_t b = 0; b < s->nbugs; b++) {
      if (s->bugs[b].test != ti)
         continue;
      const cbt_bug *first = same_failure_before(s, b);
      if (first)
         print_same_failure(out, s, &s->bugs[b], first);
      else
         print_bug(out, s, &s->bugs[b]);
   }
}

/* The bugs again, most tied to failures first (cbtest_bugs.c). */
static void print_ranking(FILE *out, const cbt_suite *s)
{
   if (s->nbugs == 0)
      return;
   fprintf(out, "\nBugs by rank (score = failed / (all failed + passed), "
                "a run that deadlocked or hung counted as failed, over the "
                "forced runs of each access pattern):\n");
   for (size_t b = 0; b < s->nbugs; b++) {
      const cbt_bug *bug = &s->bugs[b];
      const cbt_test *t = &s->tests[bug->test];
      const cbt_run *r = &t->runs[bug->run];
      char w1[PATH_MAX + 32], wf[PATH_MAX + 32], w2[PATH_MAX + 32];
      if (!strcmp(r->pattern, "explore")) { /* no e1, f, e2: its delay point */
         fprintf(out, "  #%d  %.2f  %s on %s  d1 %s  (%s)\n", bug->rank,
                 bug->score, r->pattern, r->variable,
                 cbt_event_where(&r->e1, w1, sizeof w1), t->id);
         continue;
      }
      fprintf(out, "  #%d  %.2f  %s on %s  e1 %s  f %s  e2 %s  (%s)\n",
              bug->rank, bug->score, r->pattern, r->variable,
              cbt_event_where(&r->e1, w1, sizeof w1),
              cbt_event_where(&r->f, wf, sizeof wf),
              cbt_event_where(&r->e2, w2, sizeof w2), t->id);
   }
}

void cbt_print_summary(FILE *out, const cbt_suite *s)
{
   cbt_totals t;
   cbt_totals_of(s, &t);
   fprintf(out, "cbtest: %zu test%s in %.1f s, %zu schedule%s forced "
                "(-j %d)%s\n\n",
           t.tests, t.tests == 1 ? "" : "s", s->seconds, t.runs_done,
           t.runs_done == 1 ? "" : "s", s->o->jobs,
           s->interrupted ? ", INTERRUPTED" : "");
   for (size_t i = 0; i < s->ntests; i++)
      print_test(out, s, i);
   print_ranking(out, s);
   fputc('\n', out);
   fprintf(out,
           "%zu bug%s confirmed in %zu of %zu tests (%zu clean, %zu failed "
           "natively, %zu errors); forced runs: %zu passed, %zu failed, "
           "%zu deadlocked, %zu infeasible, %zu hung",
           t.bugs, t.bugs == 1 ? "" : "s", t.with_bugs, t.tests, t.clean,
           t.failed_natively, t.errors, t.passed, t.failed, t.deadlocks,
           t.infeasible, t.hung);
   if (t.cured)
      fprintf(out, ", %zu cured", t.cured);
   if (t.run_errors)
      fprintf(out, ", %zu could not run", t.run_errors);
   fputs("\n", out);
   if (t.not_reproduced)
      fprintf(out, "%zu of the bugs not reproduced: their failure did not come back "
                   "every time it was forced, so there is no command that reproduces "
                   "it (their forced runs did fail)\n", t.not_reproduced);
}
