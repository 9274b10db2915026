/* z3_encode.h: turns a z3w_window into Z3 assertions (z3_encode.c), and a
 * model back into the order of the events it runs (z3_model.c); internal
 * to z3_*.c.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef Z3_ENCODE_H
#define Z3_ENCODE_H

#include <z3.h>

#include "z3_window.h"

/* Every term made for one query, referenced until z3e_release (the context
 * is made with Z3_mk_context_rc, so one query's terms do not pile up in a
 * context that lives for the whole run). */
typedef struct {
   Z3_context ctx;
   Z3_ast *keep;
   size_t nkeep, capkeep;
   int oom;
   Z3_ast tru, fls;
   Z3_ast *vars; /* vars[w->nvars]: one integer per order variable */
   size_t nassert;
   double deadline_ms; /* CLOCK_MONOTONIC ms; 0 = none */
   int timed_out;
   /* When f is a read (its value is the violation's, not the recorded
    * one), a literal that stops f's thread right after f: what it would do
    * next may depend on the value it read.  Checked as an assumption first
    * (z3_check.c); NULL when f is no read. */
   Z3_ast stop;
} z3e_terms;

/* Asserts the whole query into s.  Returns 0, or -1 when out of memory or
 * past k->deadline_ms (then k->timed_out is set): a big window's encoding
 * is bounded by the same per-query limit as the solver. */
int z3e_encode(z3e_terms *k, Z3_context ctx, Z3_solver s,
               const z3w_window *w);
double z3e_now_ms(void);
/* Drops every reference taken for the query. */
void z3e_release(z3e_terms *k);

/* The trace indices of the counted events the model m runs (those it
 * places before e2, and e2 unless a deadlock's request), in its order,
 * into *order (grown as needed).  Their number, or -1 with why. */
int z3m_read_order(const z3e_terms *k, const cb_trace *t, const z3w_window *w,
                   Z3_model m, size_t **order, size_t *cap, char *why,
                   size_t whylen);

#endif /* Z3_ENCODE_H */
