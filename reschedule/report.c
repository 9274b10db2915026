/* report.c: what cbreplay tells a person about the forced runs: the table
 * and the notes under it (the bug reports are report_bug.c's, the JSON
 * report_json.c's).
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
   case CBR_CURED: return "cured";
   }
   return "?";
}

int cbr_verdict_is_bug(enum cbr_verdict v)
{
   return v == CBR_FAILED || v == CBR_DEADLOCK || v == CBR_HUNG || v == CBR_CURED;
}

int cbr_verdict_exit(enum cbr_verdict v)
{
   switch (v) {
   case CBR_PASSED: return CBR_EXIT_PASSED;
   case CBR_FAILED:
   case CBR_CURED: return CBR_EXIT_FAILED;
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

int cbr_source_of(const cb_sched_location *l, char *buf, size_t len)
{
   /* The folder the debug information gave, then as named from here. */
   const char *dirs[2] = {l ? l->dir : NULL, ""};
   return l && l->has_line && l->file &&
          cb_source_line(dirs, 2, l->file, l->line, l->object, buf, len);
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

int cbr_is_order(const cb_schedule *s)
{
   return s->pattern && !strcmp(s->pattern, "ORD");
}

int cbr_is_deadlock(const cb_schedule *s)
{
   return s->pattern && !strcmp(s->pattern, "DLK");
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
const char *cbr_verdict_text(const cbr_result *r, char *buf, size_t len)
{
   char sig[32];
   const char *v = cbr_verdict_name(r->verdict);
   switch (r->verdict) {
   case CBR_PASSED:
      if (r->cure && r->signal) /* it failed as the recording did */
         snprintf(buf, len, "not cured (%s)", signal_name(r->signal, sig, sizeof sig));
      else if (r->cure)
         snprintf(buf, len, r->exit_code < 0 ? "not cured (no end)" : "not cured (exit %d)",
                  r->exit_code);
      else
         snprintf(buf, len, "%s", v);
      break;
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

/* A lock-order inversion's e2 never completes when it deadlocks: the
 * deadlock is the violation (as the bug report says). */
static const char *violation_text(const cb_schedule *s, const cbr_result *r)
{
   if (!strcmp(cbr_pattern_of(s), "DLK") && r->verdict == CBR_DEADLOCK)
      return "yes";
   int v = cbr_violation_happened(r);
   return v == 1 ? "yes" : v == 0 ? "no" : "?";
}

const char *cbr_variant_name(const cbr_schedule *cs, unsigned variant)
{
   cb_sched_step *const *tail;
   size_t ntail;
   const char *name;
   if (cbr_is_hunt(cs->s, variant))
      return cbr_hunt_name(cs->s);
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
   const char *pinned = rep->results[i].pinned;
   cb_append_shell_quoted(buf, len, pinned[0] ? pinned : rep->cs[i].path);
   if (!pinned[0] && cb_schedule_nvariants(rep->cs[i].s) > 1) {
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
   cbr_verdict_text(r, cell[6], 160);
   snprintf(cell[7], 160, "%s", cbr_is_explore(s) ? "-" : violation_text(s, r));
   snprintf(cell[8], 160, "%.2fs", r->seconds);
   if (r->variant >= r->nvariants)
      snprintf(cell[9], 160, "hunt");
   else
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

int cbr_then_stuck(const cbr_result *r)
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

   size_t count[CBR_CURED + 1] = {0};
   for (size_t i = 0; i < rep->n; i++)
      count[rep->results[i].verdict]++;
   fprintf(out, "%zu forced run%s: %zu failed, %zu deadlocked, %zu hung, "
                "%zu passed, %zu infeasible", rep->n, rep->n == 1 ? "" : "s",
           count[CBR_FAILED], count[CBR_DEADLOCK], count[CBR_HUNG],
           count[CBR_PASSED], count[CBR_INFEASIBLE]);
   if (count[CBR_CURED])
      fprintf(out, ", %zu cured (the recorded failure's cause)", count[CBR_CURED]);
   if (count[CBR_ERROR])
      fprintf(out, ", %zu error%s", count[CBR_ERROR],
              count[CBR_ERROR] == 1 ? "" : "s");
   fputc('\n', out);
   print_notes(out, rep);
}

void cbr_print_waits(FILE *out, const cbr_result *r)
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
         cbr_print_waits(out, r); /* what a stalled plan's threads waited for */
      }
      else if (r->verdict == CBR_ERROR)
         fprintf(out, "  %s error: %s\n", rep->cs[i].name, r->error);
      else if (cbr_verdict_is_bug(r->verdict))
         fprintf(out, "  %s %s %s%s%s\n", rep->cs[i].name,
                 cbr_verdict_name(r->verdict),
                 cbr_how_far(r, far, sizeof far),
                 cbr_then_stuck(r) ? "; then the tool could not go on: " : "",
                 cbr_then_stuck(r) ? r->status.reason : "");
      if (r->variants_tried > 1 || (r->nvariants > 1 && rep->o->variant < 0))
         fprintf(out, "  %s tail variants tried: %u of %u, the verdict is "
                      "variant %u's%s%s%s%s\n", rep->cs[i].name,
                 r->variants_tried, r->nvariants, r->variant,
                 *cbr_variant_name(&rep->cs[i], r->variant) ? " (" : "",
                 cbr_variant_name(&rep->cs[i], r->variant),
                 *cbr_variant_name(&rep->cs[i], r->variant) ? ")" : "",
                 r->variants_skipped ? "; the others begin with the steps "
                                       "an infeasible one could not follow"
                                     : "");
      if (r->hunted == CBR_HUNT_AFTER_INFEASIBLE)
         fprintf(out, "  %s every tail variant tried was infeasible; the hunt "
                      "(its events by their code, not the recorded counts) %s\n",
                 rep->cs[i].name, r->variant >= r->nvariants
                                     ? "gave the verdict"
                                     : "was infeasible too");
      else if (r->hunted == CBR_HUNT_AFTER_ELSEWHERE)
         fprintf(out, "  %s a tail variant failed, but not by the violation; "
                      "the hunt (its events by their code, not the recorded "
                      "counts) failed by it and gave the verdict\n",
                 rep->cs[i].name);
      if (r->status.unexpected && r->verdict != CBR_INFEASIBLE)
         fprintf(out, "  %s %s\n", rep->cs[i].name, r->status.divergence);
      if (r->status.order_dropped && r->status.order_wait[0])
         fprintf(out, "  %s note: the prefix left the recorded order (T%llu's "
                      "event %llu waited for T%llu to run %llu events, which "
                      "did not happen) and ran free from there\n",
                 rep->cs[i].name, r->status.order_wait[0],
                 r->status.order_wait[1], r->status.order_wait[2],
                 r->status.order_wait[3]);
      else if (r->status.order_dropped)
         fprintf(out, "  %s note: the prefix left the recorded order and ran "
                      "free from there\n", rep->cs[i].name);
      if (r->status.diverged)
         fprintf(out, "  %s note: T%u ran its counted event %llu out of turn "
                      "(the tool went on with the plan)\n", rep->cs[i].name,
                 r->status.diverged_tid, r->status.diverged_index);
   }
}
