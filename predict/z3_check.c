/* z3_check.c: one Z3 context for a whole cbpredict run, one solver call per
 * candidate (z3_check.h).  The window comes from z3_window.c, the terms from
 * z3_encode.c; here: limits, the verdict, and the schedule order read back
 * from the model.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "z3_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <z3.h>

#include "z3_encode.h"
#include "z3_window.h"

#define Z3_DENSE_MAX 3000

struct cb_z3 {
   Z3_context ctx;
   unsigned timeout_ms;
   size_t max_window;
   cb_z3_stats st;
   z3e_terms terms;
   size_t *order;
   size_t caporder;
   /* Z3 errors land here through the handler (no longjmp, no abort). */
   int z3_failed;
   char z3_error[128];
};

/* The error handler only gets the context: find the cb_z3 being used. */
static _Thread_local cb_z3 *current;

static void on_z3_error(Z3_context ctx, Z3_error_code code)
{
   if (current && current->ctx == ctx && !current->z3_failed) {
      current->z3_failed = 1;
      snprintf(current->z3_error, sizeof current->z3_error, "z3: %s",
               Z3_get_error_msg(ctx, code));
   }
}

static double now_ms(void)
{
   return z3e_now_ms();
}

cb_z3 *cb_z3_new(unsigned timeout_ms, size_t max_window_events)
{
   cb_z3 *z = calloc(1, sizeof *z);
   if (!z)
      return NULL;
   Z3_config cfg = Z3_mk_config();
   if (!cfg) {
      free(z);
      return NULL;
   }
   Z3_set_param_value(cfg, "model", "true");
   z->ctx = Z3_mk_context_rc(cfg);
   Z3_del_config(cfg);
   if (!z->ctx) {
      free(z);
      return NULL;
   }
   Z3_set_error_handler(z->ctx, on_z3_error);
   z->timeout_ms = timeout_ms;
   z->max_window = max_window_events;
   return z;
}

void cb_z3_free(cb_z3 *z)
{
   if (!z)
      return;
   free(z->terms.keep);
   free(z->order);
   Z3_del_context(z->ctx);
   free(z);
}

const char *cb_z3_verdict_name(cb_z3_verdict v)
{
   switch (v) {
   case CB_Z3_SAT: return "sat";
   case CB_Z3_UNSAT: return "unsat";
   default: return "unknown";
   }
}

void cb_z3_get_stats(const cb_z3 *z, cb_z3_stats *out)
{
   *out = z->st;
}

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

/* The events the model places before e2, and e2, in the model's order. */
static int read_order(cb_z3 *z, const cb_trace *t, const z3w_window *w,
                      Z3_model m, char *why, size_t whylen)
{
   Z3_context c = z->ctx;
   int64_t *val = calloc(w->nvars ? w->nvars : 1, sizeof *val);
   placed *pl = calloc(w->nev ? w->nev : 1, sizeof *pl);
   int rc = -1;
   if (!val || !pl) {
      snprintf(why, whylen, "out of memory");
      goto out;
   }
   for (size_t v = 0; v < w->nvars; v++) {
      Z3_ast r = NULL;
      if (!Z3_model_eval(c, m, z->terms.vars[v], true, &r) || !r) {
         snprintf(why, whylen, "z3: cannot evaluate the model");
         goto out;
      }
      Z3_inc_ref(c, r);
      int ok = Z3_get_numeral_int64(c, r, &val[v]);
      Z3_dec_ref(c, r);
      if (!ok) {
         snprintf(why, whylen, "z3: model value out of range");
         goto out;
      }
   }
   const z3w_event *e2 = &w->ev[w->pe2];
   int64_t cut = val[e2->var];
   size_t n = 0;
   for (size_t p = 0; p < w->nev; p++) {
      const z3w_event *e = &w->ev[p];
      int64_t at = val[e->var];
      int run = at < cut || (e->tid == e2->tid && e->idx <= e2->idx);
      if (run && CB_IS_COUNTED(t->events[e->idx].kind))
         pl[n++] = (placed){at, e->idx};
   }
   qsort(pl, n, sizeof *pl, by_time);
   if (n > z->caporder) {
      size_t *o = realloc(z->order, n * sizeof *o);
      if (!o) {
         snprintf(why, whylen, "out of memory");
         goto out;
      }
      z->order = o;
      z->caporder = n;
   }
   for (size_t i = 0; i < n; i++)
      z->order[i] = pl[i].idx;
   rc = (int)n;
out:
   free(val);
   free(pl);
   return rc;
}

cb_z3_verdict cb_z3_check(cb_z3 *z, const cb_trace *t, const cb_z3_query *q,
                          cb_z3_result *res)
{
   cb_z3_result local;
   if (!res)
      res = &local;
   memset(res, 0, sizeof *res);
   double t0 = now_ms();
   cb_z3_verdict v = CB_Z3_UNKNOWN;
   z3w_window w;
   Z3_solver s = NULL;
   int have_window = 0;

   current = z;
   z->z3_failed = 0;
   z->st.queries++;
   if (!q) {
      snprintf(res->why, sizeof res->why, "no query");
      goto done;
   }
   res->window_begin = q->window_begin;
   if (z3w_build(&w, t, q->e1, q->f, q->e2, q->window_begin, z->max_window,
                 q->strict, res->why, sizeof res->why) < 0)
      goto done;
   have_window = 1;
   res->window_begin = w.wb;
   res->window_events = w.nev;
   z->st.window_events += w.nev;

   s = Z3_mk_simple_solver(z->ctx);
   if (s)
      Z3_solver_inc_ref(z->ctx, s);
   if (!s || z->z3_failed)
      goto z3_error;
   /* Every constraint is a difference of two order variables: Z3's dense
    * difference-logic solver (Floyd-Warshall, arith.solver=3) is about twice
    * as fast as the default on windows of a few hundred events; its matrix
    * is nvars^2, so only on windows up to Z3_DENSE_MAX variables. */
   if (w.nvars <= Z3_DENSE_MAX) {
      Z3_params p = Z3_mk_params(z->ctx);
      Z3_params_inc_ref(z->ctx, p);
      Z3_params_set_uint(z->ctx, p, Z3_mk_string_symbol(z->ctx, "arith.solver"),
                         3);
      Z3_solver_set_params(z->ctx, s, p);
      Z3_params_dec_ref(z->ctx, p);
   }
   z->terms.deadline_ms = z->timeout_ms ? t0 + z->timeout_ms : 0;
   if (z3e_encode(&z->terms, z->ctx, s, &w) < 0) {
      snprintf(res->why, sizeof res->why, "%s",
               z->terms.timed_out ? "timeout (while encoding)"
                                  : "out of memory while encoding");
      goto done;
   }
   if (z->z3_failed)
      goto z3_error;
   /* The solver gets what is left of the limit. */
   if (z->timeout_ms) {
      double left = t0 + z->timeout_ms - now_ms();
      if (left < 1) {
         snprintf(res->why, sizeof res->why, "timeout (while encoding)");
         goto done;
      }
      Z3_params p = Z3_mk_params(z->ctx);
      Z3_params_inc_ref(z->ctx, p);
      Z3_params_set_uint(z->ctx, p, Z3_mk_string_symbol(z->ctx, "timeout"),
                         (unsigned)left);
      Z3_solver_set_params(z->ctx, s, p);
      Z3_params_dec_ref(z->ctx, p);
   }
   double s0 = now_ms();
   Z3_lbool r = Z3_solver_check(z->ctx, s);
   res->solver_ms = now_ms() - s0;
   if (z->z3_failed)
      goto z3_error;
   if (r == Z3_L_FALSE) {
      v = CB_Z3_UNSAT;
   } else if (r == Z3_L_TRUE) {
      Z3_model m = Z3_solver_get_model(z->ctx, s);
      if (!m || z->z3_failed)
         goto z3_error;
      Z3_model_inc_ref(z->ctx, m);
      int n = read_order(z, t, &w, m, res->why, sizeof res->why);
      Z3_model_dec_ref(z->ctx, m);
      if (n >= 0) {
         v = CB_Z3_SAT;
         res->order = z->order;
         res->norder = (size_t)n;
      }
   } else {
      snprintf(res->why, sizeof res->why, "%s",
               Z3_solver_get_reason_unknown(z->ctx, s));
      if (!res->why[0])
         snprintf(res->why, sizeof res->why, "undecided");
   }
   goto done;

z3_error:
   snprintf(res->why, sizeof res->why, "%s", z->z3_error);
done:
   z3e_release(&z->terms);
   if (s)
      Z3_solver_dec_ref(z->ctx, s);
   if (have_window)
      z3w_free(&w);
   if (v == CB_Z3_SAT)
      z->st.sat++;
   else if (v == CB_Z3_UNSAT)
      z->st.unsat++;
   else
      z->st.unknown++;
   z->st.solver_ms += now_ms() - t0;
   current = NULL;
   return v;
}
