/* cb_global.h: what the tool's files share.  Tool-private (the public header
 * is cbtools.h).  Valgrind conventions: no libc, VG_(...) calls only.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CB_GLOBAL_H
#define CB_GLOBAL_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_hashtable.h"
#include "cb_wire.h"

/* ---- options (cb_main.c) ---- */
typedef enum { CB_MODE_RECORD, CB_MODE_REPLAY } CbMode;
typedef enum { CB_INSTR_DEFAULT = 0, CB_INSTR_MAIN = 1, CB_INSTR_ALL = 2 } CbInstr;
extern CbMode  cb_mode;
extern CbInstr cb_instr;
extern Bool    cb_replaying;  /* cb_mode == CB_MODE_REPLAY, read by helpers */

/* ---- raw record stream (cb_output.c) ---- */
#define CB_BUF_BYTES (64 * 1024)
/* One record of slack past CB_BUF_BYTES: the inline record path of
 * cb_instrument.c writes a record first and flushes after, when the buffer
 * is full (cb_put may leave it exactly full).  A word, so that generated
 * code loads and stores it whole. */
#define CB_BUF_SLACK 64
extern UChar cb_buf[CB_BUF_BYTES + CB_BUF_SLACK];
extern UWord cb_buf_used;
extern Int   cb_out_fd;       /* -1: nothing is written */

void cb_out_init(Int fd);
void cb_out_flush(void);
VG_REGPARM(0) void cb_out_flush_full(void);  /* from generated code */
void cb_out_flush_if_old(ULong blocks);   /* blocks: the core's count */
/* Buffered records are written at least this often while the program
 * runs; the clock is looked at every CB_FLUSH_BLOCKS blocks run (a few
 * milliseconds). */
#define CB_FLUSH_MS 200u
#define CB_FLUSH_BLOCKS 100000u
/* The system call hooks' part in when the buffer is written. */
void cb_out_before_syscall(UInt sysno, const UWord *args);
void cb_out_after_syscall(UInt sysno, const UWord *args, SysRes res);
Bool cb_futex_blocks(const UWord *args);   /* a futex call's op waits */
void cb_out_end(void);         /* END record and final flush */
void cb_out_forked_child(ThreadId tid);

/* A record; rmw: a locked instruction's store, enum cb_rmw_class. */
static inline void cb_put_rmw(UChar kind, UChar size, UChar rmw, UInt tid,
                              UInt loc, ULong addr, ULong value)
{
   cb_wire_event *e;
   if (UNLIKELY(cb_buf_used + sizeof(cb_wire_event) > CB_BUF_BYTES))
      cb_out_flush();
   e = (cb_wire_event *)(cb_buf + cb_buf_used);
   e->kind = kind;
   e->size = size;
   e->rmw = rmw;
   e->pad = 0;
   e->tid = tid;
   e->loc = loc;
   e->pad2 = 0;
   e->addr = addr;
   e->value = value;
   cb_buf_used += sizeof(cb_wire_event);
}

static inline void cb_put(UChar kind, UChar size, UInt tid, UInt loc,
                          ULong addr, ULong value)
{
   cb_put_rmw(kind, size, CB_RMW_NONE, tid, loc, addr, value);
}

/* Location id of a code address; emits its LOCDEF the first time.  Its
 * function is the innermost one, inlined or not (--read-inline-info=yes). */
UInt cb_loc_for(Addr a);
/* The same for a function's entry, named after the function whose symbol
 * holds it: a block's location. */
UInt cb_loc_for_fn(Addr a);
/* A new location at a's file:line, named after function fn. */
UInt cb_loc_named(Addr a, const HChar *fn);
/* The code address of location id (0 if unknown). */
Addr cb_loc_address(UInt id);
/* A wrapper's caller is a return address: the location of the call. */
UInt cb_caller_loc(Addr caller);
/* "file:line" of a code address, or "?" (replay's status lines). */
void cb_where(Addr a, HChar *buf, Int len);
/* Emits a SYMDEF for the global holding data address a, once per symbol,
 * and names a from debug info (cb_names_sync_object). */
void cb_symdef_for(Addr a);
/* A SYMDEF of size bytes at start named name, once per start. */
void cb_symdef_named(Addr start, UInt size, const HChar *name);
/* A VARDEF record (cb_wire.h); never flushes the buffer (it is called
 * while the buffer is being scanned): when the buffer is full, the record
 * waits and goes out at the start of the next buffer. */
void cb_out_vardef(Addr a, UInt offset, UInt line, Bool local,
                   const HChar *name, const HChar *file);

/* Length of the record at p: 24 bytes, plus strings for the DEF kinds. */
static inline UInt cb_record_len(const UChar *p)
{
   if (CB_WIRE_HAS_STRINGS(*p))
      return sizeof(cb_wire_locdef) + ((const cb_wire_locdef *)p)->strlen;
   return sizeof(cb_wire_event);
}

/* ---- source-level names of data (cb_names.c) ---- */
void cb_names_init(Bool records_out);                 /* after the options */
void cb_names_sync_object(Addr a);        /* a lock, semaphore, ... */
void cb_names_define(Addr a, const HChar *name);  /* a made-up name */
Bool cb_names_is_data(Addr a);            /* may a be a global's? */
void cb_names_scan(const UChar *p, const UChar *end);

/* ---- how much debug info is read, per object (cb_dinfo.c) ---- */
void cb_dinfo_init(void);             /* after cb_names_init */
void cb_dinfo_before_map(Int fd);     /* pre-syscall: mmap (fd), mprotect (-1) */
void cb_dinfo_after_map(void);        /* their post-syscall */
void cb_dinfo_first_run(void);        /* before the first client code */

/* ---- objects (cb_objects.c) ---- */
Bool cb_obj_instrumented(Addr a);   /* code address in an instrumented object */
Bool cb_addr_is_plt(Addr a);
/* Linker-added start-up code (_init, frame_dummy, ...): not watched. */
Bool cb_code_is_runtime_glue(Addr a);
/* A constant data address that may be shared: writable, not GOT/PLT. */
Bool cb_const_addr_shared(Addr a);
/* An object of the C runtime (libc, ld.so, libgcc, ...), by its path. */
Bool cb_path_is_c_runtime(const HChar *path);

/* ---- threads (cb_threads.c) ---- */
/* fn: entry address; sp: stack pointer at entry; ret: the word there, the
 * return address (tells a tail call from a new call at the same depth). */
/* chain: 0 for a real activation; for an inlined one (cb_inline.c), its
 * inline chain, and fn is the first address seen in it. */
typedef struct { Addr fn; Addr sp; Addr ret; UInt loc; UInt chain; } CbFrame;
/* What a thread waits for in a blocking call the tool models, from just
 * before the real call until the thread is seen running again
 * (cb_deadlock.c). */
typedef struct {
   UChar kind;     /* enum cb_wait_kind (cb_wire.h); 0: not waiting */
   Bool  woken;    /* COND: a signal may be on its way to it */
   Addr  obj;      /* lock, condition, semaphore, barrier; JOIN: pthread_t */
   Addr  caller;   /* return address of the waiting call, in watched code */
   UWord extra;    /* JOIN: the joined thread's wid (0 unknown); COND: the
                      mutex; a lock: 1 when it blocks its own holder */
   ULong seq;      /* COND: the condition's signals; BARRIER: its round;
                      when the wait began */
} CbWait;
typedef struct {
   Bool    live;
   UInt    wid;          /* creation order, main = 1 */
   UInt    last_child;   /* wid of the thread it created last */
   UInt    nchildren;    /* threads it created so far (stable paths) */
   Addr    stk_lo;       /* its own stack: [stk_lo, stk_lo + stk_len) */
   SizeT   stk_len;
   Bool    stk_known;    /* stk_lo/stk_len set (it has run) */
   VgHashTable *esc;     /* its escaped stack lines (cb_stacks.c), or NULL */
   Addr    esc_lo;       /* the lowest of them */
   UInt    inl_entered;  /* cb_entered while another thread runs */
   CbFrame *frames;      /* shadow stack of function activations */
   UInt    nframes, capframes;
   ULong   counted;      /* counted events so far (next counted index);
                            replay mode only: record mode's inline memory
                            events do not count, nothing reads it there */
   /* Replay: a split instruction's read ran early (cb_split.c). */
   Bool    split_held;   /* split_val is what it read at split_addr */
   Addr    split_addr;
   ULong   split_val;
   CbWait  wait;         /* cb_deadlock.c */
   Addr    signalling;   /* the condition it signalled last, while the
                            signal may still be on its way (cb_deadlock.c) */
   Bool    signal_all;   /* that signal is a broadcast */
   Bool    signal_spent; /* a wait it may have ended has ended */
   Bool    exiting;      /* holds its exit for the others (cb_exit_may_wait) */
   Bool    exit_called;  /* it made the exit system call: its end is its
                            own, not a tear-down of the process */
   Bool    cancelled;    /* another thread asked pthread_cancel to end it:
                            a wait at a cancellation point may end so
                            (cb_deadlock.c) */
   UInt    unwatched;    /* depth of modelled calls it runs the real code
                            of (CB_REQ_UNWATCHED_BEGIN): none of what it
                            does there is recorded or gated */
   Addr    lock_slot;    /* its cb_lock_slot in the client, 0 unknown
                            (CB_REQ_LOCK_SLOT, cb_clientreq.h) */
} CbThread;

extern CbThread *cb_threads;       /* indexed by Valgrind ThreadId */
extern CbThread *cb_cur;           /* the thread running client code */
/* The part of cb_cur's stack whose accesses are dropped without a look:
 * its stack below its lowest escaped line (cb_stacks.c). */
extern Addr      cb_stk_lo;
extern SizeT     cb_stk_len;
extern ULong     cb_cur_tid32;     /* cb_cur->wid << 32: a record's tid bits */
extern UInt      cb_nlive;         /* threads alive (CbThread.live) */
extern ThreadId  cb_max_tid;       /* the highest ThreadId ever used */

void cb_threads_init(void);
void cb_thread_ll_create(ThreadId parent, ThreadId child);
void cb_thread_ll_exit(ThreadId tid);
void cb_thread_start_client(ThreadId tid, ULong blocks);
void cb_thread_created(ThreadId tid, UWord pthread);
UInt cb_thread_wid_of(UWord pthread);
UInt cb_thread_joined(UWord pthread);
void cb_threads_fini(void);
CbThread *cb_thread(ThreadId tid);

/* Every non-memory event goes through here so that counting is shared. */
void cb_event(CbThread *t, UChar kind, UChar size, UInt loc, ULong addr,
              ULong value);

/* ---- a spinner's repeated reads (cb_repeat.c) ---- */
/* Whether a read that is the sole access of its instruction (8 bytes at
 * most) is dropped: neither counted nor recorded. */
Bool cb_repeat_drop(UInt wid, Addr a, ULong value);
void cb_repeat_reset(UInt wid);      /* any other counted event of wid */
Bool cb_repeat_spinning(UInt wid);   /* its last read was dropped, no event since */
UChar *cb_repeat_scan(UChar *p, UChar *end); /* record mode's buffer */
extern Bool cb_repeat_spun;          /* its last counted record was dropped */
/* wid gives way: whether it gave way last too and no other thread made an
 * event since (the other thread was not waiting for the big lock). */
Bool cb_repeat_in_vain(UInt wid);

/* ---- stack memory shared between threads (cb_stacks.c) ---- */
extern Bool cb_stacks_watch_rsp;   /* instrument RSP-relative accesses too */
void cb_stacks_init(void);
void cb_stacks_scan(void);         /* before the buffer is written or
                                      another thread runs */
void cb_stacks_flushed(void);      /* the buffer was emptied */
Bool cb_stacks_own_local(Addr a);  /* replay mode's per-access filter */
Bool cb_stacks_holds(Addr a);      /* a is on a live thread's stack */
Bool cb_stacks_touch_page(UWord page); /* some of the page is */
extern UInt cb_stacks_gen;         /* changes when the stacks do */
void cb_stacks_thread_runs(ThreadId tid, CbThread *t, Addr lo, SizeT len);
void cb_stacks_runs_on(ThreadId tid);   /* the running thread re-enters */
void cb_stacks_thread_gone(CbThread *t);
/* Sets the inline filter's globals for t when it is the running thread:
 * its own stack, or every address while it runs unwatched. */
void cb_stacks_filter(const CbThread *t);
/* pthread_create's argument: a local of t's that it hands to the child. */
void cb_stacks_share_arg(CbThread *t, Addr arg);

/* ---- function activations (cb_blocks.c) ---- */
VG_REGPARM(2) void cb_call(Addr target, Addr sp);
VG_REGPARM(1) void cb_ret(Addr sp);
VG_REGPARM(3) void cb_enter(Addr fn, Addr sp, UWord loc);
Bool cb_is_fn_entry(Addr a);   /* translation time */
Bool cb_call_target_watched(Addr target);
void cb_blocks_close_all(CbThread *t);
void cb_blocks_resume(CbThread *t);   /* t runs: sets cb_cur_chain */
UInt cb_blocks_top_chain(const CbThread *t);
void cb_blocks_pop_inlined(CbThread *t, UInt keep);
void cb_blocks_push_inlined(CbThread *t, UInt chain, Addr fn, UInt loc);

/* ---- inlined activations (cb_inline.c) ---- */
/* The running thread's: the inline chain of its top frame, or
 * CB_CHAIN_INVALID while cb_entered is set; the chain whose entry
 * instruction ran since its last event, 0 if none (saved per thread in
 * CbThread.inl_entered while others run). */
extern UInt cb_cur_chain;
extern UInt cb_entered;
#define CB_CHAIN_INVALID 0xffffffffu
Bool cb_inline_innermost(Addr a, HChar *fn, SizeT len);
Bool cb_inline_at(Addr insn, UInt *chain, UInt *entry);  /* translation */
void cb_inline_emit_entry(IRSB *sb, UInt entry);
void cb_inline_emit_check(IRSB *sb, UInt chain);
Bool cb_inline_is_chased_call(const IRStmt *st, Addr insn, UInt len);
VG_REGPARM(1) void cb_inline_switch(UWord chain);

/* ---- instrumentation (cb_instrument.c) ---- */
IRSB *cb_instrument(VgCallbackClosure *closure, IRSB *bb,
                    const VexGuestLayout *layout,
                    const VexGuestExtents *vge,
                    const VexArchInfo *archinfo_host,
                    IRType gWordTy, IRType hWordTy);

/* The tool's instrumentation: cb_instrument, then, in record mode, the
 * client requests answered from generated code (cb_fastreq.c). */
IRSB *cb_instrument_all(VgCallbackClosure *closure, IRSB *bb,
                        const VexGuestLayout *layout,
                        const VexGuestExtents *vge,
                        const VexArchInfo *archinfo_host,
                        IRType gWordTy, IRType hWordTy);

/* ---- instrumentation helpers shared with cb_split.c ---- */
VG_REGPARM(3) void cb_ev_mem(Addr a, ULong value, UWord info);

/* ---- split read-modify-write instructions (cb_split.c) ---- */
Bool cb_split_pair(IRTypeEnv *tyenv, const IRStmt *ld, const IRStmt *st);
void cb_split_emit_load(IRSB *sb, const IRStmt *ld);
VG_REGPARM(2) UWord cb_gate_split(Addr a, UWord info);
extern Bool cb_split_skip;  /* the next read event was counted already */

/* ---- client requests (cb_sync.c) ---- */
Bool cb_handle_client_request(ThreadId tid, UWord *args, UWord *ret);
void cb_sync_futex_wait(ThreadId tid);   /* pre-syscall of a futex wait */

/* ---- deadlocks (cb_deadlock.c) ---- */
/* t is about to block in a call it made from watched code (cb_sync.c);
 * extra and seq as in CbWait.  Ends the run when the program deadlocked. */
void cb_wait_begin(CbThread *t, UChar kind, Addr obj, Addr caller,
                   UWord extra, ULong seq);
/* t runs again: its wait, and the signal it sent last, are over. */
void cb_wait_end(CbThread *t);
/* t is about to signal (broadcast: wake every waiter of) cv. */
void cb_cond_signal_sent(CbThread *t, Addr cv, Bool broadcast);
/* A thread ended by its own exit system call: whoever it kept alive may
 * now be the last to wait. */
void cb_deadlock_check(void);
/* Whether t, in exit(), should let the program's other threads run on
 * first: one of them is alive and not surely blocked (cb_preload_misc.c's
 * exit wrapper asks, CB_REQ_EXIT_HOLD). */
Bool cb_exit_may_wait(const CbThread *t);
/* --cb-parent-first=N (cb_main.c): record mode's new threads yield N times
 * before their start routine (cb_preload.c, cb_create). */
extern Long cb_opt_parent_first;
#define CB_STALL_WAITS_SAID 16
void cb_deadlock_say_waits(void);
enum { CB_PLAN_WAITING = 1, CB_PLAN_SURELY_STUCK = 2 };
int cb_deadlock_plan_stuck(Bool (*may_run)(CbThread *), ULong expected);
void cb_deadlock_off(void);          /* the process is ending, or a child */
/* The pre-syscall of rt_sigaction: a handler may end any wait. */
void cb_deadlock_sigaction(ThreadId tid, Int signo, Addr act);
/* pthread_cancel of the thread whose pthread_t is pthread is on its way. */
void cb_deadlock_cancel(UWord pthread);

/* ---- the end of a run (cb_main.c) ---- */
/* What the tool's shut-down does: every thread's end, END, and in replay
 * the last status lines.  Also called when the tool ends a deadlocked run. */
void cb_end_run(void);

/* ---- replay (cb_replay.c) ---- */
extern const HChar *cb_plan_path;
extern Int cb_status_fd;                 /* cb_replay_status.c */
Bool cb_replay_init(void);               /* loads the plan; False: bad plan */
Bool cb_replay_may_run(CbThread *t);     /* turn check, with stall check */
Bool cb_replay_released(void);           /* every thread runs free for good */
/* t's timed wait is past its deadline: may it time out? (cb_replay.c) */
Bool cb_replay_timeout_may_fire(CbThread *t);
/* Counted events t may run before the plan's next turn change (~0: any). */
ULong cb_replay_allowance(CbThread *t);
/* Before t->counted++: the event's kind, location, address and value. */
void cb_replay_counted(CbThread *t, UChar kind, UInt loc, Addr addr,
                       ULong value);
/* One status line (cb_replay_status.c). */
void cb_replay_status(const HChar *line);
/* sched_yield(2), the big lock held: the kernel runs another thread
 * first, which may then queue for the lock. */
void cb_kernel_yield(void);

/* ---- a spinning thread gives way (cb_spin.c) ---- */
/* Every counted event of a forced run, in the order they run; whether it
 * is a read that its thread made again (the same address and value as
 * one of its last few, with no other event between): a spin. */
Bool cb_spin_event(UInt wid, UChar kind, Addr a, ULong value);
/* A read cb_repeat.c dropped: a repeat, without looking again. */
void cb_spin_repeat(UInt wid);
/* The running thread spun: its next gate calls cb_spin_give_way and makes
 * it yield (cb_emit.c). */
extern Bool cb_spin_yield_now;
void cb_spin_give_way(void);
void cb_replay_thread_exit(CbThread *t);
void cb_replay_ending(void);             /* shut-down starts */
void cb_replay_fini(void);
void cb_replay_exec_called(void);        /* execve: the tool's end may not come */
/* The status lines; how the run ended (cb_replay_status.c). */
void cb_replay_status_init(void);        /* the fd out of the program's way */
void cb_replay_exit_called(CbThread *t, Int code); /* exit_group, or the
                                                     last exit */
void cb_replay_abort_raised(CbThread *t); /* SIGABRT sent by t */
void cb_replay_deadlocked(void);         /* the run ends: a deadlock */
Bool cb_replay_was_deadlocked(void);
void cb_replay_end(void);                /* the last status line */
void cb_replay_left_by_itself(UInt wid); /* its exit ends the process */
void cb_replay_forked_child(void);

/* ---- replay: the plan's file, read and checked (cb_plan_file.c) ---- */
typedef struct {
   ULong  nthreads;   /* threads the plan knows, 1..n */
   ULong *prefix;     /* [1..n] counted events before the cut */
   ULong  ntail;      /* tail steps */
   ULong *tail;       /* pairs (tid, n); n CB_STEP_RUN_OUT: run it out */
   ULong  stall_ms;   /* no scheduled progress this long: infeasible */
} CbPlan;
/* Also loads the pattern, paths and prefix order into their files.
 * False: a bad plan, said on the terminal. */
Bool cb_plan_load(const HChar *path, CbPlan *p);

/* ---- replay: did e1, f, e2 run in order? (cb_pattern.c) ---- */
void cb_pattern_load(const ULong *w);    /* 6 words: (tid, index) x 3 */
/* wid's counted event index ran (kind, value): one of the three? */
void cb_pattern_event(ULong wid, ULong index, UChar kind, ULong value);
Bool cb_pattern_all_ran(void);           /* all three, not yet reported */
/* Says "pattern 1" or "pattern 0", once; ending: the process ends, and
 * an order begun and cut short counts (left_by_itself: whether a thread
 * ended by itself rather than being torn down). */
void cb_pattern_report(Bool ending, Bool (*left_by_itself)(ULong tid));
void cb_pattern_value(Int k, UChar kind, ULong value); /* "value K V" */
void cb_pattern_happened(void);          /* "pattern 1", once */

/* ---- replay: a plan forced by its events' code (cb_hunt.c) ---- */
Bool cb_hunt_load(const ULong *w, ULong nw, ULong *at);
extern Bool cb_hunting;                  /* released, with a hunt to make */
void cb_hunt_start(void);                /* at the release */
void cb_hunt_event(CbThread *t, UChar kind, UInt loc, Addr a, ULong value);
void cb_hunt_gate(CbThread *t, Addr insn, Addr a);
Bool cb_hunt_splits(Addr a, UWord info);
Bool cb_hunt_unfinished(void);           /* turns are not free yet */
Bool cb_hunt_timeout_may_fire(void);
void cb_hunt_end(void);                  /* at the process's end */
Bool cb_hunt_holds(CbThread *t);
void cb_hunt_thread_exit(const CbThread *t);

/* ---- replay: the recorded order in the prefix (cb_porder.c) ---- */
/* Reads the plan's waits from w[*at] (none when the plan ends before). */
Bool cb_porder_load(const ULong *w, ULong nw, ULong *at, ULong nthreads);
/* Whether thread wid's next counted event (done[wid]) must wait. */
Bool cb_porder_holds(ULong wid, const ULong *done, const Bool *exited);
/* Counted events wid may run before its next wait (~0: no wait left). */
ULong cb_porder_room(ULong wid, const ULong *done, const Bool *exited);
Bool cb_porder_active(void);
void cb_porder_drop(const ULong *done, const Bool *exited);

/* ---- replay: thread paths and expected events (cb_ident.c) ---- */
/* Reads the plan's paths and expectations from w[*at]; False: malformed. */
Bool cb_ident_load(const ULong *w, ULong nw, ULong *at, ULong nthreads);
/* The id of parent's index-th child: the recorded one of that path, else
 * a fresh one above the plan's; 0 when the plan names no paths. */
UInt cb_ident_child_wid(UInt parent, UInt index);
/* t is about to run its counted event t->counted: is it the one expected? */
void cb_ident_check(const CbThread *t, UChar kind, UInt loc, Addr addr,
                    Bool forcing);

#endif /* CB_GLOBAL_H */
