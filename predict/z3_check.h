/* z3_check.h: the optional Z3 feasibility check behind `cbpredict --z3`.
 *
 * A cut-point candidate (e1, f, e2) can pass the lockset test and still be
 * impossible because data orders the threads: a flag, a condition variable,
 * a counter.  cb_z3_check decides, with the maximal causal model (Huang et
 * al., PLDI 2014; Wang et al., TACAS 2010), whether some execution that is
 * consistent with the recorded trace runs e1, then f, then e2, and if so
 * gives the order in which to run the events up to e2.
 *
 * The encoding, in short (details and the choices made in z3_encode.c):
 * one integer order variable per event of a window of the trace; program
 * order; lock mutual exclusion; the happens-before edges of hb.h (create,
 * join, barrier rounds, the signal that woke a wait, the post a semaphore
 * wait took, releases to later acquires), the very edges the vector clocks
 * take; every read that runs before e2 (except f and e2 themselves, whose
 * values are the violation, and, unless strict, the violation's own loads
 * of its variable: see cb_z3_query.strict) reads the value it read in the
 * recorded run, from a write of that value with no other write to the
 * address in between; e1 < f < e2 (or the order violation's, the
 * deadlock's shape: cb_z3_query.kind).
 * Events after e2 in the model are not run by the schedule, so every
 * constraint except program order only binds events placed before e2.
 * Events flagged CB_SIZE_SAME_INSN share their predecessor's order variable:
 * no schedule can cut inside one machine instruction.
 *
 * Verdicts: SAT (a feasible order is returned), UNSAT (drop the candidate:
 * only when the window is complete, a proof over the whole prefix: it
 * starts at the trace's start and assumed nothing about events outside it,
 * z3_window.h), UNKNOWN (time limit, Z3 error, a query the encoding cannot
 * take, or an UNSAT over an incomplete window: keep the candidate, as
 * without --z3).
 *
 * Not thread-safe: one cb_z3 per thread.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef Z3_CHECK_H
#define Z3_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "cbtrace.h"

struct cbp_hb;
typedef enum { CB_Z3_SAT, CB_Z3_UNSAT, CB_Z3_UNKNOWN } cb_z3_verdict;

/* What a query asks (z3_window.h, z3w_kind): CB_Z3_ATOMICITY e1 < f < e2;
 * CB_Z3_ORDER an order violation, f before e1 = e2; CB_Z3_DEADLOCK a lock
 * order inversion: T1 holds e1's lock and requests e2's, T2 holds f's and
 * requests g's, both at once. */
enum { CB_Z3_ATOMICITY, CB_Z3_ORDER, CB_Z3_DEADLOCK };

typedef struct {
   size_t e1, f, e2;    /* trace indices: e1 < e2 by one thread, f by another */
   size_t window_begin; /* first trace index of the window; events before it
                           are taken as done, in recorded order (0 is fine:
                           the window is moved forward to fit the limit) */
   /* 0 (the default): reads of the pattern's own variable that belong to
    * the violation are left free: e1 and the e1 thread's reads of it up to
    * e2, and the f thread's reads of it since its last synchronisation
    * before f (the load of `x = x + 1`).  Their values necessarily change
    * in a lost update; asking them to keep their recorded values would
    * drop every read-modify-write bug.  1: the strict maximal causal
    * model, every read before e2 but f and e2 keeps its value (then SAT
    * guarantees the whole prefix takes its recorded path). */
   int strict;
   /* The trace's happens-before edges (hb.h), the ones the vector clocks
    * take; NULL: built for this query. */
   const struct cbp_hb *hb;
   int kind;            /* CB_Z3_ATOMICITY (0), CB_Z3_ORDER, CB_Z3_DEADLOCK */
   size_t g;            /* CB_Z3_DEADLOCK: T2's request of e1's lock */
} cb_z3_query;

typedef struct {
   /* On SAT: the trace indices of the counted events (CB_IS_COUNTED) the
    * schedule must run from window_begin on, in the model's order, ending
    * with e2.  Events of the window that are not listed run after e2, when
    * every thread is released.  Owned by the cb_z3, valid until its next
    * cb_z3_check or cb_z3_free.  NULL and 0 otherwise. */
   const size_t *order;
   size_t norder;
   /* The window actually used: events before window_begin (in every
    * thread) must run first, in recorded order, before `order`.  It is
    * never before the query's window_begin. */
   size_t window_begin;
   size_t window_events; /* events that got an order variable */
   double solver_ms;     /* time spent in Z3 for this query */
   /* For UNKNOWN: why ("timeout", a Z3 error, a bad query); "" otherwise. */
   char why[160];
} cb_z3_result;

typedef struct {
   unsigned long queries, sat, unsat, unknown;
   double solver_ms;  /* total over all queries (encoding + solving) */
   unsigned long window_events; /* total, for averages */
} cb_z3_stats;

typedef struct cb_z3 cb_z3;

/* timeout_ms: per-query limit (0 = none).  max_window_events: upper bound
 * on the events of one window (0 = no limit); when a candidate's window
 * would be larger, window_begin is moved forward.  NULL when Z3 cannot
 * start (out of memory). */
cb_z3 *cb_z3_new(unsigned timeout_ms, size_t max_window_events);
void cb_z3_free(cb_z3 *z);

/* Decides whether an execution exists in which e1 < f < e2, consistent with
 * the trace t (see above).  res may be NULL.  Never fails: a query it cannot
 * take (indices out of range, e1 and e2 in different threads...) is UNKNOWN
 * with the reason in res->why. */
cb_z3_verdict cb_z3_check(cb_z3 *z, const cb_trace *t, const cb_z3_query *q,
                          cb_z3_result *res);

/* The schedule's compact form of a SAT result (the replay plan's prefix and
 * tail, cb_wire.h): prefix[k] = counted events thread k+1 runs before the
 * tail, for k < nthreads (those before res->window_begin, in recorded
 * order), and the tail as runs of one thread, which cannot cut inside one
 * instruction.  tail needs room for res->norder steps.  Returns the number
 * of steps.  (cb_z3_step has the layout of cbpredict's cbp_step.) */
typedef struct {
   uint32_t tid;
   uint64_t count;
} cb_z3_step;
size_t cb_z3_to_schedule(const cb_trace *t, const cb_z3_result *res,
                         uint64_t *prefix, uint32_t nthreads,
                         cb_z3_step *tail);

/* Counters since cb_z3_new, for reports. */
void cb_z3_get_stats(const cb_z3 *z, cb_z3_stats *out);

/* "sat", "unsat", "unknown". */
const char *cb_z3_verdict_name(cb_z3_verdict v);

#endif /* Z3_CHECK_H */
