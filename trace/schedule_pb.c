/* schedule_pb.c: a schedule in memory (cb_schedule, cbtrace.h) to and from
 * protobuf-c's Schedule message, field for field, so that no code outside
 * trace/ sees protobuf.  Strings and number arrays are shared, not copied:
 * a read schedule keeps the unpacked message (its priv_) until
 * cb_schedule_free; a schedule being written lends its own.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdlib.h>
#include <string.h>

#include "schedule_pb.h"

/* What a conversion made of each event and location it met: one object
 * named from several steps (replay's expected events, synthesis shares
 * them) stays one object, which the compact file form keeps once
 * (schedule_compact.c finds the sharing by address). */
typedef struct {
   const void *from;
   void *to;
} cb_memo_ent;

/* Every block a conversion allocated, freed together. */
struct cb_sched_allocs {
   void **p;
   size_t n, cap;
   int failed;
   cb_memo_ent *memo;   /* open addressing, by the source's address */
   size_t nmemo, capmemo;
};

static size_t memo_slot(const cb_memo_ent *m, size_t cap, const void *from)
{
   size_t i = ((uintptr_t)from >> 4) * 0x9e3779b97f4a7c15ull & (cap - 1);
   while (m[i].from && m[i].from != from)
      i = (i + 1) & (cap - 1);
   return i;
}

static void *memo_get(const cb_sched_allocs *a, const void *from)
{
   if (!a->capmemo)
      return NULL;
   return a->memo[memo_slot(a->memo, a->capmemo, from)].to;
}

static void memo_put(cb_sched_allocs *a, const void *from, void *to)
{
   if (2 * (a->nmemo + 1) > a->capmemo) {
      size_t nc = a->capmemo ? 2 * a->capmemo : 64;
      cb_memo_ent *nm = calloc(nc, sizeof *nm);
      if (!nm)
         return; /* no sharing then, still a correct file */
      for (size_t i = 0; i < a->capmemo; i++)
         if (a->memo[i].from)
            nm[memo_slot(nm, nc, a->memo[i].from)] = a->memo[i];
      free(a->memo);
      a->memo = nm;
      a->capmemo = nc;
   }
   cb_memo_ent *e = &a->memo[memo_slot(a->memo, a->capmemo, from)];
   if (!e->from)
      a->nmemo++;
   e->from = from;
   e->to = to;
}

static void *grab(cb_sched_allocs *a, size_t n, size_t size)
{
   if (a->failed)
      return NULL;
   if (a->n == a->cap) {
      size_t nc = a->cap ? a->cap * 2 : 32;
      void **np = realloc(a->p, nc * sizeof *np);
      if (!np) {
         a->failed = 1;
         return NULL;
      }
      a->p = np;
      a->cap = nc;
   }
   void *b = calloc(n ? n : 1, size);
   if (!b) {
      a->failed = 1;
      return NULL;
   }
   return a->p[a->n++] = b;
}

void cb_sched_allocs_free(cb_sched_allocs *a)
{
   if (!a)
      return;
   for (size_t i = 0; i < a->n; i++)
      free(a->p[i]);
   free(a->p);
   free(a->memo);
   free(a);
}

/* Tail names say "f's thread" and "e1's thread", not T1/T2: reports print
 * them beside the real thread names. */
const char *const cb_tail_names[CB_NTAIL_NAMES] = {
   "f's thread through f, then e1's thread through e2, then everyone",
   "f's thread through f and on alone, then e1's thread through e2, then everyone",
   "f's thread through f, then e1's thread through e2 and on alone, then everyone",
   "f's thread through f, then every other thread on alone, then e1's thread "
   "through e2, then everyone",
   "f's thread through f and on through its next write of a variable e1's thread "
   "uses later, then e1's thread through e2 and on alone, then everyone",
   "f's thread through f, then e1's thread through e2 and on alone, then every "
   "other thread on alone, then everyone",
   "f's thread through f and no further, its locks held, then e1's thread "
   "through e2 and on alone, then everyone"};

/* A tail's name as the file stores it: "~N" for cb_tail_names[N]. */
static char *tail_name_out(char *name)
{
   static char token[CB_NTAIL_NAMES][3] = {"~0", "~1", "~2", "~3", "~4", "~5",
                                                 "~6"};
   for (int k = 0; name && k < CB_NTAIL_NAMES; k++)
      if (strcmp(name, cb_tail_names[k]) == 0)
         return token[k];
   return name;
}

/* ... and back. */
static char *tail_name_in(char *name)
{
   if (name && name[0] == '~' && name[1] >= '0' &&
       name[1] < '0' + CB_NTAIL_NAMES && !name[2])
      return (char *)cb_tail_names[name[1] - '0'];
   return name;
}

/* ---- protobuf-c's message into cb_schedule --------------------------------- */

#define COPY(to, from, f) ((to)->has_##f = (from)->has_##f, (to)->f = (from)->f)

static cb_sched_location *loc_in(cb_sched_allocs *a, const Cbtools__Location *l)
{
   cb_sched_location *o = l ? grab(a, 1, sizeof *o) : NULL;
   if (!o)
      return NULL;
   COPY(o, l, id);
   COPY(o, l, address);
   COPY(o, l, line);
   o->object = l->object;
   o->function = l->function;
   o->file = l->file;
   o->dir = l->dir;
   return o;
}

static cb_sched_event *event_in(cb_sched_allocs *a,
                                const Cbtools__PatternEvent *e)
{
   cb_sched_event *o = e ? grab(a, 1, sizeof *o) : NULL;
   if (!o)
      return NULL;
   COPY(o, e, tid);
   COPY(o, e, index);
   COPY(o, e, trace_index);
   COPY(o, e, kind);
   COPY(o, e, address);
   COPY(o, e, value);
   COPY(o, e, address_stable);
   o->location = loc_in(a, e->location);
   o->variable_name = e->variable_name;
   return o;
}

static cb_sched_step **steps_in(cb_sched_allocs *a,
                                Cbtools__TailStep *const *t, size_t n)
{
   cb_sched_step **o = grab(a, n, sizeof *o);
   for (size_t i = 0; o && i < n; i++) {
      cb_sched_step *s = t[i] ? grab(a, 1, sizeof *s) : NULL;
      if (!s)
         continue; /* out of memory: a->failed says so */
      COPY(s, t[i], tid);
      COPY(s, t[i], count);
      COPY(s, t[i], run_out);
      s->expect = event_in(a, t[i]->expect);
      o[i] = s;
   }
   return o;
}

static void schedule_in(cb_sched_allocs *a, const Cbtools__Schedule *p,
                        cb_schedule *s)
{
   COPY(s, p, id);
   COPY(s, p, trace_id);
   COPY(s, p, program_digest);
   COPY(s, p, counted_mask);
   COPY(s, p, variable);
   COPY(s, p, cut_index);
   COPY(s, p, recorded_exit);
   s->cure = p->has_cure && p->cure <= 2 ? (int)p->cure : 0;
   s->program = p->program;
   s->pattern = p->pattern;
   s->variable_name = p->variable_name;
   s->z3 = p->z3;
   s->tail_name = tail_name_in(p->tail_name);
   s->instrument = p->instrument;
   s->n_prefix = p->n_prefix;
   s->prefix = p->prefix;
   s->n_prefix_order = p->n_prefix_order;
   s->prefix_order = p->prefix_order;
   s->n_thread_parent = p->n_thread_parent;
   s->thread_parent = p->thread_parent;
   s->n_thread_index = p->n_thread_index;
   s->thread_index = p->thread_index;
   s->e1 = event_in(a, p->e1);
   s->f = event_in(a, p->f);
   s->e2 = event_in(a, p->e2);
   s->n_tail = p->n_tail;
   s->tail = steps_in(a, p->tail, p->n_tail);
   s->n_variants = p->n_variants;
   s->variants = grab(a, p->n_variants, sizeof *s->variants);
   for (size_t k = 0; s->variants && k < p->n_variants; k++) {
      const Cbtools__Variant *v = p->variants[k];
      cb_sched_variant *o = v ? grab(a, 1, sizeof *o) : NULL;
      if (!o)
         continue;
      o->name = tail_name_in(v->name);
      o->n_tail = v->n_tail;
      o->tail = steps_in(a, v->tail, v->n_tail);
      s->variants[k] = o;
   }
}

cb_schedule *cb_schedule_from_pb(Cbtools__Schedule *p)
{
   cb_sched_allocs *a = calloc(1, sizeof *a);
   cb_schedule *s = a ? grab(a, 1, sizeof *s) : NULL;
   if (!s) {
      cb_sched_allocs_free(a);
      return NULL;
   }
   schedule_in(a, p, s);
   if (a->failed) {
      cb_sched_allocs_free(a);
      return NULL;
   }
   cb_sched_priv *priv = grab(a, 1, sizeof *priv);
   if (!priv) {
      cb_sched_allocs_free(a);
      return NULL;
   }
   priv->pb = p;
   priv->allocs = a;
   s->priv_ = priv;
   return s;
}

void cb_schedule_free(cb_schedule *s)
{
   if (!s)
      return;
   cb_sched_priv *priv = s->priv_;
   if (!priv)
      return; /* built by its caller, not read */
   cbtools__schedule__free_unpacked(priv->pb, NULL);
   cb_sched_allocs_free(priv->allocs); /* s and priv among them */
}

/* ---- cb_schedule into protobuf-c's message --------------------------------- */

static Cbtools__Location *loc_out(cb_sched_allocs *a,
                                  const cb_sched_location *l)
{
   Cbtools__Location *o = l ? memo_get(a, l) : NULL;
   if (o)
      return o;
   o = l ? grab(a, 1, sizeof *o) : NULL;
   if (!o)
      return NULL;
   cbtools__location__init(o);
   memo_put(a, l, o);
   COPY(o, l, id);
   COPY(o, l, address);
   COPY(o, l, line);
   o->object = l->object;
   o->function = l->function;
   o->file = l->file;
   o->dir = l->dir;
   return o;
}

static Cbtools__PatternEvent *event_out(cb_sched_allocs *a,
                                        const cb_sched_event *e)
{
   Cbtools__PatternEvent *o = e ? memo_get(a, e) : NULL;
   if (o)
      return o;
   o = e ? grab(a, 1, sizeof *o) : NULL;
   if (!o)
      return NULL;
   cbtools__pattern_event__init(o);
   memo_put(a, e, o);
   COPY(o, e, tid);
   COPY(o, e, index);
   COPY(o, e, trace_index);
   COPY(o, e, kind);
   COPY(o, e, address);
   COPY(o, e, value);
   COPY(o, e, address_stable);
   o->location = loc_out(a, e->location);
   o->variable_name = e->variable_name;
   return o;
}

static Cbtools__TailStep **steps_out(cb_sched_allocs *a,
                                     cb_sched_step *const *t, size_t n)
{
   Cbtools__TailStep **o = grab(a, n, sizeof *o);
   for (size_t i = 0; o && i < n; i++) {
      Cbtools__TailStep *s = grab(a, 1, sizeof *s);
      if (!s)
         continue;
      cbtools__tail_step__init(s);
      if (t[i]) {
         COPY(s, t[i], tid);
         COPY(s, t[i], count);
         COPY(s, t[i], run_out);
         s->expect = event_out(a, t[i]->expect);
      }
      o[i] = s;
   }
   return o;
}

static void schedule_out(cb_sched_allocs *a, const cb_schedule *s,
                         Cbtools__Schedule *p)
{
   COPY(p, s, id);
   COPY(p, s, trace_id);
   COPY(p, s, program_digest);
   COPY(p, s, counted_mask);
   COPY(p, s, variable);
   COPY(p, s, cut_index);
   COPY(p, s, recorded_exit);
   p->has_cure = s->cure != 0; /* absent in every other schedule */
   p->cure = (uint32_t)s->cure;
   p->program = s->program;
   p->pattern = s->pattern;
   p->variable_name = s->variable_name;
   p->z3 = s->z3;
   p->tail_name = tail_name_out(s->tail_name);
   p->instrument = s->instrument;
   p->n_prefix = s->n_prefix;
   p->prefix = s->prefix;
   p->n_prefix_order = s->n_prefix_order;
   p->prefix_order = s->prefix_order;
   p->n_thread_parent = s->n_thread_parent;
   p->thread_parent = s->thread_parent;
   p->n_thread_index = s->n_thread_index;
   p->thread_index = s->thread_index;
   p->e1 = event_out(a, s->e1);
   p->f = event_out(a, s->f);
   p->e2 = event_out(a, s->e2);
   p->n_tail = s->n_tail;
   p->tail = steps_out(a, s->tail, s->n_tail);
   p->n_variants = s->n_variants;
   p->variants = grab(a, s->n_variants, sizeof *p->variants);
   for (size_t k = 0; p->variants && k < s->n_variants; k++) {
      Cbtools__Variant *o = grab(a, 1, sizeof *o);
      if (!o)
         continue;
      cbtools__variant__init(o);
      if (s->variants[k]) {
         o->name = tail_name_out(s->variants[k]->name);
         o->n_tail = s->variants[k]->n_tail;
         o->tail = steps_out(a, s->variants[k]->tail, s->variants[k]->n_tail);
      }
      p->variants[k] = o;
   }
}

cb_sched_allocs *cb_schedule_to_pb(const cb_schedule *s, Cbtools__Schedule *p)
{
   cbtools__schedule__init(p);
   cb_sched_allocs *a = calloc(1, sizeof *a);
   if (!a)
      return NULL;
   schedule_out(a, s, p);
   if (a->failed) {
      cb_sched_allocs_free(a);
      return NULL;
   }
   return a;
}
