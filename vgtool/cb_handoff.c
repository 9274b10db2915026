/* cb_handoff.c: replay mode's forced context switch, handed over directly.
 *
 * A thread the plan holds back is denied at an instruction gate (that of
 * cb_instrument.c, or cb_split.c's), which sends it back to Valgrind's
 * scheduler.  Left at that, the scheduler
 * queues it on the big lock (a futex sleep) and wakes it whenever the
 * running thread's time slice ends or it makes a system call, only for it
 * to be denied again: each forced switch cost two futex hand-offs of the
 * lock, a sleep and a wake-up on another CPU (measured: about 20 us a
 * switch, 41-48 k switches/s).
 *
 * Instead, once the denied thread is out of generated code (the scheduler's
 * stop_client_code event, where it holds the big lock but runs no client
 * code and sits in no translation), it lets go of the big lock, watches the
 * plan until it is its turn again and nobody holds the lock, and only then
 * takes the lock back.  While it watches, the thread whose turn it is takes
 * the lock without waiting, and gives it up the same way at its next denial:
 * a forced switch costs no futex sleep while both threads have a CPU.  The
 * watch reads the plan without the lock; it is a hint only: the gate asks
 * again, under the lock, before the thread runs anything.
 *
 * The watch is bounded (CB_HANDOFF_SPINS): a thread whose turn is far off
 * (the others run a long stretch, or block) goes on to the big lock's own
 * queue as before, and is denied and comes back here each time it gets the
 * lock, so the plan's stall checks (cb_replay.c) see it waiting as before.
 * It yields the CPU every CB_HANDOFF_YIELD_EVERY rounds: on one CPU, or a
 * loaded machine, the thread it waits for may need this very CPU.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vkiscnums.h"
#include "cb_global.h"

/* Valgrind's scheduler, not in the tool headers (pub_core_scheduler.h and
 * pub_core_threadstate.h, Valgrind 3.19).  The lock may be let go and
 * taken back only where the scheduler itself does so: between runs of
 * generated code, which the stop_client_code event is. */
extern void VG_(release_BigLock)(ThreadId tid, UInt sleepstate,
                                 const HChar *who);
extern void VG_(acquire_BigLock)(ThreadId tid, const HChar *who);
extern ThreadId VG_(running_tid);   /* the lock's holder, or invalid */
extern Bool VG_(is_exiting)(ThreadId tid);
extern Bool VG_(in_generated_code);   /* a helper of a translation runs */
extern const HChar *VG_(name_of_ThreadStatus)(UInt status);
extern SysRes VG_(do_syscall)(UWord sysno, UWord, UWord, UWord, UWord, UWord,
                              UWord, UWord, UWord);

/* ThreadStatus VgTs_Yielding: what the scheduler's own time-slice switch
 * sets (cb_handoff_init checks the number). */
#define CB_VGTS_YIELDING 4u

/* Rounds of the watch, each a pause instruction and a look at the plan
 * (tens of ns): some tens of microseconds, longer than a forced switch
 * takes, shorter than a time slice. */
#define CB_HANDOFF_SPINS 1024u
#define CB_HANDOFF_YIELD_EVERY 32u

/* The thread a gate denied last, until its run of generated code ends. */
static CbThread *cb_denied;

void cb_handoff_init(void)
{
   tl_assert(VG_(strcmp)(VG_(name_of_ThreadStatus)(CB_VGTS_YIELDING),
                         "VgTs_Yielding") == 0);
}

/* Only a gate's denial: it leaves generated code by its Yield exit, so
 * nothing of the scheduler's is pending when the run ends.  A "may I?"
 * request is denied in the scheduler, and the wrapper's next run of
 * generated code may end in a request to chain two blocks, which must be
 * met before the lock is let go (another thread may chain them first;
 * seen: VEX's chainXDirect assertion).  The wrapper waits in its own loop
 * (cb_preload.h, cb_turn). */
void cb_handoff_denied(CbThread *t)
{
   if (VG_(in_generated_code))
      cb_denied = t;
}

static void cb_handoff_pause(UInt round)
{
   if (round % CB_HANDOFF_YIELD_EVERY == CB_HANDOFF_YIELD_EVERY - 1)
      (void)VG_(do_syscall)(__NR_sched_yield, 0, 0, 0, 0, 0, 0, 0, 0);
   else
      __asm__ __volatile__("pause" ::: "memory");
}

static Bool cb_lock_free(void)
{
   return *(volatile ThreadId *)&VG_(running_tid) == VG_INVALID_THREADID;
}

/* stop_client_code: tid's run of generated code ended, and it holds the
 * big lock.  If a gate denied it in that run, it waits here for its turn
 * without the lock. */
void cb_handoff_stop(ThreadId tid)
{
   CbThread *t = cb_denied;
   cb_denied = NULL;
   if (t == NULL || t != cb_thread(tid) || cb_replay_released())
      return;
   VG_(release_BigLock)(tid, CB_VGTS_YIELDING, "cb_handoff");
   UInt round = 0;
   while (round < CB_HANDOFF_SPINS && !cb_replay_turn_hint(t) &&
          !VG_(is_exiting)(tid))
      cb_handoff_pause(round++);
   /* Its turn: the thread that had it is about to let go of the lock at
    * its own denial.  Taking a ticket before that would put this thread
    * to sleep in the lock's queue, and cost a futex wake to get it out. */
   while (round < CB_HANDOFF_SPINS && !cb_lock_free())
      cb_handoff_pause(round++);
   VG_(acquire_BigLock)(tid, "cb_handoff");
}
