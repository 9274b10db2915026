/* cb_replay.c: replay mode, forcing a plan (cb_wire.h, "The replay plan").
 *
 * Counted events are numbered per thread exactly as in record mode.  In the
 * prefix each thread runs up to its prefix count, then waits, keeping the
 * recorded order where the plan says so (cb_porder.c); in the
 * tail only the thread of the current step runs its next n events (or, in
 * a run-out step, runs until it exits or blocks); after the last step
 * everyone is released.  Waiting happens in the instruction gate
 * (cb_instrument.c) and in the preload library's "may I?" loop, both of
 * which end here.  A plan that cannot be followed (the thread whose turn it
 * is has gone, or no scheduled progress for the stall limit) is declared
 * infeasible and everyone is released: a replay never hangs.
 *
 * Every fact goes to the status fd as a line (cb_wire.h; written by
 * cb_replay_status.c), the last one "end ..." from the tool's shut-down:
 * cbreplay takes a run without it for one where Valgrind or the tool died,
 * never for the program's failure.
 * A thread waits for its turn only in a gate (the instruction gate of
 * cb_instrument.c, the preload's "may I?" loops), and a wrapper announces
 * a blocking call only after its gate let it through: the deadlock check
 * (cb_deadlock.c) relies on that to tell a thread the plan holds back from
 * one the program blocked.  (With --cb-instrument=all the C library's own
 * code has instruction gates, inside the real call; but the check calls a
 * call blocked only when nothing but another thread could let it return.)
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vkiscnums.h"
#include "cb_global.h"

/* Not in the tool headers (pub_core_syscall.h, Valgrind 3.19). */
extern SysRes VG_(do_syscall)(UWord sysno, UWord, UWord, UWord, UWord, UWord,
                              UWord, UWord, UWord);

const HChar *cb_plan_path;

typedef enum { CB_PH_PREFIX, CB_PH_TAIL, CB_PH_RELEASED } CbPhase;

static CbPhase cb_phase = CB_PH_RELEASED;
static ULong   cb_nthreads;         /* threads the plan knows, 1..n */
static ULong  *cb_prefix;           /* [1..n] */
static ULong  *cb_done;             /* [1..n] counted events run so far */
static Bool   *cb_exited;           /* [1..n] */
static Bool   *cb_left;             /* [1..n] ended by its own exit or
                                       exit_group, not torn down */
static ULong   cb_prefix_pending;   /* threads not yet at their prefix */
static ULong   cb_ntail, cb_step;   /* tail steps, current one */
static ULong  *cb_tail;             /* pairs (tid, n) */
static ULong   cb_step_left;        /* events left in the current step */
static Bool    cb_run_out;          /* the current step is a run-out step */
static UInt    cb_run_out_began;    /* when it began (ms) */
static UInt    cb_run_out_events;   /* counted events run in it */
static Bool    cb_ending;           /* shut-down: threads are torn down */
static ULong   cb_step_said;        /* last step number written, 0 = none */
static Bool    cb_diverged_reported;
static ULong   cb_stall_ms;
static UInt    cb_last_progress;

/* Whether thread tid ended by itself (its exit, or the process's
 * exit_group), not torn down: cb_pattern.c asks at the end. */
static Bool cb_left_by_itself(ULong tid)
{
   return tid < 1 || tid > cb_nthreads || cb_left[tid];
}

static void cb_say_step_reached(void);

static void cb_release(void)
{
   if (cb_phase == CB_PH_RELEASED)
      return;
   cb_say_step_reached();
   cb_phase = CB_PH_RELEASED;
   cb_replay_status("released");
   cb_hunt_start();
   if (cb_pattern_all_ran())
      cb_pattern_report(False, NULL);
}

static void cb_infeasible(const HChar *why)
{
   if (cb_phase == CB_PH_RELEASED)
      return;
   HChar buf[128];
   VG_(snprintf)(buf, sizeof buf, "infeasible %s", why);
   cb_replay_status(buf);
   cb_release();
}

/* "step K N" as tail step K (1-based) starts.  A long hand-made tail
 * (the benchmark's 100,000 steps) would pay a write per forced switch, so
 * past the first 64 only every 256th step is said as it starts; shut-down
 * and the release say the last one started (cb_say_step_reached). */
static void cb_say_step(Bool always)
{
   ULong k = cb_step + 1;
   if (k == cb_step_said || k > cb_ntail)
      return;
   if (!always && k > 64 && k % 256 != 0 && k != cb_ntail)
      return;
   HChar buf[64];
   VG_(snprintf)(buf, sizeof buf, "step %llu %llu", k, cb_ntail);
   cb_replay_status(buf);
   cb_step_said = k;
}

static void cb_say_step_reached(void)
{
   if (cb_phase == CB_PH_TAIL)
      cb_say_step(True);
}

static Bool cb_step_thread_exited(void)
{
   ULong tid = cb_tail[2 * cb_step];
   return tid <= cb_nthreads && cb_exited[tid];
}

/* Moves to the next step with events left, or ends the tail.  A run-out
 * step whose thread has already gone has nothing to run out; a counted
 * step whose thread has gone can never be taken. */
static void cb_next_step(void)
{
   for (; cb_step < cb_ntail; cb_step++) {
      ULong n = cb_tail[2 * cb_step + 1];
      if (n == 0 || (n == CB_STEP_RUN_OUT && cb_step_thread_exited()))
         continue;
      break;
   }
   if (cb_step >= cb_ntail) {
      cb_replay_status("tail-done");
      cb_release();
      return;
   }
   cb_run_out = cb_tail[2 * cb_step + 1] == CB_STEP_RUN_OUT;
   cb_step_left = cb_run_out ? 0 : cb_tail[2 * cb_step + 1];
   if (cb_run_out)
      cb_run_out_began = VG_(read_millisecond_timer)();
   cb_say_step(False);
   if (!cb_run_out && cb_step_thread_exited()) {
      HChar buf[96];
      VG_(snprintf)(buf, sizeof buf, "thread %llu had exited before its turn",
                    cb_tail[2 * cb_step]);
      cb_infeasible(buf);
   }
}

/* Stall detection.  Reading the clock is a system call under Valgrind, and
 * a forced context switch costs only about 20 us, so neither counted events
 * nor denials read it each time: events bump cb_progress, and every
 * CB_STALL_SAMPLE-th denial compares it with what it was at the last sample.
 * A stalled plan spins through denials quickly, so the delay this adds to
 * noticing a stall is negligible beside cb_stall_ms. */
#define CB_STALL_SAMPLE 64u
static ULong cb_progress, cb_progress_sampled;
static UInt cb_denials;
static UInt cb_denials_at_progress;

/* A run-out thread counts as blocked only when the others were denied this
 * often meanwhile too: the idle time alone misleads on a loaded machine,
 * where the whole process may not run for longer than the idle limit. */
#define CB_RUN_OUT_IDLE_DENIALS 1024u

static void cb_note_progress_time(void)
{
   cb_progress_sampled = cb_progress;
   cb_last_progress = VG_(read_millisecond_timer)();
   cb_denials_at_progress = cb_denials;
}

static void cb_start_tail(void)
{
   cb_replay_status("prefix-done");
   cb_phase = CB_PH_TAIL;
   cb_step = 0;
   cb_note_progress_time();
   cb_next_step();
}

Bool cb_replay_init(void)
{
   CbPlan plan;
   cb_replay_status_init();
   if (!cb_plan_load(cb_plan_path, &plan))
      return False;
   cb_nthreads = plan.nthreads;
   cb_prefix = plan.prefix;
   cb_ntail = plan.ntail;
   cb_tail = plan.tail;
   cb_stall_ms = plan.stall_ms;
   cb_done = VG_(calloc)("cb.plan", cb_nthreads + 2, sizeof(ULong));
   cb_exited = VG_(calloc)("cb.plan", cb_nthreads + 2, sizeof(Bool));
   cb_left = VG_(calloc)("cb.plan", cb_nthreads + 2, sizeof(Bool));
   for (ULong t = 1; t <= cb_nthreads; t++)
      if (cb_prefix[t] > 0)
         cb_prefix_pending++;
   cb_note_progress_time();
   cb_phase = CB_PH_PREFIX;
   if (cb_prefix_pending == 0)
      cb_start_tail();
   return True;
}

/* For good: nothing sets the phase back once every thread is released. */
Bool cb_replay_released(void)
{
   return cb_phase == CB_PH_RELEASED;
}

/* Whether the plan's counts let t run: its prefix, or its tail turn. */
static Bool cb_turn_allows(const CbThread *t)
{
   switch (cb_phase) {
   case CB_PH_PREFIX:
      return t->wid <= cb_nthreads && cb_done[t->wid] < cb_prefix[t->wid];
   case CB_PH_TAIL:
      return t->wid == cb_tail[2 * cb_step];
   default:
      return True;
   }
}

/* The counts, and in the prefix the recorded order (cb_porder.c). */
static Bool cb_allowed(CbThread *t)
{
   if (!cb_turn_allows(t))
      return False;
   return cb_phase != CB_PH_PREFIX ||
          !cb_porder_holds(t->wid, cb_done, cb_exited);
}

ULong cb_replay_allowance(CbThread *t)
{
   switch (cb_phase) {
   case CB_PH_PREFIX: {
      if (!cb_allowed(t))
         return 0;
      ULong left = cb_prefix[t->wid] - cb_done[t->wid];
      ULong room = cb_porder_room(t->wid, cb_done, cb_exited);
      return room < left ? room : left;
   }
   case CB_PH_TAIL:
      if (!cb_allowed(t))
         return 0;
      return cb_run_out ? ~0ULL : cb_step_left;
   default:
      return ~0ULL;
   }
}

/* A denied thread gives the CPU away when nothing ran since the previous
 * denial.  A denial makes the scheduler release the big lock and take it
 * again at once; the fair (ticket) lock hands it to whichever thread is
 * queued.  But when both threads share one CPU, releasing the lock wakes
 * the queued thread, which preempts the releaser inside that futex wake,
 * before it has queued again.  The woken thread runs its turn, is denied,
 * finds nobody queued and gets the lock straight back, and would spin
 * through denials for the rest of its kernel time slice (milliseconds)
 * while the thread whose turn it is waits on the same CPU's run queue.
 * sched_yield lets that thread run and queue; the big lock stays held, so
 * the yield is safe here.  When the threads are on two CPUs a repeated
 * denial is rare, and the yield returns at once if nothing else waits. */
static ULong cb_progress_at_denial = ~0ULL;

void cb_kernel_yield(void)
{
   (void)VG_(do_syscall)(__NR_sched_yield, 0, 0, 0, 0, 0, 0, 0, 0);
}

static void cb_yield_if_nothing_ran(void)
{
   if (cb_progress == cb_progress_at_denial)
      cb_kernel_yield();
   cb_progress_at_denial = cb_progress;
}

/* A run-out step's thread that has made no progress for this long has
 * blocked (or waits for a thread the plan holds): the plan moves on. */
static UInt cb_run_out_idle_ms(void)
{
   return cb_stall_ms < CB_RUN_OUT_IDLE_MS ? (UInt)cb_stall_ms
                                           : CB_RUN_OUT_IDLE_MS;
}

/* A run-out step ends at the latest after CB_RUN_OUT_MAX_MS: a thread
 * that polls a flag another thread must set (a spin or sleep loop) never
 * blocks and never exits, and holding everyone else back forever would
 * make the plan hang the program, a deadlock of our making. */
static Bool cb_run_out_too_long(void)
{
   return VG_(read_millisecond_timer)() - cb_run_out_began > CB_RUN_OUT_MAX_MS;
}

static void cb_run_out_ends(const HChar *fact)
{
   HChar buf[64];
   VG_(snprintf)(buf, sizeof buf, "%s %llu", fact, cb_tail[2 * cb_step]);
   cb_replay_status(buf);
   cb_step++;
   cb_note_progress_time();
   cb_next_step();
}

/* The plan made no progress for the stall limit: say what the threads
 * wait for (cb_deadlock.c), and whose turn it was, then release them. */
static void cb_stalled(void)
{
   HChar buf[160];
   cb_deadlock_say_waits();
   if (cb_phase == CB_PH_TAIL) {
      VG_(snprintf)(buf, sizeof buf, "stalled: no scheduled progress "
                    "(T%llu's turn, step %llu of %llu)", cb_tail[2 * cb_step],
                    cb_step + 1, cb_ntail);
   } else {
      ULong t = 1;
      while (t <= cb_nthreads && cb_done[t] >= cb_prefix[t])
         t++;
      if (t <= cb_nthreads)
         VG_(snprintf)(buf, sizeof buf, "stalled: no scheduled progress "
                       "(before the cut, T%llu at %llu of its %llu events%s)",
                       t, cb_done[t], cb_prefix[t],
                       cb_exited[t] ? ", exited" : "");
      else
         VG_(snprintf)(buf, sizeof buf, "stalled: no scheduled progress");
   }
   cb_infeasible(buf);
}

/* The plan cannot go on: the threads it lets run all wait for ones it
 * holds back (cb_deadlock.c).  Then it ends after CB_STUCK_MS when each
 * is surely blocked, after CB_WAITING_MS when one may have been woken
 * and not run yet (a loaded machine), with as many denials as a blocked
 * run-out step needs, not after the stall limit: seconds per forced run
 * that cannot be followed, most of a suite's time on a correct program.
 * The short wait stays because a thread the plan holds may still be on
 * its way to its gate, and end (a join's wait). */
#define CB_STUCK_MS 100u
#define CB_WAITING_MS 1000u

/* Whether every thread the plan lets run spins (its reads only repeat:
 * cb_repeat.c): it waits for one the plan holds, as surely as a blocked
 * one, only without a call that says so. */
static Bool cb_allowed_spin(void)
{
   if (cb_phase == CB_PH_TAIL)
      return cb_repeat_spinning((UInt)cb_tail[2 * cb_step]);
   ULong spinning = 0;
   for (ULong w = 1; w <= cb_nthreads; w++)
      if (cb_done[w] < cb_prefix[w] && !cb_exited[w] &&
          !cb_porder_holds(w, cb_done, cb_exited)) {
         if (!cb_repeat_spinning((UInt)w))
            return False;
         spinning++;
      }
   return spinning > 0;
}

static Bool cb_plan_stuck(UInt idle)
{
   ULong expected = 0;
   if (cb_phase == CB_PH_TAIL && cb_run_out)
      return False; /* a run-out step that blocks moves the plan on */
   if (idle > CB_WAITING_MS && cb_phase != CB_PH_RELEASED && cb_allowed_spin())
      return True;
   if (idle <= CB_STUCK_MS ||
       cb_denials - cb_denials_at_progress < CB_RUN_OUT_IDLE_DENIALS)
      return False;
   if (cb_phase == CB_PH_PREFIX) {
      for (ULong w = 1; w <= cb_nthreads; w++)
         if (cb_done[w] < cb_prefix[w] && !cb_exited[w] &&
             !cb_porder_holds(w, cb_done, cb_exited))
            expected++;
   } else if (cb_phase == CB_PH_TAIL) {
      expected = 1;
   }
   int level = cb_deadlock_plan_stuck(cb_allowed, expected);
   return level == CB_PLAN_SURELY_STUCK ||
          (level == CB_PLAN_WAITING && idle > CB_WAITING_MS);
}

/* A stalled prefix that keeps the recorded order took another path than
 * the recorded one: the waits go (cb_porder.c) and it runs free, before
 * the plan itself is given up.  True when there were waits to give up. */
static Bool cb_give_up_order(void)
{
   if (cb_phase != CB_PH_PREFIX || !cb_porder_active())
      return False;
   cb_porder_drop(cb_done, cb_exited);
   cb_note_progress_time();
   return True;
}

Bool cb_replay_may_run(CbThread *t)
{
   if (UNLIKELY(cb_hunting) && cb_hunt_holds(t)) {
      cb_kernel_yield(); /* let the others run: one of them may be f's */
      return False;
   }
   if (cb_allowed(t))
      return True;
   cb_yield_if_nothing_ran();
   if (++cb_denials % CB_STALL_SAMPLE != 0)
      return False;
   if (cb_progress != cb_progress_sampled) {
      cb_note_progress_time();
      return False;
   }
   UInt idle = VG_(read_millisecond_timer)() - cb_last_progress;
   /* Blocked: surely (cb_deadlock.c), or by the denials meanwhile. */
   if (cb_phase == CB_PH_TAIL && cb_run_out && idle > cb_run_out_idle_ms() &&
       (cb_denials - cb_denials_at_progress >= CB_RUN_OUT_IDLE_DENIALS ||
        cb_deadlock_plan_stuck(cb_allowed, 1) == CB_PLAN_SURELY_STUCK)) {
      cb_run_out_ends("run-out-blocked");
      return cb_allowed(t);
   }
   if (cb_phase == CB_PH_TAIL && cb_run_out && cb_run_out_too_long()) {
      cb_run_out_ends("run-out-timed-out");
      return cb_allowed(t);
   }
   if (idle > cb_stall_ms || cb_plan_stuck(idle)) {
      if (cb_give_up_order())
         return cb_allowed(t);
      cb_stalled();
      return True;
   }
   return False;
}

/* Thread t waits in a timed condition wait whose deadline has passed
 * (vgtool/cb_preload_cond.c, cb_cond_wait_on): may the timeout fire?  Once
 * the plan let every thread go, yes.  A run-out step of t's ends here: t has
 * blocked (its deadline then counts again after the release).  Else the
 * plan goes on, and this is where a plan that only t could move on
 * stalls: no other thread may be asking (the others exited, or wait in
 * the program), and without this check the run would go on until the
 * time ran out. */
Bool cb_replay_timeout_may_fire(CbThread *t)
{
   if (cb_phase == CB_PH_TAIL && cb_run_out && t->wid == cb_tail[2 * cb_step])
      cb_run_out_ends("run-out-blocked");
   if (cb_phase == CB_PH_RELEASED)
      return cb_hunt_timeout_may_fire();
   if (cb_progress != cb_progress_sampled) {
      cb_note_progress_time();
      return False;
   }
   if (VG_(read_millisecond_timer)() - cb_last_progress <= cb_stall_ms)
      return False;
   if (!cb_give_up_order())
      cb_stalled();
   return cb_phase == CB_PH_RELEASED;
}

void cb_replay_counted(CbThread *t, UChar kind, UInt loc, Addr addr,
                       ULong value)
{
   ULong index = t->counted;
   ULong wid = t->wid;
   Bool spun = cb_spin_event(t->wid, kind, addr, value);
   cb_ident_check(t, kind, loc, addr, cb_phase != CB_PH_RELEASED);
   cb_pattern_event(wid, index, kind, value);
   if (cb_phase == CB_PH_RELEASED) {
      cb_hunt_event(t, kind, loc, addr, value);
      if (cb_pattern_all_ran())
         cb_pattern_report(False, NULL);
      return;
   }
   if (!cb_turn_allows(t)) {
      /* An event nobody gated: the rest of an instruction whose first event
       * ended a turn, or an unexpected path.  (A wait of the prefix order
       * that an ungated event passes is no divergence: a lock taken back
       * inside a condition wait.) */
      if (!cb_diverged_reported) {
         HChar buf[64];
         VG_(snprintf)(buf, sizeof buf, "diverged %llu %llu", wid, index);
         cb_replay_status(buf);
         cb_diverged_reported = True;
      }
      if (wid <= cb_nthreads)
         cb_done[wid]++;
      return;
   }
   /* A spinning thread's reads are no progress: a run-out thread that
    * polls for what a held thread must do is blocked, not busy. */
   if (!spun)
      cb_progress++;
   if (cb_phase == CB_PH_PREFIX) {
      if (++cb_done[wid] == cb_prefix[wid] && --cb_prefix_pending == 0)
         cb_start_tail();
   } else {
      if (wid <= cb_nthreads)
         cb_done[wid]++;
      if (!cb_run_out && --cb_step_left == 0) {
         cb_step++;
         cb_next_step();
      } else if (cb_run_out && ++cb_run_out_events % 256 == 0 &&
                 cb_run_out_too_long()) {
         cb_run_out_ends("run-out-timed-out");
      }
   }
}

void cb_replay_thread_exit(CbThread *t)
{
   HChar buf[96];
   cb_hunt_thread_exit(t);
   if (t->wid <= cb_nthreads) {
      cb_exited[t->wid] = True;
      cb_left[t->wid] |= t->exit_called;
   }
   /* At shut-down every thread is torn down: no turn was lost. */
   if (cb_ending)
      return;
   if (cb_phase == CB_PH_TAIL && cb_run_out && t->wid == cb_tail[2 * cb_step]) {
      cb_run_out_ends("run-out-exited");
      return;
   }
   if (cb_phase == CB_PH_PREFIX && t->wid <= cb_nthreads &&
       cb_done[t->wid] < cb_prefix[t->wid]) {
      VG_(snprintf)(buf, sizeof buf, "thread %u exited before its prefix",
                    (UInt)t->wid);
      cb_infeasible(buf);
   } else if (cb_phase == CB_PH_TAIL && t->wid == cb_tail[2 * cb_step]) {
      VG_(snprintf)(buf, sizeof buf, "thread %u exited in its turn",
                    (UInt)t->wid);
      cb_infeasible(buf);
   }
}

/* Before the threads are torn down at shut-down.  The program ending
 * during a run-out step is that step's end (its thread exited with the
 * process), and the plan's when every later step is empty or runs out a
 * thread already gone; else cb_replay_fini says the program ended before
 * the plan did.  No later step is started (and said): cbreplay reports the
 * run-out step as the last one followed. */
void cb_replay_ending(void)
{
   cb_ending = True;
   cb_hunt_end();
   /* Before the threads are torn down: which were still alive. */
   cb_pattern_report(True, cb_left_by_itself);
   if (cb_phase != CB_PH_TAIL || !cb_run_out || cb_replay_was_deadlocked())
      return;
   HChar buf[64];
   VG_(snprintf)(buf, sizeof buf, "run-out-exited %llu", cb_tail[2 * cb_step]);
   cb_replay_status(buf);
   for (ULong k = cb_step + 1; k < cb_ntail; k++) {
      ULong tid = cb_tail[2 * k], n = cb_tail[2 * k + 1];
      if (n != 0 && !(n == CB_STEP_RUN_OUT && tid <= cb_nthreads &&
                      cb_exited[tid]))
         return;
   }
   cb_step = cb_ntail;
   cb_replay_status("tail-done");
   cb_release();
}

void cb_replay_fini(void)
{
   if (cb_phase != CB_PH_RELEASED)
      cb_infeasible(cb_replay_was_deadlocked()
                       ? "the program deadlocked before the plan ended"
                       : "program ended before the plan did");
   cb_pattern_report(False, NULL);
}

/* The program replaces itself: Valgrind (without --trace-children) does
 * not follow, and no shut-down of the tool will say how the run ended.
 * Say so now, and release the plan, which nothing can follow any more.
 * Should the exec fail, the run goes on released. */
void cb_replay_exec_called(void)
{
   cb_infeasible("the program executed another program before the plan "
                 "ended");
   cb_replay_status("exec");
}

/* Thread wid made the exit call that ends the process (cb_replay_status.c):
 * its end is its own, not a tear-down. */
void cb_replay_left_by_itself(UInt wid)
{
   if (cb_left && wid <= cb_nthreads)
      cb_left[wid] = True;
}

/* A forked child runs unforced (its threads are not the plan's) and says
 * nothing: the status lines are the parent's. */
void cb_replay_forked_child(void)
{
   cb_status_fd = -1;
   cb_phase = CB_PH_RELEASED;
}
