/* judge.c: the verdict of one forced run, and how far it followed the
 * schedule.
 *
 * Verdict, first rule that applies:
 *   error       Valgrind or the tool failed: the tool never wrote its last
 *               status line ("end ...", from its shut-down), so it died
 *               (a Valgrind panic, an out-of-memory kill), unless it said
 *               the program exec'd another program; or it wrote
 *               "end exit N" and Valgrind then ended otherwise.  Also a run
 *               that could not start (run_one.c).  Never a bug of the
 *               program.
 *   deadlock    every live thread of the program waited for something only
 *               another waiting thread could give, and the tool ended the
 *               run at once ("blocked" lines, then "end deadlock"): a bug
 *               of the program, whatever the schedule.
 *   failed      the program failed: a fatal signal (abort included), an
 *               exit code that is neither 0 nor the recorded run's own, or
 *               --check CMD exited non-zero; whether or not the schedule
 *               was followed to its end (an abort inside the forced tail is
 *               the bug the schedule was looking for, even when a thread
 *               then "exited in its turn").
 *   hung        killed after --timeout: a livelock, or a wait the tool does
 *               not see through (a thread in read(), a futex by hand).
 *   infeasible  the tool could not follow the schedule and the violation
 *               did not happen (e1, f, e2 not in that order), or the run
 *               diverged (a thread's event at a forced step, or e1, f or
 *               e2, was not the one the schedule expects there), and the
 *               program passed: the run tested nothing.  A deadlocked,
 *               failed or hung run that diverged keeps its verdict; the
 *               report says so.
 *   passed      otherwise.
 *
 * A cure schedule (cbpredict --cures: the recorded run failed, and the
 * schedule forces one of its orders the other way round) is judged the
 * other way round: a run that passed, the schedule followed, is cured (the
 * finding: that order is the failure's cause); one that failed, hung or
 * deadlocked, passed (it failed as the recording did: nothing learned).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "launch.h"
#include "replay.h"

static int exit_is_normal(int code, int recorded_exit)
{
   return code == 0 || (recorded_exit > 0 && code == recorded_exit);
}

int cbr_exit_normal(const cbr_ending *e, const cbr_status *st)
{
   return !e->killed && (st->end || st->execd) &&
          st->end != CBR_END_DEADLOCK && WIFEXITED(e->wstatus) &&
          exit_is_normal(WEXITSTATUS(e->wstatus), e->recorded_exit);
}

static const char *ended_as(int wstatus, char *buf, size_t len)
{
   if (WIFSIGNALED(wstatus)) {
      const char *abbrev = sigabbrev_np(WTERMSIG(wstatus));
      if (abbrev)
         snprintf(buf, len, "was killed by SIG%s", abbrev);
      else
         snprintf(buf, len, "was killed by signal %d", WTERMSIG(wstatus));
   } else {
      snprintf(buf, len, "exited %d", cb_wait_status_code(wstatus));
   }
   return buf;
}

/* Whether the tool's end and Valgrind's agree; if not, says why in
 * r->error. */
static int tool_ended_well(const cbr_ending *e, cbr_result *r)
{
   char how[64];
   const cbr_status *st = &r->status;
   if (!st->end && st->execd)
      return 1; /* the exec'd program ended as the wait status says */
   if (!st->end) {
      snprintf(r->error, sizeof r->error, "Valgrind or the cbtools tool died: "
               "Valgrind %s before the tool reported the program's end%s",
               ended_as(e->wstatus, how, sizeof how),
               WIFSIGNALED(e->wstatus) && WTERMSIG(e->wstatus) == SIGKILL
                  ? " (killed from outside: out of memory?)" : "");
      return 0;
   }
   if (st->end == CBR_END_DEADLOCK &&
       (!WIFEXITED(e->wstatus) || WEXITSTATUS(e->wstatus) != CB_DEADLOCK_EXIT)) {
      snprintf(r->error, sizeof r->error, "Valgrind failed: the tool ended "
               "the deadlocked program, then Valgrind %s",
               ended_as(e->wstatus, how, sizeof how));
      return 0;
   }
   if (st->end == CBR_END_EXIT &&
       (!WIFEXITED(e->wstatus) || WEXITSTATUS(e->wstatus) != st->end_exit)) {
      snprintf(r->error, sizeof r->error, "Valgrind failed: the program "
               "exited %d, then Valgrind %s", st->end_exit,
               ended_as(e->wstatus, how, sizeof how));
      return 0;
   }
   return 1;
}

/* A cure's run, judged the other way round: passed with its order forced
 * the other way round is the finding; passed without it, a run that
 * passed by chance, tested nothing; failed, hung or deadlocked, it failed
 * as the recording did. */
static void judge_cure(cbr_result *r)
{
   if (r->verdict == CBR_PASSED && r->status.pattern == 1) {
      r->verdict = CBR_CURED;
   } else if (r->verdict == CBR_PASSED) {
      r->verdict = CBR_INFEASIBLE;
      r->status.infeasible = 1;
      snprintf(r->status.reason, sizeof r->status.reason,
               "it passed, but the order the cure forces did not happen");
   } else if (r->verdict != CBR_INFEASIBLE && r->verdict != CBR_ERROR) {
      r->verdict = CBR_PASSED;
   }
}

void cbr_judge(const cbr_options *o, const cbr_ending *e, cbr_result *r)
{
   if (e->killed || r->status.end == CBR_END_DEADLOCK) {
      /* No end of the program's own: killed, or ended by the tool. */
      r->exit_code = -1;
      r->signal = 0;
      r->hung_before_release = e->killed && !r->status.released;
   } else {
      r->exit_code = cb_wait_status_code(e->wstatus);
      r->signal = WIFSIGNALED(e->wstatus) ? WTERMSIG(e->wstatus) : 0;
   }
   if (!e->killed && !tool_ended_well(e, r))
      r->verdict = CBR_ERROR;
   else if (!e->killed && r->status.end == CBR_END_DEADLOCK)
      r->verdict = CBR_DEADLOCK;
   else if (!e->killed && (r->signal ||
                           !exit_is_normal(r->exit_code, e->recorded_exit)))
      r->verdict = CBR_FAILED;
   else if (!e->killed && o->check && r->check_code != 0)
      r->verdict = CBR_FAILED;
   else if (e->killed && !r->status.released) {
      /* The plan still held threads back when the time ran out: the tool
       * should have called it a stall, and a program kept from running
       * says nothing about the program.  Not a bug. */
      r->verdict = CBR_INFEASIBLE;
      r->status.infeasible = 1;
      snprintf(r->status.reason, sizeof r->status.reason,
               "the plan still held threads back when the time ran out");
   } else if (e->killed)
      r->verdict = CBR_HUNG;
   else if (r->status.unexpected) {
      /* The divergence is the cause; a stall after it its consequence. */
      r->verdict = CBR_INFEASIBLE;
      r->status.infeasible = 1;
      snprintf(r->status.reason, sizeof r->status.reason, "%s",
               r->status.divergence);
   } else if (r->status.infeasible && r->status.pattern != 1)
      r->verdict = CBR_INFEASIBLE;
   else
      r->verdict = CBR_PASSED;
   r->cure = e->cure;
   if (e->cure)
      judge_cure(r);
}

const char *cbr_how_far(const cbr_result *r, char *buf, size_t len)
{
   const cbr_status *st = &r->status;
   unsigned n = st->nsteps ? st->nsteps : r->nsteps;
   if (st->unexpected && st->unexp_forcing)
      /* Its counts may all have been run, but not the events they were
       * meant to be. */
      snprintf(buf, len, "after leaving the schedule's path at T%u's event "
               "%llu", st->unexp_tid, st->unexp_index);
   else if (st->tail_done)
      snprintf(buf, len, "after following the whole schedule");
   else if (st->step > 0)
      snprintf(buf, len, "after following the schedule to step %u of %u",
               st->step, n);
   else if (st->prefix_done)
      snprintf(buf, len, "after following the schedule's prefix");
   else
      snprintf(buf, len, "before the schedule's prefix was done");
   return buf;
}

int cbr_violation_happened(const cbr_result *r)
{
   if (r->status.pattern == 0 && r->status.unexpected)
      return -1;
   return r->status.pattern;
}
