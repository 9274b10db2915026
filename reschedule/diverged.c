/* diverged.c: an expected event that did not come, in words.
 *
 * The tool says which event it found ("unexpected ..." on the status
 * channel, status.c); what was expected there is the schedule's: the
 * expect of the step whose last event it is, or e1, f, e2.  The line reads
 *   diverged: T2 event 17 expected read checking+40 at bank.c:34, found
 *   write at bank.c:40
 * ("before the tail was released" or "after the release" says when).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdio.h>
#include <string.h>

#include "replay.h"

static const cb_sched_event *is(const cb_sched_event *e,
                                       unsigned tid, unsigned long long index)
{
   return e && e->has_tid && e->tid == tid && e->has_index &&
          e->index == index ? e : NULL;
}

/* The expectation of (tid, index) in variant `variant`, or e1, f, e2. */
static const cb_sched_event *
expected(const cb_schedule *s, unsigned variant, unsigned tid,
         unsigned long long index)
{
   cb_sched_step *const *tail;
   size_t ntail;
   const char *name;
   const cb_sched_event *e = NULL;
   if (cb_schedule_variant(s, variant, &tail, &ntail, &name) == 0)
      for (size_t i = 0; i < ntail && !e; i++)
         e = is(tail[i]->expect, tid, index);
   if (!e)
      e = is(s->e1, tid, index);
   if (!e)
      e = is(s->f, tid, index);
   if (!e)
      e = is(s->e2, tid, index);
   return e;
}

/* The name the schedule gives address a in any of its events (e1, f, e2,
 * every variant's expectations), or NULL: a found event's data is only
 * an address, and often one the schedule names elsewhere. */
static const char *name_at(const cb_schedule *s, unsigned long long a)
{
   const cb_sched_event *pat[3] = {s->e1, s->f, s->e2};
   for (int k = 0; k < 3; k++)
      if (pat[k] && pat[k]->has_address && pat[k]->address == a &&
          pat[k]->variable_name && *pat[k]->variable_name)
         return pat[k]->variable_name;
   for (size_t v = 0; v <= s->n_variants; v++) {
      cb_sched_step *const *tail;
      size_t ntail;
      const char *vname;
      if (cb_schedule_variant(s, v, &tail, &ntail, &vname) != 0)
         continue;
      for (size_t i = 0; i < ntail; i++) {
         const cb_sched_event *e = tail[i]->expect;
         if (e && e->has_address && e->address == a && e->variable_name &&
             *e->variable_name)
            return e->variable_name;
      }
   }
   return NULL;
}

void cbr_describe_divergence(const cb_schedule *s, unsigned variant,
                             cbr_status *st)
{
   const cb_sched_event *e =
      expected(s, variant, st->unexp_tid, st->unexp_index);
   char what[256] = "an event the schedule names", at[160] = "";
   if (e) {
      char var[96] = "";
      if (e->variable_name && *e->variable_name)
         snprintf(var, sizeof var, " %s", e->variable_name);
      else if (e->has_address && e->address)
         snprintf(var, sizeof var, " 0x%llx", (unsigned long long)e->address);
      const cb_sched_location *l = e->location;
      if (l && l->file && *l->file)
         snprintf(at, sizeof at, " at %s:%u", l->file, l->line);
      else if (l && l->has_address)
         snprintf(at, sizeof at, " at 0x%llx", (unsigned long long)l->address);
      snprintf(what, sizeof what, "%s%s%s",
               cb_event_kind_name(e->has_kind ? e->kind : 0), var, at);
   }
   char found[192];
   int same_kind = e && e->has_kind && e->kind == st->unexp_kind;
   const char *fname = same_kind ? name_at(s, st->unexp_data) : NULL;
   if (same_kind && e->address != st->unexp_data && fname)
      snprintf(found, sizeof found, "%s %s at %s",
               cb_event_kind_name(st->unexp_kind), fname, st->unexp_where);
   else if (same_kind && e->address != st->unexp_data)
      snprintf(found, sizeof found, "%s 0x%llx at %s",
               cb_event_kind_name(st->unexp_kind), st->unexp_data,
               st->unexp_where);
   else
      snprintf(found, sizeof found, "%s at %s",
               cb_event_kind_name(st->unexp_kind), st->unexp_where);
   snprintf(st->divergence, sizeof st->divergence,
            "diverged: T%u event %llu expected %s, found %s (%s)",
            st->unexp_tid, st->unexp_index, what, found,
            st->unexp_forcing ? "while the schedule was forced"
                              : "after the threads were released");
}

void cbr_divergence_spoils_pattern(const cb_schedule *s, cbr_status *st)
{
   if (!st->unexpected || st->pattern != 1)
      return;
   const cb_sched_event *role[3] = {s->e1, s->f, s->e2};
   for (int k = 0; k < 3; k++)
      if (role[k] && role[k]->has_tid && role[k]->has_index &&
          role[k]->tid == st->unexp_tid &&
          st->unexp_index <= role[k]->index) {
         st->pattern = -1;
         return;
      }
}
