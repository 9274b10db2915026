/* cb_sync.c: client requests from the preload library's pthread and malloc
 * wrappers and from the public CB_ATOMIC_BEGIN/END markup.
 *
 * The wrappers also catch calls that glibc and ld.so make internally; an
 * event counts only when the wrapped function was called from watched code.
 * The location of a synchronisation event is the caller's, the user's line.
 * The state behind locks, semaphores and once controls is cb_syncobj.c's.
 * Calls of libc functions that keep hidden state (strtok, localtime, ...)
 * become READ and WRITE events of a word named for that state
 * (CB_REQ_LIBC_STATE, cb_preload_libc.c), counted like any access.
 * The requests also say when a thread is about to block and when it runs
 * again, for the deadlock check (cb_deadlock.c): a request about the
 * user's own call, or one that names no call, shows its thread running
 * (the requests the C runtime's calls make may come from inside a user's
 * blocking call, as mtx_lock calls pthread_mutex_lock).  In record mode a
 * blocking lock call says it by a store to its thread's lock slot instead,
 * read only if it really blocks (cb_sync_futex_wait, CB_MAY_I_SLOTS).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_machine.h"
#include "pub_tool_clreq.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_vki.h"
#include "cb_global.h"
#include "cb_clientreq.h"
#include "cb_syncobj.h"

static Bool cb_from_user(Addr caller)
{
   return caller != 0 && cb_obj_instrumented(caller);
}

/* Whether the call that returns to ret has a source line.  Asked for
 * every C library call the preload reports (cb_req_libc_mem): the
 * answers for recent return addresses are kept. */
#define CB_LINED_CACHE 256
static Bool cb_call_has_line(Addr ret)
{
   static struct { Addr ret; Bool lined; } cache[CB_LINED_CACHE];
   UInt k = (UInt)((ret ^ (ret >> 8)) & (CB_LINED_CACHE - 1));
   if (cache[k].ret != ret) {
      const HChar *file, *dir;
      UInt line;
      cache[k].ret = ret;
      cache[k].lined = VG_(get_filename_linenum)(VG_(current_DiEpoch)(),
                                                 ret - 1, &file, &dir, &line);
   }
   return cache[k].lined;
}

/* The innermost frame of the stack, from caller out, that is the
 * program's (watched code), and with lined, that also has a source line;
 * caller when there is none. */
static Addr cb_watched_frame(ThreadId tid, Addr caller, Bool lined)
{
   if (cb_from_user(caller) && (!lined || cb_call_has_line(caller)))
      return caller;
   Addr ips[8];
   UInt n = VG_(get_StackTrace)(tid, ips, 8, NULL, NULL, 0);
   for (UInt i = 1; i < n; i++)
      if (ips[i] != caller && cb_from_user(ips[i]) &&
          (!lined || cb_call_has_line(ips[i])))
         return ips[i];
   return caller;
}

/* The user's call behind a call the C runtime made for it (thrd_join calls
 * pthread_join): the innermost watched frame of the stack. */
static Addr cb_user_caller(ThreadId tid, Addr caller)
{
   return cb_watched_frame(tid, caller, False);
}

/* A turn request's answer: 0, or 1 with CB_MAY_I_FREE once no turn will be
 * refused again (cb_clientreq.h).  Not with --cb-instrument=all: the
 * preload's own code is watched there, and its store of the flag would be
 * an event that record and replay make at different points. */
static UWord cb_answer(Bool may)
{
   if (!may)
      return 0;
   if (cb_instr != CB_INSTR_ALL && !cb_replaying)
      return 1 | CB_MAY_I_FREE | CB_MAY_I_SLOTS;
   if (cb_instr != CB_INSTR_ALL && cb_replay_released() && !cb_hunt_unfinished())
      return 1 | CB_MAY_I_FREE;
   return 1;
}

/* Record mode: the thread is about to block in a futex wait.  If a lock
 * call of the program's is under way, its slot says on what
 * (CB_MAY_I_SLOTS): the wait the deadlock check is told about, as
 * CB_REQ_MAY_I_HELD tells it in replay mode, here only once the call
 * really blocks. */
void cb_sync_futex_wait(ThreadId tid)
{
   CbThread *t = cb_thread(tid);
   if (!t->lock_slot || t->wait.kind || t->unwatched ||
       !VG_(am_is_valid_for_client)(t->lock_slot, sizeof(cb_lock_slot),
                                    VKI_PROT_READ))
      return;
   const cb_lock_slot *s = (const cb_lock_slot *)t->lock_slot;
   if ((s->wait & 0xf) == 0 || !cb_from_user(s->caller))
      return;
   cb_wait_begin(t, (UChar)(CB_WAIT_LOCK + (s->wait & 0xf) - 1), s->lock,
                 s->caller, s->wait & (CB_WAIT_SELF_BLOCKS | CB_WAIT_ROBUST), 0);
}

/* The answer to "may I?" from a wrapper called from caller (0: a call
 * that counts whoever makes it). */
static Bool cb_may_i(CbThread *t, Addr caller)
{
   if (!cb_replaying || (caller != 0 && !cb_from_user(caller)))
      return True;
   return cb_replay_may_run(t);
}

/* Whether a thread other than t waits in a lock call on lock (its wait
 * begun in CB_REQ_MAY_I_HELD, not yet seen running again): the spin
 * unlock's wrapper then yields (cb_preload.c). */
static Bool cb_lock_awaited(const CbThread *t, Addr lock)
{
   for (ThreadId i = 1; i <= cb_max_tid; i++) {
      const CbThread *u = &cb_threads[i];
      if (u != t && u->live && u->wait.obj == lock &&
          u->wait.kind >= CB_WAIT_LOCK && u->wait.kind <= CB_WAIT_WRLOCK)
         return True;
   }
   return False;
}

/* Locks: only the first acquisition and the last release of a lock a
 * thread holds recursively make events (cb_syncobj.c). */
static void cb_req_lock(CbThread *t, UWord *args, UWord *ret)
{
   switch (args[0]) {
   case CB_REQ_MAY_I_HELD: {
      /* args: caller, lock, depth, wait.  A nested call makes no event,
       * so it must not wait for a turn.  (Nor does it block: the deadlock
       * check finds no other holder.) */
      Bool user = cb_from_user(args[1]);
      if (cb_replaying && user && cb_lock_depth(t, args[2]) < args[3])
         *ret = cb_answer(cb_replay_may_run(t));
      else
         *ret = cb_answer(True);
      if (*ret && user && (args[4] & 0xf) != 0)
         cb_wait_begin(t, (UChar)(CB_WAIT_LOCK + (args[4] & 0xf) - 1),
                       args[2], args[1],
                       args[4] & (CB_WAIT_SELF_BLOCKS | CB_WAIT_ROBUST), 0);
      break;
   }
   case CB_REQ_LOCK_DEPTH:
      *ret = cb_lock_depth(t, args[1]);
      break;
   case CB_REQ_LOCK: {
      UChar mode = (UChar)(args[2] & 0xff);
      if (!cb_from_user(args[3]) ||
          !cb_lock_acquired(t, args[1], mode, args[3]))
         break;
      cb_symdef_for(args[1]);
      cb_event(t, CB_EV_LOCK, mode, cb_caller_loc(args[3]), args[1],
               (args[2] >> 8) & 1);
      break;
   }
   case CB_REQ_UNLOCK: {
      UChar mode = (UChar)(args[2] & 0xff);
      if (mode == CB_LOCK_MODE_HELD)
         mode = CB_LOCK_WR; /* if the tool never saw it taken */
      if (!cb_from_user(args[3])) {
         cb_lock_released_unseen(t, args[1]);
         break;
      }
      *ret = cb_lock_awaited(t, args[1]);
      if (!cb_lock_releasing(t, args[1], &mode))
         break;
      cb_event(t, CB_EV_UNLOCK, mode, cb_caller_loc(args[3]), args[1], 0);
      break;
   }
   }
}

/* The waits of the deadlock check besides locks: sem_wait and
 * pthread_join, after their turn; untimed condition waits. */
static void cb_req_wait(ThreadId tid, CbThread *t, UWord *args, UWord *ret)
{
   switch (args[0]) {
   case CB_REQ_MAY_I_WAIT: {
      /* args: caller (0 for join, which counts whoever calls), kind,
       * object, the call's own caller. */
      *ret = cb_answer(cb_may_i(t, args[1]));
      if (!*ret || (args[1] != 0 && !cb_from_user(args[1])))
         break;
      if (args[2] == CB_WAIT_JOIN)
         cb_wait_begin(t, CB_WAIT_JOIN, args[3], cb_user_caller(tid, args[4]),
                       cb_thread_wid_of(args[3]), 0);
      else if (args[2] == CB_WAIT_SEM)
         cb_wait_begin(t, CB_WAIT_SEM, args[3], args[1], 0, 0);
      break;
   }
   case CB_REQ_WAIT:
      /* args: CB_WAIT_COND, cond, mutex, caller */
      if (args[1] == CB_WAIT_COND && cb_from_user(args[4]))
         cb_wait_begin(t, CB_WAIT_COND, args[2], args[4], args[3], 0);
      break;
   case CB_REQ_WAIT_END:
      break; /* the wait ended before the dispatch */
   case CB_REQ_DETACHED:
      (void)cb_thread_joined(args[1]);  /* forgotten, as if joined */
      break;
   case CB_REQ_COND_INIT:
      cb_obj_set_shared(args[1], args[2] != 0);
      break;
   }
}

/* The call a request reports on (its return address), 0 when it names
 * none: a request whose call is the user's own, or that names none, shows
 * that its thread runs. */
static Addr cb_req_caller(const UWord *a)
{
   switch (a[0]) {
   case CB_REQ_MAY_I: case CB_REQ_MAY_I_HELD: case CB_REQ_MAY_I_WAIT:
      return a[1];
   case CB_REQ_LOCK: case CB_REQ_UNLOCK: case CB_REQ_COND_WAIT:
   case CB_REQ_COND_SIGNAL: case CB_REQ_SEM_WAIT: case CB_REQ_ALLOC:
   case CB_REQ_ONCE_ENTER: case CB_REQ_RELEASE: case CB_REQ_ACQUIRE:
      return a[3];
   case CB_REQ_BARRIER_ENTER: case CB_REQ_BARRIER_LEAVE: case CB_REQ_JOINED:
   case CB_REQ_FREE: case CB_REQ_SEM_POST: case CB_REQ_ONCE_PASS:
      return a[2];
   case CB_REQ_UNHANDLED: case CB_REQ_WAIT: case CB_REQ_LIBC_STATE:
      return a[4];
   case CB_REQ_LIBC_MEM:
      return a[3];
   default:
      return 0;
   }
}

/* Semaphores are numbered whoever posts and waits, so that a user's wait
 * names the right post even when the runtime made some of them. */
static void cb_req_sem(CbThread *t, UWord *args)
{
   switch (args[0]) {
   case CB_REQ_SEM_INIT:
      cb_sem_init(args[1], args[2]);
      cb_obj_set_shared(args[1], args[3] != 0);
      break;
   case CB_REQ_SEM_POST: {
      ULong n = cb_sem_post(args[1]);
      if (!cb_from_user(args[2]))
         break;
      cb_symdef_for(args[1]);
      cb_event(t, CB_EV_SEM_POST, 0, cb_caller_loc(args[2]), args[1], n);
      break;
   }
   case CB_REQ_SEM_WAIT: {
      ULong n = cb_sem_take(args[1]);
      if (!cb_from_user(args[3]))
         break;
      cb_symdef_for(args[1]);
      cb_event(t, CB_EV_SEM_WAIT, args[2] ? 1 : 0, cb_caller_loc(args[3]),
               args[1], n);
      break;
   }
   }
}

/* pthread_once: RELEASE when the init routine returned, ACQUIRE at each
 * return of the call; other RELEASE/ACQUIRE pairs (signals); UNHANDLED
 * calls. */
static void cb_req_once(ThreadId tid, CbThread *t, UWord *args, UWord *ret)
{
   Addr once, caller;
   switch (args[0]) {
   case CB_REQ_ONCE_ENTER:
      cb_once_enter(tid, args[1], args[2], args[3]);
      break;
   case CB_REQ_ONCE_TAKE:
      /* args[1]: 0 takes the routine, 1 asks whose call it runs for */
      *ret = args[1] ? cb_once_caller(tid) : cb_once_take(tid);
      break;
   case CB_REQ_ONCE_RAN:
      if (!cb_once_ran(tid, &once, &caller) || !cb_from_user(caller) ||
          t->unwatched)
         break;
      cb_symdef_for(once);
      cb_event(t, CB_EV_RELEASE, CB_SYNC_ONCE, cb_caller_loc(caller), once, 0);
      break;
   case CB_REQ_ONCE_PASS:
      if (!cb_from_user(args[2]))
         break;
      cb_symdef_for(args[1]);
      cb_event(t, CB_EV_ACQUIRE, CB_SYNC_ONCE, cb_caller_loc(args[2]),
               args[1], 0);
      break;
   case CB_REQ_RELEASE:
   case CB_REQ_ACQUIRE:
      if (!cb_from_user(args[3]))
         break;
      if (args[2] == CB_SYNC_ONCE)   /* a once control (GLib's g_once_*) */
         cb_symdef_for(args[1]);
      cb_event(t, args[0] == CB_REQ_RELEASE ? CB_EV_RELEASE : CB_EV_ACQUIRE,
               (UChar)args[2], cb_caller_loc(args[3]), args[1], 0);
      break;
   case CB_REQ_UNHANDLED:
      /* args: code, object, detail, caller */
      if (args[1] == CB_CALL_PTHREAD_CANCEL)
         cb_deadlock_cancel(args[3]); /* detail: the thread cancelled */
      if (!cb_from_user(args[4]))
         break;
      if (args[2])
         cb_symdef_for(args[2]);
      cb_event(t, CB_EV_UNHANDLED, (UChar)args[1], cb_caller_loc(args[4]),
               args[2], args[3]);
      break;
   }
}

/* CB_REQ_LIBC_STATE (cb_preload_libc.c): a READ or WRITE of the word
 * that stands for a piece of the C library's hidden state, named so that
 * a report says what it is in the program's terms.  The value is the
 * state's version, the count of its WRITEs so far: each READ reads the
 * latest WRITE's, as the program's reads do, so that --z3's reads-from
 * constraints hold for these events too. */
static const HChar *const cb_libc_state_names[CB_LIBC_NSTATES] = {
   [CB_LIBC_STRTOK] = "strtok's saved position (libc)",
   [CB_LIBC_TM] = "localtime/gmtime's static struct tm (libc)",
   [CB_LIBC_ASCTIME] = "asctime/ctime's static string (libc)",
   [CB_LIBC_PASSWD] = "getpwnam/getpwuid's static struct passwd (libc)",
   [CB_LIBC_GROUP] = "getgrnam/getgrgid's static struct group (libc)",
   [CB_LIBC_HOSTENT] = "gethostbyname's static struct hostent (libc)",
   [CB_LIBC_TTYNAME] = "ttyname's static string (libc)",
   [CB_LIBC_TMPNAM] = "tmpnam's static string (libc)",
   [CB_LIBC_ENV] = "the environment (getenv/setenv, libc)",
   [CB_LIBC_MBLEN] = "mblen's shift state (libc)",
   [CB_LIBC_MBTOWC] = "mbtowc's shift state (libc)",
   [CB_LIBC_WCTOMB] = "wctomb's shift state (libc)",
};
static ULong cb_libc_state_version[CB_LIBC_NSTATES];

static void cb_req_libc_state(CbThread *t, const UWord *args)
{
   /* args: state, kind | result size << 8, id, caller, result */
   UWord id = args[3], kind = args[2] & 0xff;
   if (!cb_from_user(args[4]) || id >= CB_LIBC_NSTATES ||
       (kind != CB_EV_READ && kind != CB_EV_WRITE))
      return;
   cb_names_define(args[1], cb_libc_state_names[id]);
   if (args[5] != 0)
      cb_symdef_named(args[5], (UInt)(args[2] >> 8), cb_libc_state_names[id]);
   if (kind == CB_EV_WRITE)
      cb_libc_state_version[id]++;
   cb_event(t, (UChar)kind, sizeof(UWord), cb_caller_loc(args[4]), args[1],
            cb_libc_state_version[id]);
}

/* How many of the size bytes from a the program may read (0: none, or
 * a is read-only and writable was asked): one look at the address
 * space. */
static UInt cb_client_readable(Addr a, UInt size, Bool writable)
{
   NSegment const *seg = VG_(am_find_nsegment)(a);
   if (!seg || !(seg->kind == SkAnonC || seg->kind == SkFileC ||
                 seg->kind == SkShmC) || !seg->hasR || (writable && !seg->hasW))
      return 0;
   return seg->end - a + 1 < size ? (UInt)(seg->end - a + 1) : size;
}

/* CB_REQ_LIBC_MEM (cb_preload_strmem.c): a C library function read or
 * wrote the program's memory inside libc, which the tool does not watch.
 * One READ or WRITE at the range's first byte, of at most 8 bytes (the
 * tool tells variables apart by their first address: the program's own
 * accesses to a buffer's start meet it), with the value found there.  A
 * read of memory nobody may write (a string literal) is no event: it
 * races with nothing.  The event's line is the call's, or when the
 * caller's code has none (a stripped library, as Debian's GLib: its
 * g_strdup calls memcpy), that of the nearest watched frame with one,
 * the program's call into that library, instead of a bare offset that
 * the report could only place near the thread's previous event. */
static void cb_req_libc_mem(ThreadId tid, CbThread *t, const UWord *args,
                            UWord *ret)
{
   /* args: addr, kind | len << 8, caller; addr 0: whether to make them */
   UWord kind = args[2] & 0xff, len = args[2] >> 8;
   if (args[1] == 0 && args[2] == 0) {
      *ret = cb_instr != CB_INSTR_ALL;
      return;
   }
   if (!cb_from_user(args[3]) || args[1] == 0 ||
       (kind != CB_EV_READ && kind != CB_EV_WRITE))
      return;
   UInt size = len == 0 ? 1 : len > 8 ? 8 : (UInt)len;
   /* The thread's own stack, not shared: no event, by the rule replay
    * applies to every access (cb_ev_mem); record mode would drop it only
    * when the buffer is scanned, after replay had counted it. */
   Addr a = args[1];
   if (a - cb_stk_lo < cb_stk_len || cb_stacks_own_local(a))
      return;
   UInt readable = cb_client_readable(a, size, kind == CB_EV_READ);
   if (readable == 0 && kind == CB_EV_READ)
      return;
   /* A function's static buffer has a symbol (buf.0) and no variable
    * description: the symbol names it, as for a generated code's
    * constant address (cb_emit.c). */
   if (cb_names_is_data(a))
      cb_symdef_for(a);
   ULong value = 0;
   for (UInt i = 0; i < readable; i++)
      value |= (ULong)((const UChar *)a)[i] << (8 * i);
   cb_event(t, (UChar)kind, (UChar)size,
            cb_caller_loc(cb_watched_frame(tid, args[3], True)), a, value);
}

static void cb_req_other(ThreadId tid, CbThread *t, UWord *args)
{
   switch (args[0]) {
   case CB_REQ_ATOMIC_BEGIN:
   case CB_REQ_ATOMIC_END:
      cb_event(t, args[0] == CB_REQ_ATOMIC_BEGIN ? CB_EV_ATOMIC_BEGIN
                                                 : CB_EV_ATOMIC_END,
               0, cb_loc_for(VG_(get_IP)(tid)), 0, 0);
      break;
   case CB_REQ_COND_WAIT:
      if (!cb_from_user(args[3]))
         break;
      cb_symdef_for(args[1]);
      cb_event(t, CB_EV_COND_WAIT, 0, cb_caller_loc(args[3]), args[1], args[2]);
      break;
   case CB_REQ_COND_SIGNAL:
      cb_cond_signal_sent(t, args[1], args[2] != 0);
      if (!cb_from_user(args[3]))
         break;
      cb_symdef_for(args[1]);
      cb_event(t, CB_EV_COND_SIGNAL, args[2] ? 1 : 0, cb_caller_loc(args[3]),
               args[1], 0);
      break;
   case CB_REQ_BARRIER_INIT:
      cb_barrier_init(args[1], args[2]);
      cb_obj_set_shared(args[1], args[3] != 0);
      break;
   case CB_REQ_BARRIER_ENTER:
   case CB_REQ_BARRIER_LEAVE:
      if (args[0] == CB_REQ_BARRIER_ENTER) {
         ULong round = cb_barrier_enter(args[1]);
         if (cb_from_user(args[2]))
            cb_wait_begin(t, CB_WAIT_BARRIER, args[1], args[2], 0, round);
      }
      if (!cb_from_user(args[2]))
         break;
      cb_symdef_for(args[1]);
      cb_event(t, args[0] == CB_REQ_BARRIER_ENTER ? CB_EV_BARRIER_ENTER
                                                   : CB_EV_BARRIER_LEAVE,
               0, cb_caller_loc(args[2]), args[1], cb_barrier_count(args[1]));
      break;
   case CB_REQ_CREATED:
      cb_stacks_share_arg(t, args[3]);
      if (args[2]) { /* created detached: no join will name it */
         (void)cb_thread_joined(args[1]);   /* nor an old thread's entry */
         break;
      }
      cb_thread_created(tid, args[1]);
      break;
   case CB_REQ_JOINED: {
      UInt wid = cb_thread_joined(args[1]);
      /* THREAD_JOIN is counted whoever calls: the gate before the real
       * join did not filter by caller either. */
      cb_event(t, CB_EV_THREAD_JOIN, 0,
               cb_caller_loc(cb_user_caller(tid, args[2])), 0, wid);
      break;
   }
   case CB_REQ_ALLOC:
      if (!cb_from_user(args[3]))
         break;
      cb_event(t, CB_EV_ALLOC, 0, cb_caller_loc(args[3]), args[1], args[2]);
      break;
   case CB_REQ_FREE:
      if (!cb_from_user(args[2]))
         break;
      cb_event(t, CB_EV_FREE, 0, cb_caller_loc(args[2]), args[1], 0);
      break;
   }
}

/* A modelled call's real code (CB_REQ_UNWATCHED_BEGIN..END): the thread
 * runs it unrecorded and ungated (cb_stacks_filter, cb_blocks.c, the
 * gates).  The wrappers it reaches there (GLib's g_cond_wait unlocks and
 * locks its GMutex, GRecMutex locks a pthread mutex, a futex is a
 * syscall()) are that implementation: their requests are answered "go
 * on" and have no effect, not even the end of the thread's wait (it may
 * block in there: the wrapper announced that before the real call). */
static Bool cb_req_unwatched(CbThread *t, const UWord *args, UWord *ret)
{
   switch (args[0]) {
   case CB_REQ_LOCK_SLOT:   /* whatever the thread runs: made once */
      t->lock_slot = args[1];
      return True;
   case CB_REQ_UNWATCHED_BEGIN:
      if (t->unwatched++ == 0)
         cb_stacks_filter(t);
      return True;
   case CB_REQ_UNWATCHED_END:
      if (t->unwatched > 0 && --t->unwatched == 0)
         cb_stacks_filter(t);
      return True;
   case CB_REQ_ONCE_ENTER: case CB_REQ_ONCE_TAKE: case CB_REQ_ONCE_RAN:
      /* A once wrapper's own bookkeeping (its trampoline must get its
       * routine back wherever it runs); ONCE_RAN makes no event while
       * unwatched (cb_req_once). */
      return False;
   default:
      if (t->unwatched == 0)
         return False;
      if (args[0] == CB_REQ_MAY_I || args[0] == CB_REQ_MAY_I_HELD ||
          args[0] == CB_REQ_MAY_I_WAIT)
         *ret = 1;
      return True;
   }
}

Bool cb_handle_client_request(ThreadId tid, UWord *args, UWord *ret)
{
   if ((args[0] & 0xffff0000u) != CB_REQ_BASE)
      return False;
   CbThread *t = cb_thread(tid);
   *ret = 0;
   if (cb_req_unwatched(t, args, ret))
      return True;
   if ((t->wait.kind || t->signalling) && !t->unwatched) {
      Addr caller = cb_req_caller(args);
      if (caller == 0 || cb_from_user(caller))
         cb_wait_end(t);
   }
   switch (args[0]) {
   case CB_REQ_MAY_I:
      /* args[1]: caller, or 0 for calls that always count (create). */
      *ret = cb_answer(cb_may_i(t, args[1]));
      break;
   case CB_REQ_TIMEOUT_MAY_FIRE: /* only once the plan let every thread go */
      *ret = cb_answer(!cb_replaying || cb_replay_timeout_may_fire(t));
      break;
   case CB_REQ_MAY_I_WAIT:
   case CB_REQ_WAIT:
   case CB_REQ_WAIT_END:
   case CB_REQ_COND_INIT:
   case CB_REQ_DETACHED:
      cb_req_wait(tid, t, args, ret);
      break;
   case CB_REQ_MAY_I_HELD:
   case CB_REQ_LOCK_DEPTH:
   case CB_REQ_LOCK:
   case CB_REQ_UNLOCK:
      cb_req_lock(t, args, ret);
      break;
   case CB_REQ_SEM_INIT:
   case CB_REQ_SEM_POST:
   case CB_REQ_SEM_WAIT:
      cb_req_sem(t, args);
      break;
   case CB_REQ_ONCE_ENTER:
   case CB_REQ_ONCE_TAKE:
   case CB_REQ_ONCE_RAN:
   case CB_REQ_ONCE_PASS:
   case CB_REQ_UNHANDLED:
   case CB_REQ_RELEASE:
   case CB_REQ_ACQUIRE:
      cb_req_once(tid, t, args, ret);
      break;
   case CB_REQ_ATOMIC_BEGIN: case CB_REQ_ATOMIC_END:
   case CB_REQ_COND_WAIT: case CB_REQ_COND_SIGNAL:
   case CB_REQ_BARRIER_INIT: case CB_REQ_BARRIER_ENTER:
   case CB_REQ_BARRIER_LEAVE: case CB_REQ_CREATED: case CB_REQ_JOINED:
   case CB_REQ_ALLOC: case CB_REQ_FREE:
      cb_req_other(tid, t, args);
      break;
   case CB_REQ_LIBC_STATE:
      cb_req_libc_state(t, args);
      break;
   case CB_REQ_LIBC_MEM:
      cb_req_libc_mem(tid, t, args, ret);
      break;
   case CB_REQ_EXIT_HOLD: /* args[1]: 1 at _exit, only while a plan runs */
      t->exiting = True;   /* from now on the others do not wait for it */
      *ret = (!args[1] || (cb_replaying && !cb_replay_released())) && cb_exit_may_wait(t);
      break;
   case CB_REQ_PARENT_FIRST:
      *ret = cb_replaying ? 0 : (UWord)cb_opt_parent_first;
      break;
   default:
      return False;
   }
   return True;
}
