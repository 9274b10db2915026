/* plan.c: flattens a schedule into the tool's plan file (cb_wire.h).
 *
 * The tool has no libc and no protobuf, so it reads plain 8-byte words:
 * magic, version, counted mask, nthreads, prefix[nthreads], ntail,
 * (tid, n) * ntail, (tid, index) for e1, f, e2, stall limit in ms, then
 * the thread paths (npaths, (parent, index) * npaths) and the expected
 * events (nexpect, (tid, index, kind | flags << 8, code address, data
 * address) * nexpect): each counted step's last event and e1, f, e2,
 * then the prefix's waits (nwaits, (tid, index, target, count) *
 * nwaits), as the schedule holds them, and last the hunt (nhunt, then
 * its words: hunt.c; for the hunt's variant number, with no prefix
 * counts, no tail, no expectations and no waits).
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

static int put_event(words *v, const cb_sched_event *e)
{
   int r = put(v, e ? e->tid : 0);
   return r | put(v, e ? e->index : 0);
}

/* Thread t's stable path, for t = 1..n (none in an older schedule). */
static int put_paths(words *v, const cb_schedule *s)
{
   size_t n = s->n_thread_parent == s->n_thread_index ? s->n_thread_parent : 0;
   int bad = put(v, n);
   for (size_t i = 0; i < n; i++) {
      bad |= put(v, s->thread_parent[i]);
      bad |= put(v, s->thread_index[i]);
   }
   return bad;
}

static int put_expect(words *v, const cb_sched_event *e, size_t *n)
{
   if (!e || !e->has_tid || !e->has_index || !e->has_kind || !e->tid)
      return 0;
   uint64_t flags = 0;
   uint64_t code = e->location && e->location->has_address ? e->location->address : 0;
   if (e->has_address_stable && e->address_stable)
      flags |= CB_EXPECT_ADDR;
   if (code)
      flags |= CB_EXPECT_CODE;
   ++*n;
   return put(v, e->tid) | put(v, e->index) | put(v, e->kind | flags << 8) |
          put(v, code) | put(v, e->address);
}

/* The expectations of the counted steps that are not run out (as
 * put_tail decides) and of e1, f, e2; the count is patched in first. */
static int put_expects(words *v, const cb_schedule *s,
                       cb_sched_step *const *tail, size_t ntail)
{
   size_t at = v->n, n = 0;
   int bad = put(v, 0);
   uint32_t hi = 0;
   for (size_t i = 0; i < ntail; i++)
      if (tail[i]->tid > hi)
         hi = tail[i]->tid;
   unsigned char *ran_out = calloc((size_t)hi + 1, 1);
   bad |= !ran_out;
   for (size_t i = 0; i < ntail && !bad; i++) {
      if (tail[i]->has_run_out && tail[i]->run_out)
         ran_out[tail[i]->tid] = 1;
      if (!ran_out[tail[i]->tid])
         bad |= put_expect(v, tail[i]->expect, &n);
   }
   free(ran_out);
   bad |= put_expect(v, s->e1, &n) | put_expect(v, s->f, &n) |
          put_expect(v, s->e2, &n);
   if (!bad)
      v->w[at] = n;
   return bad;
}

/* The tail's (tid, n) pairs.  Thread ids are at most CB_PLAN_MAX_THREADS
 * (validate.c). */
static int put_tail(words *v, cb_sched_step *const *tail, size_t ntail)
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

void cbr_plan_values_by_role(const cb_schedule *s, cbr_status *st)
{
   if (!cbr_is_order(s))
      return;
   int h = st->has_value[0];
   unsigned long long v = st->value[0];
   st->has_value[0] = st->has_value[1];
   st->value[0] = st->value[1];
   st->has_value[1] = h;
   st->value[1] = v;
}

void cbr_name_blocked(const cb_schedule *s, cbr_status *st)
{
   const cb_sched_event *ev[3] = {s->e1, s->f, s->e2};
   unsigned n = st->nblocked < CBR_MAX_BLOCKED ? st->nblocked : CBR_MAX_BLOCKED;
   for (unsigned i = 0; i < n; i++) {
      cbr_blocked *b = &st->blocked[i];
      /* A symbol's (the tool found one) is a global's too. */
      int global = strcmp(b->name, "?") != 0;
      for (int k = 0; k < 3; k++) {
         const cb_sched_event *e = ev[k];
         if (e && e->has_address && e->address == b->object &&
             (global || (e->has_address_stable && e->address_stable)) &&
             e->variable_name && *e->variable_name) {
            snprintf(b->name, sizeof b->name, "%s", e->variable_name);
            break;
         }
      }
   }
}

int cbr_write_plan(const char *path, const cb_schedule *s,
                   size_t variant, unsigned stall_ms, cb_error *err)
{
   words v = {0};
   int bad = 0;
   cb_sched_step *const *tail;
   size_t ntail;
   const char *name;
   int hunt = cbr_is_hunt(s, (unsigned)variant);
   if (hunt) {
      tail = NULL; /* no prefix, no tail: the hunt's words say it all */
      ntail = 0;
   } else if (cb_schedule_variant(s, variant, &tail, &ntail, &name) != 0) {
      return cb_fail(err, "the schedule has no tail variant %zu", variant);
   }

   bad |= put(&v, CB_PLAN_MAGIC);
   bad |= put(&v, CB_WIRE_VERSION);
   bad |= put(&v, s->counted_mask);
   bad |= put(&v, s->n_prefix);
   for (size_t i = 0; i < s->n_prefix; i++)
      bad |= put(&v, hunt ? 0 : s->prefix[i]);
   bad |= put_tail(&v, tail, ntail);
   /* The tool reports "pattern 1" when the three ran in this order.  An
    * order violation (ORD: e1 = e2 = the access that ran first in the
    * recorded run, f the other thread's, forced before it) happened when f
    * ran before e1: the order f, e1, e1. */
   int ord = cbr_is_order(s);
   /* A delay schedule (explore) names its delay points, no violation. */
   int exp = cbr_is_explore(s);
   int none = exp || hunt; /* a hunt says itself when the order happened */
   bad |= put_event(&v, none ? NULL : ord ? s->f : s->e1);
   bad |= put_event(&v, none ? NULL : ord ? s->e1 : s->f);
   bad |= put_event(&v, none ? NULL : s->e2);
   bad |= put(&v, stall_ms);
   bad |= put_paths(&v, s);
   if (hunt) {
      uint64_t hw[CBR_HUNT_WORDS];
      cbr_hunt_words(s, hw);
      bad |= put(&v, 0) | put(&v, 0) | put(&v, CBR_HUNT_WORDS); /* no expects, no waits */
      for (int k = 0; k < CBR_HUNT_WORDS; k++)
         bad |= put(&v, hw[k]);
   } else {
      bad |= put_expects(&v, s, tail, ntail);
      bad |= put(&v, s->n_prefix_order / 4);
      for (size_t i = 0; i < s->n_prefix_order / 4 * 4; i++)
         bad |= put(&v, s->prefix_order[i]);
      bad |= put(&v, 0); /* no hunt */
   }
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
