/* cb_hunt.c: replay, a schedule forced by the code of its events, not by
 * the recorded counts (a "hunt" plan, cb_wire.h).
 *
 * A schedule's prefix names each thread's counted events up to the cut.
 * In a larger program the threads share their work differently in every
 * run (which worker takes which job, how often a ticker refills a
 * bucket), and a prefix of 10^5 events cannot be followed: blind trial
 * 17's thread pool, pipeline and rate limiter had the bug's own schedule
 * predicted, and every forced run of it was infeasible.  A hunt plan has
 * no prefix and no tail; it names the pattern's events by what they are:
 *   - AFTER (the atomicity patterns: e1, then f of another thread, then
 *     e2): the first thread that makes an event of e1's kind at e1's code
 *     (on e1's address when that is stable from run to run) is held right
 *     after it, while the others run, until another thread makes an event
 *     of f's kind on the same address: then it goes on to its e2;
 *   - BEFORE (an order violation: f is to come before the access a that
 *     ran first): the first thread about to run a's instruction (cb_gate)
 *     is held before it until another thread makes f's kind of event on
 *     a's address.
 * A hold ends without f after CB_HUNT_IDLE_MS in which no other thread
 * made an event (they wait for the held one: a lock it holds), or after
 * the plan's hold limit once the others made CB_HUNT_MIN_OTHERS events;
 * then the hunt looks again, at most the plan's number of holds.  "pattern 1" is said when f came during a hold: the
 * interleaving the schedule asks for happened, whatever counts it took.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "cb_global.h"

/* No other thread's event for this long: they wait for the held one (a
 * lock it holds; a spin lock's waiters make no events at all, and take
 * whole time slices, so the held thread's denials are no clock here). */
#define CB_HUNT_IDLE_MS 100u
/* A hold without f ends after the plan's limit once the others made this
 * many events meanwhile (on a loaded machine the limit alone may pass
 * before they ran at all), and after CB_HUNT_HARD_FACTOR times the limit
 * in any case. */
#define CB_HUNT_MIN_OTHERS 10000u
#define CB_HUNT_HARD_FACTOR 4u
/* All holds of a run together at most this many times the limit: a
 * correct program the hunt slows down must still end within --timeout
 * (a spin-locked ring's consumer, held while its producers spun on the
 * full ring, took four 4 s holds on a loaded machine, "hung"). */
#define CB_HUNT_TOTAL_FACTOR 4u
/* How often a denied held thread looks at the clock (a system call). */
#define CB_HUNT_SAMPLE 64u

static UInt  cb_hmode;              /* CB_HUNT_NONE, _AFTER, _BEFORE */
static UChar cb_h_kind, cb_f_kind;
static Addr  cb_h_code, cb_h_data;
static Bool  cb_h_stable;
static UInt  cb_hold_ms;
static ULong cb_max_holds;

static CbThread *cb_held;
static UInt  cb_victim;             /* the wid held last */
static Addr  cb_x;                  /* the held thread's variable */
static UInt  cb_began, cb_last_other;
static ULong cb_holds, cb_others, cb_others_seen, cb_others_at_hold;
static UInt  cb_denials;
static Bool  cb_hit;                /* f came during a hold */
static Bool  cb_e2_said;            /* the held thread's access after f */
static UInt  cb_grace_until;        /* deadlines wait until then (ms) */
static UInt  cb_held_total;         /* ms of the holds that ended */

/* Reads "nhunt, then nhunt words" from w[*at]: 0 (none) or 8 (mode,
 * hold kind, hold code, hold data, data stable, f's kind, hold limit in
 * ms, holds at most).  A plan that ends before has none. */
Bool cb_hunt_load(const ULong *w, ULong nw, ULong *at)
{
   ULong i = *at;
   if (i >= nw)
      return True;
   ULong n = w[i++];
   if (n == 0) {
      *at = i;
      return True;
   }
   if (n != 8 || nw - i < 8 || (w[i] != CB_HUNT_AFTER && w[i] != CB_HUNT_BEFORE) ||
       w[i + 1] > 0xff || w[i + 5] > 0xff)
      return False;
   cb_hmode = (UInt)w[i];
   cb_h_kind = (UChar)w[i + 1];
   cb_h_code = (Addr)w[i + 2];
   cb_h_data = (Addr)w[i + 3];
   cb_h_stable = w[i + 4] != 0;
   cb_f_kind = (UChar)w[i + 5];
   cb_hold_ms = w[i + 6] > 60000 ? 60000 : (UInt)w[i + 6];
   cb_max_holds = w[i + 7];
   *at = i + 8;
   return True;
}

/* Set once the plan's threads are released with a hunt to make: the
 * gates look at every instruction then (cb_emit.c). */
Bool cb_hunting;

void cb_hunt_start(void)
{
   cb_hunting = cb_hmode != CB_HUNT_NONE;
}

static void cb_hunt_say(const HChar *fact, const CbThread *t)
{
   HChar buf[64];
   VG_(snprintf)(buf, sizeof buf, "%s %u %llu", fact, t->wid, cb_holds);
   cb_replay_status(buf);
}

static void cb_hold(CbThread *t, Addr a)
{
   cb_held = t;
   cb_victim = t->wid;
   cb_x = a;
   cb_holds++;
   cb_began = cb_last_other = VG_(read_millisecond_timer)();
   cb_others_seen = cb_others_at_hold = cb_others;
   cb_denials = 0;
   cb_hunt_say("hunt-hold", t);
}

static void cb_let_go(const HChar *fact)
{
   if (fact)
      cb_hunt_say(fact, cb_held);
   cb_held = NULL;
   UInt now = VG_(read_millisecond_timer)();
   cb_grace_until = now + (now - cb_began);
   cb_held_total += now - cb_began;
}

/* Whether another hold may begin. */
static Bool cb_may_hold(void)
{
   return !cb_held && !cb_hit && cb_holds < cb_max_holds &&
          cb_held_total < CB_HUNT_TOTAL_FACTOR * cb_hold_ms;
}

/* Whether the hunt may still hold a thread, or has just held one: the
 * program's sync calls keep asking for turns (cb_sync.c), and its timed
 * waits whether they may time out. */
Bool cb_hunt_unfinished(void)
{
   if (!cb_hunting)
      return False;
   if (cb_held || cb_may_hold())
      return True;
   return (Int)(cb_grace_until - VG_(read_millisecond_timer)()) > 0;
}

/* A timed wait's deadline passed (cb_replay_timeout_may_fire): not while
 * a thread is held, nor for as long again after the hold, the time the
 * held thread was kept from what it would have done (a correct program
 * whose worker gives up after 200 ms when main was held for a second is
 * no bug of the program's). */
Bool cb_hunt_timeout_may_fire(void)
{
   if (!cb_hunting)
      return True;
   if (cb_held)
      return False;
   return (Int)(cb_grace_until - VG_(read_millisecond_timer)()) <= 0;
}

/* Whether a (kind, code, data) is the event the hunt holds at. */
static Bool cb_is_hold_point(UChar kind, Addr code, Addr a)
{
   return kind == cb_h_kind && code == cb_h_code && (!cb_h_stable || a == cb_h_data);
}

/* The plan's pattern slots (cb_pattern.c) as cbreplay writes them: e1, f,
 * e2, but f first for an order violation (f, a, a). */
#define CB_SLOT_F (cb_hmode == CB_HUNT_BEFORE ? 0 : 1)

/* Every counted event once the plan is released (cb_replay.c): the hold
 * point of an AFTER hunt, f, and the held thread's next access of the
 * variable after f (e2; an order violation's a). */
void cb_hunt_event(CbThread *t, UChar kind, UInt loc, Addr a, ULong value)
{
   if (!cb_hunting)
      return;
   if (cb_held && t != cb_held) {
      cb_others++;
      if (kind != cb_f_kind || a != cb_x)
         return;
      cb_pattern_value(CB_SLOT_F, kind, value);
      cb_hit = True;
      HChar buf[64];
      VG_(snprintf)(buf, sizeof buf, "hunt-hit %u %llu %u", cb_held->wid, cb_holds,
                    t->wid);
      cb_replay_status(buf);
      cb_let_go(NULL);
      cb_pattern_happened();
      return;
   }
   if (cb_hit) {
      if (!cb_e2_said && t->wid == cb_victim && a == cb_x) {
         cb_e2_said = True;
         if (cb_hmode == CB_HUNT_BEFORE)
            cb_pattern_value(1, kind, value);
         cb_pattern_value(2, kind, value);
      }
      return;
   }
   if (cb_hmode == CB_HUNT_AFTER && cb_may_hold() &&
       cb_is_hold_point(kind, cb_loc_address(loc), a)) {
      cb_pattern_value(0, kind, value);
      cb_hold(t, a);
   }
}

/* cb_gate_split (cb_split.c): whether the load of this split-able
 * instruction (info: its read's event word) is an AFTER hunt's hold
 * point, to be run alone so that the hold falls between load and store. */
Bool cb_hunt_splits(Addr a, UWord info)
{
   return cb_hmode == CB_HUNT_AFTER && cb_may_hold() &&
          cb_is_hold_point(CB_EV_READ, cb_loc_address((UInt)(info >> 32)), a);
}

/* cb_gate of a BEFORE hunt: thread t is about to run instruction insn on
 * address a (its first access); hold it there. */
void cb_hunt_gate(CbThread *t, Addr insn, Addr a)
{
   if (!cb_hunting || cb_hmode != CB_HUNT_BEFORE || !cb_may_hold() ||
       insn != cb_h_code || (cb_h_stable && a != cb_h_data))
      return;
   cb_hold(t, a);
}

/* Whether t must wait: it is the held thread and the hold goes on. */
Bool cb_hunt_holds(CbThread *t)
{
   if (t != cb_held)
      return False;
   if (++cb_denials % CB_HUNT_SAMPLE != 0)
      return True;
   UInt now = VG_(read_millisecond_timer)();
   if (cb_others != cb_others_seen) {
      cb_others_seen = cb_others;
      cb_last_other = now;
   }
   if (now - cb_last_other > CB_HUNT_IDLE_MS) {
      cb_let_go("hunt-idle");
      return False;
   }
   UInt held = now - cb_began;
   if ((held > cb_hold_ms && cb_others - cb_others_at_hold >= CB_HUNT_MIN_OTHERS) ||
       held > CB_HUNT_HARD_FACTOR * cb_hold_ms) {
      cb_let_go("hunt-timed-out");
      return False;
   }
   return True;
}

/* The process ends (cb_replay_ending): a hunt whose f never came during
 * a hold tested nothing, and says so as a plan that could not be
 * followed does (cbreplay: infeasible, unless the program failed). */
void cb_hunt_end(void)
{
   if (!cb_hunting || cb_hit)
      return;
   HChar buf[128];
   if (cb_holds == 0)
      VG_(snprintf)(buf, sizeof buf, "infeasible the hunt: no thread reached "
                    "e1's instruction");
   else
      VG_(snprintf)(buf, sizeof buf, "infeasible the hunt: %llu hold(s) at "
                    "e1's instruction, and no other thread's f came", cb_holds);
   cb_replay_status(buf);
}

/* The held thread exited or the process ends: nobody is held. */
void cb_hunt_thread_exit(const CbThread *t)
{
   if (t == cb_held)
      cb_held = NULL;
}
