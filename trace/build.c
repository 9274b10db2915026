/* build.c: a cb_trace in memory: its string arena, growing its arrays one
 * item at a time (the reader, the text form and tests build traces this
 * way), and freeing it.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdlib.h>
#include <string.h>

#include "trace_internal.h"

struct cb_arena_block {
   struct cb_arena_block *next;
   size_t used, cap;
   _Alignas(16) unsigned char data[];
};

cb_trace_priv *cb_trace_priv_get(cb_trace *t, cb_error *err)
{
   if (!t->arena_) {
      cb_trace_priv *p = calloc(1, sizeof *p);
      if (!p) {
         cb_fail(err, "out of memory");
         return NULL;
      }
      p->allocs_for_nevents = SIZE_MAX;
      /* Arrays filled by someone else before: their size is their capacity. */
      p->cap_events = t->nevents;
      p->cap_locs = t->nlocs;
      p->cap_syms = t->nsyms;
      p->cap_vars = t->nvars;
      t->arena_ = p;
   }
   return t->arena_;
}

void *cb_trace_alloc(cb_trace *t, size_t n, cb_error *err)
{
   cb_trace_priv *p = cb_trace_priv_get(t, err);
   if (!p)
      return NULL;
   n = (n + 15) & ~(size_t)15;
   struct cb_arena_block *b = p->blocks;
   if (!b || b->cap - b->used < n) {
      size_t cap = n > 65536 ? n : 65536;
      b = malloc(sizeof *b + cap);
      if (!b) {
         cb_fail(err, "out of memory");
         return NULL;
      }
      b->used = 0;
      b->cap = cap;
      b->next = p->blocks;
      p->blocks = b;
   }
   void *r = b->data + b->used;
   b->used += n;
   return r;
}

const char *cb_trace_strdup(cb_trace *t, const char *s)
{
   if (!s || !*s)
      return "";
   size_t n = strlen(s) + 1;
   char *r = cb_trace_alloc(t, n, NULL);
   if (!r)
      return NULL;
   memcpy(r, s, n);
   return r;
}

/* Grows *arr to hold at least want items. */
static int grow(void **arr, size_t *cap, size_t want, size_t item,
                cb_error *err)
{
   if (want <= *cap)
      return 0;
   size_t nc = *cap ? *cap : 64;
   while (nc < want)
      nc *= 2;
   void *n = realloc(*arr, nc * item);
   if (!n)
      return cb_fail(err, "out of memory");
   *arr = n;
   *cap = nc;
   return 0;
}

/* locs[0], the unknown location, exists in every trace. */
static int ensure_unknown_loc(cb_trace *t, cb_trace_priv *p, cb_error *err)
{
   if (t->nlocs > 0)
      return 0;
   if (grow((void **)&t->locs, &p->cap_locs, 1, sizeof *t->locs, err) < 0)
      return -1;
   t->locs[0] = (cb_location){0, "", "", "", 0, ""};
   t->nlocs = 1;
   return 0;
}

int cb_trace_add_event(cb_trace *t, const cb_event *e, cb_error *err)
{
   cb_trace_priv *p = cb_trace_priv_get(t, err);
   if (!p || ensure_unknown_loc(t, p, err) < 0)
      return -1;
   if (t->nevents == p->cap_events &&
       grow((void **)&t->events, &p->cap_events, t->nevents + 1,
            sizeof *t->events, err) < 0)
      return -1;
   t->events[t->nevents++] = *e;
   if (e->tid > t->nthreads)
      t->nthreads = e->tid;
   return 0;
}

int cb_trace_set_location(cb_trace *t, uint32_t id, const cb_location *loc,
                          cb_error *err)
{
   cb_trace_priv *p = cb_trace_priv_get(t, err);
   if (!p || ensure_unknown_loc(t, p, err) < 0)
      return -1;
   if (id == 0 || id > (1u << 26))
      return cb_fail(err, "location id %u out of range", id);
   if (grow((void **)&t->locs, &p->cap_locs, (size_t)id + 1, sizeof *t->locs,
            err) < 0)
      return -1;
   while (t->nlocs <= id)
      t->locs[t->nlocs++] = (cb_location){0, "", "", "", 0, ""};
   cb_location l = *loc;
   l.object = cb_trace_strdup(t, loc->object);
   l.function = cb_trace_strdup(t, loc->function);
   l.file = cb_trace_strdup(t, loc->file);
   l.dir = cb_trace_strdup(t, loc->dir);
   if (!l.object || !l.function || !l.file || !l.dir)
      return cb_fail(err, "out of memory");
   t->locs[id] = l;
   return 0;
}

int cb_trace_add_symbol(cb_trace *t, const cb_symbol *s, cb_error *err)
{
   cb_trace_priv *p = cb_trace_priv_get(t, err);
   if (!p)
      return -1;
   if (grow((void **)&t->syms, &p->cap_syms, t->nsyms + 1, sizeof *t->syms,
            err) < 0)
      return -1;
   cb_symbol c = *s;
   c.name = cb_trace_strdup(t, s->name);
   if (!c.name)
      return cb_fail(err, "out of memory");
   t->syms[t->nsyms++] = c;
   return 0;
}

int cb_trace_add_variable(cb_trace *t, const cb_variable *v, cb_error *err)
{
   cb_trace_priv *p = cb_trace_priv_get(t, err);
   if (!p)
      return -1;
   if (grow((void **)&t->vars, &p->cap_vars, t->nvars + 1, sizeof *t->vars,
            err) < 0)
      return -1;
   cb_variable c = *v;
   c.name = cb_trace_strdup(t, v->name);
   c.file = cb_trace_strdup(t, v->file);
   if (!c.name || !c.file)
      return cb_fail(err, "out of memory");
   t->vars[t->nvars++] = c;
   return 0;
}

static int var_cmp(const void *a, const void *b)
{
   const cb_variable *x = a, *y = b;
   return x->address < y->address ? -1 : x->address > y->address;
}

/* Sorted by address, one of each address kept (a stream may name an
 * address twice: the tool's names are per run, not per trace). */
static void sort_variables(cb_trace *t)
{
   if (t->nvars < 2)
      return;
   qsort(t->vars, t->nvars, sizeof *t->vars, var_cmp);
   size_t n = 1;
   for (size_t i = 1; i < t->nvars; i++)
      if (t->vars[i].address != t->vars[n - 1].address)
         t->vars[n++] = t->vars[i];
   t->nvars = n;
}

static int sym_cmp(const void *a, const void *b)
{
   const cb_symbol *x = a, *y = b;
   if (x->address != y->address)
      return x->address < y->address ? -1 : 1;
   return x->size < y->size ? 1 : x->size > y->size ? -1 : 0;
}

void cb_trace_finish(cb_trace *t)
{
   if (t->nsyms > 1)
      qsort(t->syms, t->nsyms, sizeof *t->syms, sym_cmp);
   sort_variables(t);
   /* The reader and cb_trace_add_event keep nthreads as they go; only an
    * event array filled by hand (nthreads still 0) needs the scan, which is
    * a visible share of reading a large trace. */
   if (t->nthreads == 0)
      for (size_t i = 0; i < t->nevents; i++)
         if (t->events[i].tid > t->nthreads)
            t->nthreads = t->events[i].tid;
   if (!t->header.program)
      t->header.program = "";
   if (!t->header.tool_version)
      t->header.tool_version = "";
   if (!t->header.instrumented)
      t->header.instrumented = "";
   if (t->arena_) {
      cb_trace_priv *p = t->arena_;
      ensure_unknown_loc(t, p, NULL);
   }
}

void cb_trace_free(cb_trace *t)
{
   if (!t)
      return;
   cb_trace_priv *p = t->arena_;
   if (p) {
      struct cb_arena_block *b = p->blocks;
      while (b) {
         struct cb_arena_block *n = b->next;
         free(b);
         b = n;
      }
      free(p->allocs);
      free(p->srcs);
      free(p);
   }
   free(t->events);
   free(t->locs);
   free(t->syms);
   free(t->vars);
   memset(t, 0, sizeof *t);
}
