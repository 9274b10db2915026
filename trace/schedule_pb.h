/* schedule_pb.h: cb_schedule (cbtrace.h) to and from protobuf-c's Schedule
 * message (schedule_pb.c), for schedule_io.c and the library's tests.
 * Private to the trace library.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CB_SCHEDULE_PB_H
#define CB_SCHEDULE_PB_H

#include "cbtrace.h"
#include "trace.pb-c.h"

typedef struct cb_sched_allocs cb_sched_allocs;
void cb_sched_allocs_free(cb_sched_allocs *a);

/* What a read cb_schedule owns (its priv_): the unpacked message, whose
 * strings and arrays it shares, and its own blocks. */
typedef struct {
   Cbtools__Schedule *pb;
   cb_sched_allocs *allocs;
} cb_sched_priv;

/* A schedule over the unpacked message p, which it then owns (freed by
 * cb_schedule_free); NULL when out of memory (p is still the caller's). */
cb_schedule *cb_schedule_from_pb(Cbtools__Schedule *p);

/* Fills *p from s (sharing s's strings and arrays); returns the blocks to
 * free with cb_sched_allocs_free once p is packed, NULL when out of
 * memory. */
cb_sched_allocs *cb_schedule_to_pb(const cb_schedule *s, Cbtools__Schedule *p);

#endif /* CB_SCHEDULE_PB_H */
