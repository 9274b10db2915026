/* cb_pattern.c: replay, did e1, f and e2 run in the schedule's order?
 *
 * The plan names the pattern's three events by (thread, counted index);
 * each is stamped with a sequence number when it runs, and its value is
 * said ("value K V") so that a report shows the forced run's values, not
 * the recorded run's.  "pattern 1" is said once, when all three ran in
 * that order, or at the end when the order was begun and cut short
 * (cb_pattern_report); "pattern 0" otherwise.  cb_replay.c feeds it.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcprint.h"
#include "cb_global.h"

static ULong cb_pat[3][2];     /* e1, f, e2: (tid, index) */
static ULong cb_pat_seq[3];    /* when each ran, 0 = not yet */
static ULong cb_seq;
static Bool  cb_pat_reported;

void cb_pattern_load(const ULong *w)
{
   for (Int k = 0; k < 3; k++) {
      cb_pat[k][0] = w[2 * k];
      cb_pat[k][1] = w[2 * k + 1];
   }
}

/* "value K V": what pattern event K (0 e1, 1 f, 2 e2) read or wrote. */
void cb_pattern_value(Int k, UChar kind, ULong value)
{
   if (kind != CB_EV_READ && kind != CB_EV_WRITE)
      return;
   HChar buf[64];
   VG_(snprintf)(buf, sizeof buf, "value %d %llu", k, value);
   cb_replay_status(buf);
}

void cb_pattern_event(ULong wid, ULong index, UChar kind, ULong value)
{
   for (Int k = 0; k < 3; k++)
      if (cb_pat[k][0] == wid && cb_pat[k][1] == index && !cb_pat_seq[k]) {
         cb_pat_seq[k] = ++cb_seq;
         cb_pattern_value(k, kind, value);
      }
}

Bool cb_pattern_all_ran(void)
{
   return !cb_pat_reported && cb_pat_seq[0] && cb_pat_seq[1] && cb_pat_seq[2];
}

/* Whether the process ended with the order begun and cut short: the
 * events that ran are the first of the three, in order, and the thread of
 * the next one was still alive, stopped by the end (a crash, another
 * thread's exit) before it got there.  Enough when the two that order
 * the variable ran (e1 then f), or, for an order violation (f, e1, e1:
 * the last two are one event), when f ran and e1 never did.  A thread
 * that ended by itself (its exit, or the process's exit_group) without
 * the event took another path: no.  One torn down by a fatal signal or
 * by another thread's exit_group was cut short. */
static Bool cb_pattern_cut_short(Bool (*left_by_itself)(ULong tid))
{
   const ULong *q = cb_pat_seq;
   Bool ord = cb_pat[1][0] == cb_pat[2][0] && cb_pat[1][1] == cb_pat[2][1];
   UInt ran = !q[0] ? 0 : !q[1] ? 1 : !q[2] ? 2 : 3;
   if (ran == 3 || ran == 0 || (ran == 1 && !ord) || (ran == 2 && q[0] > q[1]))
      return False;
   return !left_by_itself(cb_pat[ran][0]);
}

/* A hunt (cb_hunt.c) saw the interleaving happen, by other counts. */
void cb_pattern_happened(void)
{
   if (cb_pat_reported)
      return;
   cb_pat_reported = True;
   cb_replay_status("pattern 1");
}

void cb_pattern_report(Bool ending, Bool (*left_by_itself)(ULong tid))
{
   if (cb_pat_reported)
      return;
   cb_pat_reported = True;
   Bool ok = cb_pat_seq[0] && cb_pat_seq[1] && cb_pat_seq[2] &&
             cb_pat_seq[0] < cb_pat_seq[1] && cb_pat_seq[1] < cb_pat_seq[2];
   if (!ok && ending && left_by_itself)
      ok = cb_pattern_cut_short(left_by_itself);
   cb_replay_status(ok ? "pattern 1" : "pattern 0");
}
