/* hunt.c: the last try of a schedule none of whose variants could be
 * followed, by the code of its events instead of the recorded counts.
 *
 * A schedule's prefix and tail count each thread's events as the recorded
 * run made them.  In a program whose threads share work differently in
 * every run (a pool's workers, a pipeline's stages, a ticker), a prefix of
 * 10^5 events cannot be followed, and every variant is infeasible: blind
 * trial 17's futpool, pipeline and tokbucket had their bugs' schedules
 * predicted and never tested.  The hunt (vgtool/cb_hunt.c) holds the
 * first thread that reaches e1's instruction (on e1's variable, when its
 * address is the same in every run) right after it until another thread
 * makes f's kind of access to the same variable, then lets it go on to
 * e2; for an order violation it holds the thread before a's instruction
 * until f.  Which thread, which instance: whatever the run offers first.
 * The program's own test judges the run, as for any variant (a run that
 * passed without f coming during a hold tested nothing: infeasible); a failure
 * is confirmed and pinned the same way (its whole order, recorded, is the
 * reproducer), and `--variant N` with N the schedule's number of tail
 * variants forces the hunt alone.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <string.h>

#include "replay.h"

/* How long one hold waits for f at most, and how many holds a run makes:
 * a hold that f does not end costs up to this; the run's other threads
 * go on meanwhile. */
#define CBR_HUNT_HOLD_MS 500u
#define CBR_HUNT_HOLDS 4u

static int is_access(const cb_sched_event *e)
{
   return e && e->has_kind && (e->kind == CB_EV_READ || e->kind == CB_EV_WRITE);
}

int cbr_hunt_index(const cb_schedule *s)
{
   if (!s->pattern || cbr_is_explore(s) || cbr_is_deadlock(s) ||
       !is_access(s->e1) || !is_access(s->f) || !s->e1->location ||
       !s->e1->location->has_address || !s->e1->location->address)
      return -1;
   return (int)cb_schedule_nvariants(s);
}

int cbr_is_hunt(const cb_schedule *s, unsigned variant)
{
   int h = cbr_hunt_index(s);
   return h >= 0 && (unsigned)h == variant;
}

const char *cbr_hunt_name(const cb_schedule *s)
{
   return cbr_is_order(s) ? "the hunt: the first thread at e1's instruction held "
                        "before it until another thread's f on its variable, "
                        "not by the recorded counts"
                      : "the hunt: the first thread past e1's instruction held "
                        "until another thread's f on its variable, then on to "
                        "e2, not by the recorded counts";
}

void cbr_hunt_words(const cb_schedule *s, uint64_t w[CBR_HUNT_WORDS])
{
   const cb_sched_event *h = s->e1;
   int stable = h->has_address_stable && h->address_stable;
   w[0] = cbr_is_order(s) ? CB_HUNT_BEFORE : CB_HUNT_AFTER;
   w[1] = h->kind;
   w[2] = h->location->address;
   w[3] = stable && h->has_address ? h->address : 0;
   w[4] = stable && h->has_address;
   w[5] = s->f->kind;
   w[6] = CBR_HUNT_HOLD_MS;
   w[7] = CBR_HUNT_HOLDS;
}
