/* dump_schedule.c: `cbtrace dump` of a schedule file: what cbpredict asks
 * cbreplay to force, in words.  A user reads it to see why a forced run
 * went where it went ("T2 runs 12 events, the last a read of stop at
 * wq.c:48"), without a protobuf decoder.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cbtrace_cmd.h"

static void print_where(const cb_sched_location *l)
{
   if (!l)
      return;
   if (l->file && l->file[0] && l->has_line)
      printf(" @ %s:%u", l->file, l->line);
   else if (l->has_address)
      printf(" @ 0x%" PRIx64, l->address);
   if (l->function && l->function[0])
      printf(" in %s", l->function);
}

/* "T2's event 45 (trace 100): read stop = 0 @ wq.c:48 in consumer" */
static void print_event(const char *label, const cb_sched_event *e)
{
   if (!e)
      return;
   printf("%s: T%u's event %" PRIu64, label, e->tid, e->index);
   if (e->has_trace_index)
      printf(" (trace %" PRIu64 ")", e->trace_index);
   printf(": %s", e->has_kind ? cb_event_kind_name(e->kind) : "?");
   if (e->variable_name && e->variable_name[0])
      printf(" %s", e->variable_name);
   if (e->has_value && e->has_kind &&
       (e->kind == CB_EV_READ || e->kind == CB_EV_WRITE))
      printf(" = %" PRIu64, e->value);
   print_where(e->location);
   printf("\n");
}

static void print_steps(cb_sched_step *const *tail, size_t n)
{
   for (size_t k = 0; k < n; k++) {
      const cb_sched_step *st = tail[k];
      if (st->run_out)
         printf("  step %zu: T%u runs alone until it exits or blocks\n",
                k + 1, st->tid);
      else
         printf("  step %zu: T%u runs %" PRIu64 " event%s\n", k + 1, st->tid,
                st->count, st->count == 1 ? "" : "s");
      if (st->expect)
         print_event("    ending with", st->expect);
   }
}

void cbt_print_schedule(const cb_schedule *s)
{
   printf("schedule s%u: %s on %s\n", s->id, s->pattern ? s->pattern : "?",
          s->variable_name && s->variable_name[0] ? s->variable_name : "?");
   if (s->program && s->program[0])
      printf("program: %s\n", s->program);
   if (s->has_trace_id)
      printf("trace id: %016" PRIx64 "\n", s->trace_id);
   if (s->cure)
      printf("cure: the recorded run failed; this order forced the other way "
             "round%s, a run that passes names the failure's cause\n",
             s->cure == 2 ? " for every read at f's line" : "");
   print_event("e1", s->e1);
   print_event("f", s->f);
   print_event("e2", s->e2);
   size_t nw = s->n_prefix_order / 4;
   if (nw)
      printf("prefix: every thread runs up to its count, then waits; "
             "%zu wait%s keep%s the recorded order:\n", nw, nw == 1 ? "" : "s",
             nw == 1 ? "s" : "");
   else
      printf("prefix: every thread runs freely up to its count, then waits:\n");
   for (size_t t = 0; t < s->n_prefix; t++)
      printf("  T%zu: %" PRIu64 " event%s\n", t + 1, s->prefix[t],
             s->prefix[t] == 1 ? "" : "s");
   for (size_t k = 0; k < nw; k++) {
      const uint64_t *w = &s->prefix_order[4 * k];
      printf("  T%" PRIu64 "'s event %" PRIu64 " waits until T%" PRIu64
             " has run %" PRIu64 " event%s\n", w[0], w[1], w[2], w[3],
             w[3] == 1 ? "" : "s");
   }
   size_t nv = cb_schedule_nvariants(s);
   for (size_t v = 0; v < nv; v++) {
      cb_sched_step *const *tail;
      size_t n;
      const char *name;
      if (cb_schedule_variant(s, v, &tail, &n, &name) < 0)
         continue;
      printf("tail variant %zu%s%s:\n", v, name[0] ? ": " : "", name);
      print_steps(tail, n);
      printf("  then every thread runs freely\n");
   }
}
