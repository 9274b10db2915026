/* schedule_compact.c: the compact form of a schedule file (trace.proto,
 * Schedule.locations and Schedule.events).  A schedule names a handful of
 * events (e1, f, e2 and each tail step's last one) and each names its code
 * location in full: the same few locations and, across a tail and its
 * variants, the same few events over and over, up to 1.8 KB a schedule
 * where 0.9 KB says it all.  Writing keeps each location and each expected event once
 * (steps that expect the same event share one PatternEvent, as cbpredict
 * writes them) and refers to them by number; reading fills every reference
 * back in, so that no reader of schedules sees the difference, and older
 * files (no lists) read as before.  The prefix's waits are written counted
 * from the prefix's ends (Schedule.prefix_waits), one or two bytes a
 * number near the cut, and read back as prefix_order.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "trace.pb-c.h"
#include "trace_internal.h"

/* ---- Writing ------------------------------------------------------------- */

/* The compact copy's own parts; the strings stay the caller's. */
typedef struct {
   Cbtools__Location *locs;       /* the table, in order of first use */
   Cbtools__Location **locp;
   Cbtools__Location *refs;       /* one {id} per event that has a location */
   Cbtools__PatternEvent *ev;     /* e1, f, e2, then the table's events */
   Cbtools__PatternEvent **evp;
   const Cbtools__PatternEvent **src; /* the caller's event of each */
   Cbtools__TailStep *steps;
   Cbtools__TailStep **stepp;
   Cbtools__Variant *vars;
   Cbtools__Variant **varp;
   size_t nlocs, nevents, nrefs, nsteps;
} compact;

/* e's copy in c with its location as a reference into the table. */
static void compact_event(compact *c, const Cbtools__PatternEvent *e,
                          Cbtools__PatternEvent *out)
{
   *out = *e;
   const Cbtools__Location *l = e->location;
   if (!l || !l->has_id)
      return;
   size_t k = 0;
   while (k < c->nlocs && c->locs[k].id != l->id)
      k++;
   if (k == c->nlocs) {
      c->locs[k] = *l;
      c->locp[k] = &c->locs[k];
      c->nlocs++;
   }
   Cbtools__Location *r = &c->refs[c->nrefs++];
   cbtools__location__init(r);
   r->has_id = 1;
   r->id = l->id;
   out->location = r;
}

/* The number (1, 2, ...) of expected event e in the table, added if new.
 * Steps that expect one event share one PatternEvent (the writer's part:
 * cbpredict's schedule_out.c does), so events are compared by address:
 * packing each to compare bytes cost a quarter of writing a schedule. */
static uint32_t event_number(compact *c, const Cbtools__PatternEvent *e)
{
   for (size_t k = 0; k < c->nevents; k++)
      if (c->src[k] == e)
         return (uint32_t)k + 1;
   size_t k = c->nevents++;
   c->src[k] = e;
   compact_event(c, e, &c->ev[3 + k]);
   c->evp[k] = &c->ev[3 + k];
   return (uint32_t)k + 1;
}

/* Copies of n steps with their expects as numbers. */
static int compact_steps(compact *c, Cbtools__TailStep *const *in, size_t n,
                         Cbtools__TailStep ***out)
{
   *out = c->stepp + c->nsteps;
   for (size_t i = 0; i < n; i++) {
      Cbtools__TailStep *st = &c->steps[c->nsteps];
      *st = *in[i];
      if (in[i]->expect) {
         st->expect = NULL;
         st->has_expect_event = 1;
         st->expect_event = event_number(c, in[i]->expect);
      }
      c->stepp[c->nsteps++] = st;
   }
   return 0;
}

static void compact_free(compact *c)
{
   free(c->locs); free(c->locp); free(c->refs); free(c->ev); free(c->evp);
   free(c->src); free(c->steps); free(c->stepp);
   free(c->vars); free(c->varp);
}

/* Room for a schedule of nsteps steps in all (each names at most one
 * event, and e1, f, e2 three more). */
static int compact_alloc(compact *c, size_t nsteps, size_t nvars)
{
   memset(c, 0, sizeof *c);
   size_t ne = nsteps + 3;
   c->locs = calloc(ne, sizeof *c->locs);
   c->locp = calloc(ne, sizeof *c->locp);
   c->refs = calloc(ne, sizeof *c->refs);
   c->ev = calloc(ne, sizeof *c->ev);
   c->evp = calloc(ne, sizeof *c->evp);
   c->src = calloc(ne, sizeof *c->src);
   c->steps = calloc(nsteps + 1, sizeof *c->steps);
   c->stepp = calloc(nsteps + 1, sizeof *c->stepp);
   c->vars = calloc(nvars + 1, sizeof *c->vars);
   c->varp = calloc(nvars + 1, sizeof *c->varp);
   return c->locs && c->locp && c->refs && c->ev && c->evp && c->src &&
          c->steps && c->stepp && c->vars && c->varp ? 0 : -1;
}

/* An entry whose object (or source folder) is the one before it leaves it
 * out; one that has none says "" (unknown, not the one before). */
static void share_field(compact *c, size_t off)
{
   const char *prev = NULL;
   for (size_t k = 0; k < c->nlocs; k++) {
      char **f = (char **)((char *)&c->locs[k] + off);
      if (prev && *f && strcmp(prev, *f) == 0)
         *f = NULL;
      else if (prev && !*f)
         *f = (char *)"";
      else
         prev = *f;
   }
}

static int build_compact(compact *c, const Cbtools__Schedule *s,
                         Cbtools__Schedule *out)
{
   size_t nsteps = s->n_tail;
   for (size_t k = 0; k < s->n_variants; k++)
      nsteps += s->variants[k]->n_tail;
   if (compact_alloc(c, nsteps, s->n_variants) < 0)
      return -1;
   *out = *s;
   const Cbtools__PatternEvent *pe[3] = {s->e1, s->f, s->e2};
   Cbtools__PatternEvent **po[3] = {&out->e1, &out->f, &out->e2};
   for (int k = 0; k < 3; k++)
      if (pe[k]) {
         compact_event(c, pe[k], &c->ev[k]);
         *po[k] = &c->ev[k];
      }
   if (compact_steps(c, s->tail, s->n_tail, &out->tail) < 0)
      return -1;
   for (size_t k = 0; k < s->n_variants; k++) {
      c->vars[k] = *s->variants[k];
      if (compact_steps(c, s->variants[k]->tail, s->variants[k]->n_tail,
                        &c->vars[k].tail) < 0)
         return -1;
      c->varp[k] = &c->vars[k];
   }
   out->variants = c->varp;
   share_field(c, offsetof(Cbtools__Location, object));
   share_field(c, offsetof(Cbtools__Location, dir));
   out->n_locations = c->nlocs;
   out->locations = c->locp;
   out->n_events = c->nevents;
   out->events = c->evp;
   return 0;
}

/* Whether wait w (4 numbers) lies inside the prefix: its thread's event
 * before the thread's count, a count of the other thread at most its. */
static int wait_inside(const uint64_t *prefix, size_t n, const uint64_t *w)
{
   return w[0] >= 1 && w[0] <= n && w[2] >= 1 && w[2] <= n &&
          w[1] < prefix[w[0] - 1] && w[3] >= 1 && w[3] <= prefix[w[2] - 1];
}

/* The prefix's waits counted from the prefix's ends (Schedule.
 * prefix_waits: the two threads as one number, (w - 1) * n + u - 1, then
 * the two counts) into *rel, when every one lies inside the prefix; else
 * they stay as they are.  -1: out of memory. */
static int relative_waits(const Cbtools__Schedule *s, Cbtools__Schedule *out,
                          uint64_t **rel)
{
   size_t n = s->n_prefix_order;
   *rel = NULL;
   if (n == 0 || n % 4 != 0)
      return 0;
   for (size_t k = 0; k < n; k += 4)
      if (!wait_inside(s->prefix, s->n_prefix, &s->prefix_order[k]))
         return 0;
   if (!(*rel = malloc(n * sizeof **rel)))
      return -1;
   uint64_t nt = s->n_prefix;
   for (size_t k = 0, j = 0; k < n; k += 4, j += 3) {
      const uint64_t *w = &s->prefix_order[k];
      uint64_t *r = &(*rel)[j];
      r[0] = (w[0] - 1) * nt + (w[2] - 1);
      r[1] = s->prefix[w[0] - 1] - 1 - w[1];
      r[2] = s->prefix[w[2] - 1] - w[3];
   }
   out->n_prefix_waits = n / 4 * 3;
   out->prefix_waits = *rel;
   out->n_prefix_order = 0;
   out->prefix_order = NULL;
   return 0;
}

int cb_schedule_pack(const Cbtools__Schedule *s, uint8_t **buf, size_t *len,
                     cb_error *err)
{
   compact c;
   Cbtools__Schedule out;
   uint64_t *rel = NULL;
   memset(&c, 0, sizeof c);
   *buf = NULL;
   if (s->n_locations || s->n_events) {
      out = *s; /* compact already: as it is */
   } else if (build_compact(&c, s, &out) < 0) {
      compact_free(&c);
      return cb_fail(err, "out of memory");
   }
   if (relative_waits(s, &out, &rel) < 0) {
      compact_free(&c);
      return cb_fail(err, "out of memory");
   }
   *len = protobuf_c_message_get_packed_size(&out.base);
   *buf = malloc(*len ? *len : 1);
   if (*buf)
      protobuf_c_message_pack(&out.base, *buf);
   compact_free(&c);
   free(rel);
   return *buf ? 0 : cb_fail(err, "out of memory");
}

/* ---- Reading ------------------------------------------------------------- */

/* What filling in may copy: a damaged file that names one huge event from
 * every step must not make a reader allocate without bound. */
typedef struct {
   const Cbtools__Schedule *s;
   size_t budget;
} filler;

static char *copy_str(filler *f, const char *str)
{
   if (!str)
      return NULL;
   size_t n = strlen(str) + 1;
   if (n > f->budget)
      return NULL;
   f->budget -= n;
   return strdup(str);
}

/* The object (or source folder: off) of table entry k: its own, or the
 * nearest one before it. */
static const char *shared_of(const Cbtools__Schedule *s, size_t k, size_t off)
{
   for (size_t i = k + 1; i-- > 0;) {
      const char *v = *(char *const *)((const char *)s->locations[i] + off);
      if (v)
         return v;
   }
   return NULL;
}

/* An event's location that is only a number, filled from the table. */
static int fill_location(filler *f, Cbtools__PatternEvent *e, cb_error *err)
{
   const Cbtools__Schedule *s = f->s;
   Cbtools__Location *l = e ? e->location : NULL;
   if (!l || !l->has_id || l->object || l->function || l->file ||
       l->has_line || l->dir)
      return 0;
   size_t k = 0;
   while (k < s->n_locations && !(s->locations[k]->has_id &&
                                  s->locations[k]->id == l->id))
      k++;
   if (k == s->n_locations)
      return cb_fail(err, "damaged schedule: location %u is not in its list",
                     l->id);
   const Cbtools__Location *t = s->locations[k];
   const char *obj = shared_of(s, k, offsetof(Cbtools__Location, object));
   const char *dir = shared_of(s, k, offsetof(Cbtools__Location, dir));
   l->has_address = t->has_address;
   l->address = t->address;
   l->has_line = t->has_line;
   l->line = t->line;
   l->object = copy_str(f, obj);
   l->function = copy_str(f, t->function);
   l->file = copy_str(f, t->file);
   l->dir = dir && *dir ? copy_str(f, dir) : NULL;
   if ((obj && !l->object) || (t->function && !l->function) ||
       (t->file && !l->file) || (dir && *dir && !l->dir))
      return cb_fail(err, "damaged schedule: its locations are too large");
   return 0;
}

/* Each step's expect, from its number in the table (a copy of its own). */
static int fill_steps(filler *f, Cbtools__TailStep *const *tail, size_t n,
                      cb_error *err)
{
   const Cbtools__Schedule *s = f->s;
   for (size_t i = 0; i < n; i++) {
      Cbtools__TailStep *st = tail[i];
      if (!st->has_expect_event || st->expect)
         continue;
      if (st->expect_event == 0 || st->expect_event > s->n_events)
         return cb_fail(err, "damaged schedule: a step expects event %u of %zu",
                        st->expect_event, s->n_events);
      const Cbtools__PatternEvent *e = s->events[st->expect_event - 1];
      size_t len = protobuf_c_message_get_packed_size(&e->base);
      if (len > f->budget)
         return cb_fail(err, "damaged schedule: its events are too large");
      f->budget -= len;
      uint8_t *b = malloc(len ? len : 1);
      if (!b)
         return cb_fail(err, "out of memory");
      protobuf_c_message_pack(&e->base, b);
      st->expect = cbtools__pattern_event__unpack(NULL, len, b);
      free(b);
      if (!st->expect)
         return cb_fail(err, "out of memory");
      if (fill_location(f, st->expect, err) < 0)
         return -1;
   }
   return 0;
}

/* The waits as written (prefix_waits) back as prefix_order, in place. */
static int absolute_waits(Cbtools__Schedule *s, cb_error *err)
{
   size_t n = s->n_prefix_waits;
   uint64_t nt = s->n_prefix;
   if (n == 0)
      return 0;
   if (n % 3 != 0 || s->n_prefix_order || nt == 0)
      return cb_fail(err, "damaged schedule: its prefix waits are not three "
                          "numbers each");
   uint64_t *abs = calloc(n / 3 * 4, sizeof *abs);
   if (!abs)
      return cb_fail(err, "out of memory");
   for (size_t k = 0; k < n / 3; k++) {
      const uint64_t *r = &s->prefix_waits[3 * k];
      uint64_t w = r[0] / nt + 1, u = r[0] % nt + 1;
      if (w > nt || r[1] >= s->prefix[w - 1] || r[2] >= s->prefix[u - 1]) {
         free(abs);
         return cb_fail(err, "damaged schedule: wait %zu of its prefix lies "
                             "outside the prefix", k + 1);
      }
      uint64_t *a = &abs[4 * k];
      a[0] = w;
      a[1] = s->prefix[w - 1] - 1 - r[1];
      a[2] = u;
      a[3] = s->prefix[u - 1] - r[2];
   }
   /* The message's own array, so that freeing the message frees it
    * (protobuf-c's default allocator is malloc). */
   free(s->prefix_waits);
   s->prefix_waits = NULL;
   s->n_prefix_waits = 0;
   s->prefix_order = abs;
   s->n_prefix_order = n / 3 * 4;
   return 0;
}

int cb_schedule_expand(Cbtools__Schedule *s, size_t file_len, cb_error *err)
{
   if (absolute_waits(s, err) < 0)
      return -1;
   if (!s->n_locations && !s->n_events)
      return 0; /* an older schedule: every event in full */
   filler f = {s, 64 * file_len + (1u << 20)};
   if (fill_location(&f, s->e1, err) < 0 || fill_location(&f, s->f, err) < 0 ||
       fill_location(&f, s->e2, err) < 0 ||
       fill_steps(&f, s->tail, s->n_tail, err) < 0)
      return -1;
   for (size_t k = 0; k < s->n_variants; k++)
      if (s->variants[k] &&
          fill_steps(&f, s->variants[k]->tail, s->variants[k]->n_tail, err) < 0)
         return -1;
   return 0;
}
