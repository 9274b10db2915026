/* cutpoints.h: pass B's internals, shared by its three files:
 *   cutpoints.c  the pass over the trace (per event: lock state, clock
 *                segment, blocks; cbp_cutpoints);
 *   cut_blocks.c the open blocks of each thread: their lock-state logs and
 *                access sites, and the e witnesses of a block's site pairs;
 *   cut_store.c  the witness tables (e, f, root caps), keyed by packed words;
 *   cut_decide.c the decision: every e witness meets every f witness of its
 *                variable (combine).
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#ifndef CB_CUTPOINTS_H
#define CB_CUTPOINTS_H

#include "predict.h"

#define CUT_NONE UINT64_MAX

/* A point of a block where T1 may be cut as e: where its lock state or
 * clock segment changed, or just after it was the source of a
 * happens-before edge (hb.h: a create, a signal, a post; epoch counts them),
 * since f may need that edge and e cannot come before it. */
typedef struct {
   uint32_t ls, seg, epoch;
   uint8_t ok;
   uint64_t tidx, cidx;
   cbp_point le; /* last empty cut before this event */
} logent;

/* One access site (variable, kind, location) of a block: its first, second
 * and last instances.  e2 of a pair is the nearest instance after e1 that
 * these hold, so that in a loop e1 and e2 come from one iteration, not from
 * the first and the last. */
typedef struct {
   uint32_t var, loc;
   uint8_t kind;
   uint32_t count;
   uint32_t first_log, second_log, last_log;
   uint64_t first_tidx, first_cidx, second_tidx, second_cidx, last_tidx, last_cidx;
   cbp_point first_le;
   uint8_t first_ok;
   uint32_t root_ref; /* root block: cut_root_ref of (var, thread), 0 unknown */
} access_class;

/* The lock-state log and access sites of one open block.  A thread has two:
 * its current function block and its root block (functions mode).  A
 * function block pairs every two sites of a variable at its end.  The root
 * block (adjacent) pairs each access with the thread's previous access to
 * the same variable, as it comes (AVIO's local pairs, at most ROOT_PAIRS
 * site pairs per variable): a thread's whole run holds too many sites to
 * pair them all, and the nearest previous access is the one a
 * check-then-act or a read-modify-write spans.  Its cls then holds one key
 * per variable (loc and kind 0) and last[] that variable's latest access. */
typedef struct {
   logent *log; size_t nlog, caplog;
   cbp_map cmap; access_class *cls; size_t ncls, capcls;
   access_class *last; size_t caplast;
   int open, adjacent;
} txnbuf;

typedef struct {
   uint32_t ls;
   cbp_held held;
   uint64_t cidx, prev_tidx;
   cbp_point prev_le; /* le before the event at prev_tidx */
   cbp_point le; /* last empty-lockset cut so far (<= cidx); its trace
                    position is as late as it can be: just before the
                    thread's next event, so region I follows the trace far */
   cbp_txn txn;
   txnbuf fn, root;
   int exited;
   uint32_t epoch; /* happens-before sources (hb.h) so far */
} thr;

typedef struct { /* f witness */
   uint32_t var, loc, ls, seg;
   uint32_t tid; uint8_t kind;
   uint8_t width;  /* counted events f's instruction runs (a CAS: 2) */
   uint64_t tidx, cidx;
   cbp_point le;
} fwit;

typedef struct { /* e witness */
   uint32_t var, loc1, loc2, ls, seg, epoch;
   uint32_t tid; uint8_t k1, k2;
   uint64_t e1, ce1, e, ce, e2, ce2;
   cbp_point x1;
} ewit;

/* A witness table: open addressing whose slots hold the keys themselves,
 * packed into W 64-bit words, then the item's index + 1 (0: an empty
 * slot): a look-up reads one place in memory, not a slot and then a key
 * elsewhere (the tables outgrow the caches, and nearly every access of a
 * shared variable looks up an f witness and a few e witnesses). */
typedef struct {
   uint64_t *slot; /* (W + 1) words a slot */
   size_t mask;    /* slots - 1 (a power of two) */
   size_t n;       /* items, numbered in insertion order */
} cut_table;

/* The f witnesses' table: the witness itself is the slot (one cache line),
 * since each access of a shared variable updates its f witness (the last
 * is kept); p->fw is filled from it, in insertion order, before the
 * decision (cut_store_fw). */
typedef struct {
   fwit w;
   uint32_t idx1;  /* index + 1, 0: empty */
   uint32_t tag;   /* the high bits of the key's hash */
} fslot;
typedef struct {
   fslot *slot;
   size_t mask, n;
} cut_ftable;

typedef struct {
   const cb_trace *t;
   const cbp_escape *x;
   cbp_vclock *v;
   cbp_locks *L;
   thr *th;
   struct cut_pending *pend;                 /* cut_store.c: look-ups in flight */
   cut_ftable ftab; fwit *fw;                /* fw: after cut_store_fw */
   cut_table etab; ewit *ew; size_t capew;   /* keys: 4 words */
   /* On a small trace (LATER_MAX_EVENTS), each e witness's latest
    * instance, same index as ew (cut_decide.c: later instances). */
   ewit *ew_last; size_t caplast;
   /* Root-block witnesses per (variable, sites, kinds, thread): at most
    * ROOT_WITNESSES, whatever the lock state, segment or epoch; a long
    * thread would otherwise leave one per loop iteration's segment. */
   cut_table rtab; uint8_t *rn; size_t caprn; /* keys: 3 words */
   uint8_t *rfull; size_t caprfull; /* per (variable, thread): full pairs */
   uint32_t *rvar; size_t caprvar;   /* per pair: its (variable, thread) */
   cbp_result *r;
   uint32_t *tmp; size_t captmp;
} pass;

/* cut_store.c */
void cut_store_init(pass *p);
void cut_store_free(pass *p);
/* Witnesses are added in order, but a few at a time: each is hashed and its
 * slot fetched from memory when it comes, and looked up a few additions
 * later, so that the tables' cache misses overlap instead of following one
 * another.  What the tables hold is read only through cut_root_ref and
 * cut_root_saturated, which first finish the additions in flight, and
 * cut_store_fw. */
void cut_add_f(pass *p, const fwit *w);
/* p->fw: the f witnesses in the order they were first added (ftab.n); the
 * e witnesses p->ew (etab.n), all additions done. */
void cut_store_fw(pass *p);
/* The part of an e witness's key that one pair of sites fixes, and its
 * hash: e witnesses of one pair differ in lock state, segment and epoch. */
typedef struct { uint64_t w0, w1, h; } cut_pairkey;
cut_pairkey cut_pair_key(const ewit *w);
/* Adds w (pair key k) unless its key is known; root: a root-block witness,
 * subject to ROOT_WITNESSES and ROOT_PAIRS. */
void cut_add_e(pass *p, const cut_pairkey *k, const ewit *w, int root);
/* The root witnesses' record of (var, thread), + 1 (0: none yet), and
 * whether it is saturated: ROOT_PAIRS pairs of sites, each with
 * ROOT_WITNESSES witnesses.  Every root witness of a saturated (var,
 * thread) is then either known or refused: adding one does nothing. */
uint32_t cut_root_ref(pass *p, uint32_t var, uint32_t tid);
int cut_root_saturated(pass *p, uint32_t ref);

/* cut_blocks.c */
void cut_log_push(thr *h, uint32_t seg, uint64_t tidx, uint64_t cidx, int ok,
                  cbp_point le);
void cut_txn_begin(txnbuf *b, thr *h, uint32_t seg, uint64_t tidx);
void cut_txn_end(pass *p, uint32_t tid, txnbuf *h);
void cut_class_add(pass *p, uint32_t tid, txnbuf *h, uint32_t var,
                   const cb_event *e, size_t i, uint64_t c, cbp_point le_before,
                   int ok);

/* cut_decide.c */
void cut_combine(pass *p);

#endif /* CB_CUTPOINTS_H */
