/* plan.c: flattens a schedule into the tool's plan file (cb_wire.h).
 *
 * The tool has no libc and no protobuf, so it reads plain 8-byte words:
 * magic, version, counted mask, nthreads, prefix[nthreads], ntail,
 * (tid, n) * ntail, (tid, index) for e1, f, e2, stall limit in ms.
 * The tail is the chosen variant's (trace.proto, Schedule.variants).  A
 * run-out step is written with n = CB_STEP_RUN_OUT, and so is every later
 * step of the same thread: after running out, its counts no longer match
 * the recorded run.  A pattern event the schedule does not name is written
 * as (0, 0): the tool then cannot report the pattern, but still follows
 * prefix and tail.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

typedef struct {
   uint64_t *w;
   size_t n, cap;
} words;

static int put(words *v, uint64_t x)
{
   if (v->n == v->cap) {
      size_t cap = v->cap ? 2 * v->cap : 64;
      uint64_t *nw = realloc(v->w, cap * sizeof *nw);
      if (!nw)
         return -1;
      v->w = nw;
      v->cap = cap;
   }
   v->w[v->n++] = x; /* the host is little-endian x86-64, as the wire says */
   return 0;
}

static int put_event(words *v, const Cbtools__PatternEvent *e)
{
   int r = put(v, e ? e->tid : 0);
   return r | put(v, e ? e->index : 0);
}

/* The tail's (tid, n) pairs.  Thread ids are at most CB_PLAN_MAX_THREADS
 * (validate.c). */
static int put_tail(words *v, Cbtools__TailStep *const *tail, size_t ntail)
{
   uint32_t hi = 0;
   for (size_t i = 0; i < ntail; i++)
      if (tail[i]->tid > hi)
         hi = tail[i]->tid;
   unsigned char *ran_out = calloc((size_t)hi + 1, 1);
   int bad = !ran_out || put(v, ntail);
   for (size_t i = 0; i < ntail && !bad; i++) {
      uint32_t tid = tail[i]->tid;
      if (tail[i]->has_run_out && tail[i]->run_out)
         ran_out[tid] = 1;
      bad |= put(v, tail[i]->tid);
      bad |= put(v, ran_out[tid] ? CB_STEP_RUN_OUT : tail[i]->count);
   }
   free(ran_out);
   return bad;
}

int cbr_write_plan(const char *path, const Cbtools__Schedule *s,
                   size_t variant, unsigned stall_ms, cb_error *err)
{
   words v = {0};
   int bad = 0;
   Cbtools__TailStep *const *tail;
   size_t ntail;
   const char *name;
   if (cb_schedule_variant(s, variant, &tail, &ntail, &name) != 0)
      return cb_fail(err, "the schedule has no tail variant %zu", variant);

   bad |= put(&v, CB_PLAN_MAGIC);
   bad |= put(&v, CB_WIRE_VERSION);
   bad |= put(&v, s->counted_mask);
   bad |= put(&v, s->n_prefix);
   for (size_t i = 0; i < s->n_prefix; i++)
      bad |= put(&v, s->prefix[i]);
   bad |= put_tail(&v, tail, ntail);
   /* The tool reports "pattern 1" when the three ran in this order.  An
    * order violation (ORD: e1 = e2 = the access that ran first in the
    * recorded run, f the other thread's, forced before it) happened when f
    * ran before e1: the order f, e1, e1. */
   int ord = s->pattern && !strcmp(s->pattern, "ORD");
   bad |= put_event(&v, ord ? s->f : s->e1);
   bad |= put_event(&v, ord ? s->e1 : s->f);
   bad |= put_event(&v, s->e2);
   bad |= put(&v, stall_ms);
   if (bad) {
      free(v.w);
      return cb_fail(err, "out of memory for the plan");
   }

   FILE *f = fopen(path, "wbe");
   if (!f) {
      free(v.w);
      return cb_fail(err, "cannot create plan file %s: %s", path,
                     strerror(errno));
   }
   size_t wrote = fwrite(v.w, sizeof *v.w, v.n, f);
   int closed = fclose(f);
   free(v.w);
   if (wrote != v.n || closed != 0)
      return cb_fail(err, "cannot write plan file %s: %s", path,
                     strerror(errno));
   return 0;
}
