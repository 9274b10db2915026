/* report_json.c: cbreplay --json: one document with every forced run.
 *
 * Per run: "verdict" is one of "passed", "failed", "deadlock", "hung",
 * "infeasible", "error" (judge.c: error = Valgrind or the tool failed,
 * never the program); a deadlock has "deadlock", each thread's wait:
 * {"tid", "waits_for" (lock, rdlock, wrlock, join, cond, sem, barrier),
 * "object" (its name, "" for a join), "address", "location" (file:line of
 * the waiting call), "holder" (the thread holding the lock, or the joined
 * thread; 0 none), "holder_location" (where the holder took the lock),
 * "text" (the same in words)}, and "deadlocked_threads" (all of them: the
 * list keeps the first few); a run whose plan stalled has the same for the
 * threads that waited then, as "waits" and "waiting_threads"; "variant" is the tail variant whose run gave
 * the verdict,
 * "variants_tried" how many were forced, "variants_skipped" how many were
 * not because they begin with the steps an infeasible one could not
 * follow, "variants" how many the schedule has, "hunted" whether the hunt
 * was forced after them (hunt.c: variant == variants when it decided); "steps_followed" of "steps" says how far the tail was followed
 * ("how_far" in words); "reason" what failed in an error, else why the
 * tool could not follow the plan (when it could not: the verdict of such a
 * run is still failed when the program failed);
 * "stderr_tail" the run's last stderr lines when they were captured (--all)
 * or the run was an error.  Each of e1, f, e2 has "source", the text of its
 * source line, when the source file is there and not newer than the
 * program (cb_source_line).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <string.h>

#include "replay.h"

static void json_deadlock(FILE *out, const cbr_status *st, int deadlock)
{
   char text[512];
   unsigned kept = st->nblocked < CBR_MAX_BLOCKED ? st->nblocked
                                                  : CBR_MAX_BLOCKED;
   /* A stall's waits (infeasible) are not a deadlock: other keys. */
   fprintf(out, ",\n   \"%s\": %u, \"%s\": [",
           deadlock ? "deadlocked_threads" : "waiting_threads", st->nblocked,
           deadlock ? "deadlock" : "waits");
   for (unsigned k = 0; k < kept; k++) {
      const cbr_blocked *b = &st->blocked[k];
      fprintf(out, "%s{\"tid\": %u, \"waits_for\": ", k ? ", " : "",
              b->tid);
      cb_json_write_string(out, cb_wait_kind_name(b->kind));
      fputs(", \"object\": ", out);
      cb_json_write_string(out, b->kind == CB_WAIT_JOIN || !strcmp(b->name, "?")
                                   ? "" : b->name);
      fprintf(out, ", \"address\": %llu, \"location\": ", b->object);
      cb_json_write_string(out, b->where);
      fprintf(out, ", \"holder\": %u, \"holder_location\": ", b->holder);
      cb_json_write_string(out, b->holder ? b->holder_where : "");
      fputs(", \"text\": ", out);
      cb_json_write_string(out, cbr_blocked_text(b, text, sizeof text));
      fputc('}', out);
   }
   fputc(']', out);
}

/* "value" is the recorded run's; "forced_value" what the forced run read
 * or wrote there, when the tool saw the event run. */
static void json_event(FILE *out, const cb_sched_event *e,
                       const cbr_status *st, int k)
{
   char where[PATH_MAX + 32];
   if (!e) {
      fputs("null", out);
      return;
   }
   const cb_sched_location *l = e->location;
   fprintf(out, "{\"tid\": %u, \"index\": %llu, \"kind\": ", e->tid,
           (unsigned long long)e->index);
   cb_json_write_string(out, e->has_kind ? cb_event_kind_name(e->kind) : "");
   if (e->variable_name) {
      fputs(", \"variable\": ", out);
      cb_json_write_string(out, e->variable_name);
   }
   if (e->has_address)
      fprintf(out, ", \"address\": %llu", (unsigned long long)e->address);
   if (cbr_shows_value(e))
      fprintf(out, ", \"value\": %llu", (unsigned long long)e->value);
   if (cbr_shows_value(e) && st->has_value[k])
      fprintf(out, ", \"forced_value\": %llu", st->value[k]);
   fputs(", \"location\": ", out);
   cb_json_write_string(out, cbr_event_where(e, 0, where, sizeof where));
   fputs(", \"file\": ", out);
   cb_json_write_string(out, l ? l->file : "");
   fprintf(out, ", \"line\": %u, \"function\": ", l ? l->line : 0);
   cb_json_write_string(out, l ? l->function : "");
   char text[200];
   if (cbr_source_of(l, text, sizeof text)) {
      fputs(", \"source\": ", out);
      cb_json_write_string(out, text);
   }
   fputc('}', out);
}

/* Which variant, and how far it was followed. */
static void json_progress(FILE *out, const cbr_schedule *cs,
                          const cbr_result *r)
{
   char far[128];
   unsigned steps = r->status.nsteps ? r->status.nsteps : r->nsteps;
   unsigned followed = r->status.tail_done ? steps : r->status.step;
   fprintf(out, ",\n   \"variant\": %u, \"variant_name\": ", r->variant);
   cb_json_write_string(out, cbr_variant_name(cs, r->variant));
   fprintf(out, ", \"variants_tried\": %u, \"variants_skipped\": %u, "
                "\"variants\": %u, \"hunted\": %s, \"steps_followed\": %u, "
                "\"steps\": %u, \"how_far\": ",
           r->variants_tried, r->variants_skipped, r->nvariants,
           r->hunted ? "true" : "false", followed, steps);
   cb_json_write_string(out, cbr_how_far(r, far, sizeof far));
}

/* One forced run: the schedule and its pattern's events, then what the run
 * did (verdict, exit, how far it followed the plan, how to reproduce it). */
static void json_run(FILE *out, const cbr_report *rep, size_t i)
{
   char buf[8192];
   const cbr_schedule *cs = &rep->cs[i];
   const cb_schedule *s = cs->s;
   const cbr_result *r = &rep->results[i];
   fputs(i ? ",\n  {" : "\n  {", out);
   fputs("\"schedule\": ", out);
   cb_json_write_string(out, cs->name);
   fputs(", \"path\": ", out);
   cb_json_write_string(out, cs->path);
   fputs(", \"pattern\": ", out);
   cb_json_write_string(out, cbr_pattern_of(s));
   fputs(", \"variable\": ", out);
   cb_json_write_string(out, cbr_variable_of(s, buf, sizeof buf));
   if (s->has_variable)   /* the raw address beside the name, for tools */
      fprintf(out, ", \"address\": %llu", (unsigned long long)s->variable);
   fputs(",\n   \"e1\": ", out);
   json_event(out, s->e1, &r->status, 0);
   fputs(",\n   \"f\": ", out);
   json_event(out, s->f, &r->status, 1);
   fputs(",\n   \"e2\": ", out);
   json_event(out, s->e2, &r->status, 2);
   fputs(",\n   \"verdict\": ", out);
   cb_json_write_string(out, cbr_verdict_name(r->verdict));
   if (s->cure) /* "passed" then means it failed as recorded: not cured */
      fprintf(out, ", \"cure\": %d", s->cure);
   fprintf(out, ", \"exit_code\": %d, \"signal\": %d, \"check_code\": %d",
           r->exit_code, r->signal, r->check_code);
   fprintf(out, ", \"violation\": %s",
           cbr_is_explore(s) ? "null"
           : cbr_violation_happened(r) == 1 ? "true"
           : cbr_violation_happened(r) == 0 ? "false" : "null");
   fprintf(out, ", \"released\": %s, \"seconds\": %.3f",
           r->status.released ? "true" : "false", r->seconds);
   if (r->status.order_dropped)
      fputs(", \"prefix_order_dropped\": true", out);
   if (r->status.diverged)
      fprintf(out, ", \"diverged\": {\"tid\": %u, \"index\": %llu}",
              r->status.diverged_tid, r->status.diverged_index);
   if (r->status.unexpected) {
      fputs(", \"divergence\": ", out);
      cb_json_write_string(out, r->status.divergence);
   }
   if (r->verdict == CBR_DEADLOCK || r->status.nblocked)
      json_deadlock(out, &r->status, r->verdict == CBR_DEADLOCK);
   json_progress(out, cs, r);
   fputs(", \"reason\": ", out);
   cb_json_write_string(out, r->verdict == CBR_ERROR ? r->error
                             : r->status.infeasible ? r->status.reason
                                                    : "");
   fputs(", \"stderr_tail\": ", out);
   cb_json_write_string(out, !r->stderr_shown || r->verdict == CBR_ERROR
                                ? r->stderr_tail : "");
   fprintf(out, ",\n   \"confirm_runs\": %u, \"confirm_failed\": %u, \"reproduced\": %s",
           r->confirm_runs, r->confirm_bugs,
           !cbr_verdict_is_bug(r->verdict) || !r->confirm_runs ? "null"
           : cbr_not_reproduced(r)                              ? "false"
                                                                : "true");
   fputs(", \"reproduce\": ", out);
   cb_json_write_string(out, cbr_not_reproduced(r) ? ""
                             : cbr_reproduce_command(rep, i, buf, sizeof buf));
   fputs(", \"pinned\": ", out); /* the reproducer when the schedule was not */
   cb_json_write_string(out, r->pinned);
   fputc('}', out);
}

void cbr_print_json(FILE *out, const cbr_report *rep)
{
   size_t count[CBR_ERROR + 1] = {0};
   fputs("{\"program\": ", out);
   cb_json_write_string(out, rep->program);
   fputs(", \"args\": [", out);
   for (int a = 1; a < rep->o->prog_argc; a++) {
      if (a > 1)
         fputs(", ", out);
      cb_json_write_string(out, rep->o->prog_argv[a]);
   }
   fputs("],\n \"runs\": [", out);
   for (size_t i = 0; i < rep->n; i++) {
      count[rep->results[i].verdict]++;
      json_run(out, rep, i);
   }
   fprintf(out, "],\n \"summary\": {\"runs\": %zu, \"passed\": %zu, "
                "\"failed\": %zu, \"deadlock\": %zu, \"infeasible\": %zu, "
                "\"hung\": %zu, \"error\": %zu}}\n",
           rep->n, count[CBR_PASSED], count[CBR_FAILED], count[CBR_DEADLOCK],
           count[CBR_INFEASIBLE], count[CBR_HUNG], count[CBR_ERROR]);
}
