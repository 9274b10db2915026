/* z3_window.h: the part of the trace one Z3 query looks at, and the facts
 * the encoding needs about it, computed without Z3 (internal to z3_*.c).
 *
 * The window holds, for every thread, its events from window_begin up to an
 * end: e2 for the thread of e1 and e2 (nothing after e2 in that thread runs
 * before the violation); for every other thread the last event it recorded
 * at or before the cut c = max(f, e2), extended past c until the thread holds
 * no lock (so that a lock held at the cut can be released in the model, as in
 * a read of f inside a critical section that the e2 thread needs next).
 * Only events that order threads get an order variable (memory accesses,
 * locks, condition variables, barriers, thread create/start/join/exit); an
 * event flagged CB_SIZE_SAME_INSN shares its predecessor's variable.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef Z3_WINDOW_H
#define Z3_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "cbtrace.h"

#define Z3W_NONE ((size_t)-1) /* no position: before the window, or open */
/* Candidate writes a read may take its value from (z3w_read.src). */
#define Z3W_MAX_SOURCES 4

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

/* A woken COND_WAIT: if it runs before e2, some signal in sig[] ran between
 * the thread's release of the mutex (prev) and the wake-up (wait). */
typedef struct {
   size_t wait, prev;
   size_t *sig;
   size_t nsig;
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
   size_t wb;        /* window_begin used */
   size_t cut;       /* max(f, e2) */
   size_t pe1, pf, pe2; /* positions of e1, f, e2 */
   z3w_event *ev;    /* in trace order */
   size_t nev, nvars;
   z3w_section *sec; size_t nsec;
   z3w_pair *before; size_t nbefore;
   size_t *late; size_t nlate;     /* positions that cannot run before e2 */
   z3w_wait *waits; size_t nwaits;
   z3w_read *reads; size_t nreads;
   void *arena_; /* owns the lists above */
} z3w_window;

/* Builds the window of query (e1, f, e2, window_begin) with at most
 * max_events events (0 = no limit; the window never starts after e1 or f,
 * so it can exceed the limit when e1..e2 alone do).  Returns 0, or -1 with
 * a reason in why (bad query, out of memory). */
int z3w_build(z3w_window *w, const cb_trace *t, size_t e1, size_t f,
              size_t e2, size_t window_begin, size_t max_events, int strict,
              char *why, size_t whylen);
void z3w_free(z3w_window *w);

#endif /* Z3_WINDOW_H */
