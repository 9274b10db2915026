/* z3_model.c: a SAT model of the Z3 check read back as the order in which
 * the schedule runs the window's events (z3_encode.h).
 *
 * The model gives each order variable an integer; the events it places
 * before e2 run, in that order (ties broken by trace order, which program
 * order and every constraint respect: all are strict `<`), then e2.  A
 * deadlock's e2 and g are requests that never get their lock: the order
 * stops before them, and the threads, released, block there.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "z3_encode.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
   int64_t at;
   size_t idx;
} placed;

static int by_time(const void *a, const void *b)
{
   const placed *x = a, *y = b;
   if (x->at != y->at)
      return x->at < y->at ? -1 : 1;
   return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The model's value of every order variable into val. */
static int values(const z3e_terms *k, const z3w_window *w, Z3_model m,
                  int64_t *val, char *why, size_t whylen)
{
   for (size_t v = 0; v < w->nvars; v++) {
      Z3_ast r = NULL;
      if (!Z3_model_eval(k->ctx, m, k->vars[v], true, &r) || !r) {
         snprintf(why, whylen, "z3: cannot evaluate the model");
         return -1;
      }
      Z3_inc_ref(k->ctx, r);
      int ok = Z3_get_numeral_int64(k->ctx, r, &val[v]);
      Z3_dec_ref(k->ctx, r);
      if (!ok) {
         snprintf(why, whylen, "z3: model value out of range");
         return -1;
      }
   }
   return 0;
}

/* Whether the model runs window event p (before the release). */
static int runs(const z3w_window *w, const int64_t *val, size_t p)
{
   const z3w_event *e = &w->ev[p], *e2 = &w->ev[w->pe2];
   if (w->kind == Z3W_DEADLOCK)
      return p != w->pg && p != w->pe2 &&
             (e->tid == e2->tid ? e->idx < e2->idx : val[e->var] < val[e2->var]);
   return val[e->var] < val[e2->var] || (e->tid == e2->tid && e->idx <= e2->idx);
}

int z3m_read_order(const z3e_terms *k, const cb_trace *t, const z3w_window *w,
                   Z3_model m, size_t **order, size_t *cap, char *why,
                   size_t whylen)
{
   int64_t *val = calloc(w->nvars ? w->nvars : 1, sizeof *val);
   placed *pl = calloc(w->nev ? w->nev : 1, sizeof *pl);
   int rc = -1;
   if (!val || !pl) {
      snprintf(why, whylen, "out of memory");
      goto out;
   }
   if (values(k, w, m, val, why, whylen) < 0)
      goto out;
   size_t n = 0;
   for (size_t p = 0; p < w->nev; p++)
      if (runs(w, val, p) && CB_IS_COUNTED(t->events[w->ev[p].idx].kind))
         pl[n++] = (placed){val[w->ev[p].var], w->ev[p].idx};
   qsort(pl, n, sizeof *pl, by_time);
   if (n > *cap) {
      size_t *o = realloc(*order, n * sizeof *o);
      if (!o) {
         snprintf(why, whylen, "out of memory");
         goto out;
      }
      *order = o;
      *cap = n;
   }
   for (size_t i = 0; i < n; i++)
      (*order)[i] = pl[i].idx;
   rc = (int)n;
out:
   free(val);
   free(pl);
   return rc;
}
