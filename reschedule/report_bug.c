/* report_bug.c: cbreplay's bug reports, one per forced run that failed,
 * deadlocked or hung (and one per run where Valgrind or the tool failed):
 * what happened, the events e1, f, e2 in the program's terms, why that is
 * a bug, and the command that reproduces it.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <limits.h>
#include <string.h>

#include "replay.h"

/* ---- Bug reports ----------------------------------------------------------- */

/* Only reads and writes have a value worth showing: a lock event's value
 * field is no value of the program's. */
int cbr_shows_value(const cb_sched_event *e)
{
   return e->has_value && (!e->has_kind || e->kind == CB_EV_READ ||
                           e->kind == CB_EV_WRITE);
}

static int is_lock_event(const cb_sched_event *e)
{
   return e && e->has_kind && (e->kind == CB_EV_LOCK || e->kind == CB_EV_UNLOCK);
}

/* What an event acts on: the schedule's variable, unless the event is a
 * lock event on another address (a deadlock's first lock): then its own
 * name (PatternEvent.variable_name), or "lock ADDRESS" in a schedule
 * written before events carried one. */
static const char *object_of(const cb_schedule *s,
                             const cb_sched_event *e, const char *var,
                             char *buf, size_t len)
{
   if (e && !is_lock_event(e) && e->variable_name && *e->variable_name)
      /* its own: a two-variable schedule's events name one each (cbpredict
       * names every event on the schedule's variable as the schedule) */
      snprintf(buf, len, "%s", e->variable_name);
   else if (!is_lock_event(e) || !e->has_address || !s->has_variable ||
            e->address == s->variable)
      snprintf(buf, len, "%s", var);
   else if (e->variable_name && *e->variable_name)
      snprintf(buf, len, "%s", e->variable_name);
   else
      snprintf(buf, len, "lock 0x%llx", (unsigned long long)e->address);
   return buf;
}

/* The source line an event ran at, quoted under it when the source is
 * there and not newer than the program (cb_source_line). */
static void print_source(FILE *out, const cb_sched_location *l)
{
   char text[200];
   if (cbr_source_of(l, text, sizeof text))
      fprintf(out, "        %6u | %s\n", l->line, text);
}

/* A value as a reader takes it: a count in decimal; a larger one in
 * decimal and hex, since the tool cannot tell a sum the program prints
 * in decimal from an address, a bit pattern or two fields stored at
 * once.  Buffers of CBR_VALUE_LEN. */
#define CBR_VALUE_LEN 48
static const char *value_str(unsigned long long v, char *buf, size_t len)
{
   if (v < (1ull << 20))
      snprintf(buf, len, "%llu", v);
   else
      snprintf(buf, len, "%llu (0x%llx)", v, v);
   return buf;
}

/* The value is the forced run's (the tool says it, "value K V"), with the
 * recorded run's beside it when they differ: a lost update reads as
 * "write hits = 1 (recorded run: 2)". */
static void print_event(FILE *out, const char *role, const char *pattern,
                        const cb_sched_event *e, const char *var,
                        const cbr_status *st, int k)
{
   char where[PATH_MAX + 32];
   if (!e) {
      fprintf(out, "    %-3s (not named by the schedule)\n", role);
      return;
   }
   const char *kind = e->has_kind ? cb_event_kind_name(e->kind) : "access";
   kind = cb_pattern_kind_word(pattern, role, kind);
   fprintf(out, "    %-3s T%u %-5s %s", role, e->tid, kind, var);
   char v1[CBR_VALUE_LEN], v2[CBR_VALUE_LEN];
   if (cbr_shows_value(e) && st->has_value[k] && st->value[k] != e->value)
      fprintf(out, " = %s (recorded run: %s)",
              value_str(st->value[k], v1, sizeof v1),
              value_str(e->value, v2, sizeof v2));
   else if (cbr_shows_value(e) && st->has_value[k])
      fprintf(out, " = %s", value_str(st->value[k], v1, sizeof v1));
   else if (cbr_shows_value(e))
      fprintf(out, " = %s in the recorded run",
              value_str(e->value, v1, sizeof v1));
   fprintf(out, "  at %s", cbr_event_where(e, 0, where, sizeof where));
   if (e->location && e->location->function && *e->location->function)
      fprintf(out, " in %s()", e->location->function);
   fprintf(out, "  (its counted event %llu)\n", (unsigned long long)e->index);
   print_source(out, e->location);
}

/* An order violation between a wait's start (the release of its mutex,
 * orders.c) and the signal that woke it: forced first, the signal finds no
 * waiter and is lost. */
static int is_lost_wakeup(const cb_schedule *s)
{
   return s->e1 && s->f && s->e1->has_kind && s->f->has_kind &&
          cb_is_lost_wakeup(s->pattern, (int)s->e1->kind, (int)s->f->kind);
}

/* f's kind in words: an update when the pattern counts it as a write. */
static const char *f_kind(const cb_schedule *s)
{
   return cb_pattern_kind_word(s->pattern, "f", cb_event_kind_name(s->f->kind));
}

/* Threads the schedule's tail runs: more than two in a deadlock cycle. */
static size_t tail_threads(const cb_schedule *s)
{
   uint32_t seen[16];
   size_t n = 0;
   for (size_t i = 0; i < s->n_tail; i++) {
      size_t k = 0;
      while (k < n && seen[k] != s->tail[i]->tid) k++;
      if (k == n && n < 16) seen[n++] = s->tail[i]->tid;
   }
   return n;
}

/* A delay schedule's points (e1 the first, f the second, e2 the last: as
 * many as its tail has counted steps, plus one) and what was done there. */
static void print_delays(FILE *out, const cb_schedule *s, const char *var,
                         const cbr_status *st)
{
   unsigned d = 1;
   for (size_t i = 0; i < s->n_tail; i++)
      d += !(s->tail[i]->has_run_out && s->tail[i]->run_out);
   char obj[256], name[16], a[PATH_MAX + 32];
   const cb_sched_event *pt[3] = {s->e1, s->f, s->e2};
   unsigned num[3] = {1, 2, d};
   for (int k = 0; k < 3 && k < (int)d; k++) {
      snprintf(name, sizeof name, "d%u", num[k]);
      /* The plan names no pattern events for a delay schedule (plan.c):
       * the tool reports no forced values for them, the recorded ones
       * are shown. */
      print_event(out, name, NULL, pt[k], object_of(s, pt[k], var, obj, sizeof obj),
                  st, k);
   }
   if (!s->e1)
      return;
   fprintf(out, "  the recorded run was followed until T%u's %s at %s (d1); T%u "
                "was held there", s->e1->tid, cb_event_kind_name(s->e1->kind),
           cbr_event_where(s->e1, 1, a, sizeof a), s->e1->tid);
   if (d > 1)
      fprintf(out, " while %s ran alone to its own delay point and was held "
                   "in turn", d > 2 ? "a chain of threads" : "another thread");
   fprintf(out, "; then every other thread ran alone as far as it could, "
                "then the held one, and then all went on.\n");
}

static void print_stderr_tail(FILE *out, const char *what,
                              const cbr_result *r)
{
   fprintf(out, "  %s:\n", what);
   const char *p = r->stderr_tail;
   while (*p) {
      const char *nl = strchr(p, '\n');
      int n = nl ? (int)(nl - p) : (int)strlen(p);
      fprintf(out, "    | %.*s\n", n, p);
      p += n + (nl ? 1 : 0);
   }
}

const char *cbr_blocked_text(const cbr_blocked *b, char *buf, size_t len)
{
   char obj[64];
   if (b->kind == CB_WAIT_JOIN)
      obj[0] = 0;
   else if (strcmp(b->name, "?") != 0)
      snprintf(obj, sizeof obj, "%s", b->name);
   else
      snprintf(obj, sizeof obj, "0x%llx", b->object);
   cb_blocked_words w = {b->tid, b->kind, obj, b->where, b->holder,
                         b->holder_where, b->value, 0};
   return cb_blocked_describe(&w, buf, len);
}

/* The headline's end and the line after it: how the run ended, and for a
 * deadlock what each thread waits for. */
static void print_ending(FILE *out, const cbr_report *rep,
                         const cbr_result *r)
{
   char far[128];
   if (r->verdict == CBR_HUNG)
      fprintf(out, ": no end %g s %s, a livelock or a wait the tool does not "
                   "see through; its process group was killed",
              rep->o->timeout_s,
              r->hung_before_release ? "after the last scheduling step"
                                     : "after the threads were released");
   else if (r->verdict == CBR_DEADLOCK)
      fprintf(out, ": each of its threads waits for another, and the tool "
                   "ended it at once");
   fprintf(out, "\n  %s %s",
           r->verdict == CBR_HUNG       ? "it hung"
           : r->verdict == CBR_DEADLOCK ? "it deadlocked"
           : r->verdict == CBR_CURED    ? "it passed"
                                        : "it failed",
           cbr_how_far(r, far, sizeof far));
   if (cbr_then_stuck(r))
      fprintf(out, " (then the tool could not go on: %s)", r->status.reason);
   fputc('\n', out);
   if (r->verdict == CBR_DEADLOCK)
      cbr_print_waits(out, r);
}

/* The headline: "BUG (sN): WHAT on VAR; the forced run VERDICT". */
static void print_headline(FILE *out, const cbr_schedule *cs,
                           const cbr_result *r, const char *var)
{
   const cb_schedule *s = cs->s;
   char vt[128];
   if (r->verdict == CBR_DEADLOCK)
      snprintf(vt, sizeof vt, "deadlocked");
   else
      cbr_verdict_text(r, vt, sizeof vt);
   if (r->verdict == CBR_CURED)
      fprintf(out, "\nBUG (%s): ORD order on %s%s, the cause of the recorded failure: "
                   "the recorded run failed, and the forced run, this order the other "
                   "way round, passed", cs->name, var,
              is_lost_wakeup(s) ? " (a lost wake-up)" : "");
   else if (cbr_is_explore(s))
      fprintf(out, "\nBUG (%s): explore: a delay schedule (no predicted "
                   "violation) made the program fail; the forced run %s",
              cs->name, vt);
   else if (!cbr_is_deadlock(s) && cbr_violation_happened(r) == 0 &&
            r->verdict != CBR_DEADLOCK)
      /* The program failed, but not by the violation the schedule aimed
       * at: a bug all the same, not that one.  (A deadlock's own lines
       * say what happened.) */
      fprintf(out, "\nBUG (%s): the forced run %s under a schedule aimed at the %s %s "
                   "on %s, which did not happen: the failure comes from elsewhere "
                   "in the interleaving it forced",
              cs->name, vt, cbr_pattern_of(s),
              cbr_is_order(s) ? "order violation" : "atomicity violation", var);
   else if (cbr_is_order(s))
      fprintf(out, "\nBUG (%s): ORD order violation on %s%s; the forced run %s",
              cs->name, var, is_lost_wakeup(s) ? " (a lost wake-up)" : "", vt);
   else if (cbr_is_deadlock(s))
      fprintf(out, "\nBUG (%s): DLK lock-order inversion on %s, a deadlock; "
                   "the forced run %s", cs->name, var, vt);
   else
      fprintf(out, "\nBUG (%s): %s atomicity violation on %s; the forced run %s",
              cs->name, cbr_pattern_of(s), var, vt);
}

/* A cure's sentence (cbpredict --cures): the failing run's order, and the
 * other way round, forced, the program passed. */
static void print_cure_words(FILE *out, const cb_schedule *s)
{
   char a[PATH_MAX + 32], c[PATH_MAX + 32];
   if (is_lost_wakeup(s)) { /* predict/cure_wake.c */
      fprintf(out, "  in the recorded run, which deadlocked, T%u's signal at %s came "
                   "before T%u began its wait at %s: it woke no one, and T%u waited for "
                   "ever; forced the other way round (T%u waiting first, and every "
                   "other thread that waited too late as well), the program passed: "
                   "a lost wake-up is the failure.\n", s->e1->tid,
              cbr_event_where(s->e1, 1, a, sizeof a), s->f->tid,
              cbr_event_where(s->f, 1, c, sizeof c), s->f->tid, s->f->tid);
      return;
   }
   fprintf(out, "  in the recorded run, which failed, T%u's %s at %s came before "
                "T%u's %s at %s, ", s->e1->tid, cb_event_kind_name(s->e1->kind),
           cbr_event_where(s->e1, 1, a, sizeof a), s->f->tid,
           cb_event_kind_name(s->f->kind), cbr_event_where(s->f, 1, c, sizeof c));
   if (s->cure == 2) /* every reader at f's line (predict/cure_class.c) */
      fprintf(out, "and before other threads' reads at that line: each such read "
                   "forced before the write of T%u that preceded it (with what its "
                   "thread read since its last synchronisation), ", s->e1->tid);
   else
      fprintf(out, "and nothing orders them: forced the other way round (T%u's %s "
                   "first, and what T%u read since its last synchronisation after "
                   "it), ", s->f->tid, cb_event_kind_name(s->f->kind), s->e1->tid);
   fprintf(out, "the program passed: that order is the failure.\n");
}

/* The sentence under e1, f and e2 that says what went wrong, per pattern;
 * obj: what each of them acts on. */
static void print_explanation(FILE *out, const cb_schedule *s, char obj[3][256],
                              int happened)
{
   char a[PATH_MAX + 32], b[PATH_MAX + 32], c[PATH_MAX + 32];
   int dlk = cbr_is_deadlock(s), ord = cbr_is_order(s);
   /* happened: 1, 0, or -1 unknown (the run left the schedule's path). */
   if (!dlk && happened <= 0 && s->e1 && s->f && s->e2) {
      fprintf(out, "  the schedule was to run T%u's %s at %s %s T%u's %s at %s",
              s->f->tid, f_kind(s),
              cbr_event_where(s->f, 1, c, sizeof c), ord ? "before" : "between",
              s->e1->tid, cb_event_kind_name(s->e1->kind),
              cbr_event_where(s->e1, 1, a, sizeof a));
      if (!ord)
         fprintf(out, " and its %s at %s", cb_event_kind_name(s->e2->kind),
                 cbr_event_where(s->e2, 1, b, sizeof b));
      fprintf(out, happened == 0 ? ", but that did not happen in this run.\n"
                   : "; whether it did in this run is not known.\n");
      return;
   }
   size_t cycle = dlk ? tail_threads(s) : 0;
   if (dlk && cycle > 2)
      fprintf(out, "  %zu threads each take one lock and then ask for the next one's "
                   "(T%u took %s at %s and asked for %s at %s, which T%u took at %s, "
                   "...): a cycle in which each waits for the next forever.\n",
              cycle, s->e1->tid, obj[0], cbr_event_where(s->e1, 1, a, sizeof a),
              obj[2], cbr_event_where(s->e2, 1, b, sizeof b), s->f->tid,
              cbr_event_where(s->f, 1, c, sizeof c));
   else if (dlk && s->e1 && s->f && s->e2)
      /* No tail: the recorded run's own deadlock forced again
       * (predict/deadlock_again.c), whose cycle may be longer than two. */
      fprintf(out, !s->n_tail
                 ? "  in the recorded run, which deadlocked, T%u took %s%s at %s and then "
                   "asked for lock %s at %s, which T%u held, taken at %s, and each thread "
                   "of the cycle above waits so for the next: forced again, the run "
                   "deadlocks the same way.\n"
                 : "  T%u took %s%s at %s and then asked for lock %s at %s, "
                   "while T%u held it, taken at %s: the two threads take these locks "
                   "in opposite orders, and each can wait for the other "
                   "forever.\n",
              s->e1->tid, strncmp(obj[0], "lock ", 5) ? "lock " : "", obj[0],
              cbr_event_where(s->e1, 1, a, sizeof a), obj[2],
              cbr_event_where(s->e2, 1, b, sizeof b), s->f->tid,
              cbr_event_where(s->f, 1, c, sizeof c));
   else if (is_lost_wakeup(s) && !s->cure)
      fprintf(out, "  T%u's signal of %s at %s was forced before T%u began to wait for it "
                   "at %s (the wait lets go of its mutex there): the signal found no "
                   "waiter and was lost, and T%u waits for one that already came.\n",
              s->f->tid, obj[1], cbr_event_where(s->f, 1, c, sizeof c), s->e1->tid,
              cbr_event_where(s->e1, 1, a, sizeof a), s->e1->tid);
   else if (ord && s->cure && s->e1 && s->f)
      print_cure_words(out, s);
   else if (ord && s->e1 && s->f)
      fprintf(out, "  in the recorded run T%u's %s at %s came before T%u's %s at "
                   "%s, and nothing orders them (no create, join, barrier or "
                   "signal): forced the other way round, T%u's %s ran first.\n",
              s->e1->tid, cb_event_kind_name(s->e1->kind),
              cbr_event_where(s->e1, 1, a, sizeof a), s->f->tid,
              cb_event_kind_name(s->f->kind), cbr_event_where(s->f, 1, c, sizeof c),
              s->f->tid, cb_event_kind_name(s->f->kind));
   else if (s->e1 && s->f && s->e2 && strcmp(obj[0], obj[2]) != 0)
      /* Two variables (predict/two_vars.c): one thread's two critical
       * sections, the other's one over both. */
      fprintf(out, "  T%u's %s of %s at %s and its %s of %s at %s, in two critical "
                   "sections, were not atomic: T%u's %s of %s at %s, in one section "
                   "with the other, ran between them%s.\n",
              s->e1->tid, cb_event_kind_name(s->e1->kind), obj[0],
              cbr_event_where(s->e1, 1, a, sizeof a), cb_event_kind_name(s->e2->kind),
              obj[2], cbr_event_where(s->e2, 1, b, sizeof b), s->f->tid, f_kind(s),
              obj[1], cbr_event_where(s->f, 1, c, sizeof c),
              s->e1->kind == CB_EV_WRITE ? " and saw one updated without the other"
                                         : ": the two were read from different states");
   else if (s->e1 && s->f && s->e2)
      fprintf(out, "  T%u's %s at %s and its %s at %s were not atomic: T%u's "
                   "%s at %s ran between them.\n",
              s->e1->tid, cb_event_kind_name(s->e1->kind),
              cbr_event_where(s->e1, 1, a, sizeof a),
              cb_event_kind_name(s->e2->kind),
              cbr_event_where(s->e2, 1, b, sizeof b), s->f->tid,
              f_kind(s), cbr_event_where(s->f, 1, c, sizeof c));
}

/* What the thread that ended a failing run read otherwise than the
 * recorded run (misread.c): "misread: T2 read r->deadline_ms = 0 (recorded
 * run: 250) at reqqueue.c:47 in handler(), ...".  cbtest reads the line
 * (cbtest_crash.c): keep its words. */
static void print_misread(FILE *out, const cbr_result *r)
{
   const cbr_misread *m = &r->misread;
   char v1[CBR_VALUE_LEN], v2[CBR_VALUE_LEN], how[32];
   if (!m->found)
      return;
   if (r->status.end == CBR_END_EXIT)
      snprintf(how, sizeof how, "exit %d", r->status.end_exit);
   else
      snprintf(how, sizeof how, "abort");
   fprintf(out, "  misread: T%u read %s = %s (recorded run: %s) at %s%s%s%s, the last value "
                "T%u read otherwise than in the recorded run before it ended the run "
                "(%s)\n",
           m->tid, m->variable, value_str(m->value, v1, sizeof v1),
           value_str(m->recorded, v2, sizeof v2), m->where, *m->function ? " in " : "",
           m->function, *m->function ? "()" : "", m->tid, how);
}

static void print_one_bug(FILE *out, const cbr_report *rep, size_t i)
{
   const cbr_schedule *cs = &rep->cs[i];
   const cb_schedule *s = cs->s;
   const cbr_result *r = &rep->results[i];
   char var[256], cmd[8192], obj[3][256];
   int dlk = cbr_is_deadlock(s), exp = cbr_is_explore(s);
   cbr_variable_of(s, var, sizeof var);
   print_headline(out, cs, r, var);
   print_ending(out, rep, r);
   if (r->status.unexpected)
      fprintf(out, "  it %s\n", r->status.divergence);
   if (r->variant >= r->nvariants)
      fprintf(out, "  forced as variant %u, by %s, %s\n", r->variant,
              cbr_variant_name(cs, r->variant),
              r->hunted == CBR_HUNT_AFTER_ELSEWHERE
                 ? "after a tail variant's run had failed without the violation"
                 : "after the schedule's tail variants could not be followed");
   if (r->variant >= r->nvariants && r->status.hunt_f_tid)
      fprintf(out, "  in this run the hunt held T%u (its hold %u) until T%u's "
                   "access (the threads and counted events below are the "
                   "recorded run's)\n", r->status.hunt_held, r->status.hunt_holds,
              r->status.hunt_f_tid);
   else if (r->nvariants > 1)
      fprintf(out, "  tail variant %u%s%s%s of the schedule's %u (%u tried)\n",
              r->variant, *cbr_variant_name(cs, r->variant) ? " (" : "",
              cbr_variant_name(cs, r->variant),
              *cbr_variant_name(cs, r->variant) ? ")" : "", r->nvariants,
              r->variants_tried);
   if (exp)
      print_delays(out, s, var, &r->status);
   else {
      print_event(out, "e1", s->pattern, s->e1,
                  object_of(s, s->e1, var, obj[0], sizeof obj[0]), &r->status, 0);
      print_event(out, "f", s->pattern, s->f,
                  object_of(s, s->f, var, obj[1], sizeof obj[1]), &r->status, 1);
      print_event(out, "e2", s->pattern, s->e2,
                  object_of(s, s->e2, var, obj[2], sizeof obj[2]), &r->status, 2);
      print_explanation(out, s, obj, cbr_violation_happened(r));
   }
   /* A deadlock's e2 never completes, so the tool cannot see e1, f, e2
    * in order; the deadlock or hang itself is the evidence, said above. */
   if (dlk && r->verdict == CBR_DEADLOCK)
      fprintf(out, "  the deadlock happened in this run: yes\n");
   else if (!exp && !(dlk && r->status.pattern < 0))
      fprintf(out, "  the %s happened in this run: %s\n",
              dlk ? "deadlock" : "violation",
              cbr_violation_happened(r) == 1 ? "yes"
              : cbr_violation_happened(r) == 0
                 ? r->verdict == CBR_DEADLOCK
                      ? "no (the deadlock came from elsewhere in the "
                        "forced schedule)"
                      : "no (the failure came from elsewhere in the forced "
                        "schedule)"
              : r->status.unexpected
                 ? "unknown (the run left the schedule's path, so the tool "
                   "could not follow e1, f and e2)"
                 : "unknown (the tool did not say)");
   print_misread(out, r);
   if (r->stderr_tail[0] && !r->stderr_shown)
      print_stderr_tail(out, "the program's stderr ended with", r);
   if (cbr_not_reproduced(r))
      fprintf(out, "  not reproduced: forced again %u time%s, it %s %u: the "
                   "%s does not come from this schedule alone, so it is not kept "
                   "as a reproducer\n  run again: %s\n",
              r->confirm_runs, r->confirm_runs == 1 ? "" : "s",
              r->verdict == CBR_CURED ? "passed" : "failed", r->confirm_bugs,
              r->verdict == CBR_CURED ? "pass" : "failure",
              cbr_reproduce_command(rep, i, cmd, sizeof cmd));
   else {
      if (r->pinned[0])
         fprintf(out, "  pinned: variant %u failed again %u of %u times (the threads run "
                      "free after its last step); its failing run's whole order, "
                      "forced, failed %u of %u: %s\n",
                 r->variant, r->confirm_bugs, r->confirm_runs, r->pinned_runs,
                 r->pinned_runs, r->pinned);
      fprintf(out, "  reproduce: %s%s\n", cbr_reproduce_command(rep, i, cmd, sizeof cmd),
              r->confirm_runs ? "" : " (not forced again: --confirm 0)");
   }
}

/* A run where Valgrind or the tool failed: no bug, but what it said. */
static void print_one_error(FILE *out, const cbr_report *rep, size_t i)
{
   const cbr_result *r = &rep->results[i];
   char cmd[8192];
   fprintf(out, "\nERROR (%s): %s; this says nothing about the program\n",
           rep->cs[i].name, r->error);
   if (r->stderr_tail[0])
      print_stderr_tail(out, "the run's stderr (the program's and "
                             "Valgrind's) ended with", r);
   fprintf(out, "  run again: %s\n", cbr_reproduce_command(rep, i, cmd,
                                                          sizeof cmd));
}

void cbr_print_bug_reports(FILE *out, const cbr_report *rep)
{
   for (size_t i = 0; i < rep->n; i++)
      if (cbr_verdict_is_bug(rep->results[i].verdict))
         print_one_bug(out, rep, i);
      else if (rep->results[i].verdict == CBR_ERROR)
         print_one_error(out, rep, i);
}
