/* cb_wire.h: what crosses between the Valgrind tool and the host commands.
 *
 * This is the one definition of event kinds and of the two binary formats that
 * the tool speaks (it has no libc and no protobuf):
 *   - the raw record stream the tool writes while the program runs, which
 *     `cbtrace record` encodes into trace.proto chunks;
 *   - the replay plan that `cbreplay` flattens a schedule into for the tool.
 * trace.proto stores event kinds as these numbers.  Keep this header free of
 * libc: it is compiled into the tool as well as into host code.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CB_WIRE_H
#define CB_WIRE_H

/* 2: 32-byte records with a 32-bit thread id; the plan carries thread
 * paths and expectations.  1: 24-byte records, 16-bit thread ids. */
#define CB_WIRE_VERSION 2u

/* Event kinds.  Fields of a cb_wire_event, per kind:
 *   kind            addr                 size             value
 *   READ, WRITE     data address         bytes (1..32)    value if size<=8
 *   LOCK, UNLOCK    lock object          CB_LOCK_* mode   1 if trylock
 *   COND_WAIT       condition variable   0                mutex address
 *   COND_SIGNAL     condition variable   1 if broadcast   0
 *   BARRIER_ENTER   barrier object       0                barrier count
 *   BARRIER_LEAVE   barrier object       0                barrier count
 *   THREAD_CREATE   0                    0                child thread id
 *   THREAD_START    0                    0                parent thread id
 *   THREAD_JOIN     0                    0                joined thread id
 *   THREAD_EXIT     0                    0                0
 *   BLOCK_BEGIN     function entry addr  0                0
 *   BLOCK_END       function entry addr  0                0
 *   ATOMIC_BEGIN    0 (user markup)      0                0
 *   ATOMIC_END      0                    0                0
 *   ALLOC           block address        0                block size
 *   FREE            block address        0                0
 *   SEM_POST        semaphore            0                post number n
 *   SEM_WAIT        semaphore            1 if trywait     post it consumed
 *   RELEASE         sync object          CB_SYNC_* class  0
 *   ACQUIRE         sync object          CB_SYNC_* class  0
 *   UNHANDLED       object or 0          CB_CALL_* code   call detail
 * Thread ids are creation order, main = 1; they are stable between a
 * recorded run and its replays, unlike Valgrind's ThreadIds and pthread_t.
 * LOCK is emitted after the lock is held, UNLOCK before it is released,
 * COND_SIGNAL before the signal, so that the trace order is lock-valid.
 * pthread_cond_wait appears as UNLOCK(m), COND_WAIT(c), LOCK(m).
 * A recursive lock is recorded once: LOCK at the first acquisition, UNLOCK
 * at the last release; the nested calls make no event.
 * Semaphores: the posts of each semaphore are numbered 1, 2, ... in trace
 * order (SEM_POST is emitted before the post).  A successful wait (emitted
 * after it returned) names the post whose token it took: waits take the
 * sem_init tokens first, then posts in order; 0 = an initial token.  So
 * post n happens before the wait whose value is n, and nothing else does.
 * RELEASE/ACQUIRE: every event before a RELEASE of an object happens
 * before every later ACQUIRE of it (pthread_once, call_once: the init
 * routine's end is a RELEASE, each return of the call an ACQUIRE;
 * pthread_kill is a RELEASE of the target thread, the target's return from
 * sigwait, sigwaitinfo or sigtimedwait an ACQUIRE of itself).
 * UNHANDLED: a synchronising call the tool saw but does not model (a raw
 * futex system call, pthread_cancel, fork): cbtrace stats counts and names
 * them, so that a missed bug is not silent. */
enum cb_event_kind {
   CB_EV_NONE = 0,
   CB_EV_READ = 1,
   CB_EV_WRITE = 2,
   CB_EV_LOCK = 3,
   CB_EV_UNLOCK = 4,
   CB_EV_COND_WAIT = 5,
   CB_EV_COND_SIGNAL = 6,
   CB_EV_BARRIER_ENTER = 7,
   CB_EV_BARRIER_LEAVE = 8,
   CB_EV_THREAD_CREATE = 9,
   CB_EV_THREAD_START = 10,
   CB_EV_THREAD_JOIN = 11,
   CB_EV_THREAD_EXIT = 12,
   CB_EV_BLOCK_BEGIN = 13,
   CB_EV_BLOCK_END = 14,
   CB_EV_ATOMIC_BEGIN = 15,
   CB_EV_ATOMIC_END = 16,
   CB_EV_ALLOC = 17,
   CB_EV_FREE = 18,
   CB_EV_SEM_POST = 19,
   CB_EV_SEM_WAIT = 20,
   CB_EV_RELEASE = 21,
   CB_EV_ACQUIRE = 22,
   CB_EV_UNHANDLED = 23,
   CB_EV_KIND_COUNT = 24 /* at most 31: trace.proto packs kind in 5 bits */
};

/* Classes of RELEASE/ACQUIRE objects, in the size field. */
enum cb_sync_class {
   CB_SYNC_ONCE = 1,  /* pthread_once / call_once control */
   CB_SYNC_SIGNAL = 2 /* a thread (its pthread_t): pthread_kill releases,
                         the target's sigwait* return acquires */
};

/* UNHANDLED calls, in the size field; names in the trace library
 * (cb_call_name).  Append only. */
enum cb_call_code {
   CB_CALL_FUTEX = 1,          /* syscall(SYS_futex, addr, op, ...): value op */
   CB_CALL_PTHREAD_CANCEL = 2,
   CB_CALL_FORK = 3,           /* the child runs unrecorded */
   CB_CALL_COUNT = 4
};

/* READ/WRITE size byte: the low 6 bits are the access size; this bit says the
 * access belongs to the same machine instruction as the thread's previous
 * event (the load and store of `addl $1,x(%rip)`, a CAS).  Valgrind switches
 * threads only between instructions, so no schedule may cut there. */
#define CB_SIZE_SAME_INSN 0x80u
/* On the store of a plain (not locked) read-modify-write instruction, one
 * integer load and one store of one address (`addq $1,x(%rip)`): replay can
 * cut between its load and this store after all (vgtool/cb_split.c), so a
 * schedule may stop the thread there. */
#define CB_SIZE_SPLIT 0x40u
#define CB_SIZE_BYTES(size) ((size) & 0x3fu)

/* The store of a locked read-modify-write instruction (a CAS in VEX IR:
 * Valgrind turns `lock or` and `lock xadd` into a CAS just as it does
 * `lock cmpxchg` and `xchg`): how its new value came about, in the
 * record's rmw byte (0 in tools before it) and in trace.proto's
 * Events.kind_size_rmw.  Only WRITE events carry one; 0 on every other
 * event and in older traces.  Whether a word is a hand-made lock
 * (trace/spinlocks.c) turns on it: only an instruction whose old value
 * the program gets back can tell a thread that it took the lock. */
enum cb_rmw_class {
   CB_RMW_NONE = 0,     /* not such a store, or not known */
   CB_RMW_EXCHANGE = 1, /* the new value is not computed from the value the
                           instruction read: xchg, cmpxchg (a CAS loop's
                           fetch-or is one too) */
   CB_RMW_FETCH_OP = 2, /* new = op(old, x), and the old value reaches the
                           program: xadd, lock bts/btr/btc (the bit in the
                           carry flag) */
   CB_RMW_OP = 3,       /* new = op(old, x), and the program sees at most
                           the flags of the result: lock or/and/xor/add/
                           sub/inc/dec whose fetched value is thrown away
                           (`atomic_fetch_or(&map, bit);` as a statement) */
   CB_RMW_STORE = 4,    /* an exchange whose old value the program throws
                           away: the xchg gcc makes of a sequentially
                           consistent `atomic_store(&busy, 1)` */
   CB_RMW_COUNT = 5
};

/* Lock modes, in the size field of LOCK and UNLOCK. */
enum cb_lock_mode {
   CB_LOCK_MUTEX = 0,
   CB_LOCK_RD = 1, /* rwlock held for reading */
   CB_LOCK_WR = 2  /* rwlock held for writing */
};
/* Whether holds of one lock in modes a and b exclude each other: only two
 * reads do not.  The one rule: the tool's deadlock check, cbpredict's
 * locksets and its Z3 encoding all ask it. */
#define CB_LOCK_MODES_CONFLICT(a, b) (!((a) == CB_LOCK_RD && (b) == CB_LOCK_RD))

/* Counted events: the ones a schedule positions threads by.  Record and
 * replay number each thread's counted events 0, 1, 2, ... in the same way, and
 * a schedule carries this mask so that a replay can refuse a schedule counted
 * differently.  Block markers, allocation and thread start/exit are not
 * counted: they are not points where another thread can interleave
 * observably.  THREAD_CREATE is counted: replay gates pthread_create.
 * SEM_POST, SEM_WAIT, RELEASE and ACQUIRE are counted (replay gates them
 * as it gates locks, and cbpredict takes happens-before edges only at
 * counted events); UNHANDLED is not. */
#define CB_COUNTED_MASK                                                      \
   ((1u << CB_EV_READ) | (1u << CB_EV_WRITE) | (1u << CB_EV_LOCK) |           \
    (1u << CB_EV_UNLOCK) | (1u << CB_EV_COND_WAIT) |                          \
    (1u << CB_EV_COND_SIGNAL) | (1u << CB_EV_BARRIER_ENTER) |                 \
    (1u << CB_EV_BARRIER_LEAVE) | (1u << CB_EV_THREAD_CREATE) |               \
    (1u << CB_EV_THREAD_JOIN) | (1u << CB_EV_SEM_POST) |                      \
    (1u << CB_EV_SEM_WAIT) | (1u << CB_EV_RELEASE) | (1u << CB_EV_ACQUIRE))

#define CB_IS_COUNTED(kind) ((CB_COUNTED_MASK >> (kind)) & 1u)

/* ---- The raw record stream (tool -> cbtrace record) ----------------------
 * A sequence of 32-byte records, native little-endian.  A record whose kind is
 * CB_WIRE_LOCDEF is a cb_wire_locdef followed by `strlen` bytes of strings
 * (object, function, file, and the file's folder; each NUL-terminated: a
 * reader takes a missing last one as unknown) padded with NULs to a
 * multiple of 8; a CB_WIRE_SYMDEF has the same layout with one string, a
 * CB_WIRE_VARDEF with two.  The first record is a CB_WIRE_HELLO. */
#define CB_WIRE_LOCDEF 0xF0u /* defines a code location id */
#define CB_WIRE_HELLO 0xF1u  /* first record: version in addr, flags in value */
#define CB_WIRE_END 0xF2u    /* last record of a run that ended normally */
#define CB_WIRE_SYMDEF 0xF3u /* names a global: cb_wire_locdef layout with
                                address = start, line = size in bytes, and one
                                string (the symbol); id unused */
#define CB_WIRE_VARDEF 0xF4u /* names a data address as the source does, from
                                debug info: cb_wire_locdef layout with
                                address = the address, id = its offset in
                                bytes past the start of what the name names,
                                line = the declaration's line, pad = 1 for a
                                local (stack) variable, and two strings: the
                                name ("checking.balance", "slots[3]") and the
                                declaration's file */
#define CB_WIRE_BLOCKED 0xF5u /* the program deadlocked: one per live thread,
                                just before END, what it waits for (a
                                cb_wire_event: the table below) */
/* Whether a record of this kind carries strings after its 32 bytes. */
#define CB_WIRE_HAS_STRINGS(kind)                                            \
   ((kind) == CB_WIRE_LOCDEF || (kind) == CB_WIRE_SYMDEF ||                   \
    (kind) == CB_WIRE_VARDEF)

typedef struct {
   unsigned char kind;       /* enum cb_event_kind or CB_WIRE_* */
   unsigned char size;       /* see the table above */
   unsigned char rmw;        /* WRITE: enum cb_rmw_class, else 0 */
   unsigned char pad;
   unsigned int tid;         /* thread id, creation order, main = 1 */
   unsigned int loc;         /* code location id, 0 = unknown */
   unsigned int pad2;
   unsigned long long addr;  /* see the table above */
   unsigned long long value; /* see the table above */
} cb_wire_event;

/* Every record is at least 32 bytes, so a reader can take any record's
 * header from one event's worth of bytes. */
typedef struct {
   unsigned char kind;          /* CB_WIRE_LOCDEF */
   unsigned char pad;
   unsigned short strlen;       /* bytes of strings that follow, padded to 8 */
   unsigned int id;             /* location id, 1, 2, 3, ... */
   unsigned long long address;  /* instruction address */
   unsigned int line;           /* source line, 0 if unknown */
   unsigned int pad2;
   unsigned long long pad3;
} cb_wire_locdef;

/* ---- Deadlocks ------------------------------------------------------------
 * The tool ends a run at once when every live thread waits, in a call it
 * models, for something only another thread of the program could give
 * (vgtool/cb_deadlock.c says exactly when).  It then writes a BLOCKED
 * record for each live thread, finishes the run as at an exit (THREAD_EXIT
 * of every thread, END; in replay the status lines below, the last one
 * "end deadlock") and exits with CB_DEADLOCK_EXIT.  BLOCKED fields:
 *   kind   CB_WIRE_BLOCKED
 *   size   enum cb_wait_kind: what the thread waits for
 *   tid    the waiting thread
 *   loc    the location of its waiting call
 *   addr   the object: lock, condition, semaphore, barrier (join: 0)
 *   value  by wait kind:
 *            LOCK, RDLOCK, WRLOCK  holder | (location where the holder took
 *                                  it) << 32: a thread that holds it
 *            JOIN                  the thread waited for
 *            COND                  the mutex given to the wait
 *            SEM                   0 (its count is 0)
 *            BARRIER               arrived << 32 | count: threads waiting in
 *                                  this round, of the count it needs */
enum cb_wait_kind {
   CB_WAIT_LOCK = 1,    /* a mutex, spinlock or mtx_t (1 + CB_LOCK_MUTEX) */
   CB_WAIT_RDLOCK = 2,  /* an rwlock, to read (1 + CB_LOCK_RD) */
   CB_WAIT_WRLOCK = 3,  /* an rwlock, to write (1 + CB_LOCK_WR) */
   CB_WAIT_JOIN = 4,
   CB_WAIT_COND = 5,
   CB_WAIT_SEM = 6,
   CB_WAIT_BARRIER = 7,
   CB_WAIT_KIND_COUNT = 8
};
/* Valgrind's exit status when the tool ended a deadlocked run. */
#define CB_DEADLOCK_EXIT 6

/* ---- The replay plan (cbreplay -> tool, --cb-plan=FILE) ------------------
 * A flat file of 8-byte little-endian words, all unsigned:
 *   magic CB_PLAN_MAGIC, version CB_WIRE_VERSION, counted mask,
 *   nthreads, then prefix[nthreads] (counted events thread t = 1..nthreads
 *     may run, freely interleaved, before the tail starts),
 *   ntail, then ntail pairs (tid, n): thread tid runs n counted events while
 *     every other thread waits; after the last pair every thread is released.
 *     n = CB_STEP_RUN_OUT makes a run-out step (TailStep.run_out): tid runs
 *     alone until it exits, or until it makes no counted progress for
 *     CB_RUN_OUT_IDLE_MS or the stall limit, whichever is smaller (it
 *     blocked); then the plan moves on.  Neither ending is infeasible.
 *     cbreplay writes every step of a thread after its first run-out step
 *     as run-out too (its counts no longer match the recorded run).  When a
 *     step starts and its thread has already exited, a run-out step is
 *     skipped and a counted step makes the plan infeasible;
 *   then 3 pairs (tid, index) naming e1, f, e2 by counted index, so the tool
 *   can report whether they ran in that order,
 *   then the stall limit in milliseconds: how long no scheduled progress is
 *     tolerated before the plan is declared infeasible and all are released,
 *   then npaths and npaths pairs (parent, index): thread t = 1..npaths was
 *     created by thread `parent` as its index-th child (0, 0: main).  With
 *     npaths > 0 the tool names each new thread by (its creator's id, the
 *     creator's count of creates) instead of by global creation order; a
 *     thread the table does not name gets an id above npaths,
 *   then nexpect and nexpect records of 5 words (tid, index, kind | flags
 *     << 8, code address, data address): when thread tid runs its counted
 *     event index, it must be of that kind, at that code address
 *     (CB_EXPECT_CODE) and on that data address (CB_EXPECT_ADDR),
 *   then nwaits and nwaits records of 4 words (tid, index, target, count),
 *     sorted by tid, then index: in the prefix, thread tid runs its counted
 *     event index only once thread target has run count counted events
 *     (the recorded order, vgtool/cb_porder.c).  A plan that ends before
 *     nwaits has none,
 *   then nhunt (0 or 8) and nhunt words: mode (CB_HUNT_AFTER: hold the
 *     first thread that makes an event of the hold kind at the hold code
 *     address, and on the hold data address when "stable" is non-zero,
 *     right after it; CB_HUNT_BEFORE: hold it before that instruction),
 *     hold kind, hold code, hold data, stable, f's kind, the hold limit
 *     in ms, holds at most.  The held thread goes on once another thread
 *     makes an event of f's kind on its address (vgtool/cb_hunt.c).  A
 *     hunt plan has no prefix counts and no tail.  A plan that ends
 *     before nhunt has none.
 * The tool reports on --cb-status-fd, one text line per fact:
 *   "prefix-done", "step <k> <ntail>" (tail step k, 1-based, starts),
 *   "prefix-order-dropped [<tid> <index> <target> <count>]" (the prefix's
 *   waits were given up, the wait that held a thread then),
 *   "run-out-blocked <tid>" (a run-out step ended without its thread's exit),
 *   "tail-done", "released", "infeasible <reason>", "pattern <0|1>",
 *   "hunt-hold <tid> <n>" (a hunt holds thread tid, its n-th hold),
 *   "hunt-hit <tid> <n> <ftid>" (thread ftid's f came: tid goes on), "hunt-idle <tid> <n>" and
 *   "hunt-timed-out <tid> <n>" (the hold ended without f),
 *   "diverged <tid> <index>", "unexpected <tid> <index> <kind> <code>
 *   <data> <file:line|?> <forcing>" (an expectation failed: the event found,
 *   addresses in hex; forcing 1 while the plan still held threads),
 *   "blocked <tid> <kind> <object> <where> <holder> <holder-where> <value>
 *   <name>" for each live thread of a deadlock (the BLOCKED fields: kind
 *   number, object address in hex, file:line of the waiting call or "?",
 *   holder the thread id of a lock's holder or the joined thread (0 none),
 *   holder-where file:line where the holder took the lock or "?", value in
 *   hex (BARRIER: arrived << 32 | count, else 0), name the object's symbol
 *   ("name+offset") or "?"),
 *   and last, from the tool's shut-down, "end exit <N> by <tid>" (thread
 *   tid called exit with N: exit_group, or the last thread's exit; older
 *   tools wrote no "by"), "end signal [by <tid>]" (it ended otherwise: a fatal signal) or "end
 *   deadlock" (the tool ended the run: the "blocked" lines say why);
 *   "by <tid>" after "signal": thread tid raised SIGABRT (abort, a failed
 *   assert).
 *   A run without an "end" line is one where Valgrind or the tool died,
 *   unless the tool said "exec" (the program called execve, which the tool
 *   does not follow: the exec'd program's end is the run's).
 * A forked child of the program stops writing status lines. */
#define CB_PLAN_MAGIC 0x4e414c5042430001ull
enum { CB_HUNT_NONE = 0, CB_HUNT_AFTER = 1, CB_HUNT_BEFORE = 2 }; /* "CBPLAN" + 0001 */
/* Thread ids are 32 bits in traces and schedules; a plan keeps a word per
 * thread it names, so it names at most this many. */
#define CB_PLAN_MAX_THREADS (1u << 24)
#define CB_STEP_RUN_OUT (~0ull)
#define CB_EXPECT_ADDR 1u /* expectation flags: compare the data address */
#define CB_EXPECT_CODE 2u /* compare the code address */
#define CB_RUN_OUT_IDLE_MS 100u
/* ... and at the latest after this long, busy or not (a thread polling a
 * flag that another, held-back thread must set never blocks). */
#define CB_RUN_OUT_MAX_MS 1000u

#endif /* CB_WIRE_H */
