/* cbtrace.h: the trace library, the only code that reads or writes traces
 * and schedule files.  Every command links it (libcbtrace.a).
 *
 * Format: proto/trace.proto (chunks, framing) and proto/cb_wire.h (event
 * kinds).  In memory a trace is a flat array of cb_event, in trace order.
 *
 * The library's other public headers: launch.h (running a program under
 * the tool), spawn.h (starting any process), pool.h (N jobs at once),
 * wire_read.h (the tool's raw record stream into a writer).
 *
 * Errors: functions that can fail return 0 on success and -1 on failure,
 * with a one-line reason in *err (no "cbX:" prefix; the command adds what it
 * was doing).  Nothing here prints or exits.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CBTRACE_H
#define CBTRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cb_wire.h"

typedef struct {
   char msg[512];
} cb_error;

/* Formats msg into err (printf-like) and returns -1, for `return cb_fail(...)`. */
int cb_fail(cb_error *err, const char *fmt, ...)
   __attribute__((format(printf, 2, 3)));

/* One event; the same fields as cb_wire_event (see its table), and flags
 * that only the reader's users set (CB_EVF_*), never read from or written
 * to a trace file. */
typedef struct {
   uint8_t kind;  /* enum cb_event_kind */
   uint8_t size;
   uint8_t flags; /* CB_EVF_*: 0 as read */
   uint8_t was;   /* the kind the trace holds, when the event is taken for
                     another (a lock word's store, a semaphore used as a
                     lock: cb_spinlocks_mark); 0 as read */
   uint8_t rmw;   /* a WRITE that is a locked instruction's store: enum
                     cb_rmw_class (cb_wire.h); 0 otherwise and in older
                     traces */
   uint32_t tid;  /* creation order, main = 1 */
   uint32_t loc;  /* index into cb_trace.locs, 0 = unknown */
   uint64_t addr;
   uint64_t value;
} cb_event;
/* 32 bytes: a trace of 10 M events is 320 MB of them, every page of which
 * the kernel zeroes before the reader fills it (issue 13: a fifth of
 * cbpredict's time was that); rmw sits in what was padding. */
_Static_assert(sizeof(cb_event) == 32, "cb_event stays 32 bytes");

typedef struct {
   uint64_t address;
   const char *object;   /* never NULL; "" when unknown */
   const char *function; /* never NULL; "" when unknown */
   const char *file;     /* never NULL; "" when unknown */
   uint32_t line;        /* 0 when unknown */
   const char *dir;      /* file's folder; NULL or "" when unknown */
} cb_location;

typedef struct {
   uint64_t address;
   uint64_t size;
   const char *name;
} cb_symbol;

/* A data address named from debug information (trace.proto Variable). */
typedef struct {
   uint64_t address;  /* the address named */
   uint32_t offset;   /* bytes past the start of what name names */
   const char *name;  /* "checking.balance", "slots[3]", "job" */
   const char *file;  /* its declaration; "" when unknown */
   uint32_t line;
   int local;         /* on a thread's stack */
} cb_variable;

typedef struct {
   uint32_t format_version;
   const char *program;
   int argc;
   const char **argv;
   const char *tool_version;
   const char *instrumented;
   uint64_t trace_id;
   uint64_t program_digest;
   uint64_t start_time_unix;
} cb_header;

/* A thread of a deadlock: what it waited for when the tool ended the run
 * (cb_wire.h "Deadlocks", trace.proto Blocked). */
typedef struct {
   uint32_t tid;
   uint8_t kind;        /* enum cb_wait_kind */
   uint32_t loc;        /* its waiting call */
   uint64_t object;     /* lock, condition, semaphore, barrier; 0: a join */
   uint32_t holder;     /* lock: a thread holding it; join: the joined; 0 */
   uint32_t holder_loc; /* lock: where the holder took it */
   uint64_t value;      /* COND: its mutex; BARRIER: arrived << 32 | count */
} cb_blocked;

typedef struct {
   int present;      /* 0: the trace was cut short */
   uint64_t event_count;
   int exit_status;
   int exit_signal;
   int tool_ended;
   /* The program deadlocked (nblocked > 0): what each live thread waited
    * for when the tool ended the run.  Owned by the trace when read. */
   const cb_blocked *blocked;
   size_t nblocked;
} cb_footer;

typedef struct {
   cb_header header;
   cb_event *events;
   size_t nevents;
   cb_location *locs; /* locs[id]; locs[0] is the unknown location */
   size_t nlocs;      /* highest id + 1 */
   cb_symbol *syms;   /* sorted by address */
   size_t nsyms;
   cb_variable *vars; /* sorted by address, one per address */
   size_t nvars;
   cb_footer footer;
   /* Why reading stopped early, "" when the whole trace was read.  A trace
    * with truncated != 0 is still usable: it holds every whole chunk. */
   int truncated;
   char truncation[256];
   uint32_t nthreads; /* highest thread id seen */
   void *arena_;      /* owns every string above */
} cb_trace;

/* cb_event.flags, set in memory by cb_spinlocks_mark (trace/spinlocks.c). */
#define CB_EVF_LOCK_WORD 0x01u  /* a read or write of a lock word: no data */
#define CB_EVF_GLUED 0x04u      /* a lock word's LOCK that is the store of a
                                   locked instruction: the rest of its
                                   read, no cut between them */

/* Marks the lock words the program takes by hand (an atomic exchange or
 * compare-and-swap from 0, released by its holder's store of 0): their
 * acquiring and releasing stores become LOCK and UNLOCK events, their other
 * accesses CB_EVF_LOCK_WORD.  Returns how many words, -1 on no memory (the
 * trace is then unchanged). */
long cb_spinlocks_mark(cb_trace *t);
/* Marks the semaphores used as locks (one token, each wait followed by its
 * own thread's post, trace/semlocks.c): their waits become LOCK and their
 * posts UNLOCK events.  Returns how many semaphores, -1 on no memory. */
long cb_semlocks_mark(cb_trace *t);
/* Both, as every reader of a trace for prediction wants them (cbpredict,
 * cbtrace stats): how many lock words and lock semaphores (0 on no
 * memory: the events of that kind are then left as recorded). */
typedef struct { long words, sems; } cb_hand_locks;
cb_hand_locks cb_hand_locks_mark(cb_trace *t);

/* ---- Reading ------------------------------------------------------------ */

/* Reads a whole trace.  Fails (-1) only when nothing usable is there: the
 * file is missing, empty, not a trace, or its header chunk is damaged.  A cut
 * or corrupt tail sets t->truncated and keeps what came before it. */
int cb_trace_read(const char *path, cb_trace *t, cb_error *err);
/* The same from a buffer (tests, fuzzing). */
int cb_trace_read_mem(const void *data, size_t len, cb_trace *t, cb_error *err);
void cb_trace_free(cb_trace *t);

/* ---- Building a trace in memory (reader, text form, tests, generators) ----
 * Start from a zeroed cb_trace.  Strings are copied into the trace's arena
 * and freed by cb_trace_free; header strings set by hand should come from
 * cb_trace_strdup (or be static).  Call cb_trace_finish when done: it sorts
 * the symbols, sets nthreads and makes sure locs[0] exists. */
const char *cb_trace_strdup(cb_trace *t, const char *s); /* NULL, "" -> "" */
int cb_trace_add_event(cb_trace *t, const cb_event *e, cb_error *err);
int cb_trace_set_location(cb_trace *t, uint32_t id, const cb_location *loc,
                          cb_error *err);
int cb_trace_add_symbol(cb_trace *t, const cb_symbol *s, cb_error *err);
int cb_trace_add_variable(cb_trace *t, const cb_variable *v, cb_error *err);
void cb_trace_finish(cb_trace *t);
/* Writes a whole in-memory trace to a file (header, locations, symbols,
 * events, footer: t->footer if present, else one of a run that ended
 * normally with status 0). */
int cb_trace_write(const char *path, const cb_trace *t, cb_error *err);

/* ---- Writing (streaming) ------------------------------------------------- */

typedef struct cb_writer cb_writer;

/* Creates the file and writes magic and header at once.  Events are buffered
 * and written one chunk at a time (every CB_CHUNK_EVENTS events, or on
 * cb_writer_flush), so a crash loses only the chunk in progress. */
#define CB_CHUNK_EVENTS 65536
cb_writer *cb_writer_open(const char *path, const cb_header *h, cb_error *err);
/* Location ids must be given in order 1, 2, 3, ... before events use them. */
int cb_writer_location(cb_writer *w, uint32_t id, const cb_location *loc,
                       cb_error *err);
int cb_writer_symbol(cb_writer *w, const cb_symbol *s, cb_error *err);
int cb_writer_variable(cb_writer *w, const cb_variable *v, cb_error *err);
int cb_writer_event(cb_writer *w, const cb_event *e, cb_error *err);
int cb_writer_flush(cb_writer *w, cb_error *err);
/* Writes the footer (if f is not NULL), closes and frees.  Also frees on error. */
int cb_writer_close(cb_writer *w, const cb_footer *f, cb_error *err);

/* ---- Naming things ------------------------------------------------------- */

const char *cb_event_kind_name(unsigned kind);      /* "read", "lock", ... */
/* The word for a pattern event's kind in a report: kind itself, or
 * "update" for an event (role "e1", "f" or "e2") that the pattern (RWR,
 * WWR, ...) counts as a write but whose event is a read: the read half of
 * a read-modify-write instruction (x++ built -O2, a CAS, the xchg of an
 * atomic_store), which runs whole. */
const char *cb_pattern_kind_word(const char *pattern, const char *role,
                                 const char *kind);
int cb_event_kind_from_name(const char *name);      /* -1 if unknown */
/* A locked instruction's store in words (enum cb_rmw_class): "exchange",
 * "fetch-op", "op"; "" for none.  And back (-1 if unknown). */
const char *cb_rmw_name(unsigned rmw);
int cb_rmw_from_name(const char *name);
/* Whether an order violation is a lost wake-up: e1 a wait's start (the
 * release of its mutex, predict/orders.c) and f the signal that woke it,
 * forced first, so that it finds no waiter; or, a cure of a deadlocked run
 * (predict/cure_wake.c), e1 a signal that found no waiter and f the wait
 * that began after it, forced first (kinds: CB_EV_*). */
int cb_is_lost_wakeup(const char *pattern, int e1_kind, int f_kind);
/* The call an UNHANDLED event names (its size byte, cb_wire.h CB_CALL_*):
 * "futex", "pthread_cancel", "fork"; "?" if unknown.  And back (-1). */
const char *cb_call_name(unsigned code);
int cb_call_from_name(const char *name);
/* "file:line", or "object@0xADDRESS" without debug information, or "?";
 * into buf, returns buf. */
const char *cb_location_str(const cb_trace *t, uint32_t loc, char *buf,
                            size_t len);
/* For an event whose code has no file:line (a library without debug
 * information: GLib's insides), the location of its thread's nearest
 * earlier event that has one: the user's code that called into the
 * library.  0 when the event has a file:line itself or none is near. */
uint32_t cb_user_loc(const cb_trace *t, size_t tidx);
/* The global symbol that holds addr, or NULL.  The tool cannot learn a
 * symbol's size (size 0): such a symbol covers the addresses up to the
 * next symbol, at most 64 KB, so a field of a global struct is in it. */
const cb_symbol *cb_symbol_at(const cb_trace *t, uint64_t addr);
/* A data address in words, the best the trace knows:
 *   the source's own name, from debug information (trace.proto Variable):
 *     "checking.balance", "slots[3]", "job", "count+2" (2 bytes into it);
 *   else the global symbol and offset: "checking+40";
 *   else the heap block that holds it, by size and allocation site: "heap
 *     block of 16 bytes from cache.c:52, offset 8" (no offset at its
 *     start; the debug information gives a block no type, so no field);
 *   else "0x...".
 * Old traces (without Variable) are named by symbol and heap block. */
const char *cb_variable_str(const cb_trace *t, uint64_t addr, char *buf,
                            size_t len);
/* The same as seen by event `index`: a heap address names the allocation
 * live at that point of the trace (a freed and reused address is another
 * block).  cb_variable_str names the last allocation that covered addr.
 * Both build an allocation index on first use: not thread-safe the first
 * time on a given trace. */
const char *cb_variable_str_at(const cb_trace *t, uint64_t addr, size_t index,
                               char *buf, size_t len);
/* cb_variable_str_at for the object that events[0..n) (indices into the
 * trace) access, with the program's own expression before a heap block's
 * name when the source lines of those events agree on one
 * (cb_source_expr): "t->magic (heap block of 72 bytes from table.c:41)";
 * and before a variable's name with an offset into it, when the lines
 * index it ("names[2] (names+32)": the debug information describes no
 * element of an array of arrays). */
const char *cb_access_name(const cb_trace *t, uint64_t addr, size_t index,
                           const size_t *events, size_t n, char *buf,
                           size_t len);
/* The expression that reaches memory through a pointer (`p->count`,
 * `q->items[i]`, `buf[k]`, `*total`) that every one of lines (source
 * lines; a line with no such expression is passed over) has, when exactly
 * one is: 1 and its text (as the first line writes it) into out. */
int cb_source_expr(const char *const *lines, size_t n, char *out, size_t len);
/* The same for a heap block allocated at alloc_line (its source line, or
 * NULL): when two or more fields are on every line, the one reached through
 * what the block was stored in ("c->st = calloc(...)": c->st->hits, not
 * c->slots[k]) names it. */
int cb_source_expr_in(const char *const *lines, size_t n, const char *alloc_line,
                      char *out, size_t len);
/* The same for the variable `name` (debug information's, "names" of
 * `char names[4][16]`): its expression, when every line that has any
 * reaches it ("names[2]"), whatever other fields they reach too. */
int cb_source_expr_of(const char *const *lines, size_t n, const char *name,
                      char *out, size_t len);
/* The member of the variable `owner` that every line reaches through it
 * (`b.refs` of a function's `static struct buf b`, which the debug
 * information does not describe), when exactly one is; 0 for a member
 * reached through anything else (`p->refs` may be another object's). */
int cb_source_member_of(const char *const *lines, size_t n, const char *owner,
                        char *out, size_t len);
/* The source line of location loc, read once per trace (cb_source_line,
 * from the folder the debug information gives or as named); NULL when
 * there is none to quote. */
const char *cb_location_source(const cb_trace *t, uint32_t loc);
/* Whether an event of this kind and size stores a value in the trace. */
int cb_event_carries_value(unsigned kind, unsigned size);
/* One event in words, as `cbtrace dump` prints it, one line:
 *   INDEX T<tid> KIND [OPERANDS] [@ FILE:LINE] [in FUNCTION]
 * OPERANDS by kind: read/write: VARIABLE size N [= VALUE] [rmw-CLASS] (a
 * locked instruction's store: rmw-exchange, rmw-fetch-op, rmw-op); lock/unlock:
 * VARIABLE mutex|rd|wr [try]; wait: COND VARIABLE-of-mutex; signal/broadcast:
 * COND; barrier-enter/leave: BARRIER count N; create/join: T<n>; start: from
 * T<n>; begin/end: FUNCTION; alloc: VARIABLE size N; free: VARIABLE;
 * sem-post/sem-wait: SEMAPHORE post N [try] (the post's number; for a wait
 * the post it consumed, 0 = an initial token); release/acquire: OBJECT
 * once|signal|object; unhandled: CALL [VARIABLE] detail N.
 * Example:  "42 T2 write counter size 4 = 7 @ rww.c:14 in deposit".
 * Kind names are those of cb_event_kind_name ("read", "write", "lock",
 * "unlock", "wait", "signal", "broadcast" for a signal with size 1,
 * "barrier-enter", "barrier-leave", "create", "start", "join", "exit",
 * "begin", "end", "atomic-begin", "atomic-end", "alloc", "free",
 * "sem-post", "sem-wait", "release", "acquire", "unhandled"). */
void cb_event_print(FILE *out, const cb_trace *t, size_t index);

/* ---- How the recorded run ended (deadlock.c) --------------------------------- */

/* The program's exit status when it ended by exit, else -1 (a signal, a
 * deadlock, a trace cut short). */
int cb_trace_exit_status(const cb_trace *t);
/* Whether the run ended by a failing exit or a fatal signal (not a
 * deadlock, not cut short). */
int cb_trace_failed(const cb_trace *t);

/* One thread of a deadlock in words, whoever found it (cbtrace from a
 * trace, cbreplay from the tool's status lines):
 *   "T2 waits for lock b at x.c:12, held by T3 (taken at x.c:20)"
 *   "T2 waits for rwlock rw (to read) at ...", "... (to write) ..."
 *   "T1 waits to join T2 at x.c:30"
 *   "T2 waits for condition ready at x.c:20, with no signal on its way"
 *   "T2 waits for semaphore s at x.c:20, whose count is 0"
 *   "T2 waits at barrier b at x.c:20, where 1 of 3 threads arrived" */
typedef struct {
   uint32_t tid;
   unsigned kind;            /* enum cb_wait_kind */
   const char *object;       /* the object in words ("" for a join) */
   const char *where;        /* file:line of the waiting call, or "?" */
   uint32_t holder;          /* lock: a holder; join: the joined; 0 none */
   const char *holder_where; /* lock: where the holder took it, or "?" */
   uint64_t value;           /* BARRIER: arrived << 32 | count */
   int holder_ended;         /* lock: the holder ended without releasing it */
} cb_blocked_words;
const char *cb_blocked_describe(const cb_blocked_words *w, char *buf,
                                size_t len);
/* A wait kind's name: "lock", "rdlock", "wrlock", "join", "cond", "sem",
 * "barrier"; "?" if unknown. */
const char *cb_wait_kind_name(unsigned kind);
/* The same for a trace's footer entry, named as the trace names things. */
const char *cb_blocked_str(const cb_trace *t, const cb_blocked *b, char *buf,
                           size_t len);
/* Every thread of a deadlocked trace in one line, "; " between them. */
const char *cb_deadlock_str(const cb_trace *t, char *buf, size_t len);

/* ---- Stable thread identity (threads.c) ------------------------------------
 * Thread ids are global creation order; a thread's path names it by its
 * creator and the creator's count of creates (main = 1, its second child
 * 1.2), the same in every run whatever order unrelated threads start in.
 * origins[tid] for tid 0..nthreads: parent 0 for main and for a thread
 * whose creation is not in the trace.  Caller frees *out. */
typedef struct {
   uint32_t parent; /* the creating thread's id, 0 none */
   uint32_t index;  /* 1 for its creator's first create, 2, ... */
} cb_thread_origin;
int cb_trace_thread_origins(const cb_trace *t, cb_thread_origin **out,
                            cb_error *err);
/* "1.2.1"; a thread without a recorded creator other than main is "#ID". */
const char *cb_thread_path(const cb_thread_origin *o, uint32_t nthreads,
                           uint32_t tid, char *buf, size_t len);

/* ---- Text form, for tests -------------------------------------------------
 * One event a line; '#' starts a comment.  Names stand for addresses: each
 * distinct name gets its own address, and each distinct @file:line its own
 * location (function = innermost open `begin`).  Forms:
 *   T1 begin FN          T1 end FN          T1 atomic-begin   T1 atomic-end
 *   T1 read X [=V] [@file:line]             T1 write X [=V] [@file:line]
 *   T1 lock M            T1 unlock M        T1 rdlock M  T1 wrlock M
 *   T1 trylock M         T1 wait C M        T1 signal C  T1 broadcast C
 *   T1 barrier-enter B N T1 barrier-leave B N
 *   T1 create T2         T1 join T2         T2 start T1  T2 exit
 *   T1 alloc X SIZE      T1 free X
 *   T1 sem-post S N      T1 sem-wait S N    (N: the post's number, or the
 *                                            post the wait consumed, 0 none)
 *   T1 release O         T1 acquire O       T1 unhandled CALL
 * Names of variables become symbols of the trace, so reports name them. */
int cb_trace_from_text(const char *text, cb_trace *t, cb_error *err);

/* ---- Schedules (proto Schedule, same framing, magic "CBSCHED\x01") --------
 * A schedule in memory is trace.proto's Schedule message as plain C, field
 * for field under the message's own names (protobuf itself stays inside
 * trace/): has_X says whether an optional number X is present, an absent
 * string or message is NULL, a repeated field X is n_X items at X. */
typedef struct {
   int has_id;
   uint32_t id;
   int has_address;
   uint64_t address;
   char *object, *function, *file;
   int has_line;
   uint32_t line;
   char *dir;
} cb_sched_location;

/* e1, f, e2, and the event a tail step is expected to end with. */
typedef struct {
   int has_tid;
   uint32_t tid;
   int has_index;
   uint64_t index;       /* counted index within the thread */
   int has_trace_index;
   uint64_t trace_index; /* position in the trace */
   int has_kind;
   uint32_t kind;        /* enum cb_event_kind */
   int has_address;
   uint64_t address;
   int has_value;
   uint64_t value;
   cb_sched_location *location;
   char *variable_name;  /* what it acts on, in words */
   int has_address_stable;
   int address_stable;   /* a global's address, the same in every run */
} cb_sched_event;

/* Thread tid runs `count` counted events (or, run_out, alone until it
 * exits or blocks) while every other thread waits. */
typedef struct {
   int has_tid;
   uint32_t tid;
   int has_count;
   uint64_t count;
   int has_run_out;
   int run_out;
   cb_sched_event *expect; /* the step's last event, checked by replay */
} cb_sched_step;

typedef struct {
   char *name;            /* "T1 to its block end" */
   size_t n_tail;
   cb_sched_step **tail;
} cb_sched_variant;

/* The names of the tails cbpredict writes: [0] the main tail's, [1..5] its
 * alternates' (in words that say "f's thread" and "e1's thread": reports
 * print them beside the real threads).  A schedule file stores one of
 * these as "~N" (they were a third of its bytes); reading gives the words
 * back, and any other name is stored as it is. */
#define CB_NTAIL_NAMES 7
extern const char *const cb_tail_names[CB_NTAIL_NAMES];

typedef struct {
   int has_id;
   uint32_t id;           /* the N of sN.pb */
   int has_trace_id;
   uint64_t trace_id;
   int has_program_digest;
   uint64_t program_digest;
   char *program;
   int has_counted_mask;
   uint32_t counted_mask;
   size_t n_prefix;
   uint64_t *prefix;      /* counted events of thread k+1 before the tail */
   size_t n_prefix_order; /* 4 words a wait: (w, i, u, c), trace.proto */
   uint64_t *prefix_order;
   size_t n_tail;
   cb_sched_step **tail;
   char *pattern;         /* "RWR", ..., "WWW", "DLK", ... */
   int has_variable;
   uint64_t variable;
   char *variable_name;
   cb_sched_event *e1, *f, *e2;
   int has_cut_index;
   uint64_t cut_index;
   char *z3;              /* "", "sat", "unknown" */
   size_t n_variants;     /* variant k >= 1 is variants[k-1] */
   cb_sched_variant **variants;
   char *tail_name;       /* variant 0's name */
   size_t n_thread_parent;
   uint32_t *thread_parent; /* thread t created as the thread_index[t-1]-th */
   size_t n_thread_index;   /* child of thread_parent[t-1] (0, 0: main) */
   uint32_t *thread_index;
   char *instrument;      /* cbtrace record --instrument=WHAT */
   int has_recorded_exit;
   int32_t recorded_exit;
   int cure;              /* trace.proto Schedule.cure: forced the other way
                             round, a failing run's order (1) or every
                             instance of it (2); passing is the finding */
   void *priv_;           /* what a read schedule owns */
} cb_schedule;

int cb_schedule_write(const char *path, const cb_schedule *s, cb_error *err);
/* cb_schedule_write in two halves, so that the file system's part can run
 * on another thread (cbpredict): the message's bytes in *buf (the caller
 * frees it), then those bytes written as path's schedule file.  0 or -1. */
int cb_schedule_encode(const cb_schedule *s, uint8_t **buf, size_t *len, cb_error *err);
int cb_schedule_put(const char *path, const uint8_t *buf, size_t len, cb_error *err);
/* Caller frees with cb_schedule_free. */
int cb_schedule_read(const char *path, cb_schedule **s, cb_error *err);
/* The same from a buffer (tests, fuzzing). */
int cb_schedule_read_mem(const void *data, size_t len, cb_schedule **s,
                         cb_error *err);
void cb_schedule_free(cb_schedule *s);
/* Whether the file at path starts as a schedule file does (its first
 * bytes only: a trace of gigabytes is not read to find out). */
int cb_is_schedule_file(const char *path);
/* Tail variants (trace.proto): variant 0 is s->tail, named s->tail_name;
 * variant k >= 1 is s->variants[k-1].  Every schedule has at least one. */
size_t cb_schedule_nvariants(const cb_schedule *s);
/* Variant k's steps and name ("" when unnamed); -1 when there is no
 * variant k. */
int cb_schedule_variant(const cb_schedule *s, size_t k,
                        cb_sched_step *const **tail, size_t *ntail,
                        const char **name);

/* What a schedule forces, as a digest (ordering.c): its prefix and every
 * tail variant, normalised as replay follows them, so that two schedules
 * that force the same orderings have the same digest.  A step's count is
 * CB_ORDER_RUN_OUT for a run-out step. */
#define CB_ORDER_RUN_OUT UINT64_MAX
typedef struct {
   uint32_t tid;
   uint64_t count;
} cb_order_step;
uint64_t cb_ordering_digest(const uint64_t *prefix, size_t nprefix,
                            const cb_order_step *const *tails,
                            const size_t *ntails, size_t nvariants);
uint64_t cb_schedule_digest(const cb_schedule *s);
/* The recorded order of tr before trace index `end` as steps, one per run
 * of a thread's counted events of threads 1..n (cbtest's composed
 * prefixes, cbreplay's pinned failures); ran[t - 1] += the events of
 * thread t in it.  The number of steps (*out malloc'd), or -1 out of
 * memory. */
long cb_recorded_order(const cb_trace *tr, size_t end, size_t n, uint64_t *ran,
                       cb_order_step **out);
/* The code a schedule aims at, whatever the run it came from: its pattern
 * and e1's, f's and e2's file:line.  Exploration forces one such triple
 * at most twice (cbtest writes it to --seen once per forced schedule;
 * cbpredict skips a candidate whose triple is there twice): rounds from
 * many forced runs' traces otherwise force the same failing aim again and
 * again, each from another trace, with another ordering. */
uint64_t cb_site_digest(const char *pattern, const char *const file[3],
                        const uint32_t line[3]);
uint64_t cb_schedule_site_digest(const cb_schedule *s);
/* A file of digests, one a line as 16 hex digits ('#' starts a comment):
 * the orderings already forced (cbpredict --seen, written by cbtest).
 * Caller frees *out. */
int cb_ordering_read(const char *path, uint64_t **out, size_t *n,
                     cb_error *err);

/* ---- Small shared helpers -------------------------------------------------- */

/* Appends s to the string in buf (after a space when buf is not empty),
 * single-quoted when the shell would otherwise split or expand it. */
void cb_append_shell_quoted(char *buf, size_t len, const char *s);

/* JSON strings: the escaped form of s without quotes (control characters
 * escaped, invalid UTF-8 as U+FFFD), and the quoted form (NULL as ""). */
void cb_json_write_escaped(FILE *out, const char *s);
void cb_json_write_string(FILE *out, const char *s);

/* Output files in folders others may write to (outfile.c): a new file
 * beside path under an unpredictable name (path.XXXXXX, created O_EXCL, so
 * never through a planted link), mode 0644 less the umask; its name in tmp.
 * Returns the descriptor, or -1.  Then cb_rename_into_place(tmp, path)
 * replaces whatever path was (a link is replaced, not followed); on
 * failure it removes tmp. */
int cb_temp_beside(const char *path, char *tmp, size_t len, cb_error *err);
int cb_rename_into_place(const char *tmp, const char *path, cb_error *err);
/* Whether a file's name (its last component) is one cb_temp_beside makes:
 * a writer killed before its rename leaves such a file behind. */
int cb_is_temp_name(const char *name);

/* The text of line `line` of source file `file`, trimmed and safe to
 * print, into out (n bytes).  A relative file is looked for in dirs[0],
 * dirs[1], ... in turn (NULL skipped; "" means as named, from the working
 * folder); an absolute one as named.  1 when quoted; 0 when no folder holds
 * it, or the first that does has it not as a regular file, without that
 * line, or newer than object (the program or library it was built into:
 * edited since, the line may not be the one that ran; NULL or "" skips
 * that check). */
int cb_source_line(const char *const *dirs, size_t ndirs, const char *file,
                   uint32_t line, const char *object, char *out, size_t n);

/* FNV-1a 64 of a file's bytes; 0 and an error if it cannot be read. */
int cb_file_digest(const char *path, uint64_t *digest, cb_error *err);

#endif /* CBTRACE_H */
