/* cbtest_flow.c: the interleaving a forced run followed, for SARIF thread
 * flows and report.html.
 *
 * No extra run is needed: a schedule says which counted events each thread
 * runs before the tail (its prefix) and then, step by step, which thread
 * runs how many counted events next (the tail).  Laid over the recorded
 * trace, where every thread's counted events are in order, that gives the
 * forced order event by event, with the file:line of each.  The prefix is
 * taken in the recorded order (its threads run freely; only its end is
 * forced).  What is kept, from e1 to e2: the accesses to the pattern's
 * variable and the synchronisation calls (locks, waits, signals,
 * semaphores, barriers, thread create and join) of every thread.  A step
 * that runs a thread out is laid over the rest of its recorded events,
 * which it may not follow exactly; e1, f and e2 themselves are always
 * where the schedule forces them.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdlib.h>
#include <string.h>

#include "cbtest.h"
#include "cbtrace.h"

#define FLOW_MAX 200 /* events kept; a longer window keeps the roles */

static int interesting(const cb_event *e, uint64_t variable)
{
   switch (e->kind) {
   case CB_EV_READ:
   case CB_EV_WRITE:
      return e->addr <= variable &&
             variable < e->addr + (CB_SIZE_BYTES(e->size) ? CB_SIZE_BYTES(e->size) : 1);
   case CB_EV_LOCK: case CB_EV_UNLOCK: case CB_EV_COND_WAIT:
   case CB_EV_COND_SIGNAL: case CB_EV_BARRIER_ENTER: case CB_EV_BARRIER_LEAVE:
   case CB_EV_THREAD_CREATE: case CB_EV_THREAD_JOIN: case CB_EV_SEM_POST:
   case CB_EV_SEM_WAIT: case CB_EV_RELEASE: case CB_EV_ACQUIRE:
      return 1;
   default:
      return 0;
   }
}

/* loc: where the trace says the event ran (its folder and object too,
 * for the source line report.html quotes), or NULL with file, line and
 * function from the schedule's words. */
static void add(cbt_flow *fl, unsigned tid, const char *what,
                const cb_location *loc, const char *file, unsigned line,
                const char *function, const char *role)
{
   cbt_flow_event *more = realloc(fl->ev, (fl->n + 1) * sizeof *more);
   if (!more)
      return;
   fl->ev = more;
   cbt_flow_event *e = &more[fl->n++];
   memset(e, 0, sizeof *e);
   e->tid = tid;
   cbt_fmt(e->what, sizeof e->what, "%s", what);
   cbt_fmt(e->file, sizeof e->file, "%s", file ? file : "");
   e->line = line;
   cbt_fmt(e->function, sizeof e->function, "%s", function ? function : "");
   e->role = role;
   if (loc) {
      cbt_fmt(e->dir, sizeof e->dir, "%s", loc->dir ? loc->dir : "");
      cbt_fmt(e->object, sizeof e->object, "%s", loc->object);
   }
   int k;
   for (k = 0; k < fl->nthreads && fl->threads[k] != tid; k++)
      ;
   if (k == fl->nthreads && k < (int)(sizeof fl->threads / sizeof *fl->threads))
      fl->threads[fl->nthreads++] = tid;
}

static void add_role(cbt_flow *fl, const cbt_run *r, const cbt_event *e,
                     const char *role)
{
   char what[320];
   cbt_fmt(what, sizeof what, "%s %s", e->kind, r->variable);
   add(fl, e->tid, what, NULL, e->file, e->line, e->function, role);
}

static void fallback(const cbt_run *r, cbt_flow *fl)
{
   add_role(fl, r, &r->e1, "e1");
   add_role(fl, r, &r->f, "f");
   add_role(fl, r, &r->e2, "e2");
}

/* The forced order as trace indices: the prefix in recorded order, then
 * the tail steps.  Returns how many, into *seq (caller frees). */
static size_t forced_order(const cb_trace *tr, const cb_schedule *sch,
                           int variant, size_t **seq)
{
   uint32_t nt = tr->nthreads;
   size_t **own = calloc(nt + 1, sizeof *own);  /* counted events a thread */
   size_t *nown = calloc(nt + 1, sizeof *nown);
   size_t *pos = calloc(nt + 1, sizeof *pos);   /* next one to run */
   size_t n = 0, *out = malloc((tr->nevents + 1) * sizeof *out);
   if (!own || !nown || !pos || !out)
      goto done;
   for (size_t i = 0; i < tr->nevents; i++) {
      const cb_event *e = &tr->events[i];
      if (!CB_IS_COUNTED(e->kind) || e->tid == 0 || e->tid > nt)
         continue;
      size_t *more = realloc(own[e->tid], (nown[e->tid] + 1) * sizeof *more);
      if (!more)
         goto done;
      own[e->tid] = more;
      more[nown[e->tid]++] = i;
   }
   for (size_t i = 0; i < tr->nevents; i++) { /* the prefix */
      const cb_event *e = &tr->events[i];
      if (!CB_IS_COUNTED(e->kind) || e->tid == 0 || e->tid > nt)
         continue;
      size_t limit = e->tid <= sch->n_prefix ? sch->prefix[e->tid - 1] : 0;
      if (pos[e->tid] < limit)
         out[n++] = own[e->tid][pos[e->tid]++];
   }
   cb_sched_step *const *tail;
   size_t ntail;
   const char *name;
   if (cb_schedule_variant(sch, variant > 0 ? (size_t)variant : 0, &tail,
                           &ntail, &name) != 0)
      ntail = 0;
   for (size_t k = 0; k < ntail; k++) {
      uint32_t tid = tail[k]->tid;
      if (tid == 0 || tid > nt)
         continue;
      size_t count = tail[k]->run_out ? nown[tid] : tail[k]->count;
      for (size_t c = 0; c < count && pos[tid] < nown[tid]; c++)
         out[n++] = own[tid][pos[tid]++];
   }
done:
   for (uint32_t t = 0; own && t <= nt; t++)
      free(own[t]);
   free(own);
   free(nown);
   free(pos);
   *seq = out;
   return out ? n : 0;
}

/* Where a pattern event (thread, counted index) is in the forced order. */
static long find(const cb_trace *tr, const size_t *seq, size_t n,
                 const cbt_event *e)
{
   /* Counted index k of thread T is T's k-th counted event. */
   uint64_t seen = 0;
   for (size_t i = 0; i < tr->nevents; i++) {
      const cb_event *ev = &tr->events[i];
      if (ev->tid != e->tid || !CB_IS_COUNTED(ev->kind))
         continue;
      if (seen++ == e->index) {
         for (size_t k = 0; k < n; k++)
            if (seq[k] == i)
               return (long)k;
         return -1;
      }
   }
   return -1;
}

static void event_words(const cb_trace *tr, const cb_event *e, char *buf,
                        size_t len)
{
   char name[256];
   const char *kind = cb_event_kind_name(e->kind);
   if (e->kind == CB_EV_COND_SIGNAL && e->size)
      kind = "broadcast";
   if (e->kind == CB_EV_THREAD_CREATE || e->kind == CB_EV_THREAD_JOIN)
      cbt_fmt(buf, len, "%s T%llu", kind, (unsigned long long)e->value);
   else
      cbt_fmt(buf, len, "%s %s", kind,
              cb_variable_str(tr, e->addr, name, sizeof name));
}

static void lay_over(const cbt_run *r, const cb_trace *tr, const size_t *seq,
                     long p[3], uint64_t variable, cbt_flow *fl)
{
   static const char *const roles[3] = {"e1", "f", "e2"};
   long from = p[0] < p[1] ? p[0] : p[1], to = p[2];
   size_t kept = 0;
   for (long k = from; k <= to; k++) {
      const cb_event *e = &tr->events[seq[k]];
      const char *role = NULL;
      for (int i = 0; i < 3; i++)
         if (k == p[i])
            role = roles[i];
      if (p[0] == p[2] && k == p[0])
         role = "e1=e2"; /* an order violation: one access, f before it */
      if (!role && (!interesting(e, variable) || kept >= FLOW_MAX))
         continue;
      kept++;
      char what[320];
      event_words(tr, e, what, sizeof what);
      const cb_location *loc =
         e->loc < tr->nlocs ? &tr->locs[e->loc] : &tr->locs[0];
      if (role) { /* the schedule's own words for the three */
         const cbt_event *pe = k == p[0] ? &r->e1 : k == p[1] ? &r->f : &r->e2;
         cbt_fmt(what, sizeof what, "%s %s", pe->kind, r->variable);
      }
      add(fl, e->tid, what, loc, loc->file, loc->line, loc->function, role);
   }
}

void cbt_flow_of(const cbt_test *t, const cbt_run *r, cbt_flow *fl)
{
   memset(fl, 0, sizeof *fl);
   cb_schedule *sch = NULL;
   cb_trace tr;
   cb_error err;
   int have_trace = 0;
   size_t *seq = NULL;
   if (!r->readable || cb_schedule_read(r->path, &sch, &err) != 0)
      goto fall_back;
   /* The hunt (reschedule/hunt.c) forced no recorded counts: the three
    * events are all its flow says. */
   if (r->variant >= 0 && (size_t)r->variant >= cb_schedule_nvariants(sch))
      goto fall_back;
   if (cb_trace_read(t->trace, &tr, &err) != 0)
      goto fall_back;
   have_trace = 1;
   size_t n = forced_order(&tr, sch, r->variant, &seq);
   long p[3] = {find(&tr, seq, n, &r->e1), find(&tr, seq, n, &r->f),
                find(&tr, seq, n, &r->e2)};
   /* e1 before e2, f between them (a lock-order inversion's e1 may come
    * after f: its window starts at the earlier one). */
   if (p[0] < 0 || p[1] < 0 || p[2] < 0 || p[2] < p[0] || p[2] < p[1])
      goto fall_back;
   lay_over(r, &tr, seq, p, sch->variable, fl);
   fl->from_trace = 1;
   goto done;
fall_back:
   cbt_flow_free(fl);
   fallback(r, fl);
done:
   free(seq);
   if (have_trace)
      cb_trace_free(&tr);
   if (sch)
      cb_schedule_free(sch);
}

void cbt_flow_free(cbt_flow *fl)
{
   free(fl->ev);
   memset(fl, 0, sizeof *fl);
}
