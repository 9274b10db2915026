/* misread.c: the value a failing run read where the recorded run read
 * another, in the program's terms.
 *
 * A forced run that fails by the program's own check says where the check
 * is, not what went wrong: a handler that finds a request's deadline unset
 * and exits, a main() whose final sum is short.  The schedule's pattern
 * names the violation it aimed at, which may only have let another one
 * happen (blind trial 14's request queue: a schedule aimed at the queue's
 * `next` link let the handler take a request before its deadline was
 * set).  The thread that ended the run (the tool's "end exit N by T")
 * ran the same code in both runs, mostly: the k-th time its code at one
 * address read is the same read in both (counted by code address, not by
 * the thread's event number, so that a branch taken otherwise on the way,
 * a queue found empty, does not lose the reads after it).  From the
 * failing run's end backwards, the first read whose twin in the recorded
 * run read the same address and saw another value is most often the
 * value the program acted on: `r->deadline_ms = 0 (recorded run: 250)`.
 * A read of another address at the same place (another heap block) is
 * passed over: it is no misread of one variable.
 *
 * The failing run's trace comes from pin.c, which records a failing run
 * anyway; the recorded run's is the schedule's own trace (--trace, or the
 * trace beside TRACE.schedules/).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdlib.h>
#include <string.h>

#include "replay.h"

/* A read of the thread: the k-th time (occ) its code at `code` read. */
typedef struct {
   uint64_t code;
   uint64_t occ;
   size_t idx; /* in the trace */
} read_at;

/* The code address an event ran at: the same in both runs of one program
 * (location ids are numbered per run). */
static uint64_t code_of(const cb_trace *t, const cb_event *e)
{
   return e->loc < t->nlocs ? t->locs[e->loc].address : 0;
}

static int cmp_read(const void *a, const void *b)
{
   const read_at *x = a, *y = b;
   if (x->code != y->code)
      return x->code < y->code ? -1 : 1;
   return x->occ < y->occ ? -1 : x->occ > y->occ;
}

static int cmp_trace_order(const void *a, const void *b)
{
   const read_at *x = a, *y = b;
   return (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_code_then_index(const void *a, const void *b)
{
   const read_at *x = a, *y = b;
   if (x->code != y->code)
      return x->code < y->code ? -1 : 1;
   return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Thread tid's reads of t with a code address, each numbered by how many
 * times its code read before (sorted by code, then trace order: one sort,
 * not a look-up per read over the thread's read sites, which a long
 * failing run of a large program would make quadratic); *n of them. */
static read_at *thread_reads(const cb_trace *t, unsigned tid, size_t *n)
{
   size_t count = 0;
   for (size_t i = 0; i < t->nevents; i++)
      count += t->events[i].tid == tid && t->events[i].kind == CB_EV_READ;
   read_at *r = malloc((count ? count : 1) * sizeof *r);
   *n = 0;
   for (size_t i = 0; r && i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      uint64_t code = code_of(t, e);
      if (e->tid == tid && e->kind == CB_EV_READ && code)
         r[(*n)++] = (read_at){code, 0, i};
   }
   if (!r)
      return NULL;
   qsort(r, *n, sizeof *r, cmp_code_then_index);
   for (size_t k = 1; k < *n; k++)
      if (r[k].code == r[k - 1].code)
         r[k].occ = r[k - 1].occ + 1;
   return r;
}

static void describe(const cb_trace *rec, size_t ri, const cb_event *b,
                     unsigned tid, cbr_misread *m)
{
   const cb_event *a = &rec->events[ri];
   const cb_location *l = &rec->locs[a->loc < rec->nlocs ? a->loc : 0];
   m->found = 1;
   m->tid = tid;
   m->value = b->value;
   m->recorded = a->value;
   cb_access_name(rec, a->addr, ri, &ri, 1, m->variable, sizeof m->variable);
   cb_location_str(rec, a->loc, m->where, sizeof m->where);
   snprintf(m->function, sizeof m->function, "%s", l->function);
}

int cbr_find_misread(const cb_trace *rec, const cb_trace *run, unsigned tid,
                     cbr_misread *m)
{
   memset(m, 0, sizeof *m);
   size_t na = 0, nb = 0;
   read_at *ra = thread_reads(rec, tid, &na), *rb = thread_reads(run, tid, &nb);
   if (!ra || !rb) {
      free(ra);
      free(rb);
      return -1;
   }
   qsort(ra, na, sizeof *ra, cmp_read);
   qsort(rb, nb, sizeof *rb, cmp_trace_order); /* walked from the end */
   /* From the failing run's end backwards: the first read whose match in
    * the recorded run (the same code's same occurrence) read the same
    * address and saw another value. */
   for (size_t k = nb; k-- > 0;) {
      const cb_event *b = &run->events[rb[k].idx];
      read_at *hit = bsearch(&rb[k], ra, na, sizeof *ra, cmp_read);
      if (!hit)
         continue;
      const cb_event *a = &rec->events[hit->idx];
      if (a->addr == b->addr && a->size == b->size && CB_SIZE_BYTES(a->size) <= 8 &&
          a->value != b->value) {
         describe(rec, hit->idx, b, tid, m);
         break;
      }
   }
   free(ra);
   free(rb);
   return m->found;
}

int cbr_misread_of_run(const char *recorded, const char *failed, unsigned tid,
                       cbr_misread *m)
{
   cb_trace rec, run;
   cb_error err;
   memset(m, 0, sizeof *m);
   if (!recorded || !*recorded || tid == 0)
      return 0;
   if (cb_trace_read(recorded, &rec, &err) != 0)
      return -1;
   if (cb_trace_read(failed, &run, &err) != 0) {
      cb_trace_free(&rec);
      return -1;
   }
   int rc = cbr_find_misread(&rec, &run, tid, m);
   cb_trace_free(&run);
   cb_trace_free(&rec);
   return rc;
}
