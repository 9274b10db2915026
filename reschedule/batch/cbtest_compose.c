/* cbtest_compose.c: a schedule predicted from the trace of a forced run,
 * made to reach its cut the way that run did (cbtest --explore's rounds).
 *
 * Replay runs a schedule's prefix freely: each thread up to its count, in
 * whatever order the scheduler picks.  From a natural recording that order
 * is the one the prefix was cut from; from the trace of a forced run it is
 * not: that run was held and switched where its plan said.  And a cut is
 * consistent only with what the trace shows: a thread that took the busy
 * path because another one held a lock it tried (a failed trylock is no
 * event) may be cut with the holder not yet started, and run freely it
 * takes the free path; the same holds for the start of its tail.  So the
 * child's prefix becomes counted steps that run every event the forced run
 * ran before the first of e1, f, e2, in its recorded order (every switch in
 * a trace falls between instructions): the forced run itself, replayed to
 * that point; then the prefix events it did not reach, thread by thread.
 * A thread that this runs past its prefix count has that many fewer events
 * in its first tail steps.  A child is left as it is when a pattern event
 * would run among those steps, or more than max_steps switches are needed.
 *
 * The child keeps its own steps (a read schedule owns them, cb_schedule_free
 * frees them); only the new steps and the new lists of every variant are
 * made here, in a cbt_composed the caller frees once the child is written.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cbtest.h"
#include "cbtest_explore.h"
#include "cbtrace.h"

/* The trace index of the earliest of e1, f, e2 in tr, or SIZE_MAX. */
static size_t first_pattern_event(const cb_schedule *c, const cb_trace *tr)
{
   const cb_sched_event *pe[3] = {c->e1, c->f, c->e2};
   size_t first = SIZE_MAX;
   for (int k = 0; k < 3; k++)
      if (pe[k] && pe[k]->has_trace_index && pe[k]->trace_index < tr->nevents &&
          pe[k]->trace_index < first)
         first = (size_t)pe[k]->trace_index;
   return first;
}

/* Whether a pattern event is among thread t's events [from, to). */
static int pattern_in(const cb_schedule *c, uint32_t t, uint64_t from,
                      uint64_t to)
{
   const cb_sched_event *pe[3] = {c->e1, c->f, c->e2};
   for (int k = 0; k < 3; k++)
      if (pe[k] && pe[k]->tid == t && pe[k]->index >= from && pe[k]->index < to)
         return 1;
   return 0;
}

/* After the replayed order, the prefix events it did not reach (they came
 * after the first pattern event in the recorded run), thread by thread.
 * -1 when one of them is a pattern event. */
static long catch_up(const cb_schedule *c, uint64_t *ran, cb_order_step **st,
                     long ns)
{
   for (uint32_t t = 1; t <= c->n_prefix; t++) {
      if (ran[t - 1] >= c->prefix[t - 1])
         continue;
      if (pattern_in(c, t, ran[t - 1], c->prefix[t - 1]))
         return -1;
      cb_order_step *more = realloc(*st, ((size_t)ns + 1) * sizeof *more);
      if (!more)
         return -1;
      *st = more;
      more[ns++] = (cb_order_step){t, c->prefix[t - 1] - ran[t - 1]};
      ran[t - 1] = c->prefix[t - 1];
   }
   return ns;
}

/* Room for the new steps and for every variant's new list, taken before
 * anything changes (so that out of memory leaves the child as it is). */
static int make_room(const cb_schedule *c, size_t nst, cbt_composed *own)
{
   size_t lists = c->n_tail + nst;
   for (size_t k = 0; k < c->n_variants; k++)
      lists += (c->variants[k] ? c->variants[k]->n_tail : 0) + nst;
   own->steps = calloc(nst, sizeof *own->steps);
   own->lists = calloc(lists, sizeof *own->lists);
   if (own->steps && own->lists)
      return 0;
   cbt_composed_free(own);
   return -1;
}

/* One variant's list at *room: the shared new steps, then its tail less
 * what each thread ran early (early[t - 1], used up here). */
static void rebuild(cb_sched_step ***tail, size_t *ntail, cb_sched_step ***room,
                    const cbt_composed *own, size_t nst, uint64_t *early,
                    size_t n)
{
   cb_sched_step **nt = *room;
   for (size_t i = 0; i < nst; i++)
      nt[i] = &own->steps[i];
   for (size_t i = 0; i < *ntail; i++) {
      cb_sched_step *s = (*tail)[i];
      uint64_t *left = s && s->tid >= 1 && s->tid <= n ? &early[s->tid - 1]
                                                       : NULL;
      if (left && *left && !(s->has_run_out && s->run_out)) {
         uint64_t take = s->count < *left ? s->count : *left;
         s->count -= take;
         *left -= take;
      }
      nt[nst + i] = s;
   }
   *tail = nt;
   *ntail += nst;
   *room += *ntail;
}

/* Puts the steps before every variant's tail; prefix becomes all 0, and
 * its waits (Schedule.prefix_order) go with it. */
static void apply(cb_schedule *c, const cb_order_step *st, size_t nst,
                  const uint64_t *ran, uint64_t *early, cbt_composed *own)
{
   size_t n = c->n_prefix;
   for (size_t i = 0; i < nst; i++) {
      own->steps[i].has_tid = own->steps[i].has_count = 1;
      own->steps[i].tid = st[i].tid;
      own->steps[i].count = st[i].count;
   }
   cb_sched_step **room = own->lists;
   for (size_t k = 0; k <= c->n_variants; k++) {
      cb_sched_variant *v = k ? c->variants[k - 1] : NULL;
      if (k && !v)
         continue;
      for (size_t t = 0; t < n; t++)
         early[t] = ran[t] > c->prefix[t] ? ran[t] - c->prefix[t] : 0;
      if (v)
         rebuild(&v->tail, &v->n_tail, &room, own, nst, early, n);
      else
         rebuild(&c->tail, &c->n_tail, &room, own, nst, early, n);
   }
   memset(c->prefix, 0, n * sizeof *c->prefix);
   c->n_prefix_order = 0; /* the steps are the order now */
}

int cbt_compose(cb_schedule *c, const cb_trace *tr, size_t max_steps,
                cbt_composed *own)
{
   memset(own, 0, sizeof *own);
   size_t n = c->n_prefix, first = first_pattern_event(c, tr);
   uint64_t *ran = calloc(n + 1, sizeof *ran);
   uint64_t *early = calloc(n + 1, sizeof *early);
   cb_order_step *st = NULL;
   long ns = first != SIZE_MAX && ran && early ? cb_recorded_order(tr, first, n, ran, &st)
                                               : -1;
   if (ns >= 0)
      ns = catch_up(c, ran, &st, ns);
   int ok = ns > 0 && (size_t)ns <= max_steps &&
            make_room(c, (size_t)ns, own) == 0;
   if (ok)
      apply(c, st, (size_t)ns, ran, early, own);
   free(st);
   free(ran);
   free(early);
   return ok;
}

void cbt_composed_free(cbt_composed *own)
{
   free(own->steps);
   free(own->lists);
   own->steps = NULL;
   own->lists = NULL;
}
