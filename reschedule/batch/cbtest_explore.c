/* cbtest_explore.c: --explore, for a test whose predicted schedules confirm
 * no bug.
 *
 * Prediction works from one recorded run; a bug whose accesses that run
 * never made (a path only contention takes), or that needs more than one
 * thread held back, is not among its schedules.  So the test goes on in
 * rounds, each one cbpredict job and the forced runs of what it wrote:
 *   round 1   cbpredict --patterns=explore --delays N on the test's trace:
 *             delay schedules (predict/explore.c);
 *   round 2.. cbpredict --delays N on the trace of a forced run that passed
 *             (every forced run of the exploration is recorded, cbreplay
 *             --record): what that other interleaving predicts, and its
 *             own delay schedules; the traces are taken in the order their
 *             runs ended.  The test's own trace is the base (--base):
 *             violations on lines it never ran, the path this run took,
 *             are built and numbered first (predict/fresh.c).
 * After round 1 the test is recorded once more with the other order of
 * thread start (cbtrace record --parent-first, or without it when the
 * test's own recording used it), and that trace is predicted from next,
 * as a forced run's is, but uncomposed and taking no seed of the other
 * rounds': under Valgrind a new thread mostly runs before its creator goes
 * on, natively the creator mostly does, and a bug at start-up or
 * shut-down (a flag set and signalled without the mutex, found while the
 * workers still wait for their first job) shows only in the other order.
 * Each new schedule is taken into the test's schedule folder under the next
 * free number, so reports, --merge and the reproduce commands treat it as
 * any other; one whose ordering (cb_schedule_digest) was forced before is
 * not, and cbpredict is told them all (--seen DIR/explore/seen) so that it
 * spends --max on new ones; the file also holds each taken schedule's aim
 * (cb_schedule_site_digest: pattern and e1, f, e2's lines), and cbpredict
 * writes no third schedule aimed at the same lines.  Round 1 takes at
 * most half of the forced runs still allowed, a later round an eighth, so
 * that many forced runs' interleavings get their turn.  It ends at the first confirmed bug (unless
 * --all-bugs), when --max-runs forced runs of the test are spent (without
 * it, CBT_DEFAULT_EXPLORE_RUNS after the predicted ones), or when no trace
 * is left to predict from.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cbtest.h"
#include "cbtest_explore.h"
#include "cbtrace.h"

typedef struct cbt_explore {
   size_t budget;           /* forced runs it may still add */
   size_t round_cap;        /* of which this round may take */
   size_t first_run;        /* runs before it are the predicted ones */
   size_t queued_upto;      /* runs whose traces were queued */
   char **queue;            /* traces to predict from, in order */
   size_t nqueue, qhead;
   uint64_t *seen;          /* orderings forced or taken */
   size_t nseen, capseen;
   int next_number;         /* the next sN.pb of the test's folder */
   unsigned rounds, from_runs;
   size_t taken, skipped;   /* schedules taken; skipped as forced before */
   char why_ended[160];
   /* The words of the round's cbpredict (cbt_explore_predict_args). */
   char trace[PATH_MAX], dir[PATH_MAX], seen_path[PATH_MAX];
   char delays[16], seed[32], max[32];
   int first;               /* round 1: the test's own trace */
   int other;               /* the second recording: 0 not yet, 1 under
                               way, 2 done */
   int other_round;         /* this round predicts from it */
   unsigned seeded;         /* rounds that took a seed of their own */
   char other_why[192];     /* why it gave no trace, or "" */
} cbt_explore;

/* A bug that reproduced (cbt_stops_forcing): exploring goes on past one
 * that did not. */
static int has_bug(const cbt_test *t)
{
   for (size_t i = 0; i < t->nruns; i++)
      if (cbt_stops_forcing(&t->runs[i]))
         return 1;
   return 0;
}

static void add_seen(cbt_explore *x, uint64_t d)
{
   if (x->nseen == x->capseen) {
      size_t cap = x->capseen ? 2 * x->capseen : 64;
      uint64_t *more = realloc(x->seen, cap * sizeof *more);
      if (!more)
         return; /* then cbpredict may write it again: a wasted run */
      x->seen = more;
      x->capseen = cap;
   }
   x->seen[x->nseen++] = d;
}

static int is_seen(const cbt_explore *x, uint64_t d)
{
   for (size_t i = 0; i < x->nseen; i++)
      if (x->seen[i] == d)
         return 1;
   return 0;
}

static void write_seen(FILE *f, const void *arg)
{
   const cbt_explore *x = arg;
   fputs("# orderings cbtest forced or took (cb_schedule_digest)\n", f);
   for (size_t i = 0; i < x->nseen; i++)
      fprintf(f, "%016llx\n", (unsigned long long)x->seen[i]);
}

static void queue_trace(cbt_explore *x, const char *path)
{
   char **more = realloc(x->queue, (x->nqueue + 1) * sizeof *more);
   char *copy = strdup(path);
   if (!more || !copy) {
      free(copy);
      if (more)
         x->queue = more;
      return;
   }
   x->queue = more;
   x->queue[x->nqueue++] = copy;
}

/* Sets up the exploration of t: the orderings its predicted runs forced,
 * its own trace first in the queue.  NULL when out of memory. */
static cbt_explore *start(const cbt_suite *s, cbt_test *t)
{
   cbt_explore *x = calloc(1, sizeof *x);
   if (!x)
      return NULL;
   size_t cap = s->o->max_runs ? s->o->max_runs
                               : t->nruns + CBT_DEFAULT_EXPLORE_RUNS;
   x->budget = cap > t->nruns ? cap - t->nruns : 0;
   x->first_run = x->queued_upto = t->nruns;
   for (size_t i = 0; i < t->nruns; i++) {
      cb_schedule *sch;
      cb_error err;
      if (cb_schedule_read(t->runs[i].path, &sch, &err) != 0)
         continue;
      add_seen(x, cb_schedule_digest(sch));
      cb_schedule_free(sch);
   }
   size_t n;
   int *nums;
   char why[PATH_MAX + 64];
   /* Read already (cbt_load_runs): a failure now leaves n 0, numbers from 1. */
   cbt_list_schedules(t->schedules, &nums, &n, why, sizeof why);
   x->next_number = n ? nums[n - 1] + 1 : 1;
   free(nums);
   queue_trace(x, t->trace);
   x->first = 1;
   char dir[PATH_MAX];
   cbt_fmt(dir, sizeof dir, "%s/explore", t->dir);
   cbt_mkdir_p(dir);
   cbt_fmt(x->seen_path, sizeof x->seen_path, "%s/seen", dir);
   return x;
}

/* The traces of the forced runs that ended since the last round and let
 * the program pass (a passing or infeasible run; not one that failed). */
static void queue_new_traces(const cbt_test *t, cbt_explore *x)
{
   char path[PATH_MAX];
   struct stat st;
   for (; x->queued_upto < t->nruns; x->queued_upto++) {
      const cbt_run *r = &t->runs[x->queued_upto];
      if ((r->verdict == CBT_PASSED || r->verdict == CBT_INFEASIBLE) &&
          cbt_explore_record_path(t, x->queued_upto, path, sizeof path) &&
          stat(path, &st) == 0 && st.st_size > 0)
         queue_trace(x, path);
   }
}

static const char *other_path(const cbt_test *t)
{
   static char path[PATH_MAX];
   cbt_fmt(path, sizeof path, "%s/explore/other.trace.pb", t->dir);
   return path;
}

int cbt_explore_recording(const cbt_test *t)
{
   return t->explore && t->explore->other == 1;
}

size_t cbt_explore_record_args(const cbt_test *t, char **argv, char *out,
                               char *err, size_t len)
{
   size_t k = 0;
   argv[k++] = "-o";
   argv[k++] = (char *)other_path(t);
   /* The test's recording that passed used --parent-first when an odd
    * number failed before it (cbtest_pipeline.c). */
   if (t->record_failures % 2 == 0)
      argv[k++] = "--parent-first";
   cbt_fmt(out, len, "%s/explore/other.record.out", t->dir);
   cbt_fmt(err, len, "%s/explore/other.record.err", t->dir);
   return k;
}

void cbt_explore_recorded(cbt_test *t, int code, int timed_out)
{
   cbt_explore *x = t->explore;
   x->other = 2;
   t->state = CBT_T_REPLAYING;
   if (timed_out)
      cbt_fmt(x->other_why, sizeof x->other_why, "did not end");
   else if (code != 0)
      cbt_fmt(x->other_why, sizeof x->other_why, "the program failed (exit %d)",
              code);
   else {
      /* Next in the queue, before the forced runs' traces. */
      queue_trace(x, other_path(t));
      if (x->nqueue > x->qhead + 1) {
         char *last = x->queue[x->nqueue - 1];
         memmove(&x->queue[x->qhead + 1], &x->queue[x->qhead],
                 (x->nqueue - 1 - x->qhead) * sizeof *x->queue);
         x->queue[x->qhead] = last;
      }
   }
}

int cbt_explore_continue(cbt_suite *s, size_t ti)
{
   cbt_test *t = &s->tests[ti];
   cbt_explore *x = t->explore;
   /* A test that failed in each recorded run fails in explored runs
    * too, whatever they delay: nothing to learn. */
   if (!s->o->delays || t->outcome != CBT_O_NONE || t->jobs_emitted ||
       t->failed_each || cb_stop_requested())
      return 0;
   if (has_bug(t) && (!x || !s->o->all_bugs)) {
      if (x) /* else prediction found it: nothing to explore */
         cbt_fmt(x->why_ended, sizeof x->why_ended, "a bug was confirmed");
      return 0;
   }
   if (!x && !(x = t->explore = start(s, t)))
      return 0;
   queue_new_traces(t, x);
   if (x->budget == 0) {
      cbt_fmt(x->why_ended, sizeof x->why_ended, "%s forced runs spent",
              s->o->max_runs ? "--max-runs" : "its");
      return 0;
   }
   if (x->rounds == 1 && x->other == 0) {
      x->other = 1;
      t->state = CBT_T_WAITING; /* next_job records it (cbt_explore_record_args) */
      return 1;
   }
   if (x->qhead == x->nqueue) {
      cbt_fmt(x->why_ended, sizeof x->why_ended,
              "no forced run left a new trace to predict from");
      return 0;
   }
   const char *trace = x->queue[x->qhead++];
   x->first = trace == x->queue[0];
   x->other_round = x->other == 2 && !strcmp(trace, other_path(t));
   x->rounds++;
   x->from_runs += !x->first && !x->other_round;
   cbt_fmt(x->trace, sizeof x->trace, "%s", trace);
   cbt_fmt(x->dir, sizeof x->dir, "%s/explore/round-%u", t->dir, x->rounds);
   cbt_fmt(x->delays, sizeof x->delays, "%u", s->o->delays);
   /* The second recording's round takes no seed of the others' (it
    * borrows the next one): theirs are what they were without it. */
   cbt_fmt(x->seed, sizeof x->seed, "%llu",
           s->o->seed + (x->other_round ? x->seeded : x->seeded++));
   /* Round 1 (delays on the test's own trace) half of what is left; a
    * round from another trace, the second recording's or a forced run's,
    * an eighth: what it adds is the path that run took, a few schedules'
    * worth (fresh lines first, cbpredict --base), and the next run's trace
    * may have taken another.  (With half for the second recording, trial
    * 7's put_reread, found in a round from a forced run's trace, was
    * missed in 4 of 4 runs at --max-runs 25.) */
   x->round_cap = x->first ? (x->budget + 1) / 2 : (x->budget + 7) / 8;
   cbt_fmt(x->max, sizeof x->max, "%zu", x->round_cap);
   char why[PATH_MAX + 256];
   if (cbt_write_atomic(x->seen_path, write_seen, x, why, sizeof why) != 0)
      fprintf(stderr, "cbtest: %s\n", why);
   t->state = CBT_T_RECORDED; /* next_job starts the round's cbpredict */
   return 1;
}

size_t cbt_explore_predict_args(const cbt_suite *s, const cbt_test *t,
                                char **argv, char *out, char *err, size_t len)
{
   cbt_explore *x = t->explore;
   size_t k = 0;
   argv[k++] = "-o";
   argv[k++] = x->dir;
   if (x->first)
      argv[k++] = "--patterns=explore"; /* predicted already */
   else if (s->o->z3)
      argv[k++] = "--z3";
   argv[k++] = "--delays";
   argv[k++] = x->delays;
   argv[k++] = "--seed";
   argv[k++] = x->seed;
   argv[k++] = "--max";
   argv[k++] = x->max;
   argv[k++] = "--seen";
   argv[k++] = x->seen_path;
   if (!x->first) { /* a forced run's trace: its new path's violations first */
      argv[k++] = "--base";
      argv[k++] = (char *)t->trace;
   }
   argv[k++] = x->trace;
   cbt_fmt(out, len, "%s.out", x->dir);
   cbt_fmt(err, len, "%s.err", x->dir);
   return k;
}

/* What a round from a forced run's trace needs to compose its schedules
 * (cbt_compose): the trace. */
typedef struct {
   cb_trace tr;
} round_base;

/* Takes schedule N of the round's folder into the test's folder as the
 * next sN, composed on the round's base when there is one; 1 taken, 0 not
 * (its ordering forced before, unreadable, not writable). */
static int take(cbt_test *t, cbt_explore *x, int n, const round_base *b)
{
   char from[PATH_MAX], to[PATH_MAX], name[32];
   cbt_fmt(from, sizeof from, "%s/s%d.pb", x->dir, n);
   cb_schedule *sch;
   cb_error err;
   if (cb_schedule_read(from, &sch, &err) != 0)
      return 0;
   /* As predicted (cbpredict --seen knows these) and as forced. */
   uint64_t raw = cb_schedule_digest(sch), d = raw;
   cbt_composed own = {0};
   if (b && cbt_compose(sch, &b->tr, CBT_COMPOSE_MAX_STEPS, &own))
      d = cb_schedule_digest(sch);
   int ok = !is_seen(x, d) && !is_seen(x, raw);
   if (ok) {
      sch->has_id = 1;
      sch->id = (uint32_t)x->next_number;
      cbt_fmt(name, sizeof name, "s%d", x->next_number);
      cbt_fmt(to, sizeof to, "%s/%s.pb", t->schedules, name);
      ok = cb_schedule_write(to, sch, &err) == 0;
   } else {
      x->skipped++;
   }
   cbt_composed_free(&own);
   uint64_t site = cb_schedule_site_digest(sch);
   cb_schedule_free(sch);
   if (!ok)
      return 0;
   add_seen(x, d);
   if (raw != d)
      add_seen(x, raw);
   add_seen(x, site); /* its aim (e1, f, e2's lines): twice at most */
   cbt_fill_run(t, &t->runs[t->nruns++], name);
   x->next_number++;
   return 1;
}

size_t cbt_explore_adopt(cbt_suite *s, size_t ti, int ok, const char *why)
{
   cbt_test *t = &s->tests[ti];
   cbt_explore *x = t->explore;
   if (!ok) {
      fprintf(stderr, "cbtest: %s: exploration round %u: cbpredict failed%s%s\n",
              t->id, x->rounds, *why ? ": " : "", why);
      return 0;
   }
   size_t n;
   int *nums;
   char lwhy[PATH_MAX + 64];
   if (cbt_list_schedules(x->dir, &nums, &n, lwhy, sizeof lwhy) != 0)
      fprintf(stderr, "cbtest: %s: exploration round %u: %s\n", t->id,
              x->rounds, lwhy);
   if (n > x->round_cap)
      n = x->round_cap;
   cbt_run *more = n ? realloc(t->runs, (t->nruns + n) * sizeof *more) : NULL;
   if (!more) {
      free(nums);
      return 0;
   }
   t->runs = more;
   size_t before = t->nruns;
   round_base b, *base = NULL;
   cb_error err;
   /* A forced run's schedules are composed to reach their cut as that run
    * did; the second recording is a recording, whose free prefix replay
    * follows as it follows the test's own. */
   if (!x->first && !x->other_round && cb_trace_read(x->trace, &b.tr, &err) == 0)
      base = &b;
   for (size_t i = 0; i < n; i++)
      take(t, x, nums[i], base);
   if (base)
      cb_trace_free(&b.tr);
   free(nums);
   size_t got = t->nruns - before;
   x->taken += got;
   x->budget -= got;
   return got;
}

const char *cbt_explore_record_path(const cbt_test *t, size_t ri, char *buf,
                                    size_t len)
{
   if (!t->explore || ri < t->explore->first_run || ri >= t->nruns)
      return NULL;
   cbt_fmt(buf, len, "%s/explore/%s.trace.pb", t->dir, t->runs[ri].name);
   return buf;
}

void cbt_explore_summary(FILE *out, const cbt_test *t)
{
   const cbt_explore *x = t->explore;
   if (!x)
      return;
   size_t forced = t->nruns > x->first_run ? t->nruns - x->first_run : 0;
   fprintf(out, "   explored in %u round%s (%u from traces of forced runs%s): "
                "%zu new schedule%s, %zu forced; %zu skipped as forced before",
           x->rounds, x->rounds == 1 ? "" : "s", x->from_runs,
           x->other != 2 ? ""
           : x->other_why[0] ? ", none from a second recording"
                             : ", 1 from a second recording with the other thread-start order",
           x->taken, x->taken == 1 ? "" : "s", forced, x->skipped);
   if (x->other_why[0])
      fprintf(out, "; the second recording (the other thread-start order) %s",
              x->other_why);
   if (x->why_ended[0])
      fprintf(out, "; ended: %s", x->why_ended);
   fputc('\n', out);
}

void cbt_explore_json(cbt_json *j, const cbt_test *t)
{
   const cbt_explore *x = t->explore;
   if (!x)
      return;
   cbt_json_object(j, "explore");
   cbt_json_uint(j, "rounds", x->rounds);
   cbt_json_uint(j, "rounds_from_forced_runs", x->from_runs);
   cbt_json_bool(j, "second_recording", x->other == 2 && !x->other_why[0]);
   cbt_json_string(j, "second_recording_failed", x->other_why[0] ? x->other_why : NULL);
   cbt_json_uint(j, "schedules", x->taken);
   cbt_json_uint(j, "forced", t->nruns > x->first_run ? t->nruns - x->first_run : 0);
   cbt_json_uint(j, "skipped_forced_before", x->skipped);
   cbt_json_uint(j, "first_run", x->first_run);
   cbt_json_string(j, "ended", x->why_ended[0] ? x->why_ended : NULL);
   cbt_json_end(j);
}

void cbt_explore_free(cbt_test *t)
{
   cbt_explore *x = t->explore;
   if (!x)
      return;
   for (size_t i = 0; i < x->nqueue; i++)
      free(x->queue[i]);
   free(x->queue);
   free(x->seen);
   free(x);
   t->explore = NULL;
}
