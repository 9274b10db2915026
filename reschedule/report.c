/* report.c: what cbreplay tells a person (table, bug reports) or a program
 * (JSON) about the forced runs.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

const char *cbr_verdict_name(enum cbr_verdict v)
{
   switch (v) {
   case CBR_PASSED: return "passed";
   case CBR_FAILED: return "failed";
   case CBR_INFEASIBLE: return "infeasible";
   case CBR_HUNG: return "hung";
   case CBR_DEADLOCK: return "deadlock";
   case CBR_ERROR: return "error";
   }
   return "?";
}

int cbr_verdict_is_bug(enum cbr_verdict v)
{
   return v == CBR_FAILED || v == CBR_DEADLOCK || v == CBR_HUNG;
}

int cbr_verdict_exit(enum cbr_verdict v)
{
   switch (v) {
   case CBR_PASSED: return CBR_EXIT_PASSED;
   case CBR_FAILED: return CBR_EXIT_FAILED;
   case CBR_INFEASIBLE: return CBR_EXIT_INFEASIBLE;
   case CBR_HUNG: return CBR_EXIT_HUNG;
   case CBR_DEADLOCK: return CBR_EXIT_DEADLOCK;
   case CBR_ERROR: return CBR_EXIT_ERROR;
   }
   return CBR_EXIT_ERROR;
}

/* ---- Small pieces ------------------------------------------------------ */

static const char *base_name(const char *path)
{
   const char *b = strrchr(path, '/');
   return b ? b + 1 : path;
}

/* "file:line" of a pattern event, the file by its base name when short. */
const char *cbr_event_where(const cb_sched_event *e, int shortname,
                            char *buf, size_t len)
{
   const cb_sched_location *l = e ? e->location : NULL;
   if (!l || ((!l->file || !*l->file) && !l->has_address)) {
      snprintf(buf, len, "?");
   } else if (l->file && *l->file) {
      snprintf(buf, len, "%s:%u", shortname ? base_name(l->file) : l->file,
               l->line);
   } else {
      snprintf(buf, len, "%s+0x%llx",
               l->object && *l->object ? base_name(l->object) : "",
               (unsigned long long)l->address);
   }
   return buf;
}

const char *cbr_variable_of(const cb_schedule *s, char *buf, size_t len)
{
   if (s->variable_name && *s->variable_name)
      snprintf(buf, len, "%s", s->variable_name);
   else if (s->has_variable)
      snprintf(buf, len, "0x%llx", (unsigned long long)s->variable);
   else
      snprintf(buf, len, "?");
   return buf;
}

const char *cbr_pattern_of(const cb_schedule *s)
{
   return s->pattern && *s->pattern ? s->pattern : "?";
}

int cbr_is_explore(const cb_schedule *s)
{
   return s->pattern && !strcmp(s->pattern, "explore");
}

static const char *signal_name(int sig, char *buf, size_t len)
{
   const char *abbrev = sigabbrev_np(sig);
   if (abbrev)
      snprintf(buf, len, "SIG%s", abbrev);
   else
      snprintf(buf, len, "signal %d", sig);
   return buf;
}

/* "failed (exit 1)", "hung (before release)", ... */
static const char *verdict_text(const cbr_result *r, char *buf, size_t len)
{
   char sig[32];
   const char *v = cbr_verdict_name(r->verdict);
   switch (r->verdict) {
   case CBR_FAILED:
      if (r->signal)
         snprintf(buf, len, "%s (%s)", v, signal_name(r->signal, sig,
                                                       sizeof sig));
      else if (r->exit_code != 0)
         snprintf(buf, len, "%s (exit %d)", v, r->exit_code);
      else
         snprintf(buf, len, "%s (check %d)", v, r->check_code);
      break;
   case CBR_HUNG:
      snprintf(buf, len, "%s%s", v,
               r->hung_before_release ? " (before release)" : "");
      break;
   case CBR_INFEASIBLE:
      if (r->exit_code > 0)
         snprintf(buf, len, "%s (then exit %d)", v, r->exit_code);
      else
         snprintf(buf, len, "%s", v);
      break;
   default:
      snprintf(buf, len, "%s", v);
   }
   return buf;
}

static const char *violation_text(const cbr_result *r)
{
   return r->status.pattern == 1 ? "yes" : r->status.pattern == 0 ? "no" : "?";
}

const char *cbr_variant_name(const cbr_schedule *cs, unsigned variant)
{
   cb_sched_step *const *tail;
   size_t ntail;
   const char *name;
   if (cb_schedule_variant(cs->s, variant, &tail, &ntail, &name) != 0)
      return "";
   return name;
}

/* Whether any schedule of the report has more than one tail variant. */
static int any_variants(const cbr_report *rep)
{
   for (size_t i = 0; i < rep->n; i++)
      if (cb_schedule_nvariants(rep->cs[i].s) > 1)
         return 1;
   return 0;
}


const char *cbr_reproduce_command(const cbr_report *rep, size_t i, char *buf,
                                  size_t len)
{
   char num[64];
   buf[0] = 0;
   cb_append_shell_quoted(buf, len, "cbreplay");
   cb_append_shell_quoted(buf, len, "--schedule");
   cb_append_shell_quoted(buf, len, rep->cs[i].path);
   if (cb_schedule_nvariants(rep->cs[i].s) > 1) {
      cb_append_shell_quoted(buf, len, "--variant");
      snprintf(num, sizeof num, "%u", rep->results[i].variant);
      cb_append_shell_quoted(buf, len, num);
   }
   if (rep->o->timeout_s != CBR_DEFAULT_TIMEOUT_S) {
      cb_append_shell_quoted(buf, len, "--timeout");
      snprintf(num, sizeof num, "%g", rep->o->timeout_s);
      cb_append_shell_quoted(buf, len, num);
   }
   if (rep->o->stall_ms != CBR_DEFAULT_STALL_MS) {
      cb_append_shell_quoted(buf, len, "--stall-ms");
      snprintf(num, sizeof num, "%u", rep->o->stall_ms);
      cb_append_shell_quoted(buf, len, num);
   }
   if (rep->o->check) {
      cb_append_shell_quoted(buf, len, "--check");
      cb_append_shell_quoted(buf, len, rep->o->check);
   }
   cb_append_shell_quoted(buf, len, "--");
   cb_append_shell_quoted(buf, len, rep->program);
   for (int a = 1; a < rep->o->prog_argc; a++)
      cb_append_shell_quoted(buf, len, rep->o->prog_argv[a]);
   return buf;
}

/* ---- Table ---------------------------------------------------------------- */

enum { COLS = 10 };

static void row_cells(const cbr_report *rep, size_t i, char cell[COLS][160])
{
   const cb_schedule *s = rep->cs[i].s;
   const cbr_result *r = &rep->results[i];
   snprintf(cell[0], 160, "%s", rep->cs[i].name);
   snprintf(cell[1], 160, "%s", cbr_pattern_of(s));
   cbr_variable_of(s, cell[2], 160);
   cbr_event_where(s->e1, 1, cell[3], 160);
   cbr_event_where(s->f, 1, cell[4], 160);
   cbr_event_where(s->e2, 1, cell[5], 160);
   verdict_text(r, cell[6], 160);
   snprintf(cell[7], 160, "%s", cbr_is_explore(s) ? "-" : violation_text(r));
   snprintf(cell[8], 160, "%.2fs", r->seconds);
   snprintf(cell[9], 160, "%u of %u", r->variant, r->nvariants);
}

/* One row; the variant column only when some schedule has variants. */
static void print_row(FILE *out, const char *cell[COLS], const size_t *width,
                      int cols)
{
   for (int c = 0; c < cols; c++)
      fprintf(out, "%-*s%s", c < cols - 1 ? (int)width[c] : 0, cell[c],
              c < cols - 1 ? "  " : "\n");
}

static void print_notes(FILE *out, const cbr_report *rep);

/* The tool could not follow the plan after all: worth saying, unless the
 * deadlock is why. */
static int then_stuck(const cbr_result *r)
{
   return r->status.infeasible && r->verdict != CBR_DEADLOCK;
}

void cbr_print_table(FILE *out, const cbr_report *rep)
{
   static const char *head[COLS] = {"schedule", "pattern", "variable", "e1",
                                    "f", "e2", "verdict", "violation", "time",
                                    "variant"};
   int cols = any_variants(rep) ? COLS : COLS - 1;
   size_t width[COLS];
   char cell[COLS][160];
   const char *p[COLS];
   for (int c = 0; c < COLS; c++) {
      width[c] = strlen(head[c]);
      p[c] = cell[c];
   }
   for (size_t i = 0; i < rep->n; i++) {
      row_cells(rep, i, cell);
      for (int c = 0; c < COLS; c++)
         if (strlen(cell[c]) > width[c])
            width[c] = strlen(cell[c]);
   }
   print_row(out, head, width, cols);
   for (size_t i = 0; i < rep->n; i++) {
      row_cells(rep, i, cell);
      print_row(out, p, width, cols);
   }

   size_t count[CBR_ERROR + 1] = {0};
   for (size_t i = 0; i < rep->n; i++)
      count[rep->results[i].verdict]++;
   fprintf(out, "%zu forced run%s: %zu failed, %zu deadlocked, %zu hung, "
                "%zu passed, %zu infeasible", rep->n, rep->n == 1 ? "" : "s",
           count[CBR_FAILED], count[CBR_DEADLOCK], count[CBR_HUNG],
           count[CBR_PASSED], count[CBR_INFEASIBLE]);
   if (count[CBR_ERROR])
      fprintf(out, ", %zu error%s", count[CBR_ERROR],
              count[CBR_ERROR] == 1 ? "" : "s");
   fputc('\n', out);
   print_notes(out, rep);
}

/* The "blocked" lines of a run: each thread that waited, what for, and
 * who held it. */
static void print_waits(FILE *out, const cbr_result *r)
{
   char line[512];
   unsigned kept = r->status.nblocked < CBR_MAX_BLOCKED ? r->status.nblocked
                                                        : CBR_MAX_BLOCKED;
   for (unsigned k = 0; k < kept; k++)
      fprintf(out, "    %s\n", cbr_blocked_text(&r->status.blocked[k], line,
                                                sizeof line));
   if (r->status.nblocked > kept)
      fprintf(out, "    and %u more threads wait\n", r->status.nblocked - kept);
}

/* Under the table: why each run ended as it did, when the verdict alone
 * does not say. */
static void print_notes(FILE *out, const cbr_report *rep)
{
   char far[128];
   for (size_t i = 0; i < rep->n; i++) {
      const cbr_result *r = &rep->results[i];
      if (r->verdict == CBR_INFEASIBLE) {
         fprintf(out, "  %s infeasible: %s\n", rep->cs[i].name,
                 r->status.reason);
         print_waits(out, r); /* what a stalled plan's threads waited for */
      }
      else if (r->verdict == CBR_ERROR)
         fprintf(out, "  %s error: %s\n", rep->cs[i].name, r->error);
      else if (cbr_verdict_is_bug(r->verdict))
         fprintf(out, "  %s %s %s%s%s\n", rep->cs[i].name,
                 cbr_verdict_name(r->verdict),
                 cbr_how_far(r, far, sizeof far),
                 then_stuck(r) ? "; then the tool could not go on: " : "",
                 then_stuck(r) ? r->status.reason : "");
      if (r->variants_tried > 1 || (r->nvariants > 1 && rep->o->variant < 0))
         fprintf(out, "  %s tail variants tried: %u of %u, the verdict is "
                      "variant %u's%s%s%s\n", rep->cs[i].name,
                 r->variants_tried, r->nvariants, r->variant,
                 *cbr_variant_name(&rep->cs[i], r->variant) ? " (" : "",
                 cbr_variant_name(&rep->cs[i], r->variant),
                 *cbr_variant_name(&rep->cs[i], r->variant) ? ")" : "");
      if (r->status.unexpected && r->verdict != CBR_INFEASIBLE)
         fprintf(out, "  %s %s\n", rep->cs[i].name, r->status.divergence);
      if (r->status.diverged)
         fprintf(out, "  %s note: T%u ran its counted event %llu out of turn "
                      "(the tool went on with the plan)\n", rep->cs[i].name,
                 r->status.diverged_tid, r->status.diverged_index);
   }
}

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
   if (!is_lock_event(e) || !e->has_address || !s->has_variable ||
       e->address == s->variable)
      snprintf(buf, len, "%s", var);
   else if (e->variable_name && *e->variable_name)
      snprintf(buf, len, "%s", e->variable_name);
   else
      snprintf(buf, len, "lock 0x%llx", (unsigned long long)e->address);
   return buf;
}

/* The value is the forced run's (the tool says it, "value K V"), with the
 * recorded run's beside it when they differ: a lost update reads as
 * "write hits = 1 (recorded run: 2)". */
static void print_event(FILE *out, const char *role,
                        const cb_sched_event *e, const char *var,
                        const cbr_status *st, int k)
{
   char where[PATH_MAX + 32];
   if (!e) {
      fprintf(out, "    %-3s (not named by the schedule)\n", role);
      return;
   }
   const char *kind = e->has_kind ? cb_event_kind_name(e->kind) : "access";
   fprintf(out, "    %-3s T%u %-5s %s", role, e->tid, kind, var);
   if (cbr_shows_value(e) && st->has_value[k] && st->value[k] != e->value)
      fprintf(out, " = %llu (recorded run: %llu)", st->value[k],
              (unsigned long long)e->value);
   else if (cbr_shows_value(e) && st->has_value[k])
      fprintf(out, " = %llu", st->value[k]);
   else if (cbr_shows_value(e))
      fprintf(out, " = %llu in the recorded run", (unsigned long long)e->value);
   fprintf(out, "  at %s", cbr_event_where(e, 0, where, sizeof where));
   if (e->location && e->location->function && *e->location->function)
      fprintf(out, " in %s()", e->location->function);
   fprintf(out, "  (its counted event %llu)\n", (unsigned long long)e->index);
}

/* Pattern DLK (cbpredict's deadlocks.c): e1 = T1 takes lock A, f = T2
 * takes lock B (the schedule's variable), e2 = T1 asks for B. */
static int is_deadlock(const cb_schedule *s)
{
   return s->pattern && !strcmp(s->pattern, "DLK");
}

/* Pattern ORD (cbpredict's orders.c): e1 = e2 = T1's access that ran
 * first in the recorded run, f = T2's conflicting access forced before it. */
static int is_order(const cb_schedule *s)
{
   return s->pattern && !strcmp(s->pattern, "ORD");
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
      print_event(out, name, pt[k], object_of(s, pt[k], var, obj, sizeof obj),
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
                         b->holder_where, b->value};
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
                                        : "it failed",
           cbr_how_far(r, far, sizeof far));
   if (then_stuck(r))
      fprintf(out, " (then the tool could not go on: %s)", r->status.reason);
   fputc('\n', out);
   if (r->verdict == CBR_DEADLOCK)
      print_waits(out, r);
}

static void print_one_bug(FILE *out, const cbr_report *rep, size_t i)
{
   const cbr_schedule *cs = &rep->cs[i];
   const cb_schedule *s = cs->s;
   const cbr_result *r = &rep->results[i];
   char var[256], vt[128], a[PATH_MAX + 32], b[PATH_MAX + 32],
      c[PATH_MAX + 32], cmd[8192];

   char obj[3][256];
   int dlk = is_deadlock(s), ord = is_order(s), exp = cbr_is_explore(s);
   cbr_variable_of(s, var, sizeof var);
   if (r->verdict == CBR_DEADLOCK)
      snprintf(vt, sizeof vt, "deadlocked");
   else
      verdict_text(r, vt, sizeof vt);
   if (exp)
      fprintf(out, "\nBUG (%s): explore: a delay schedule (no predicted "
                   "violation) made the program fail; the forced run %s",
              cs->name, vt);
   else if (ord)
      fprintf(out, "\nBUG (%s): ORD order violation on %s; the forced run %s",
              cs->name, var, vt);
   else if (dlk)
      fprintf(out, "\nBUG (%s): DLK lock-order inversion on %s, a deadlock; "
                   "the forced run %s", cs->name, var, vt);
   else
      fprintf(out, "\nBUG (%s): %s atomicity violation on %s; the forced run %s",
              cs->name, cbr_pattern_of(s), var, vt);
   print_ending(out, rep, r);
   if (r->status.unexpected)
      fprintf(out, "  it %s\n", r->status.divergence);
   if (r->nvariants > 1)
      fprintf(out, "  tail variant %u%s%s%s of the schedule's %u (%u tried)\n",
              r->variant, *cbr_variant_name(cs, r->variant) ? " (" : "",
              cbr_variant_name(cs, r->variant),
              *cbr_variant_name(cs, r->variant) ? ")" : "", r->nvariants,
              r->variants_tried);
   if (exp)
      print_delays(out, s, var, &r->status);
   else {
      print_event(out, "e1", s->e1,
                  object_of(s, s->e1, var, obj[0], sizeof obj[0]), &r->status, 0);
      print_event(out, "f", s->f,
                  object_of(s, s->f, var, obj[1], sizeof obj[1]), &r->status, 1);
      print_event(out, "e2", s->e2,
                  object_of(s, s->e2, var, obj[2], sizeof obj[2]), &r->status, 2);
   }
   size_t cycle = dlk ? tail_threads(s) : 0;
   if (exp)
      ; /* said by print_delays */
   else if (dlk && cycle > 2)
      fprintf(out, "  %zu threads each take one lock and then ask for the next one's "
                   "(T%u took %s at %s and asked for %s at %s, which T%u took at %s, "
                   "...): a cycle in which each waits for the next forever.\n",
              cycle, s->e1->tid, obj[0], cbr_event_where(s->e1, 1, a, sizeof a),
              obj[2], cbr_event_where(s->e2, 1, b, sizeof b), s->f->tid,
              cbr_event_where(s->f, 1, c, sizeof c));
   else if (dlk && s->e1 && s->f && s->e2)
      fprintf(out, "  T%u took %s%s at %s and then asked for lock %s at %s, "
                   "while T%u held it, taken at %s: the two threads take these locks "
                   "in opposite orders, and each can wait for the other "
                   "forever.\n",
              s->e1->tid, strncmp(obj[0], "lock ", 5) ? "lock " : "", obj[0],
              cbr_event_where(s->e1, 1, a, sizeof a), obj[2],
              cbr_event_where(s->e2, 1, b, sizeof b), s->f->tid,
              cbr_event_where(s->f, 1, c, sizeof c));
   else if (ord && s->e1 && s->f)
      fprintf(out, "  in the recorded run T%u's %s at %s came before T%u's %s at "
                   "%s, and nothing orders them (no create, join, barrier or "
                   "signal): forced the other way round, T%u's %s ran first.\n",
              s->e1->tid, cb_event_kind_name(s->e1->kind),
              cbr_event_where(s->e1, 1, a, sizeof a), s->f->tid,
              cb_event_kind_name(s->f->kind), cbr_event_where(s->f, 1, c, sizeof c),
              s->f->tid, cb_event_kind_name(s->f->kind));
   else if (s->e1 && s->f && s->e2)
      fprintf(out, "  T%u's %s at %s and its %s at %s were not atomic: T%u's "
                   "%s at %s ran between them.\n",
              s->e1->tid, cb_event_kind_name(s->e1->kind),
              cbr_event_where(s->e1, 1, a, sizeof a),
              cb_event_kind_name(s->e2->kind),
              cbr_event_where(s->e2, 1, b, sizeof b), s->f->tid,
              cb_event_kind_name(s->f->kind), cbr_event_where(s->f, 1, c, sizeof c));
   /* A deadlock's e2 never completes, so the tool cannot see e1, f, e2
    * in order; the deadlock or hang itself is the evidence, said above. */
   if (dlk && r->verdict == CBR_DEADLOCK)
      fprintf(out, "  the deadlock happened in this run: yes\n");
   else if (!exp && !(dlk && r->status.pattern < 0))
      fprintf(out, "  the %s happened in this run: %s\n",
              dlk ? "deadlock" : "violation",
              r->status.pattern == 1 ? "yes"
              : r->status.pattern == 0
                 ? r->verdict == CBR_DEADLOCK
                      ? "no (the deadlock came from elsewhere in the "
                        "forced schedule)"
                      : "no (the failure came from elsewhere in the forced "
                        "schedule)"
                 : "unknown (the tool did not say)");
   if (r->stderr_tail[0] && !r->stderr_shown)
      print_stderr_tail(out, "the program's stderr ended with", r);
   if (cbr_not_reproduced(r))
      fprintf(out, "  not reproduced: forced again %u time%s, it failed %u: the "
                   "failure does not come from this schedule alone, so it is not kept "
                   "as a reproducer\n  run again: %s\n",
              r->confirm_runs, r->confirm_runs == 1 ? "" : "s", r->confirm_bugs,
              cbr_reproduce_command(rep, i, cmd, sizeof cmd));
   else
      fprintf(out, "  reproduce: %s%s\n", cbr_reproduce_command(rep, i, cmd, sizeof cmd),
              r->confirm_runs ? "" : " (not forced again: --confirm 0)");
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
