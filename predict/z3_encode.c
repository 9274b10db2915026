/* z3_encode.c: the maximal causal model of one candidate, as Z3 terms.
 *
 * One integer per order variable (z3w_event.var); "a before b" is a strict
 * `<` between two threads and a constant inside one thread (program order).
 * Everything the model places before e2 is what the schedule runs
 * ("executed"); what it places after e2 runs only once every thread is
 * released, so every constraint but program order is guarded by whether its
 * events are executed.  Every constraint is a positive combination of strict
 * `<`, so any total order that respects the model's values (ties broken
 * any way) satisfies it too.
 *
 * Choices (documented for the report and the README):
 * - A read executed before e2, other than f and e2, reads its recorded value
 *   (z3w_read): this is what guarantees that every thread takes the same
 *   path up to the cut.  f's and e2's values are the violation itself.
 *   Events of f's thread after f may still run before e2 (to release a lock
 *   that e2's thread needs); their reads keep their recorded values, but the
 *   path after a read f is assumed, not proved (WRW, an order violation's
 *   read): so the query is first asked with f's thread stopped right after
 *   a read f (z3e_terms.stop), and an answer that needs it to go on is
 *   unknown, not sat.
 * - Two critical sections on one lock conflict only when both acquisitions
 *   run before e2; a section without its release in the window is open to
 *   the end, one held since before the window began at -infinity.
 * - Reads on addresses that one thread alone touches in the window, or that
 *   no one writes there, need no constraint: program order decides them.
 * - Happens-before is hb.h's (the vector clocks' too), asserted whether or
 *   not its events run before e2; a woken wait's signal must come while it
 *   waits (a signal sent before is lost), only when the wait runs.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "z3_encode.h"

#include <stdlib.h>
#include <time.h>

double z3e_now_ms(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Checked every 4096 terms: cheap, and a few ms late at worst. */
static int out_of_time(z3e_terms *k)
{
   if (k->timed_out)
      return 1;
   if (k->deadline_ms > 0 && (k->nkeep & 4095) == 0 &&
       z3e_now_ms() > k->deadline_ms)
      k->timed_out = 1;
   return k->timed_out;
}

static Z3_ast keep(z3e_terms *k, Z3_ast a)
{
   if (!a) {
      k->oom = 1;
      return k->fls;
   }
   if (k->nkeep == k->capkeep) {
      size_t cap = k->capkeep ? k->capkeep * 2 : 1024;
      Z3_ast *v = realloc(k->keep, cap * sizeof *v);
      if (!v) {
         k->oom = 1;
         return a; /* still usable until the next call that collects */
      }
      k->keep = v;
      k->capkeep = cap;
   }
   Z3_inc_ref(k->ctx, a);
   k->keep[k->nkeep++] = a;
   return a;
}

/* A small builder of conjunctions and disjunctions that folds constants. */
typedef struct {
   Z3_ast *v;
   size_t n, cap;
   int is_and; /* and: drops true, false wins; or: drops false, true wins */
   int decided; /* the constant won */
} junction;

static void j_init(junction *j, int is_and)
{
   j->n = 0;
   j->is_and = is_and;
   j->decided = 0;
}

static void j_add(z3e_terms *k, junction *j, Z3_ast a)
{
   Z3_ast unit = j->is_and ? k->tru : k->fls;
   Z3_ast zero = j->is_and ? k->fls : k->tru;
   if (j->decided || a == unit)
      return;
   if (a == zero) {
      j->decided = 1;
      return;
   }
   if (j->n == j->cap) {
      size_t cap = j->cap ? j->cap * 2 : 16;
      Z3_ast *v = realloc(j->v, cap * sizeof *v);
      if (!v) {
         k->oom = 1;
         return;
      }
      j->v = v;
      j->cap = cap;
   }
   j->v[j->n++] = a;
}

static Z3_ast j_make(z3e_terms *k, junction *j)
{
   if (j->decided)
      return j->is_and ? k->fls : k->tru;
   if (j->n == 0)
      return j->is_and ? k->tru : k->fls;
   if (j->n == 1)
      return j->v[0];
   return keep(k, j->is_and ? Z3_mk_and(k->ctx, (unsigned)j->n, j->v)
                            : Z3_mk_or(k->ctx, (unsigned)j->n, j->v));
}

static void j_free(junction *j)
{
   free(j->v);
   j->v = NULL;
   j->cap = 0;
}

/* a runs before b (positions in the window). */
static Z3_ast before(z3e_terms *k, const z3w_window *w, size_t a, size_t b)
{
   const z3w_event *ea = &w->ev[a], *eb = &w->ev[b];
   if (ea->tid == eb->tid)
      return ea->idx < eb->idx ? k->tru : k->fls;
   return keep(k, Z3_mk_lt(k->ctx, k->vars[ea->var], k->vars[eb->var]));
}

/* p runs before the release, that is before e2 (or is e2).  A deadlock's
 * T2 request never runs. */
static Z3_ast executed(z3e_terms *k, const z3w_window *w, size_t p)
{
   if (p == Z3W_NONE || p == w->pe2)
      return k->tru;
   if (p == w->pg)
      return k->fls;
   return before(k, w, p, w->pe2);
}

static Z3_ast implies(z3e_terms *k, Z3_ast a, Z3_ast b)
{
   if (a == k->fls || b == k->tru)
      return k->tru;
   if (a == k->tru)
      return b;
   if (b == k->fls)
      return keep(k, Z3_mk_not(k->ctx, a));
   return keep(k, Z3_mk_implies(k->ctx, a, b));
}

static void assert_(z3e_terms *k, Z3_solver s, Z3_ast a)
{
   if (a == k->tru)
      return;
   Z3_solver_assert(k->ctx, s, a);
   k->nassert++;
}

/* r reads its recorded value: from one of its sources or the initial value,
 * with no other write to the address in between. */
static Z3_ast read_ok(z3e_terms *k, const z3w_window *w, const z3w_read *r,
                      junction *any, junction *all)
{
   j_init(any, 0);
   for (size_t i = 0; i < r->nsrc && !any->decided; i++) {
      size_t src = r->src[i];
      j_init(all, 1);
      j_add(k, all, before(k, w, src, r->read));
      for (size_t j = 0; j < r->nwrites && !all->decided; j++) {
         size_t o = r->writes[j];
         if (out_of_time(k))
            break;
         if (o == src)
            continue;
         Z3_ast side[2] = {before(k, w, o, src), before(k, w, r->read, o)};
         if (side[0] == k->tru || side[1] == k->tru)
            continue;
         if (side[0] == k->fls)
            j_add(k, all, side[1]);
         else if (side[1] == k->fls)
            j_add(k, all, side[0]);
         else
            j_add(k, all, keep(k, Z3_mk_or(k->ctx, 2, side)));
      }
      j_add(k, any, j_make(k, all));
   }
   if (r->init_ok && !any->decided) {
      j_init(all, 1);
      for (size_t j = 0; j < r->nwrites && !all->decided; j++)
         j_add(k, all, before(k, w, r->read, r->writes[j]));
      j_add(k, any, j_make(k, all));
   }
   return j_make(k, any);
}

/* What the query asks: atomicity e1 < f < e2; an order violation f < e2;
 * a deadlock: T2 holds f's lock and has run up to its request g while T1
 * is at its request e2 (and holds e1's, program order). */
static void violation(z3e_terms *k, Z3_solver s, const z3w_window *w)
{
   switch (w->kind) {
   case Z3W_ATOMICITY:
      assert_(k, s, before(k, w, w->pe1, w->pf));
      assert_(k, s, before(k, w, w->pf, w->pe2));
      break;
   case Z3W_ORDER:
      assert_(k, s, before(k, w, w->pf, w->pe2));
      break;
   case Z3W_DEADLOCK:
      assert_(k, s, before(k, w, w->ev[w->pg].tprev, w->pe2));
      break;
   }
}

/* Lock mutual exclusion, pair by pair: two sections of one lock in two
 * threads, both taken before e2, do not overlap.  -1 past the deadline. */
static int exclusion(z3e_terms *k, Z3_solver s, const z3w_window *w)
{
   for (size_t i = 0; i < w->nsec && !k->oom; i++) {
      const z3w_section *a = &w->sec[i];
      for (size_t j = i + 1; j < w->nsec; j++) {
         const z3w_section *b = &w->sec[j];
         if (out_of_time(k))
            return -1;
         if (a->lock != b->lock || a->tid == b->tid ||
             !CB_LOCK_MODES_CONFLICT(a->shared ? CB_LOCK_RD : CB_LOCK_WR,
                                     b->shared ? CB_LOCK_RD : CB_LOCK_WR))
            continue;
         junction both = {0}, apart = {0};
         j_init(&both, 1);
         j_add(k, &both, executed(k, w, a->acq));
         j_add(k, &both, executed(k, w, b->acq));
         j_init(&apart, 0);
         if (a->rel != Z3W_NONE && b->acq != Z3W_NONE)
            j_add(k, &apart, before(k, w, a->rel, b->acq));
         if (b->rel != Z3W_NONE && a->acq != Z3W_NONE)
            j_add(k, &apart, before(k, w, b->rel, a->acq));
         assert_(k, s, implies(k, j_make(k, &both), j_make(k, &apart)));
         j_free(&both);
         j_free(&apart);
      }
   }
   return 0;
}

/* Reads that run before e2 keep their values.  -1 past the deadline. */
static int reads(z3e_terms *k, Z3_solver s, const z3w_window *w)
{
   junction any = {0}, all = {0};
   int rc = 0;
   for (size_t i = 0; i < w->nreads && !k->oom && !rc; i++) {
      const z3w_read *r = &w->reads[i];
      if (out_of_time(k))
         rc = -1;
      else
         assert_(k, s, implies(k, executed(k, w, r->read), read_ok(k, w, r, &any, &all)));
   }
   j_free(&any);
   j_free(&all);
   return rc;
}

/* One integer constant per order variable. */
static int variables(z3e_terms *k, Z3_context ctx, const z3w_window *w)
{
   k->vars = calloc(w->nvars ? w->nvars : 1, sizeof *k->vars);
   if (!k->vars)
      return -1;
   Z3_sort int_sort = Z3_mk_int_sort(ctx);
   Z3_inc_ref(ctx, (Z3_ast)int_sort);
   for (size_t v = 0; v < w->nvars; v++)
      k->vars[v] = keep(k, Z3_mk_const(ctx, Z3_mk_int_symbol(ctx, (int)v), int_sort));
   Z3_dec_ref(ctx, (Z3_ast)int_sort);
   return 0;
}

/* f a read: the literal `stop` keeps f's thread from running past f (past
 * f's instruction) before e2. */
static void stop_after_f(z3e_terms *k, Z3_context ctx, Z3_solver s, const z3w_window *w)
{
   const z3w_event *f = &w->ev[w->pf];
   k->stop = NULL;
   if (w->kind == Z3W_DEADLOCK || w->pf_read == 0)
      return;
   size_t next = Z3W_NONE;
   for (size_t p = w->pf + 1; p < w->nev && next == Z3W_NONE; p++)
      if (w->ev[p].tid == f->tid && w->ev[p].var != f->var)
         next = p;
   if (next == Z3W_NONE)
      return;
   k->stop = keep(k, Z3_mk_const(ctx, Z3_mk_string_symbol(ctx, "stop"), Z3_mk_bool_sort(ctx)));
   assert_(k, s, implies(k, k->stop, keep(k, Z3_mk_not(ctx, executed(k, w, next)))));
}

int z3e_encode(z3e_terms *k, Z3_context ctx, Z3_solver s,
               const z3w_window *w)
{
   k->ctx = ctx;
   k->nkeep = 0;
   k->oom = 0;
   k->nassert = 0;
   k->timed_out = 0;
   k->tru = keep(k, Z3_mk_true(ctx));
   k->fls = keep(k, Z3_mk_false(ctx));
   if (variables(k, ctx, w) < 0)
      return -1;
   /* Program order. */
   for (size_t p = 0; p < w->nev; p++) {
      size_t q = w->ev[p].tprev;
      if (q != Z3W_NONE && w->ev[q].var != w->ev[p].var)
         assert_(k, s, keep(k, Z3_mk_lt(ctx, k->vars[w->ev[q].var],
                                        k->vars[w->ev[p].var])));
   }
   violation(k, s, w);
   stop_after_f(k, ctx, s, w);
   /* Happens-before (hb.h): always in that order. */
   for (size_t i = 0; i < w->nbefore; i++)
      assert_(k, s, before(k, w, w->before[i].a, w->before[i].b));
   /* Events that cannot run before e2. */
   for (size_t i = 0; i < w->nlate; i++)
      assert_(k, s, implies(k, executed(k, w, w->late[i]), k->fls));
   if (exclusion(k, s, w) < 0)
      return -1;
   /* A woken wait's signal came while it waited. */
   for (size_t i = 0; i < w->nwaits; i++) {
      const z3w_wait *cw = &w->waits[i];
      assert_(k, s, implies(k, executed(k, w, cw->wait), before(k, w, cw->prev, cw->sig)));
   }
   if (reads(k, s, w) < 0)
      return -1;
   return k->oom ? -1 : 0;
}

void z3e_release(z3e_terms *k)
{
   for (size_t i = 0; i < k->nkeep; i++)
      Z3_dec_ref(k->ctx, k->keep[i]);
   k->nkeep = 0;
   free(k->vars);
   k->vars = NULL;
}
