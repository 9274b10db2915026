/* predict.h: cbpredict's internal API, shared by its passes and by later
 * additions (a Z3 feasibility check takes each candidate, its pattern, its
 * e1/f/e2 trace indices and its prefix cut, and can drop it or replace its
 * schedule).
 *
 * The analysis is a few linear passes over the in-memory trace:
 *   escape.c      pass A: variables (a freed and reallocated address is a new
 *                 variable), which are shared, where a cut may fall;
 *   cutpoints.c   pass B: locksets, acquisition histories, vector clocks,
 *                 transactions, witnesses (cut_blocks.c, cut_store.c), and
 *                 the cut-point decision (cut_decide.c);
 *   deadlocks.c   pass B': lock-order inversions (pattern DLK) from nested
 *                 acquisitions, gate locks and the vector clocks;
 *   synthesis.c   pass C: region I prefix (a consistent cut), regions II and
 *                 III, then f, then e2 (PENELOPE section 4.2); the prefix
 *                 closed over what the tail needs (close_prefix.c).  Run
 *                 only on candidates that will be written (analyze.c,
 *                 cbp_build_schedules).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CB_PREDICT_H
#define CB_PREDICT_H

#include <stddef.h>
#include <stdint.h>

#include "cbtrace.h"
#include "hb.h"
#include "util.h"

/* ---- Options ------------------------------------------------------------ */
enum cbp_blocks { CBP_BLOCKS_AUTO, CBP_BLOCKS_FUNCTIONS, CBP_BLOCKS_MARKUP };

/* Families of bug shapes, for cbp_options.skip. */
enum { CBP_FAM_ATOMICITY = 1u, CBP_FAM_DEADLOCK = 2u, CBP_FAM_ORDER = 4u };

typedef struct {
   enum cbp_blocks blocks;
   size_t max; /* cbp_analyze builds at most this many schedules; 0: no cap */
   unsigned skip; /* CBP_FAM_* not to look for; 0: every family */
   unsigned jobs; /* threads the analysis may use; 0: cbp_default_jobs() */
} cbp_options;
/* The analysis runs pass B'' (orders) beside pass B on a second thread
 * (analyze.c), and cbpredict writes its schedule files on one
 * (write_schedules.c); more jobs than CBP_JOBS_MAX are not used. */
#define CBP_JOBS_MAX 2
/* Online CPUs, at most CBP_JOBS_MAX (1 when unknown). */
unsigned cbp_default_jobs(void);

/* ---- Pass A: escape analysis (escape.c) ---------------------------------- */
typedef struct {
   uint32_t nvars;
   uint32_t *var_of;    /* per event: variable id (READ/WRITE); for FREE the
                           freed block's id + 1 (0: not a known block) */
   uint32_t *var_block; /* per variable id: its heap block's id + 1, or 0 */
   uint32_t nblocks;
   uint64_t *var_addr;  /* per variable id (1-based) */
   uint8_t *var_shared; /* per variable id: touched by two threads or more */
   uint32_t nshared;
   uint8_t *cut_ok;     /* bit per event: a cut right after it is allowed */
   uint32_t nthreads;   /* highest thread id */
   uint32_t active_threads; /* threads with at least one event */
   uint64_t *counted;   /* per thread 0..nthreads: counted events */
} cbp_escape;

void cbp_escape_run(const cb_trace *t, cbp_escape *x);
void cbp_escape_free(cbp_escape *x);
static inline int cbp_cut_ok(const cbp_escape *x, size_t i) {
   return (x->cut_ok[i >> 3] >> (i & 7)) & 1;
}
/* A read or write that replay cannot separate from its thread's previous
 * event: the rest of one machine instruction, unless it is the store of a
 * plain read-modify-write that replay splits (CB_SIZE_SPLIT). */
/* Whether e is a counted event of one of the trace's threads (a kind past
 * the table is none: CB_IS_COUNTED shifts by it). */
static inline int cbp_counted_event(const cb_event *e, uint32_t nthreads) {
   return e->tid >= 1 && e->tid <= nthreads && e->kind < CB_EV_KIND_COUNT &&
          CB_IS_COUNTED(e->kind);
}
static inline int cbp_glued(const cb_event *e) {
   if (e->flags & CB_EVF_GLUED) return 1; /* a lock word's locked store */
   return (e->kind == CB_EV_READ || e->kind == CB_EV_WRITE) &&
          (e->size & CB_SIZE_SAME_INSN) && !(e->size & CB_SIZE_SPLIT);
}

/* ---- Locksets and acquisition histories (lockset.c) ---------------------- */
/* A lock state (lockset plus acquisition history) is interned: id 0 is the
 * empty state.  Transitions and compatibility answers are cached.
 * A lock id names a lock in one mode: cbp_lock_id is the lock's own id (a
 * mutex, an rwlock taken to write), cbp_lock_rd_id its id when taken to
 * read.  Whether two ids exclude each other is cbp_locks_conflict, and
 * nothing else: two reads of one rwlock do not. */
typedef struct cbp_locks cbp_locks;
cbp_locks *cbp_locks_new(void);
void cbp_locks_free(cbp_locks *L);
uint32_t cbp_lock_id(cbp_locks *L, uint64_t addr);
uint32_t cbp_lock_rd_id(cbp_locks *L, uint64_t addr);
uint32_t cbp_lock_base(const cbp_locks *L, uint32_t lock); /* the lock's own id */
int cbp_lock_is_rd(const cbp_locks *L, uint32_t lock);
/* Same lock, and not both read. */
int cbp_locks_conflict(const cbp_locks *L, uint32_t a, uint32_t b);
/* Whether a lock held in state excludes lock. */
int cbp_locks_excludes(const cbp_locks *L, uint32_t state, uint32_t lock);
uint32_t cbp_locks_acquire(cbp_locks *L, uint32_t state, uint32_t lock);
uint32_t cbp_locks_release(cbp_locks *L, uint32_t state, uint32_t lock);
/* Disjoint locksets and compatible acquisition histories (section 3.2). */
int cbp_locks_compatible(cbp_locks *L, uint32_t s1, uint32_t s2);
/* Read access: held locks (sorted by id) and, for held lock i, its AH. */
uint32_t cbp_locks_nheld(const cbp_locks *L, uint32_t state);
uint32_t cbp_locks_held(const cbp_locks *L, uint32_t state, uint32_t i,
                        const uint32_t **ah, uint32_t *nah);
uint64_t cbp_lock_addr(const cbp_locks *L, uint32_t lock);
uint32_t cbp_locks_nstates(const cbp_locks *L);
uint32_t cbp_locks_nlocks(const cbp_locks *L); /* distinct locks */
uint32_t cbp_locks_nids(const cbp_locks *L);   /* ids: 0 .. nids-1 */
/* Whether L's first lock ids and lock states are those of sub (another
 * pass's own, fed the same lock events): sub's ids then mean the same in L. */
int cbp_locks_extend(const cbp_locks *L, const cbp_locks *sub);

/* A thread's held locks with re-entrancy counts: only the first acquisition
 * and the last release change the lock state. */
typedef struct {
   uint32_t *lock, *count;
   uint32_t n, cap;
} cbp_held;
/* Return 1 when the lockset changes (first acquire / last release). */
int cbp_held_acquire(cbp_held *h, uint32_t lock);
int cbp_held_release(cbp_held *h, uint32_t lock);
void cbp_held_free(cbp_held *h);
/* The id of a LOCK event in its mode; of an UNLOCK, the id the thread
 * holds of that lock (h: its held locks; NULL or not held: by the event's
 * mode). */
uint32_t cbp_lock_of(cbp_locks *L, const cbp_held *h, const cb_event *e);
/* Whether a lock in h excludes lock. */
int cbp_held_conflicts(const cbp_locks *L, const cbp_held *h, uint32_t lock);

/* ---- Vector clocks (vclock.c) ------------------------------------------- */
/* Clocks of the happens-before edges of hb.h, and of nothing else.  A
 * thread's history is a list of segments: a new one starts when an
 * incoming edge (the sink of a group: start, join, barrier leave, a woken
 * wait, a semaphore wait, an acquire) changes its clock.  Components count counted events: vc[j] = n means the first n
 * counted events of thread j happen before.  Clocks are sparse and shared
 * (memory grows with the edges, not with threads squared): a thread keeps
 * only the components its own edges raised, as a history per component,
 * and reads the rest from its creator's clock at the create. */
typedef struct {
   uint32_t tid;
   uint32_t seq;         /* its place in the thread's list of segments */
   uint64_t start;       /* counted index of the first event in it */
   uint64_t empty_before;/* last empty-lockset cut count <= start */
} cbp_segment;

/* One component of a clock. */
typedef struct {
   uint32_t tid;
   uint64_t count;
} cbp_vc_ent;

typedef struct cbp_vc_priv cbp_vc_priv;
typedef struct {
   uint32_t nthreads;
   cbp_segment *segs; size_t nsegs, capsegs;
   uint32_t *cur_seg;          /* per thread current segment id */
   uint32_t **thread_segs; uint32_t *nthread_segs, *capthread_segs;
   cbp_vc_priv *p;             /* histories, sync clocks, scratch */
} cbp_vclock;

/* hb must outlive v. */
void cbp_vc_init(cbp_vclock *v, uint32_t nthreads, const cbp_hb *hb);
void cbp_vc_free(cbp_vclock *v);
/* Feeds event i of the trace, of thread tid with counted index cidx (its
 * count before it), in trace order; every anchor event (cbp_hb_anchor)
 * must be fed.  empty_before: the thread's last empty-lockset cut count
 * <= cidx.  Returns 1 when the event is the source of an edge. */
int cbp_vc_event(cbp_vclock *v, const cb_event *e, uint64_t i, uint64_t cidx,
                 uint64_t empty_before);
/* Component j of segment seg's clock (j its own thread: its start). */
uint64_t cbp_vc_get(const cbp_vclock *v, uint32_t seg, uint32_t j);
/* The non-zero components of segment seg's clock other than its own
 * thread's, in no order; *out stays valid until the next call. */
size_t cbp_vc_entries(const cbp_vclock *v, uint32_t seg,
                      const cbp_vc_ent **out);
/* Segment of thread tid that holds its counted event number `count`. */
uint32_t cbp_vc_seg_at(const cbp_vclock *v, uint32_t tid, uint64_t count);
/* Bytes the clocks hold (for --stats and the benchmarks). */
size_t cbp_vc_bytes(const cbp_vclock *v);
/* Whether a and b, fed the same trace, hold the same segments and clocks
 * (a pass that built its own checks them against pass B's). */
int cbp_vc_same(const cbp_vclock *a, const cbp_vclock *b);

/* ---- Transactions (transactions.c) -------------------------------------- */
typedef struct {
   uint32_t depth;   /* nesting of begin/end (functions) or atomic markup */
   uint32_t serial;  /* 0: outside any transaction */
} cbp_txn;
/* Feeds one event; returns -1 if it ended the current transaction (before
 * the caller handles it), +1 if it began one, 0 otherwise. */
int cbp_txn_event(cbp_txn *x, enum cbp_blocks mode, const cb_event *e,
                  uint32_t *next_serial);
enum cbp_blocks cbp_blocks_resolve(const cb_trace *t, enum cbp_blocks b);

/* ---- Candidates ------------------------------------------------------------ */
/* DLK: a lock-order inversion (deadlocks.c), not an atomicity pattern:
 * e1 = T1's acquisition of A, f = T2's acquisition of B (while T1 holds A),
 * e2 = T1's acquisition of B as recorded; the variable is the lock B. */
/* ORD: an order violation (orders.c): e1 = e2 = T1's access a, f = T2's
 * conflicting access b that ran after a and is forced before it. */
/* EXP: a delay schedule of cbpredict --delays (explore.c), never a
 * candidate of the passes: e1 its first delay point, f its second, e2 its
 * last (one point: all three). */
enum cbp_pattern { CBP_RWR, CBP_RWW, CBP_WRW, CBP_WWR, CBP_WWW, CBP_DLK, CBP_ORD, CBP_EXP,
                   CBP_NPAT };
extern const char *const cbp_pattern_name[CBP_NPAT];

typedef struct {
   uint64_t count; /* counted events done: a cut after them */
   uint64_t tidx;  /* trace index of the last of them (UINT64_MAX: none) */
} cbp_point;

/* A tail step: thread tid runs count counted events alone.  CBP_RUN_OUT:
 * it runs alone until it exits or blocks (replay then takes the next step);
 * its path may leave the recorded one, so it is only a thread's last step. */
typedef struct { uint32_t tid; uint64_t count; } cbp_step;

/* A deadlock cycle of more than two threads (three philosophers): each
 * thread after T1 and T2, with the outer acquisition it holds.  Cycles of
 * up to CBP_MAX_CYCLE threads are searched (deadlocks.c); the search still
 * costs little at 8 (its steps are bounded, not its depth), and a chain it
 * could not follow further is counted in cbp_result.cycles_long. */
#define CBP_MAX_CYCLE 8
typedef struct {
   uint32_t tid;
   uint64_t tidx, cidx; /* its outer acquisition */
   uint64_t icidx;      /* its request of the next thread's lock (counted) */
   cbp_point le;        /* its last empty-lockset cut before it */
} cbp_cycle_thread;
#define CBP_RUN_OUT UINT64_MAX

/* Alternate tails of a candidate, forced when the main tail's run passes
 * (issue: one interleaving per candidate loses bugs that need f's thread to
 * finish its block first, or e2's thread to run on alone). */
enum { CBP_ALT_F_FIRST, CBP_ALT_E2_ON, CBP_ALT_OTHERS_FIRST, CBP_ALT_F_ON, CBP_ALT_F_LAST,
       CBP_ALT_F_HELD, CBP_NALT };
/* Their names: cb_tail_names[1 + k] (the main tail's is [0]). */
_Static_assert(CBP_NALT + 1 == CB_NTAIL_NAMES, "a name for every tail");

typedef struct {
   enum cbp_pattern pattern;
   uint64_t addr;       /* the variable */
   uint32_t var;        /* variable id (pass A) */
   uint32_t var2;       /* two_vars.c: e2's variable, another than e1's
                           (0: one variable) */
   uint64_t addr2;
   uint32_t t1, t2;     /* e1/e/e2 thread, f thread */
   /* trace indices and counted indices */
   uint64_t e1, e, e2, f;
   uint64_t ce1, ce, ce2, cf;
   uint8_t fwidth;      /* counted events of f's instruction (0, 1: one;
                           2: a read-modify-write such as a CAS) */
   uint8_t f_uncounted; /* f is no counted event (a free): T2 runs up to
                           count cf, which runs it, and no further */
   uint32_t ls_e, ls_f; /* lock states at e and at f */
   uint32_t seg_e, seg_f;
   cbp_point x1, x2;    /* last empty-lockset cuts at e (t1), before f (t2) */
   /* Filled by synthesis: */
   uint64_t *prefix;    /* nthreads entries, thread 1..n at [0..n-1] */
   cbp_step *tail; uint32_t ntail;
   cbp_step *alt[CBP_NALT]; uint32_t nalt[CBP_NALT]; /* 0 steps: none */
   uint32_t through_f;  /* main tail steps up to f and T2's release */
   uint64_t f_rel;      /* counted events of that release, after f */
   /* DLK: T2's request of T1's lock A (counted index); cycles of three
    * threads or more: the threads after T2 (T3, T4, ...), allocated (most
    * candidates have none; cbp_result_free frees them). */
   uint64_t cg;
   cbp_cycle_thread *more;
   uint32_t nmore;
   int built;           /* synthesis ran on it (prefix and tail are set
                           unless dropped) */
   int dropped;         /* dropped by the keep hook or synthesis (why) */
   const char *why;
   uint8_t again;       /* the latest instance of another candidate's e
                           witness (cut_decide.c): ranked after all */
   uint8_t fresh;       /* e1, f or e2 on a line the --base trace never ran
                           (fresh.c): built and ranked first */
   uint8_t shown;       /* its shape happened in the recorded run, which
                           failed (rank_failed.c; set by cbp_rank) */
   uint8_t blocked_e2;  /* e2 is the request T1 blocked in when the
                           recorded run deadlocked (deadlock_again.c): no
                           event of the trace, c->e2 is e1's index */
   uint8_t cure;        /* a failing run's order to force the other way
                           round: 1 one instance (cures.c), 2 every
                           instance of its two sites (cure_class.c) */
   uint32_t id;         /* schedule number sN, 0 if not written */
   uint32_t same_as;    /* not written: schedule sN forces its orderings */
   /* --z3 (z3_predict.c): the check's verdict, "" (not asked), "sat" (the
    * schedule written is the model's order: z3_order) or "unknown" (kept
    * undecided, or satisfiable but replay could not follow the model's
    * order, so the schedule written is synthesis' own). */
   const char *z3;
   int z3_order;
} cbp_candidate;

typedef struct {
   cbp_candidate *c; size_t n, cap;
   uint64_t cutpoints;       /* compatible (e, f) pairs found, before dedup */
   uint64_t dropped_vc;      /* ordered by vector clocks */
   uint64_t dropped_insn;    /* needed a cut inside one instruction */
   uint64_t dropped_synth;   /* synthesis failed */
   uint64_t dropped_filter;  /* dropped by the keep hook (cbp_options) */
   uint64_t seen_before;     /* built, but forced before (--seen): not
                                written */
   uint64_t same_order;      /* built, but forcing the orderings of an
                                earlier schedule: not written */
   uint64_t deadlocks;       /* DLK candidates among c */
   uint64_t cycles_capped;   /* lock-graph cycle searches cut short */
   uint64_t cycles_long;     /* chains of CBP_MAX_CYCLE nested acquisitions
                                that went on: longer cycles not searched */
   uint64_t orders;          /* ORD candidates among c */
   uint64_t transactions;
   uint64_t root_splits;     /* long root blocks closed and reopened */
   uint64_t root_capped;     /* root-block witnesses past ROOT_WITNESSES */
   uint64_t symmetric;       /* candidates of symmetric threads not kept */
   uint64_t shown_failed;    /* candidates whose shape the recorded run,
                                which failed, showed (rank_failed.c) */
   enum cbp_blocks blocks;
   uint32_t nlocks, nstates;
   /* The reads-from index (readsfrom.c), made when synthesis or ranking
    * first needs it and kept for the other (two passes over the trace and
    * 20 bytes an event less); freed by cbp_result_free. */
   struct cbp_rf *rf;
   /* cbp_wait_checks, made when synthesis first needs it. */
   uint32_t *wait_locs; size_t nwait_locs; int wait_locs_made;
   /* The prefix order (prefix_order.c), made when the first schedule is
    * written. */
   struct cbp_porder *porder;
} cbp_result;

/* ---- Other writers an order violation holds back (site_writers.c) ------ */
/* For c (its prefix set): hold[j-1] = the counted index of thread j's last
 * write at a's site in its prefix that does not happen before f, or
 * UINT64_MAX; returns how many threads have one.  rf: the reads-from
 * index (readsfrom.c), which keeps every shared variable's writes. */
struct cbp_rf;
uint32_t cbp_site_writers(const struct cbp_rf *rf, const cb_trace *t,
                          const cbp_vclock *v, const cbp_candidate *c,
                          uint32_t nthreads, uint64_t *hold);

/* Pass B: fills r with one representative per (pattern, variable, three
 * locations, thread pair), sorted by the trace index of e1. */
void cbp_cutpoints(const cb_trace *t, const cbp_escape *x, cbp_vclock *v,
                   cbp_locks *L, enum cbp_blocks blocks, cbp_result *r);
/* Two thread pairs per code-site triple (symmetric.c): of n candidates in
 * their order, each given by its variable's address, e1, f, e2 (trace
 * indices) and pattern, which to keep (keep[i]); returns how many. */
typedef struct { uint64_t addr, e1, f, e2; uint8_t pat; } cbp_symsite;
size_t cbp_symmetric_keep(const cb_trace *t, const cbp_symsite *s, size_t n, uint8_t *keep);
/* Candidate order (trace index of e1, then f, then pattern): schedule
 * numbers follow it. */
int cbp_candidate_cmp(const void *a, const void *b);
/* Pass B': lock-order inversions (pattern DLK), appended to r, which is
 * sorted again.  Needs the vector clocks of pass B. */
void cbp_deadlocks(const cb_trace *t, const cbp_escape *x, const cbp_vclock *v,
                   cbp_locks *L, cbp_result *r);
/* Pass B'': order violations (pattern ORD), appended to r, which is sorted
 * again.  Needs the vector clocks of pass B. */
void cbp_orders(const cb_trace *t, const cbp_hb *hb, const cbp_escape *x,
                const cbp_vclock *v, cbp_locks *L, cbp_result *r);
/* cbp_orders in two halves, so that the pass can run beside pass B on a
 * thread of its own (analyze.c).  The pass puts its candidates and counts
 * in *out (cleared first).  feed: NULL when v holds pass B's clocks of the
 * whole trace; else v itself, new from cbp_vc_init, which the pass feeds
 * as it goes (with L its own too, new from cbp_locks_new, it then touches
 * nothing pass B touches).  The merge appends out's candidates to r, adds
 * its counts, sorts r again and empties out. */
void cbp_orders_pass(const cb_trace *t, const cbp_hb *hb, const cbp_escape *x,
                     const cbp_vclock *v, cbp_vclock *feed, cbp_locks *L, cbp_result *out);
void cbp_orders_merge(cbp_result *r, cbp_result *out);
/* Pass C: builds the schedules (prefix + tail) of the candidates
 * r->c[which[0..n-1]], or of every candidate not dropped; a candidate whose
 * schedule cannot be built is marked dropped with the reason. */
void cbp_synthesize_some(const cb_trace *t, const cbp_escape *x,
                         const cbp_vclock *v, cbp_locks *L, cbp_result *r,
                         const size_t *which, size_t n);
void cbp_synthesize(const cb_trace *t, const cbp_escape *x,
                    const cbp_vclock *v, cbp_locks *L, cbp_result *r);
/* A deadlock's tail (dlk_tail.c), from c's prefix: each thread of the
 * cycle run alone until it holds its outer lock, in an order where none
 * waits for a lock or an event of one that ran before it.  *rf is made when
 * first needed.  NULL, or why there is no such tail. */
struct cbp_rf;
const char *cbp_dlk_tail(const cb_trace *t, const cbp_escape *x, const cbp_vclock *v,
                         cbp_locks *L, struct cbp_rf **rf, cbp_candidate *c);
void cbp_result_free(cbp_result *r);
/* What one candidate owns (its schedule, a cycle's threads). */
void cbp_candidate_free(cbp_candidate *c);
/* Puts r's candidates in a new order: the i-th is the one that was at
 * index *at of the i-th record, records stride bytes apart (a sorted
 * array of structs that keep each candidate's old index). */
void cbp_result_permute(cbp_result *r, const size_t *at, size_t stride);
/* The alternate tails of a built candidate (alternates.c), from the main
 * tail's first through_f steps (f and T2's release of its locks). */
struct cbp_rf;
void cbp_alternates_build(const cb_trace *t, const cbp_escape *x, const struct cbp_rf *rf,
                          cbp_candidate *c, uint32_t through_f, int held_ok);
/* held_check.c: whether c gets the alternate tail F_HELD (a lost wake-up:
 * its f a waiter's predicate check under a lock T1 does not take); the
 * first call keeps the trace's predicate checks in r. */
struct cbp_rf;
int cbp_held_ok(const cb_trace *t, cbp_locks *L, const struct cbp_rf *rf, cbp_result *r,
                const cbp_candidate *c);
void cbp_alternates_clear(cbp_candidate *c);

/* ---- All passes (analyze.c) ------------------------------------------------ */
typedef struct cbp_analysis {
   cbp_hb hb;
   cbp_escape x;
   cbp_vclock v;
   cbp_locks *L;
   cbp_result r;
   int run_failed; /* --recorded-failed: the recorded run's exit was the
                      test failing, so its schedules judge against 0 alone */
   int cures;      /* cbp_cures ran: only order violations, cut back, each
                      schedule a cure (a forced run that passes is the
                      finding) */
} cbp_analysis;
/* --cures (cures.c): keeps only the order violations, each with T1 cut
 * just after its last synchronisation before a, and marks the analysis;
 * how many are kept.  Before synthesis. */
size_t cbp_cures(const cb_trace *t, cbp_analysis *a);
/* A thread's stretch before trace index `at` (cures.c): its events since
 * its last synchronisation (a counted event other than a read or a write)
 * or its start.  sync: that event's trace index (its THREAD_START when
 * at_start); n: the thread's counted events in between; first: the first
 * of them (`at` when none).  0 when neither lies within a bounded look
 * back, or *budget (events looked at, shared by the caller's calls) ran
 * out. */
typedef struct { uint64_t sync, first, n; int at_start; } cbp_stretch;
int cbp_stretch_before(const cb_trace *t, uint32_t tid, uint64_t at, uint64_t *budget,
                       cbp_stretch *s);
/* A stretch of thread u's counted events, from trace index `from` to r,
 * moved to just before event w0 (cure_moves.c). */
typedef struct { uint64_t from, w0, r; uint32_t u; } cbp_moved;
/* The recorded order from the first moved point to the last with each
 * stretch moved, as c's prefix and tail (*p0: that first point); 0 when
 * it spans too much or a step would end inside an instruction (c's
 * prefix may then be allocated: cbp_candidate_free). */
int cbp_moved_schedule(const cb_trace *t, const cbp_escape *x, struct cbp_rf *rf,
                       const cbp_moved *in, size_t n, cbp_candidate *c, uint64_t *p0);
/* --cures on a deadlocked trace (cure_wake.c): every candidate set aside,
 * one cure for each condition whose blocked waiters began their wait after
 * another thread signalled it (built already); how many. */
size_t cbp_wake_cures(const cb_trace *t, cbp_analysis *a);
/* Atomicity violations over two variables (two_vars.c): x in one critical
 * section of a thread's block, y in its next, and another thread's
 * section that touches both between them; how many candidates added. */
size_t cbp_two_vars(const cb_trace *t, cbp_analysis *a);
/* --cures on a deadlocked trace (deadlock_again.c): the lock-order cycle
 * the run deadlocked in, as a DLK candidate whose schedule is the recorded
 * run (built already); how many (0 or 1). */
size_t cbp_deadlock_again(const cb_trace *t, cbp_analysis *a);
/* For a DLK of deadlock_again.c, the trace's end's entry of T1's request
 * (e2), which no event holds: its lock and line; else NULL. */
const cb_blocked *cbp_blocked_e2(const cb_trace *t, const cbp_candidate *c);
/* For each cure whose write and read sites meet for two readers or more,
 * one more that forces every instance (cure_class.c), built already. */
void cbp_cure_classes(const cb_trace *t, cbp_analysis *a);
/* Passes A, B and B' (no schedule yet); free with cbp_analysis_free. */
void cbp_analyze_candidates(const cb_trace *t, const cbp_options *o, cbp_analysis *a);

/* A hook run on each candidate, in order, just before its schedule is
 * built (the Z3 check plugs in here): return 1 to keep it, 0 to drop it (it
 * is then marked dropped and counted in dropped_filter; the hook may set
 * c->why first).  Only candidates that would otherwise be built are asked,
 * so with --max N the hook runs until N are kept.  A DLK candidate is no
 * atomicity pattern: its e2 never runs after f in the forced run (both
 * threads block), so an e1 < f < e2 encoding does not apply to it (the Z3
 * check asks its own question of it, z3_predict.c). */
typedef int (*cbp_keep_fn)(void *ctx, const cb_trace *t, cbp_analysis *a,
                           cbp_candidate *c);
/* Pass C on the candidates in order, each first offered to keep (NULL:
 * keep all), until max schedules are built (SIZE_MAX: all; 0: none).
 * Returns how many were built: those have built set and dropped clear. */
size_t cbp_build_schedules(const cb_trace *t, cbp_analysis *a, size_t max,
                           cbp_keep_fn keep, void *keep_ctx);
/* cbp_analyze_candidates, then every schedule (o->max of them if set). */
void cbp_analyze(const cb_trace *t, const cbp_options *o, cbp_analysis *a);
void cbp_analysis_free(cbp_analysis *a);

/* ---- Reads-from (readsfrom.c) ---------------------------------------------
 * Whether running thread j's counted events [from, to) after every other
 * thread's prefix changes what one of its reads sees (another prefix holds
 * a write of that variable after the read in the trace). */
typedef struct cbp_rf cbp_rf;
cbp_rf *cbp_rf_new(const cb_trace *t, const cbp_escape *x);
void cbp_rf_free(cbp_rf *rf);
int cbp_rf_moves_read(const cbp_rf *rf, const uint64_t *prefix, uint32_t j,
                      uint64_t from, uint64_t to);
/* Whether one of thread j's reads among its counted events [from, to)
 * read a write of thread w's counted events from wfrom on. */
int cbp_rf_reads_from(const cbp_rf *rf, uint32_t j, uint64_t from, uint64_t to,
                      uint32_t w, uint64_t wfrom);
/* Whether another thread's prefix (prefix[k-1] counted events of thread
 * k) reads a write among thread j's counted events from `from` on: moving
 * j's events from there after the other prefixes would change its value.
 * Past RF_SCAN events to look at, it says yes. */
int cbp_rf_others_read(const cbp_rf *rf, const uint64_t *prefix, uint32_t j,
                       uint64_t from, uint64_t to);
/* One past the last of thread w's counted events among [wfrom, wto) whose
 * write one of thread j's reads among its counted events [from, to) reads
 * in the trace (at most RF_SCAN of them looked at), and in *first the
 * count of the first such read; 0 when none (*first unset). */
uint64_t cbp_rf_last_writer(const cbp_rf *rf, uint32_t j, uint64_t from, uint64_t to,
                            uint32_t w, uint64_t wfrom, uint64_t wto, uint64_t *first);
/* Variable v's writes, in trace order: their trace indices and threads. */
size_t cbp_rf_writes(const cbp_rf *rf, uint32_t v, const uint64_t **idx,
                     const uint32_t **tid);
/* The counted index of thread k's event at trace index i (of its first
 * counted event at or after i). */
uint64_t cbp_rf_count_at(const cbp_rf *rf, uint32_t k, uint64_t i);
/* The trace index of thread j's counted event number k (its index kept
 * there), or the trace's length when j has no such event. */
uint64_t cbp_rf_trace_index(const cbp_rf *rf, uint32_t j, uint64_t k);

/* ---- The recorded order a prefix keeps (prefix_order.c) -------------------
 * Waits "thread w runs its counted event i only once thread u has run c"
 * from the recorded run's cross-thread orderings (reads after writes,
 * writes after reads and writes, locks after unlocks) that v's clocks do
 * not already make, and a read after the write it saw where only that
 * value made the clocks' edge (a spin's last read, a once control's). */
typedef struct cbp_porder cbp_porder;
#define CBP_PORDER_MAX 48u
cbp_porder *cbp_porder_new(const cb_trace *t, const cbp_hb *hb, const cbp_escape *x,
                           const cbp_vclock *v);
void cbp_porder_free(cbp_porder *po);
/* The waits inside prefix (a count for each of po's threads), at most
 * CBP_PORDER_MAX, nearest the cut: 4 words each (w, i, u, c), sorted by w then i, in
 * *out (malloc'd, NULL when none); returns the number of words. */
size_t cbp_porder_for(const cbp_porder *po, const uint64_t *prefix,
                      uint64_t **out);

/* ---- Where a thread may stop; the prefix closed over the tail (close_prefix.c)
 * Per thread, the counts c at which it may not stop: after its first c
 * events it holds a lock, or event c-1 is the first half of an
 * instruction (inclusive ranges, ascending; synthesis.c's sweep fills
 * them, count by count). */
typedef struct { uint64_t lo, hi; } cbp_range; /* inclusive counts */
typedef struct { cbp_range *v; size_t n, cap; } cbp_ranges;
void cbp_bad_cut(cbp_ranges *r, uint64_t c);
void cbp_bad_cuts_free(cbp_ranges *b, uint32_t n); /* b[0..n] and b */
/* The first count >= c where the thread may stop (UINT64_MAX: none left
 * up to total); the last count <= c where it may (0 always may). */
uint64_t cbp_next_cut(const cbp_ranges *r, uint64_t total, uint64_t c);
uint64_t cbp_prev_cut(const cbp_ranges *r, uint64_t c);
typedef struct { uint32_t tid; uint64_t to; } cbp_raise_to; /* tid 0: none */
/* Raises the threads of c's prefix that do not run in the tail; NULL, or
 * why it cannot be (need, end: n + 1 counts of scratch).  *raise: where
 * T1 or T2 may stop further on, to build the tail again from there. */
const char *cbp_close_prefix(const cbp_escape *x, const cbp_vclock *v,
                             const cbp_ranges *bad, cbp_candidate *c,
                             uint64_t *need, uint64_t *end, cbp_raise_to *raise);

/* ---- Region III (region3.c) ----------------------------------------------
 * Interleaves T1 (from c->x1 to count t1_to) and T2 (from2, c->x2 or an
 * earlier lock-free cut, to count c->cf) by the acquisition histories'
 * causal edges into out[0..*nout) (grown as needed); 0 when no
 * interleaving passes the lock simulation. */
int cbp_region3(const cb_trace *t, cbp_locks *L, cbp_candidate *c, uint64_t t1_to,
                cbp_point from2, cbp_step **out, size_t *nout, size_t *capout);

/* ---- The path to f keeps what T1 overwrites (read_first.c) ---------------
 * When T2, on its way to f in c's main tail, reads a variable that T1
 * wrote on its way to e with another value than T2 read in the recorded
 * run (the value before T1's write), T2 runs through that read before T1's
 * write.  Returns 1 when c's tail was changed (only to a plan replay can
 * follow), 0 when it is left as it was. */
int cbp_read_first(const cb_trace *t, const cbp_escape *x, const cbp_vclock *v,
                   cbp_locks *L, cbp_rf *rf, cbp_candidate *c);

/* ---- Can replay follow a plan? (plan_check.c) ----------------------------
 * Replay runs every thread freely up to its prefix count, then each tail
 * step with all other threads stopped.  NULL when that works for the
 * recorded events, else why not: a count past a thread's end; a prefix that
 * waits for events outside it (vector clocks: create, join, barrier,
 * consumed signal); a thread stopped inside one instruction (the prefix
 * stops and every tail switch but the last); a thread stopped in the prefix
 * holding a lock another thread may take in its own prefix first; a tail
 * step that needs events not yet run or a lock another thread holds.
 * Synthesis builds plans that pass by construction; this checks plans from
 * elsewhere (the Z3 model's order). */
const char *cbp_plan_check(const cb_trace *t, const cbp_escape *x,
                           const cbp_vclock *v, cbp_locks *L,
                           const uint64_t *prefix, const cbp_step *tail,
                           uint32_t ntail);

/* ---- --z3 (z3_predict.c, linked only into cbpredict) ----------------------
 * What the Z3 check did, for the table and --json. */
typedef struct cbp_z3_summary {
   unsigned timeout_ms;
   size_t window;            /* max events of one query's window */
   uint64_t candidates;      /* found by the lockset pass (r.n) */
   uint64_t asked;           /* candidates asked (a shape the encoding does
                                not take counts as undecided) */
   uint64_t sat, dropped, undecided;
   uint64_t model_orders;    /* SAT schedules written in the model's order */
   uint64_t model_rejected;  /* SAT models replay could not follow: the
                                synthesised schedule was kept instead */
   double solver_ms;         /* total, encoding and solving */
   /* Called after each query (a progress line), when not NULL. */
   void (*on_query)(const struct cbp_z3_summary *s);
} cbp_z3_summary;
/* cbp_build_schedules with the Z3 check as its keep hook, then the model's
 * order as the schedule of each SAT candidate replay can follow.  s->
 * timeout_ms and s->window set by the caller; the counts are filled.  *built
 * as cbp_build_schedules returns.  -1 when Z3 cannot start, else 0. */
int cbp_z3_build_schedules(const cb_trace *t, cbp_analysis *a, size_t max,
                           cbp_z3_summary *s, size_t *built);

/* A trace of at most this many events keeps each witness's latest instance
 * beside its first (pass B's e witnesses, the deadlock pass's nests): the
 * first of a loop's check and act, or of its nested locking, is not always
 * the one that fails.  Their candidates are cbp_candidate.again. */
#define LATER_MAX_EVENTS 200000u

/* ---- Output (schedule_out.c, report.c) ----------------------------------- */
/* The orderings c's schedule forces, as cb_schedule_digest reads them. */
uint64_t cbp_candidate_digest(const cbp_escape *x, const cbp_candidate *c);
/* c's variable in words, named by the source lines of e1, f and e2 where
 * the debug information has no name for it (cb_access_name). */
const char *cbp_candidate_name(const cb_trace *t, const cbp_candidate *c,
                               char *buf, size_t len);
/* Writes c's schedule to path; a's prefix order is made at the first. */
int cbp_schedule_write(const cb_trace *t, cbp_analysis *a,
                       const cbp_candidate *c, const char *path,
                       cb_error *err);
/* s1.pb, s2.pb, ... in dir, in rank order, at most limit, each ordering
 * once and none that the sorted digests seen[0..nseen) hold; the file
 * system's part on a second thread when jobs > 1 (write_schedules.c).
 * 0, or 1 when one cannot be written (said on stderr); *written counts. */
int cbp_write_schedules(const cb_trace *t, cbp_analysis *a, const char *dir, size_t limit,
                        const uint64_t *seen, size_t nseen, unsigned jobs, uint64_t *written);
/* Order of digests (uint64_t), for qsort and bsearch. */
int cbp_digest_cmp(const void *a, const void *b);
/* Its first half: the file's bytes in *buf (the caller frees them), for
 * cb_schedule_put, which may run on another thread. */
int cbp_schedule_encode(const cb_trace *t, cbp_analysis *a, const cbp_candidate *c,
                        uint8_t **buf, size_t *len, cb_error *err);
typedef struct {
   const char *trace_path, *dir;
   double seconds;
   uint64_t written;
   const char *note; /* a sentence about why nothing was predicted, or NULL */
   const cbp_z3_summary *z3; /* with --z3, else NULL */
   const struct cbp_explore_result *explore; /* with --delays, else NULL */
   long lock_words; /* of the locks, the program's own (cb_spinlocks_mark) */
   long lock_sems;  /* ... and its semaphores used as locks (cb_semlocks_mark) */
   int run_failed;  /* --recorded-failed */
   int cures;       /* --cures, and none happened in the run: cures.c */
} cbp_report_info;
void cbp_report_table(FILE *out, const cb_trace *t, const cbp_escape *x,
                      const cbp_result *r, const cbp_report_info *info);
void cbp_report_json(FILE *out, const cb_trace *t, const cbp_escape *x,
                     const cbp_result *r, const cbp_report_info *info);

/* Exploration's delay schedules (--delays): explore.h. */

#endif /* CB_PREDICT_H */
