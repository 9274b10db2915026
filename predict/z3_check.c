/* z3_check.c: one Z3 context for a whole cbpredict run, one solver call per
 * candidate (z3_check.h).  The window comes from z3_window.c, the terms from
 * z3_encode.c, the order read back from the model from z3_model.c; here:
 * limits and the verdict.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "z3_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <z3.h>

#include "predict.h"
#include "z3_encode.h"
#include "z3_window.h"

#define Z3_DENSE_MAX 3000
/* A window may exceed --z3-window when e1..f alone do (z3w_build), but
 * not by more than this factor.  A test-then-set spin lock's trace (88,018
 * events, a thread's first section against the other's, 62,000 events
 * later) gave windows of 28,000 events, on which one check grew to 18 GB
 * in a minute, deaf to its time limit and to Z3_interrupt: not asked. */
#define Z3_WINDOW_SLACK 4
/* And Z3's memory, for all contexts of the process, in MB: past it a
 * check fails (an undecided candidate) instead of taking the machine. */
#define Z3_MEMORY_MB "2048"

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
   Z3_global_param_set("memory_max_size", Z3_MEMORY_MB);
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

static void set_uint(cb_z3 *z, Z3_solver s, const char *name, unsigned v)
{
   Z3_params p = Z3_mk_params(z->ctx);
   Z3_params_inc_ref(z->ctx, p);
   Z3_params_set_uint(z->ctx, p, Z3_mk_string_symbol(z->ctx, name), v);
   Z3_solver_set_params(z->ctx, s, p);
   Z3_params_dec_ref(z->ctx, p);
}

/* A solver holding the window's assertions, with what is left of the time
 * limit; NULL with why. */
static Z3_solver make_solver(cb_z3 *z, const z3w_window *w, double t0,
                             cb_z3_result *res)
{
   Z3_solver s = Z3_mk_simple_solver(z->ctx);
   if (s)
      Z3_solver_inc_ref(z->ctx, s);
   if (!s || z->z3_failed)
      goto z3_error;
   /* Every constraint is a difference of two order variables: Z3's dense
    * difference-logic solver (Floyd-Warshall, arith.solver=3) is about twice
    * as fast as the default on windows of a few hundred events; its matrix
    * is nvars^2, so only on windows up to Z3_DENSE_MAX variables. */
   if (w->nvars <= Z3_DENSE_MAX)
      set_uint(z, s, "arith.solver", 3);
   z->terms.deadline_ms = z->timeout_ms ? t0 + z->timeout_ms : 0;
   if (z3e_encode(&z->terms, z->ctx, s, w) < 0) {
      snprintf(res->why, sizeof res->why, "%s",
               z->terms.timed_out ? "timeout (while encoding)"
                                  : "out of memory while encoding");
      goto fail;
   }
   if (z->z3_failed)
      goto z3_error;
   /* The solver gets what is left of the limit. */
   if (z->timeout_ms) {
      double left = t0 + z->timeout_ms - now_ms();
      if (left < 1) {
         snprintf(res->why, sizeof res->why, "timeout (while encoding)");
         goto fail;
      }
      set_uint(z, s, "timeout", (unsigned)left);
   }
   return s;
z3_error:
   snprintf(res->why, sizeof res->why, "%s", z->z3_error);
fail:
   if (s)
      Z3_solver_dec_ref(z->ctx, s);
   return NULL;
}

/* Solves, f's thread stopped after a read f first (z3e_terms.stop); *on
 * set when only letting it go on satisfies the query. */
static Z3_lbool solve(cb_z3 *z, Z3_solver s, double t0, int *on)
{
   *on = 0;
   if (!z->terms.stop)
      return Z3_solver_check(z->ctx, s);
   Z3_lbool r = Z3_solver_check_assumptions(z->ctx, s, 1, &z->terms.stop);
   if (r != Z3_L_FALSE || z->z3_failed)
      return r;
   if (z->timeout_ms) {
      double left = t0 + z->timeout_ms - now_ms();
      if (left < 1)
         return Z3_L_UNDEF;
      set_uint(z, s, "timeout", (unsigned)left);
   }
   r = Z3_solver_check(z->ctx, s);
   *on = r == Z3_L_TRUE;
   return r;
}

/* The verdict of a solved query; UNSAT only over a complete window. */
static cb_z3_verdict verdict(cb_z3 *z, const cb_trace *t, const z3w_window *w,
                             Z3_solver s, Z3_lbool r, int on, cb_z3_result *res)
{
   if (z->z3_failed) {
      snprintf(res->why, sizeof res->why, "%s", z->z3_error);
      return CB_Z3_UNKNOWN;
   }
   if (on) {
      snprintf(res->why, sizeof res->why, "sat only if f's thread goes on past the "
                                          "value f read, on a path not proved");
      return CB_Z3_UNKNOWN;
   }
   if (r == Z3_L_FALSE && w->incomplete) {
      snprintf(res->why, sizeof res->why, "unsat, but not a proof: %s", w->incomplete);
      return CB_Z3_UNKNOWN;
   }
   if (r == Z3_L_FALSE)
      return CB_Z3_UNSAT;
   if (r != Z3_L_TRUE) {
      snprintf(res->why, sizeof res->why, "%s", Z3_solver_get_reason_unknown(z->ctx, s));
      if (!res->why[0])
         snprintf(res->why, sizeof res->why, "undecided");
      return CB_Z3_UNKNOWN;
   }
   Z3_model m = Z3_solver_get_model(z->ctx, s);
   if (!m || z->z3_failed) {
      snprintf(res->why, sizeof res->why, "%s", z->z3_error);
      return CB_Z3_UNKNOWN;
   }
   Z3_model_inc_ref(z->ctx, m);
   int n = z3m_read_order(&z->terms, t, w, m, &z->order, &z->caporder, res->why,
                          sizeof res->why);
   Z3_model_dec_ref(z->ctx, m);
   if (n < 0)
      return CB_Z3_UNKNOWN;
   res->order = z->order;
   res->norder = (size_t)n;
   return CB_Z3_SAT;
}

/* The window of q (with the trace's happens-before edges: q's, or built
 * into own); -1 with why. */
static int window_of(cb_z3 *z, const cb_trace *t, const cb_z3_query *q, cbp_hb *own,
                     z3w_window *w, cb_z3_result *res)
{
   if (!q->hb)
      cbp_hb_build(own, t);
   z3w_query wq = {q->kind == CB_Z3_ORDER      ? Z3W_ORDER
                   : q->kind == CB_Z3_DEADLOCK ? Z3W_DEADLOCK
                                               : Z3W_ATOMICITY,
                   q->e1, q->f, q->e2, q->g, q->window_begin, z->max_window,
                   q->strict, q->hb ? q->hb : own};
   int rc = z3w_build(w, t, &wq, res->why, sizeof res->why);
   if (!q->hb)
      cbp_hb_free(own);
   return rc;
}

/* Whether window w is too wide to ask (Z3_WINDOW_SLACK), with why. */
static int too_wide(const cb_z3 *z, const z3w_window *w, cb_z3_result *res)
{
   if (!z->max_window || w->nev <= Z3_WINDOW_SLACK * z->max_window)
      return 0;
   snprintf(res->why, sizeof res->why,
            "not asked: a window of %zu events, more than %d times the limit of %zu",
            w->nev, Z3_WINDOW_SLACK, z->max_window);
   return 1;
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
   cbp_hb own;

   current = z;
   z->z3_failed = 0;
   z->st.queries++;
   if (q)
      res->window_begin = q->window_begin;
   else
      snprintf(res->why, sizeof res->why, "no query");
   if (q && window_of(z, t, q, &own, &w, res) == 0) {
      res->window_begin = w.wb;
      res->window_events = w.nev;
      z->st.window_events += w.nev;
      Z3_solver s = too_wide(z, &w, res) ? NULL : make_solver(z, &w, t0, res);
      if (s) {
         double s0 = now_ms();
         int on;
         Z3_lbool r = solve(z, s, t0, &on);
         res->solver_ms = now_ms() - s0;
         v = verdict(z, t, &w, s, r, on, res);
         Z3_solver_dec_ref(z->ctx, s);
      }
      z3e_release(&z->terms);
      z3w_free(&w);
   }
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
