/* hb.h: the happens-before edges of a trace, defined once.  The vector
 * clocks (vclock.c: the lockset pass, the cut-point decision, synthesis)
 * and the Z3 encoding (z3_window.c) both take their orders from here, so
 * the two can never disagree.
 *
 * An edge group says: every source happens before every sink.
 *   CREATE   THREAD_CREATE -> the child's first event
 *   JOIN     the child's last event before the join -> THREAD_JOIN
 *   BARRIER  one round of a barrier: every BARRIER_ENTER of round k ->
 *            every BARRIER_LEAVE of round k (rounds are the enters of a
 *            barrier taken `count` at a time, in trace order; a leave
 *            belongs to its thread's last enter), and no more
 *   COND     a COND_SIGNAL or broadcast -> the COND_WAITs it woke
 *   SEM      SEM_POST n -> the SEM_WAIT that took post n's token
 *   RELEASE  the RELEASEs of an object (once, pthread_kill) -> every later
 *            ACQUIRE of it; a run of releases is one group, and `prev`
 *            names the object's previous group, whose sources are this
 *            group's too (a chain, not a copy: linear in the events)
 *   SPIN     the WRITE a spinning thread waited for -> its READ that saw
 *            it: a thread that read one word SPIN_MIN times in a row with
 *            one value, nothing between (`while (!ready) ;`, a ticket
 *            lock's turn), and then reads another value there, left its
 *            loop because of the write it read from (the latest write of
 *            that word before the read, another thread's, with the value
 *            read).  Ad-hoc synchronisation: its data handed over are
 *            ordered, as by a lock's release and acquire
 * Program order is implicit.  Lock order is not happens-before: it is
 * what schedules permute (locks stay mutual exclusion constraints).
 *
 * Which signal woke which wait: the trace does not say.  A wait began at
 * its thread's previous event (the UNLOCK of pthread_cond_wait) and was
 * woken at COND_WAIT, so it was woken by a signal of another thread in
 * between.  Waits are matched in the order they woke, each to the
 * earliest signal of its interval not yet used (a broadcast serves any
 * number): the greedy maximum matching of points to intervals.  A wait
 * with no such signal (a spurious wake-up, a signal outside the program)
 * gets no edge.
 *
 * Edges join only anchor events (cbp_hb_anchor: the counted kinds, thread
 * start and exit), the events that every consumer places.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#ifndef CB_HB_H
#define CB_HB_H

#include <stddef.h>
#include <stdint.h>

#include "cbtrace.h"

typedef enum {
   CBP_HB_CREATE, CBP_HB_JOIN, CBP_HB_BARRIER, CBP_HB_COND, CBP_HB_SEM,
   CBP_HB_RELEASE, CBP_HB_SPIN
} cbp_hb_kind;

typedef struct {
   uint8_t kind;        /* cbp_hb_kind */
   uint32_t tid;        /* CREATE, JOIN: the child; else 0 */
   uint32_t prev;       /* RELEASE: the object's previous group + 1; 0 none */
   size_t src, nsrc;    /* sources: hb->ev[src .. src + nsrc), increasing */
   size_t dst, ndst;    /* sinks: hb->ev[dst .. dst + ndst), increasing */
} cbp_hb_group;

/* An event's part in a group (as a source, or as a sink). */
typedef struct { uint64_t ev; uint32_t group; } cbp_hb_ref;

typedef struct cbp_hb {
   cbp_hb_group *g; size_t ng;
   uint64_t *ev;               /* the groups' sources and sinks */
   cbp_hb_ref *out; size_t nout; /* (source, group), by event then group */
   cbp_hb_ref *in; size_t nin;   /* (sink, group), by event then group */
} cbp_hb;

/* Whether an event of this kind can carry an edge. */
int cbp_hb_anchor(unsigned kind);
/* The edges of t, in two linear passes.  Free with cbp_hb_free. */
void cbp_hb_build(cbp_hb *hb, const cb_trace *t);
void cbp_hb_free(cbp_hb *hb);
/* The refs of event ev in r[0..n) (hb->out or hb->in): r[*first .. *first
 * + count), count returned. */
size_t cbp_hb_at(const cbp_hb_ref *r, size_t n, uint64_t ev, size_t *first);

#endif /* CB_HB_H */
