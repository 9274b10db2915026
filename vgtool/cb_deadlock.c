/* cb_deadlock.c: ends a run at once when the program has deadlocked.
 *
 * A deadlock here is a state the program cannot leave by itself: every
 * live thread waits, in a call the tool models, for something that only
 * another thread of the program could give, and none can, as all wait:
 *   a lock        another live thread surely holds it (cb_syncobj.c) in a
 *                 mode that excludes the one asked for, or the thread
 *                 itself does and the lock does not nest (a normal mutex,
 *                 a spinlock), or a thread that ended holding it did (a
 *                 lock is not released by its holder's end, a robust
 *                 mutex excepted);
 *   a join        the joined thread is alive;
 *   a condition   no signal or broadcast of it since the wait began, and
 *                 none on its way then (below), or every wake those owed
 *                 went to waits that ended since (a signal wakes one
 *                 waiter, a broadcast every one: cb_syncobj.c);
 *   a semaphore   it surely has no token;
 *   a barrier     its round is not complete.
 * The tool then says what each thread waits for (cb_wire.h, "Deadlocks")
 * and ends the run as at an exit (cb_end_run), instead of leaving it to
 * hang until cbreplay's --timeout or cbtest's --record-timeout kills it.
 *
 * A false alarm would call a correct program buggy, so whatever the tool
 * cannot be sure of counts as running, and then no verdict comes:
 *   - A wait is announced by the wrapper's last request before the real
 *     call (cb_sync.c: the lock gate, CB_REQ_MAY_I_WAIT, CB_REQ_WAIT, the
 *     barrier's entry), for calls from watched code, and ends at the
 *     thread's next request about a call of its own.  Timed waits,
 *     try-calls and whatever else may block (read(), sleep, a futex by
 *     hand, sigwait, pthread_once) announce nothing: such a thread runs.
 *   - A thread created but not started yet runs.
 *   - In replay a thread held back for its turn is not waiting: a wrapper
 *     announces its wait only once the gate let it through (cb_replay.c
 *     holds threads only in gates).  A forced schedule only delays
 *     threads, so a deadlock found there is one the program can reach.
 *   - A signal is reported before it is sent, so a wait that begins in
 *     between may be woken by it: a signal counts as on its way until the
 *     real call has returned (the wrapper says so, CB_REQ_WAIT_END) or its
 *     sender is seen running again (cb_wait_end), and a wait that began
 *     while one was on its way to its condition counts as woken.
 *   - A thread another one cancelled (pthread_cancel) is not stuck in a
 *     wait that is a cancellation point (a condition, a join, a
 *     semaphore): the cancellation ends it, and its cleanup handlers run
 *     (a worker blocked in pthread_cond_wait that main cancels, then
 *     joins, was reported as a deadlock: join waits for the worker, the
 *     worker for a signal nobody sends).  Whether its cancellation is
 *     enabled is not known: counted as running.
 *   - An object another process may use (process-shared) never blocks.
 *   - A handler of an asynchronous signal may post a semaphore or end the
 *     process otherwise: while one is installed, no verdict.
 *   - While the process ends, threads are torn down one by one: only a
 *     thread's own exit system call counts as a thread ending (cb_main.c),
 *     and exit_group, exec and a fork's child turn the check off.
 * Cheap: the check runs only when as many threads wait as live (two
 * counters), and then looks at each live thread once.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_vki.h"
#include "cb_global.h"
#include "cb_clientreq.h"
#include "cb_syncobj.h"

static Bool  cb_dl_off;      /* the process is ending, or is a fork's child */
static UInt  cb_dl_waiting;  /* live threads with a wait */
static ULong cb_dl_handlers; /* asynchronous signals with a handler: bits */

/* The signal t sent last has surely been sent: t has gone on. */
static void cb_signal_done(CbThread *t)
{
   if (t->signalling) {
      if (!t->signal_spent)
         cb_cond_in_flight(t->signalling, -1);
      t->signalling = 0;
   }
}

void cb_cond_signal_sent(CbThread *t, Addr cv, Bool broadcast)
{
   cb_signal_done(t);
   cb_cond_signalled(cv, broadcast);
   cb_cond_in_flight(cv, +1);
   t->signalling = cv;
   t->signal_all = broadcast;
   t->signal_spent = False;
}

/* A wait on cv ended, and a signal (not a broadcast) of cv was on its way:
 * take it for the one that ended it.  A signal wakes one waiter, and one
 * that has woken a thread cannot wake the wait that thread begins next
 * (a consumer that finds nothing and waits again: without this, that
 * wait looked woken until the signaller's next request, which may never
 * come, and a lost wake-up ran into the timeout). */
static void cb_signal_spent_on(Addr cv)
{
   if (!cb_cond_any_in_flight(cv))
      return;   /* the common case: no look at every thread */
   for (ThreadId i = 1; i <= cb_max_tid; i++) {
      CbThread *s = &cb_threads[i];
      if (s->live && s->signalling == cv && !s->signal_all && !s->signal_spent) {
         s->signal_spent = True;
         cb_cond_in_flight(cv, -1);
         return;
      }
   }
}

void cb_wait_end(CbThread *t)
{
   cb_signal_done(t);
   if (!t->wait.kind)
      return;
   if (t->wait.kind == CB_WAIT_COND) {
      cb_signal_spent_on(t->wait.obj);
      cb_cond_wait_ended(t->wait.obj, t->wait.seq);
   }
   t->wait.kind = 0;
   tl_assert(cb_dl_waiting > 0);
   cb_dl_waiting--;
}

static void cb_lock_cycle_check(CbThread *t);

void cb_wait_begin(CbThread *t, UChar kind, Addr obj, Addr caller,
                   UWord extra, ULong seq)
{
   cb_wait_end(t);
   CbWait *w = &t->wait;
   w->kind = kind;
   w->obj = obj;
   w->caller = caller;
   w->extra = extra;
   w->seq = seq;
   w->woken = False;
   if (kind == CB_WAIT_COND) {
      w->seq = cb_cond_signals(obj);
      w->woken = cb_cond_any_in_flight(obj);
      cb_cond_wait_began(obj);
   }
   cb_dl_waiting++;
   cb_deadlock_check();
   if (kind == CB_WAIT_LOCK || kind == CB_WAIT_RDLOCK || kind == CB_WAIT_WRLOCK)
      cb_lock_cycle_check(t);
}

/* ---- is a thread stuck? ---- */

typedef struct {
   CbThread *t;
   UChar kind;          /* what it waits for: its wait's, or (a woken
                           condition wait) CB_WAIT_LOCK on the mutex */
   Addr  obj;
   UInt  holder;        /* lock: a thread that holds it; join: the joined */
   Addr  holder_caller; /* lock: where the holder took it */
   ULong value;         /* BARRIER: arrived << 32 | count */
} CbBlocked;

static CbThread *cb_live_wid(UInt wid)
{
   for (ThreadId i = 1; i <= cb_max_tid; i++)
      if (cb_threads[i].live && cb_threads[i].wid == wid)
         return &cb_threads[i];
   return NULL;
}

static Bool cb_wid_alive(UInt wid)
{
   return cb_live_wid(wid) != NULL;
}

/* Another live thread that surely holds lock in a mode that excludes
 * want (CB_LOCK_*): readers exclude only writers. */
static CbThread *cb_lock_holder(const CbThread *t, Addr lock, UChar want,
                                Addr *caller)
{
   for (ThreadId i = 1; i <= cb_max_tid; i++) {
      CbThread *u = &cb_threads[i];
      UChar mode;
      if (u == t || !u->live || !cb_lock_surely_held(u, lock, &mode, caller))
         continue;
      if (CB_LOCK_MODES_CONFLICT(want, mode))
         return u;
   }
   return NULL;
}

static Bool cb_is_blocked(CbThread *t, CbBlocked *b)
{
   const CbWait *w = &t->wait;
   UWord arrived, count;
   UChar mode;
   CbThread *u;
   if (t->cancelled && (w->kind == CB_WAIT_COND || w->kind == CB_WAIT_JOIN ||
                        w->kind == CB_WAIT_SEM))
      return False; /* a cancellation point: the cancellation ends it */
   b->t = t;
   b->kind = w->kind;
   b->obj = w->obj;
   b->holder = 0;
   b->holder_caller = 0;
   b->value = 0;
   switch (w->kind) {
   case CB_WAIT_LOCK:
   case CB_WAIT_RDLOCK:
   case CB_WAIT_WRLOCK:
      u = cb_lock_holder(t, w->obj, (UChar)(w->kind - CB_WAIT_LOCK),
                         &b->holder_caller);
      if (!u && (w->extra & CB_WAIT_SELF_BLOCKS) &&
          cb_lock_surely_held(t, w->obj, &mode, &b->holder_caller))
         u = t;   /* its own, and it does not nest */
      if (u) {
         b->holder = u->wid;
         return True;
      }
      /* Held by a thread that ended without releasing it: nobody can. */
      if (!(w->extra & CB_WAIT_ROBUST))
         b->holder = cb_lock_dead_holder(w->obj, (UChar)(w->kind - CB_WAIT_LOCK),
                                         cb_wid_alive, &b->holder_caller);
      return b->holder != 0;
   case CB_WAIT_JOIN:
      u = w->extra ? cb_live_wid((UInt)w->extra) : NULL;
      if (!u || u == t)
         return False;
      b->holder = u->wid;
      return True;
   case CB_WAIT_COND:
      /* No signal since it began, or every wake the signals since owed
       * went to other waits that ended (a worker woken in the
       * producer's place, which found nothing and waits again: a lost
       * wake-up), none on its way. */
      return !w->woken && !cb_obj_shared(w->obj) &&
             (cb_cond_signals(w->obj) == w->seq ||
              (!cb_cond_wakes_owed(w->obj) && !cb_cond_any_in_flight(w->obj)));
   case CB_WAIT_SEM:
      return cb_sem_surely_empty(w->obj);
   case CB_WAIT_BARRIER:
      count = cb_barrier_count(w->obj);
      if (count == 0 || cb_obj_shared(w->obj) ||
          cb_barrier_round(w->obj, &arrived) != w->seq)
         return False;
      b->value = (ULong)arrived << 32 | count;
      return True;
   }
   return False;
}

/* ---- the report and the end ---- */

/* The BLOCKED record's value (cb_wire.h). */
static ULong cb_blocked_value(const CbBlocked *b)
{
   switch (b->t->wait.kind) {
   case CB_WAIT_LOCK:
   case CB_WAIT_RDLOCK:
   case CB_WAIT_WRLOCK:
      return b->holder | (ULong)cb_caller_loc(b->holder_caller) << 32;
   case CB_WAIT_JOIN:
      return b->holder;
   case CB_WAIT_COND:
      return b->t->wait.extra;
   default:
      return b->value;
   }
}

static void cb_blocked_record(const CbBlocked *b)
{
   const CbWait *w = &b->t->wait;
   Addr obj = w->kind == CB_WAIT_JOIN ? 0 : w->obj;
   if (obj)
      cb_symdef_for(obj);
   if (w->kind == CB_WAIT_COND && w->extra)
      cb_symdef_for(w->extra);
   ULong value = cb_blocked_value(b);    /* may define a location */
   UInt loc = cb_caller_loc(w->caller);
   cb_put(CB_WIRE_BLOCKED, w->kind, b->t->wid, loc, obj, value);
}

/* An object's symbol, "name+offset" or "?": replay reads no variables. */
static void cb_obj_name(Addr a, HChar *buf, Int len)
{
   const HChar *name;
   PtrdiffT off;
   if (a && VG_(get_datasym_and_offset)(VG_(current_DiEpoch)(), a, &name,
                                        &off)) {
      if (off)
         VG_(snprintf)(buf, len, "%s+%lld", name, (Long)off);
      else
         VG_(snprintf)(buf, len, "%s", name);
   } else {
      VG_(snprintf)(buf, len, "?");
   }
}

/* The "blocked" status line; its fields are bounded to fit a line. */
static void cb_blocked_status(const CbBlocked *b)
{
   const CbWait *w = &b->t->wait;
   Addr obj = b->kind == CB_WAIT_JOIN ? 0 : b->obj;
   HChar where[64], hwhere[64], name[64], line[256];
   cb_where(w->caller ? w->caller - 1 : 0, where, sizeof where);
   cb_where(b->holder_caller ? b->holder_caller - 1 : 0, hwhere,
            sizeof hwhere);
   cb_obj_name(obj, name, sizeof name);
   VG_(snprintf)(line, sizeof line, "blocked %u %u 0x%lx %s %u %s 0x%llx %s",
                 b->t->wid, (UInt)b->kind, (UWord)obj, where, b->holder,
                 hwhere, b->kind == CB_WAIT_BARRIER ? b->value : 0ULL, name);
   cb_replay_status(line);
}

static void cb_deadlock_end(CbBlocked *bl, UInt n)
{
   cb_dl_off = True;
   /* In thread order: T1 first. */
   for (UInt i = 1; i < n; i++)
      for (UInt k = i; k > 0 && bl[k - 1].t->wid > bl[k].t->wid; k--) {
         CbBlocked x = bl[k];
         bl[k] = bl[k - 1];
         bl[k - 1] = x;
      }
   for (UInt i = 0; i < n; i++) {
      cb_blocked_record(&bl[i]);
      if (cb_replaying)
         cb_blocked_status(&bl[i]);
   }
   if (cb_replaying)
      cb_replay_deadlocked();
   cb_end_run();
   VG_(exit)(CB_DEADLOCK_EXIT);
}

/* A stalled plan (cb_replay.c): what each thread that the program itself
 * holds back waits for, as "blocked" lines like a deadlock's, so that the
 * report says why the plan could not go on (a waiter whose signal comes
 * from a thread the plan holds, a lock held by one).  Threads only the
 * plan holds back say nothing: the infeasible line names the turn. */
void cb_deadlock_say_waits(void)
{
   UInt said = 0;
   for (ThreadId i = 1; i <= cb_max_tid && said < CB_STALL_WAITS_SAID; i++) {
      CbThread *t = &cb_threads[i];
      CbBlocked b;
      if (!t->live || !t->wait.kind)
         continue;
      if (!cb_is_blocked(t, &b)) {
         /* Signalled, it must take the mutex again: who holds that? */
         CbThread *u = t->wait.kind == CB_WAIT_COND && t->wait.extra
                          ? cb_lock_holder(t, t->wait.extra, 0,
                                           &b.holder_caller)
                          : NULL;
         if (!u)
            continue;
         b.kind = CB_WAIT_LOCK;
         b.obj = t->wait.extra;
         b.holder = u->wid;
      }
      cb_blocked_status(&b);
      said++;
   }
}

/* Replay: whether the plan can go on.  Every live thread it lets run
 * (may_run) is in a blocking call the tool models (a lock, a join, an
 * untimed condition wait, a semaphore, a barrier), none of which a thread
 * the plan holds back can end: it is held at a gate, and whatever would
 * wake the waiter (an unlock, a signal, a post) is one of its gated calls.
 * Returns CB_PLAN_SURELY_STUCK when each of them is surely blocked
 * (cb_is_blocked, or a woken condition wait whose mutex another live
 * thread surely holds), CB_PLAN_WAITING when some may have been woken
 * and not run yet (or a signal it counts woke another waiter, which the
 * plan now holds), else 0.  cb_replay.c ends the plan after a moment, or
 * after a longer one, instead of after the stall limit.  expected: how
 * many threads the plan lets run; fewer live ones (one not created yet),
 * or none, is never stuck. */
int cb_deadlock_plan_stuck(Bool (*may_run)(CbThread *), ULong expected)
{
   ULong n = 0;
   int level = CB_PLAN_SURELY_STUCK;
   CbBlocked b;
   if (cb_dl_off || cb_dl_handlers != 0 || expected == 0)
      return 0;
   for (ThreadId i = 1; i <= cb_max_tid; i++) {
      CbThread *t = &cb_threads[i];
      if (!t->live || !may_run(t))
         continue;
      if (!t->wait.kind)
         return 0;
      n++;
      if (cb_is_blocked(t, &b))
         continue;
      if (t->wait.kind != CB_WAIT_COND || !t->wait.extra ||
          !cb_lock_holder(t, t->wait.extra, 0, &b.holder_caller))
         level = CB_PLAN_WAITING;
   }
   return n == expected ? level : 0;
}

void cb_deadlock_check(void)
{
   if (cb_dl_off || cb_dl_handlers != 0 || cb_nlive == 0 ||
       cb_dl_waiting < cb_nlive)
      return;
   tl_assert(cb_dl_waiting == cb_nlive);
   CbBlocked one;
   for (ThreadId i = 1; i <= cb_max_tid; i++)
      if (cb_threads[i].live && !cb_is_blocked(&cb_threads[i], &one))
         return;
   CbBlocked *bl = VG_(malloc)("cb.deadlock", cb_nlive * sizeof *bl);
   UInt n = 0;
   for (ThreadId i = 1; i <= cb_max_tid && n < cb_nlive; i++)
      if (cb_threads[i].live && cb_is_blocked(&cb_threads[i], &bl[n]))
         n++;
   cb_deadlock_end(bl, n);
}

/* t has just begun to wait for a lock: when the lock's holder waits for a
 * lock that the next holds, and so on back to t, those threads are stuck
 * for good, whatever the others do (a ticker, a thread spinning on a flag
 * keep the whole-program check above from ever seeing every thread wait):
 * a lock is released only by its holder, and each holder waits in a lock
 * call for the next.  The run ends as a deadlock of the threads in the
 * cycle (a trial's job scheduler, whose recording deadlocked in its first
 * hundred events, ran until cbtest's --record-timeout).  Only a wait
 * that closes a cycle can make one, so t is where to look. */
/* The threads stuck beside a cycle (main joining one of them): each live
 * thread not in bl[0..n) that surely waits, for the report. */
static void cb_cycle_add_blocked(CbBlocked *bl, UInt *n)
{
   for (ThreadId i = 1; i <= cb_max_tid && *n < cb_nlive; i++) {
      CbThread *u = &cb_threads[i];
      Bool in = False;
      for (UInt k = 0; k < *n; k++)
         in |= bl[k].t == u;
      if (u->live && !in && u->wait.kind && cb_is_blocked(u, &bl[*n]))
         (*n)++;
   }
}

static void cb_lock_cycle_check(CbThread *t)
{
   /* Recording only: a forced run keeps the whole-program check, whose
    * report has every thread that waits (main's join too), and its
    * --timeout for the rest. */
   if (cb_replaying || cb_dl_off || cb_dl_handlers != 0 || cb_dl_waiting < 2)
      return;
   /* Most waits end there: the holder runs (a contended lock). */
   CbBlocked first;
   CbThread *h = cb_is_blocked(t, &first) ? cb_live_wid(first.holder) : NULL;
   if (!h || h == t || h->wait.kind < CB_WAIT_LOCK || h->wait.kind > CB_WAIT_WRLOCK)
      return;
   CbBlocked *bl = VG_(malloc)("cb.deadlock", cb_nlive * sizeof *bl);
   bl[0] = first;   /* t's step, looked at above */
   UInt n = 0;
   CbThread *u = t;
   while (n < cb_nlive) {
      UChar k = u->wait.kind;
      if (n > 0 && (k < CB_WAIT_LOCK || k > CB_WAIT_WRLOCK ||
                    !cb_is_blocked(u, &bl[n])))
         break;
      CbThread *next = cb_live_wid(bl[n].holder);
      n++;
      if (next == t) {
         cb_cycle_add_blocked(bl, &n);
         cb_deadlock_end(bl, n); /* does not return */
         return;
      }
      if (!next || next == u)
         break;   /* a dead holder, its own lock: the check above's */
      Bool seen = False;
      for (UInt i = 0; i < n; i++)
         seen |= bl[i].t == next;
      if (seen)
         break;   /* a cycle t only waits on: found when it formed */
      u = next;
   }
   VG_(free)(bl);
}

Bool cb_exit_may_wait(const CbThread *t)
{
   if (cb_dl_off)
      return False;   /* the process already ends, or is a fork's child */
   CbBlocked b;
   /* A thread that holds its own exit for the others is no other that
    * may still run: two such would each wait for the other, and the one
    * whose hold began first would end the process with its status (main's
    * 0 over a checker's 3). */
   for (ThreadId i = 1; i <= cb_max_tid; i++) {
      CbThread *u = &cb_threads[i];
      if (u != t && u->live && !u->exiting && (!u->wait.kind || !cb_is_blocked(u, &b)))
         return True;
   }
   return False;
}

void cb_deadlock_cancel(UWord pthread)
{
   UInt wid = cb_thread_wid_of(pthread);
   CbThread *t = wid ? cb_live_wid(wid) : NULL;
   if (t)
      t->cancelled = True;
}

void cb_deadlock_off(void)
{
   cb_dl_off = True;
}

/* Signals a thread's own instruction raises (a fault, a write to a closed
 * pipe), which cannot come while every thread waits, and glibc's own
 * (SIGCANCEL 32, SIGSETXID 33): their handlers end no wait. */
static Bool cb_signal_is_synchronous(Int signo)
{
   switch (signo) {
   case VKI_SIGILL: case VKI_SIGTRAP: case VKI_SIGBUS: case VKI_SIGFPE:
   case VKI_SIGSEGV: case VKI_SIGPIPE: case VKI_SIGSYS: case VKI_SIGXFSZ:
   case 32: case 33:
      return True;
   default:
      return False;
   }
}

void cb_deadlock_sigaction(ThreadId tid, Int signo, Addr act)
{
   if (signo < 1 || signo > 64 || act == 0 ||
       cb_signal_is_synchronous(signo) ||
       !VG_(am_is_valid_for_client)(act, sizeof(Addr), VKI_PROT_READ))
      return;
   /* The kernel's struct sigaction starts with the handler. */
   Addr handler = *(const Addr *)act;
   ULong bit = 1ULL << (signo - 1);
   if (handler == (Addr)VKI_SIG_DFL || handler == (Addr)VKI_SIG_IGN)
      cb_dl_handlers &= ~bit;
   else
      cb_dl_handlers |= bit;
}
