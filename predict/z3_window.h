/* z3_window.h: the part of the trace one Z3 query looks at, and the facts
 * the encoding needs about it, computed without Z3 (internal to z3_*.c).
 *
 * The window holds, for every thread, its events from window_begin up to an
 * end: e2 for the thread of e1 and e2 (nothing after e2 in that thread runs
 * before the violation); for a deadlock, T2's request of T1's lock for T2;
 * for every other thread the last event it recorded at or before the cut
 * c = max(f, e2), extended past c until the thread holds no lock (so that a
 * lock held at the cut can be released in the model, as in a read of f
 * inside a critical section that the e2 thread needs next).
 * Every anchor event (hb.h: the counted kinds, thread start and exit) gets
 * an order variable; an event flagged CB_SIZE_SAME_INSN shares its
 * predecessor's variable.  Happens-before comes from hb.h, the edges the
 * vector clocks take too.
 *
 * The files: z3_window.c (the ends, the limit, the events, the sections),
 * z3_window_sync.c (happens-before edges and woken waits),
 * z3_window_reads.c (reads that keep their values), z3_window_util.c
 * (their containers, z3_window_int.h).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef Z3_WINDOW_H
#define Z3_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "cbtrace.h"
#include "hb.h"

#define Z3W_NONE ((size_t)-1) /* no position: before the window, or open */
/* Candidate writes a read may take its value from (z3w_read.src). */
#define Z3W_MAX_SOURCES 4

/* What the query asks (z3_check.h, cb_z3_query.kind). */
typedef enum {
   Z3W_ATOMICITY, /* e1 < f < e2, e1 and e2 one thread */
   Z3W_ORDER,     /* f < e2 (= e1): an order violation */
   Z3W_DEADLOCK   /* T1 holds e1's lock and requests e2's, T2 holds f's and
                     requests g's: both before either gets its second */
} z3w_kind;

typedef struct {
   size_t idx;   /* trace index */
   size_t var;   /* order variable number */
   size_t tprev; /* position of the thread's previous event in the window, or NONE */
   uint32_t tid;
} z3w_event;

/* A critical section: acq NONE = held since before the window, rel NONE =
 * still held at the thread's end of window (open to the end). */
typedef struct {
   uint64_t lock;
   size_t acq, rel;
   uint32_t tid;
   uint8_t shared; /* held for reading (rwlock): two such never conflict */
} z3w_section;

typedef struct { size_t a, b; } z3w_pair; /* a before b, always */

/* A woken COND_WAIT (hb.h matched it to sig, an edge of `before`): if it
 * runs before e2, sig came while it waited, after prev, its thread's
 * release of the mutex.  Not happens-before (a signal sent before the
 * wait began is lost): the wake-up's condition, as locks are exclusion. */
typedef struct {
   size_t wait, prev, sig;
} z3w_wait;

/* A read that runs before e2 must read its recorded value: from one of
 * src[] (writes to the address with that value), or from the value the
 * address had at window_begin when init_ok, with no write of writes[] in
 * between. */
typedef struct {
   size_t read;
   size_t *src;
   size_t nsrc;
   int init_ok;
   const size_t *writes; /* every write to the address in the window */
   size_t nwrites;
} z3w_read;

typedef struct {
   z3w_kind kind;
   size_t wb;        /* window_begin used */
   size_t cut;       /* max(f, e2) */
   size_t pe1, pf, pe2; /* positions of e1, f, e2 */
   size_t pg;        /* deadlock: T2's request (never runs), else NONE */
   int pf_read;      /* f is a read (its value is the violation's) */
   z3w_event *ev;    /* in trace order */
   size_t nev, nvars;
   z3w_section *sec; size_t nsec;
   z3w_pair *before; size_t nbefore; /* happens-before (hb.h) */
   size_t *late; size_t nlate;     /* positions that cannot run before e2 */
   z3w_wait *waits; size_t nwaits;
   z3w_read *reads; size_t nreads;
   /* Why an UNSAT answer would prove nothing, NULL when it would.  It is
    * a proof over the trace up to the cut when the window starts at the
    * trace's start (no event before it taken as done, in recorded order)
    * and no read lost a possible writer (Z3W_MAX_SOURCES): no execution
    * of those events (each thread a prefix of its own, every read before
    * e2 seeing its recorded value, locks exclusive, happens-before kept)
    * has the violation.  Events past the cut are outside that question. */
   const char *incomplete;
   void *arena_; /* owns the lists above */
} z3w_window;

typedef struct {
   z3w_kind kind;
   size_t e1, f, e2;
   size_t g;            /* deadlock: T2's request of e1's lock */
   size_t window_begin;
   size_t max_events;   /* 0 = no limit */
   int strict;
   const cbp_hb *hb;
} z3w_query;

/* Builds the window of query q (at most q->max_events events; the window
 * never starts after e1 or f, so it can exceed the limit when e1..e2 alone
 * do).  Returns 0, or -1 with a reason in why (bad query, out of memory). */
int z3w_build(z3w_window *w, const cb_trace *t, const z3w_query *q,
              char *why, size_t whylen);
void z3w_free(z3w_window *w);
/* Position of trace index idx in the window, or NONE. */
size_t z3w_pos(const z3w_window *w, size_t idx);

#endif /* Z3_WINDOW_H */
