/* orders.c: pass B'', order violations (pattern ORD).  THIS IS WHERE AN
 * ORDER VIOLATION IS DECIDED (see conflict() below).
 *
 * Two conflicting accesses (one a write) of two threads to one shared
 * variable, a before b in the recorded run, that no happens-before edge
 * orders (hb.h, as the vector clocks hold it), can run
 * in the other order.  That is the shape of a use before an initialisation,
 * a flag read before it is set, a lazy initialiser that a second thread
 * enters before the first has published, and of two critical sections on
 * one lock that may run either way round (check-then-act where the second
 * thread's check comes first).  No PENELOPE pattern holds them: each needs
 * the other thread's event *before* the first one, not inside a block.
 *
 * As a candidate: T1 = a's thread, cut at its last empty-lockset point
 * before a (so a whole critical section moves, never half of one); f = b,
 * T2 runs to it and on until it holds no lock; then T1 runs through a
 * (e1 = e2 = a).  Synthesis (synthesis.c) builds that tail unchanged: the
 * cut's counted index is ce + 1, so ce = cut - 1.
 *
 * When a sits inside a critical section and T2 reaches b without taking
 * any lock T1 holds there, a second candidate cuts T1 right before a,
 * holding its locks: only a and b swap.  Moving the whole section would
 * also move what T1 wrote before a in it (a flag published before the
 * fields it guards), and T2 would then take another path (tight_ok).
 *
 * One pass; per shared variable the last access of each recent (thread,
 * kind) pair is kept (ORD_RECENT of them), so that b meets the nearest
 * conflicting access of every other thread.  Candidates are deduplicated by
 * their code sites (a's and b's location and kind), not by threads or
 * addresses: threads running the same code, or objects allocated by the same
 * line, give one schedule, and the count grows with code sites.  A site
 * pair met again on another variable (a loop's results[0] ... results[3])
 * also gives its latest instance (later_instance); a write that replaced
 * a pointer to a block it freed, its first instance (swap_meet).
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "predict.h"

#define NONE UINT64_MAX
#define ORD_RECENT 6

typedef struct {
   uint32_t tid, loc;
   uint8_t kind, used;
   uint32_t ls;           /* its lockset */
   uint64_t tidx, cidx;
   cbp_point le;          /* T1's last empty-lockset cut before it */
} access_rec;             /* 48 bytes: ORD_RECENT of them per variable */

typedef struct {
   uint32_t ls;
   cbp_held held;
   uint64_t cidx;
   cbp_point le;
   access_rec unlock; /* its last UNLOCK: a condition wait starts there */
   uint64_t free_at;  /* counted index + 1 at its last free, 0: none */
   uint64_t free_addr; /* the block that free released */
   access_rec lastw;  /* its last write of a shared variable */
   uint64_t lastw_old, lastw_new; /* the value that write replaced, and its own */
   uint32_t lastw_var;
} othr;

/* Event e, trace index i, of thread tid in state h, as a record. */
static inline access_rec rec_of(uint32_t tid, const cb_event *e, size_t i, const othr *h) {
   return (access_rec){.tid = tid, .loc = e->loc, .kind = e->kind, .used = 1, .ls = h->ls,
                       .tidx = i, .cidx = h->cidx, .le = h->le};
}

typedef struct { uint32_t la, lb; uint8_t ka, kb; } sitekey;

typedef struct {
   const cb_trace *t;
   const cbp_escape *x;
   const cbp_vclock *v;
   cbp_vclock *feed;       /* v itself when the pass builds its own clocks
                              as it goes (cbp_orders_pass), else NULL */
   cbp_locks *L;
   cbp_result *r;
   access_rec *recent;     /* ORD_RECENT per variable */
   uint32_t *recent_seen;  /* per recent slot: site (loc << 5 | kind) + 1 whose
                              pair with it is seen, 0: none known */
   cbp_map seen; sitekey *keys; size_t nkeys, capkeys;
   /* SEEN_FAST site pairs known seen, each in one 16-byte slot (one
    * cache line per look-up): */
   struct fast {
      uint64_t w;          /* packed (pack_sites), 0: none */
      uint32_t var;        /* the variable it was last met on */
      uint32_t idx;        /* its site pair's key index + 1 */
   } *seen_fast;
   /* Per site pair (its key index): its latest instance on another
    * variable than that of its first candidate (later_instance); the
    * two variables side by side with it, for the same reason. */
   struct later { access_rec a, b; uint32_t var, first_var; } *later;
   size_t caplater;
   cbp_candidate *found; size_t nfound, capfound;
   const cbp_hb *hb;
   access_rec *sigs; size_t nsigs, capsigs; /* signals that woke a wait (hb.h), in
                                               trace order */
   access_rec *blast; /* per heap block: its last access by any thread */
   access_rec *swap;  /* per variable: its first write next to a free
                         (swap_write); used 2 once its candidate is made */
   uint64_t *val;     /* per variable: the value its last write wrote */
} opass;

static uint64_t khash(const sitekey *k) {
   return cbp_mix(((uint64_t)k->la << 32 | k->lb) ^ ((uint64_t)k->ka << 8 | k->kb) << 40);
}
static int keq(const void *c, uint32_t i, const void *k) {
   const sitekey *a = &((const opass *)c)->keys[i], *b = k;
   return a->la == b->la && a->lb == b->lb && a->ka == b->ka && a->kb == b->kb;
}
static uint64_t khash_i(const void *c, uint32_t i) { return khash(&((const opass *)c)->keys[i]); }

/* Nearly every conflicting pair of accesses is of a site pair seen long
 * ago (a few hundred pairs, millions of look-ups): the pairs found seen are
 * kept, packed into one word, in a small direct-mapped table in front of
 * the map (a pair once seen stays seen). */
#define SEEN_FAST 1024
/* k in one word, never 0; 0 when its locations are too large to pack. */
static uint64_t pack_sites(const sitekey *k) {
   if (k->la >= (1u << 26) || k->lb >= (1u << 26) || k->ka >= 32 || k->kb >= 32) return 0;
   return ((uint64_t)k->la << 36 | (uint64_t)k->lb << 10 | (uint64_t)k->ka << 5 | k->kb) + 1;
}

static inline struct fast *fast_slot(opass *p, uint64_t w) {
   return &p->seen_fast[(w * 0x9e3779b97f4a7c15ull) >> 54]; /* 10 bits */
}

/* The site pair k's index + 1 when it already has its candidate (one per
 * code sites, and a later one on another variable: later_instance), else
 * 0.  The fast table remembers it met on var. */
static uint32_t seen(opass *p, const sitekey *k, uint32_t var) {
   uint64_t w = pack_sites(k);
   uint32_t idx = *cbp_map_probe(&p->seen, khash(k), keq, p, k);
   if (idx && w) {
      *fast_slot(p, w) = (struct fast){w, var, idx};
   }
   return idx;
}

/* Records the site pair k as seen, its first candidate on var. */
static void mark_seen(opass *p, const sitekey *k, uint32_t var) {
   uint32_t *s = cbp_map_probe(&p->seen, khash(k), keq, p, k);
   p->keys = cbp_grow(p->keys, &p->capkeys, p->nkeys, sizeof *p->keys);
   p->later = cbp_grow(p->later, &p->caplater, p->nkeys, sizeof *p->later);
   p->keys[p->nkeys] = *k;
   p->later[p->nkeys].first_var = var;
   p->later[p->nkeys].var = 0;
   *s = (uint32_t)++p->nkeys;
   cbp_map_added(&p->seen, khash_i, p);
}

/* Adds the candidate: T1 (a's thread) cut at x1 (its last empty-lockset
 * point before a, or just before a: tight, holding a's locks), T2 through
 * f, then T1 through a.  f_uncounted: f is no counted event (a free),
 * reached by running T2 up to f's count. */
static void push_ord(opass *p, const access_rec *a, const access_rec *f, uint32_t var,
                     uint64_t addr, int f_uncounted, int tight) {
   cbp_candidate c;
   memset(&c, 0, sizeof c);
   c.pattern = CBP_ORD;
   c.var = var; c.addr = addr;
   c.t1 = a->tid; c.t2 = f->tid;
   c.e1 = c.e2 = a->tidx; c.ce1 = c.ce2 = a->cidx;
   c.x1 = tight ? (cbp_point){a->cidx, a->tidx - 1} : a->le;
   c.e = c.x1.tidx == NONE ? a->tidx : c.x1.tidx;
   c.ce = c.x1.count - 1; /* wraps for a cut at 0: ce + 1 is the cut */
   c.f = f->tidx; c.cf = f->cidx;
   c.ls_e = tight ? a->ls : 0; c.ls_f = f->ls;
   c.x2 = f->le; /* seg_e and seg_f: at the end of the pass (set_segments) */
   c.f_uncounted = (uint8_t)f_uncounted;
   p->found = cbp_grow(p->found, &p->capfound, p->nfound, sizeof *p->found);
   p->found[p->nfound++] = c;
   p->r->cutpoints++;
}

static void add_ord(opass *p, const sitekey *k, const access_rec *a, const access_rec *f,
                    uint32_t var, uint64_t addr, int f_uncounted) {
   mark_seen(p, k, var);
   push_ord(p, a, f, var, addr, f_uncounted, 0);
}

/* Whether T1 may stop right before a holding its locks while T2 runs from
 * its last empty-lockset cut to f: a is no rest of an instruction, T1
 * holds a lock there (else the two cuts are one), and none of T2's
 * acquisitions on the way is excluded by a lock T1 holds (a second reader
 * of T1's rwlock gets in).  Scans T2's events back
 * from f, at most TIGHT_SCAN of them (beyond: not tried). */
#define TIGHT_SCAN 4096
static int tight_ok(opass *p, const access_rec *a, const access_rec *f) {
   if (!a->ls || a->tidx == 0 || cbp_glued(&p->t->events[a->tidx])) return 0;
   if (f->le.tidx != NONE && f->le.tidx >= f->tidx) return 0;
   size_t from = f->le.tidx == NONE ? 0 : (size_t)f->le.tidx + 1;
   if (f->tidx - from > TIGHT_SCAN) return 0;
   for (size_t i = from; i < f->tidx; i++) {
      const cb_event *e = &p->t->events[i];
      if (e->tid != f->tid || e->kind != CB_EV_LOCK) continue;
      if (cbp_locks_excludes(p->L, a->ls, cbp_lock_of(p->L, NULL, e))) return 0;
   }
   return 1;
}

/* Whether b may come before a at all: b may not need T1 past the cut
 * (b's clock: 1 when it does), nor be the rest of an instruction (T2
 * stops just before it: 2): the store of a split read-modify-write is
 * fine, replay cuts those (cbp_glued).  0: it may. */
static int swap_blocked(opass *p, const access_rec *a, uint32_t tid, size_t i,
                        const cb_event *e, const othr *h) {
   if (cbp_vc_get(p->v, cbp_vc_seg_at(p->v, tid, h->cidx), a->tid) > a->le.count)
      return 1;
   return !cbp_cut_ok(p->x, i) || cbp_glued(e) ? 2 : 0;
}

/* swap_blocked, counted among the dropped when b may not. */
static int may_swap(opass *p, const access_rec *a, uint32_t tid, size_t i,
                    const cb_event *e, const othr *h) {
   switch (swap_blocked(p, a, tid, i, e, h)) {
   case 1: p->r->dropped_vc++; return 0;
   case 2: p->r->dropped_insn++; return 0;
   }
   return 1;
}

/* A site pair met again on another variable (results[3] after results[0]:
 * one loop's iterations): its latest such instance becomes a candidate
 * too, at the end of the pass (later_candidates).  The first instance of
 * a loop is the one most likely ordered by data the model does not see
 * (a count the reader waits for under a lock, which the last iteration's
 * write follows and the first's precedes).  Kept as the two accesses
 * only: this runs for every access that meets a seen pair anew. */
static inline void later_instance(opass *p, uint32_t idx, const access_rec *a, uint32_t tid,
                                  size_t i, const othr *h, uint32_t var) {
   struct later *l = &p->later[idx - 1];
   if (var == l->first_var) return;
   if (l->var && l->a.tidx >= a->tidx) return;
   /* b's site is taken from its event when the candidate is made. */
   l->a = *a;
   l->b = (access_rec){.tid = tid, .used = 1, .ls = h->ls, .tidx = i, .cidx = h->cidx,
                       .le = h->le};
   l->var = var;
}

static void later_candidates(opass *p) {
   for (size_t k = 0; k < p->nkeys; k++) {
      const struct later *l = &p->later[k];
      if (!l->var) continue;
      const cb_event *e = &p->t->events[l->b.tidx];
      access_rec b = l->b;
      b.loc = e->loc; b.kind = e->kind;
      othr h = {.cidx = b.cidx, .le = b.le, .ls = b.ls};
      if (may_swap(p, &l->a, b.tid, b.tidx, e, &h))
         push_ord(p, &l->a, &b, l->var, p->x->var_addr[l->var], 0, 0);
   }
}

/* The decision for a (earlier, other thread) and b (this access).  1: the
 * pair of their sites is seen now (it has its candidate). */
static int conflict(opass *p, const access_rec *a, uint32_t tid, size_t i,
                    const cb_event *e, const othr *h, uint32_t var) {
   sitekey k = {a->loc, e->loc, a->kind, e->kind};
   uint32_t idx = seen(p, &k, var);
   if (idx) {
      later_instance(p, idx, a, tid, i, h, var);
      return 1;
   }
   if (!may_swap(p, a, tid, i, e, h)) return 0;
   access_rec b = rec_of(tid, e, i, h);
   add_ord(p, &k, a, &b, var, p->x->var_addr[var], 0);
   if (tight_ok(p, a, &b)) push_ord(p, a, &b, var, p->x->var_addr[var], 0, 1);
   return 1;
}

/* ---- Lost wake-ups ------------------------------------------------------
 * A wait that a signal ended in the recorded run, forced after that signal:
 * the waiter is cut before the critical section whose unlock starts its
 * wait (its last empty-lockset point), the signaller runs through its
 * signal, then the waiter runs to the wait.  A waiter that checks its
 * predicate does not wait then; one that does not waits forever (the run
 * hangs: a bug).  The candidate is an ORD on the condition variable with
 * e1 = e2 = the waiter's unlock and f = the signal.  When the signaller
 * takes no lock the waiter holds on its way to the signal (a flag set and
 * signalled without the mutex), a second one cuts the waiter just before
 * that unlock instead, its predicate checked and its lock held: the
 * signal comes between the check and the wait, and the wait is lost. */
/* The signal at trace index tidx, kept when it woke a wait. */
static const access_rec *signal_at(const opass *p, uint64_t tidx) {
   size_t lo = 0, hi = p->nsigs;
   while (lo < hi) {
      size_t m = (lo + hi) / 2;
      if (p->sigs[m].tidx < tidx) lo = m + 1; else hi = m;
   }
   return lo < p->nsigs && p->sigs[lo].tidx == tidx ? &p->sigs[lo] : NULL;
}

static void cond_event(opass *p, uint32_t tid, size_t i, const cb_event *e, othr *h) {
   const cbp_hb *hb = p->hb;
   size_t k, n;
   if (e->kind == CB_EV_COND_SIGNAL) {
      if (!cbp_hb_at(hb->out, hb->nout, i, &k)) return; /* woke no one */
      p->sigs = cbp_grow(p->sigs, &p->capsigs, p->nsigs, sizeof *p->sigs);
      p->sigs[p->nsigs++] = rec_of(tid, e, i, h);
      return;
   }
   /* COND_WAIT, recorded once woken: the signal that woke it (hb.h) came
    * after the unlock that started the wait. */
   const access_rec *s = NULL, *u = &h->unlock;
   for (n = cbp_hb_at(hb->in, hb->nin, i, &k); n--; k++)
      if (hb->g[hb->in[k].group].kind == CBP_HB_COND)
         s = signal_at(p, hb->ev[hb->g[hb->in[k].group].src]);
   if (!s || !u->used || s->tid == tid || s->tidx < u->tidx) return;
   sitekey key = {u->loc, s->loc, CB_EV_UNLOCK, CB_EV_COND_SIGNAL};
   if (seen(p, &key, 0)) return;
   if (cbp_vc_get(p->v, cbp_vc_seg_at(p->v, s->tid, s->cidx), tid) > u->le.count) {
      p->r->dropped_vc++;
      return;
   }
   add_ord(p, &key, u, s, 0, e->addr, 0);
   if (tight_ok(p, u, s)) push_ord(p, u, s, 0, e->addr, 0, 1);
}

/* ---- Use after free ---------------------------------------------------
 * A free writes the whole block: the last access to it by another thread,
 * recorded before the free, is forced after it.  A free is not a counted
 * event: T2 runs up to its next counted event (f_uncounted), which stops it
 * just after the free.  A free that is its thread's last act has no
 * such event and is not tried (counted in dropped_insn, "no point to cut"). */
static void free_event(opass *p, uint32_t tid, size_t i, const othr *h) {
   uint32_t blk = p->x->var_of[i];
   if (!blk) return;
   const access_rec *a = &p->blast[blk];
   if (!a->used || a->tid == tid) return;
   sitekey k = {a->loc, p->t->events[i].loc, a->kind, CB_EV_FREE};
   if (seen(p, &k, 0)) return;
   if (h->cidx >= p->x->counted[tid]) { p->r->dropped_insn++; return; }
   /* The free's clock is that of T2's last counted event before it (the
    * next one may be the join that waits for T1). */
   if (cbp_vc_get(p->v, cbp_vc_seg_at(p->v, tid, h->cidx ? h->cidx - 1 : 0), a->tid) >
       a->le.count) { p->r->dropped_vc++; return; }
   access_rec f = rec_of(tid, &p->t->events[i], i, h); /* a FREE */
   add_ord(p, &k, a, &f, p->x->var_of[a->tidx], p->t->events[a->tidx].addr, 1);
}

/* ---- A pointer replaced and its old block freed -------------------------
 * A write of a variable next to a free by the same thread of the block
 * the variable pointed to (realloc moving a block, `old = cfg; cfg = new;
 * free(old)`) is where a reader that took the old value is left holding
 * freed memory.  The pair of the write's site with the reader's is
 * decided at the writer's latest write (conflict()), which in a loop is
 * seldom the one that freed: realloc moves a growing block once or twice,
 * then grows it in place.  So the first such write of each variable is
 * kept, and when another thread reads the variable after a later write of
 * that site, the first one is forced after the read as a candidate of its
 * own (tests/programs/samples.c). */
#define SWAP_NEAR 16 /* counted events between the write and the free */

static void note_swap(opass *p, uint32_t var, const access_rec *w) {
   if (!p->swap[var].used) p->swap[var] = *w;
}

/* A free (e): the thread's last write, when it was just before and
 * replaced a pointer to the block freed. */
static void swap_free(opass *p, othr *h, const cb_event *e) {
   h->free_at = h->cidx + 1;
   h->free_addr = e->addr;
   if (h->lastw_var && h->cidx - h->lastw.cidx <= SWAP_NEAR && h->lastw_old == e->addr &&
       h->lastw_new != e->addr)
      note_swap(p, h->lastw_var, &h->lastw);
}

/* A write: just after a free of its thread, of the block that the
 * variable pointed to, and now points elsewhere (realloc records a free
 * when it grows a block in place too). */
static void swap_write(opass *p, othr *h, uint32_t tid, size_t i, const cb_event *e) {
   uint32_t var = p->x->var_of[i];
   if (!var || !p->x->var_shared[var]) return;
   h->lastw = rec_of(tid, e, i, h);
   h->lastw_var = var;
   h->lastw_old = p->val[var];
   h->lastw_new = p->val[var] = (e->size & 0x3f) <= 8 ? e->value : 0;
   if (h->free_at && h->cidx - (h->free_at - 1) <= SWAP_NEAR && h->lastw_old &&
       h->lastw_old == h->free_addr && h->lastw_new != h->lastw_old)
      note_swap(p, var, &h->lastw);
}

/* b, a read of var by another thread than the swap's, after a later
 * write of the swap's site (rv: var's recent accesses): the swap forced
 * after b.  Tried until it is made; one whose later write b was never
 * after is the pair conflict() makes already. */
static void swap_meet(opass *p, const access_rec *rv, uint32_t var, uint32_t tid,
                      size_t i, const cb_event *e, const othr *h) {
   access_rec *s = &p->swap[var];
   if (s->tid == tid || e->kind != CB_EV_READ) return;
   int later = 0;
   for (int k = 0; k < ORD_RECENT; k++)
      later |= rv[k].used && rv[k].tid == s->tid && rv[k].kind == CB_EV_WRITE &&
               rv[k].loc == s->loc && rv[k].tidx > s->tidx;
   if (!later || swap_blocked(p, s, tid, i, e, h)) return;
   access_rec b = rec_of(tid, e, i, h);
   push_ord(p, s, &b, var, p->x->var_addr[var], 0, 0);
   s->used = 2;
}

/* The slots of var's recent accesses that b (thread tid, e, locked or
 * not) is to meet, as bit masks over the ORD_RECENT slots, worked out
 * with no branch per slot (which slot is whose is as good as random: the
 * branches mispredicted). */
typedef struct {
   unsigned mine;  /* b's own (thread, kind, locked or not) slots */
   unsigned free;  /* slots never used */
   unsigned other; /* used by another thread */
   unsigned need;  /* another thread's conflicting access whose pair with
                      b's site is not known seen from the slot (rs) */
} slot_masks;

static slot_masks classify(const access_rec *rv, const uint32_t *rs, uint32_t tid,
                           const cb_event *e, const othr *h, uint32_t site) {
   slot_masks m = {0, 0, 0, 0};
   unsigned ew = e->kind == CB_EV_WRITE, lsnz = h->ls != 0, nosite = site == 0;
   for (unsigned k = 0; k < ORD_RECENT; k++) {
      const access_rec *a = &rv[k];
      unsigned used = a->used != 0, own = a->tid == tid;
      unsigned other = used & !own;
      m.free |= !used << k;
      m.mine |= (used & own & (a->kind == e->kind) & ((a->ls != 0) == lsnz)) << k;
      m.other |= other << k;
      m.need |= (other & ((a->kind == CB_EV_WRITE) | ew) & ((rs[k] != site) | nosite)) << k;
   }
   return m;
}

/* b meets every recent conflicting access of another thread, then takes
 * the slot of its own (thread, kind), or the oldest one. */
static void access_event(opass *p, uint32_t tid, size_t i, const cb_event *e,
                         const othr *h) {
   uint32_t var = p->x->var_of[i];
   if (var && p->x->var_block[var]) p->blast[p->x->var_block[var]] = rec_of(tid, e, i, h);
   if (!var || !p->x->var_shared[var]) return;
   access_rec *rv = &p->recent[(size_t)var * ORD_RECENT];
   uint32_t *rs = &p->recent_seen[(size_t)var * ORD_RECENT];
   if (p->swap[var].used == 1) swap_meet(p, rv, var, tid, i, e, h);
   /* A thread's accesses to a variable come in runs: the pair of this
    * site with a recent slot, once seen, stays seen until the slot is
    * taken over, and need not be looked up again.  A thread's own slot
    * is per kind and per locked or not: its unlocked fast-path check of a
    * flag stays beside the locked check after it, whose order with a
    * locked writer only moves whole critical sections. */
   uint32_t site = e->loc < (1u << 26) && e->kind < 32 ? (e->loc << 5 | e->kind) + 1 : 0;
   slot_masks m = classify(rv, rs, tid, e, h, site);
   int pend[ORD_RECENT], npend = 0;
   for (unsigned o = m.need; o; o &= o - 1) {
      int k = __builtin_ctz(o);
      const access_rec *a = &rv[k];
      /* conflict() would first find the pair seen: most often it is, in
       * the fast table, looked up here without the call. */
      sitekey sk = {a->loc, e->loc, a->kind, e->kind};
      uint64_t w = pack_sites(&sk);
      struct fast *f = fast_slot(p, w);
      if (w && f->w == w) {
         if (f->var != var) {
            later_instance(p, f->idx, a, tid, i, h, var);
            f->var = var;
         }
         rs[k] = site;
         continue;
      }
      /* A pair not known seen waits for conflict(), nearest first: of two
       * threads that ran a's site (two workers of one start routine), the
       * pair's one candidate is the later, the access no other thread's
       * run of the site separates from b (a worker nobody joined, whose
       * write main's read after the joins meets).  Rare: most accesses
       * end above, and the order costs nothing there. */
      int j = npend++;
      for (; j > 0 && rv[pend[j - 1]].tidx < a->tidx; j--) pend[j] = pend[j - 1];
      pend[j] = k;
   }
   for (int q = 0; q < npend; q++) {
      int k = pend[q];
      if (conflict(p, &rv[k], tid, i, e, h, var)) rs[k] = site;
   }
   /* The last own slot, else the first never used, else the oldest of
    * another thread's (compared with slot 0 first, whoever's it is). */
   int mine = m.mine ? 31 - __builtin_clz(m.mine) : m.free ? __builtin_ctz(m.free) : 0;
   if (!m.mine && !m.free)
      for (unsigned o = m.other; o; o &= o - 1) {
         int k = __builtin_ctz(o);
         if (rv[k].tidx < rv[mine].tidx) mine = k;
      }
   rv[mine] = rec_of(tid, e, i, h);
   rs[mine] = 0;
}

/* Every candidate's segments at e and f, from the whole trace's clocks.
 * Not when it is made: a pass that builds its clocks as it goes does not
 * know yet the segment that f's thread starts at its next counted event
 * when f is a free (f_uncounted, cf that event's count). */
static void set_segments(opass *p) {
   for (size_t k = 0; k < p->nfound; k++) {
      cbp_candidate *c = &p->found[k];
      c->seg_e = cbp_vc_seg_at(p->v, c->t1, c->ce1);
      c->seg_f = cbp_vc_seg_at(p->v, c->t2, c->cf);
   }
}

static void lock_event(opass *p, othr *h, const cb_event *e) {
   uint32_t l = cbp_lock_of(p->L, &h->held, e);
   if (e->kind == CB_EV_LOCK && cbp_held_acquire(&h->held, l))
      h->ls = cbp_locks_acquire(p->L, h->ls, l);
   if (e->kind == CB_EV_UNLOCK && cbp_held_release(&h->held, l))
      h->ls = cbp_locks_release(p->L, h->ls, l);
}

/* The pass proper: every event of thread h, in trace order.  With
 * p->feed, the clocks are fed each anchor event before the pass looks at
 * it, with the same last empty-lockset cut pass B gives them: every
 * question the pass asks of them is about an event already fed (or, for
 * segments, asked at the end), so they answer as the whole trace's would. */
static void orders_events(opass *p, othr *th) {
   const cb_trace *t = p->t;
   uint32_t n = p->x->nthreads;
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      if (e->tid == 0 || e->tid > n || e->kind >= CB_EV_KIND_COUNT) continue;
      othr *h = &th[e->tid];
      if (e->kind == CB_EV_FREE) {
         free_event(p, e->tid, i, h);
         swap_free(p, h, e);
      }
      if (!CB_IS_COUNTED(e->kind)) {
         if (p->feed && cbp_hb_anchor(e->kind)) /* thread start and exit */
            cbp_vc_event(p->feed, e, i, h->cidx, h->ls == 0 ? h->cidx : h->le.count);
         continue;
      }
      if (h->ls == 0 && !cbp_glued(e))
         h->le = (cbp_point){h->cidx, i - 1}; /* just before this event */
      uint32_t ls_before = h->ls;
      if (p->feed) cbp_vc_event(p->feed, e, i, h->cidx, ls_before == 0 ? h->cidx : h->le.count);
      if (e->kind == CB_EV_WRITE) swap_write(p, h, e->tid, i, e);
      if (e->kind == CB_EV_READ || e->kind == CB_EV_WRITE)
         access_event(p, e->tid, i, e, h);
      else if (e->kind == CB_EV_LOCK || e->kind == CB_EV_UNLOCK)
         lock_event(p, h, e);
      else if (e->kind == CB_EV_COND_SIGNAL || e->kind == CB_EV_COND_WAIT)
         cond_event(p, e->tid, i, e, h);
      if (e->kind == CB_EV_UNLOCK) { /* with the locks held up to it */
         h->unlock = rec_of(e->tid, e, i, h);
         h->unlock.ls = ls_before;
      }
      h->cidx++;
   }
}

void cbp_orders_pass(const cb_trace *t, const cbp_hb *hb, const cbp_escape *x,
                     const cbp_vclock *v, cbp_vclock *feed, cbp_locks *L, cbp_result *out) {
   opass p;
   memset(&p, 0, sizeof p);
   memset(out, 0, sizeof *out);
   p.t = t; p.hb = hb; p.x = x; p.v = v; p.feed = feed; p.L = L; p.r = out;
   uint32_t n = x->nthreads;
   othr *th = cbp_xcalloc(n + 1, sizeof *th);
   for (uint32_t j = 0; j <= n; j++) th[j].le = (cbp_point){0, NONE};
   p.recent = cbp_xcalloc(((size_t)x->nvars + 1) * ORD_RECENT, sizeof *p.recent);
   p.recent_seen = cbp_xcalloc(((size_t)x->nvars + 1) * ORD_RECENT, sizeof *p.recent_seen);
   cbp_map_init(&p.seen, 256);
   p.seen_fast = cbp_xcalloc(SEEN_FAST, sizeof *p.seen_fast);
   p.blast = cbp_xcalloc((size_t)x->nblocks + 1, sizeof *p.blast);
   p.swap = cbp_xcalloc((size_t)x->nvars + 1, sizeof *p.swap);
   p.val = cbp_xcalloc((size_t)x->nvars + 1, sizeof *p.val);
   orders_events(&p, th);
   later_candidates(&p);
   set_segments(&p);
   out->c = p.found; out->n = p.nfound; out->cap = p.capfound;
   for (uint32_t j = 0; j <= n; j++) cbp_held_free(&th[j].held);
   free(th); free(p.recent); free(p.recent_seen); free(p.keys);
   cbp_map_free(&p.seen);
   free(p.seen_fast);
   free(p.later);
   free(p.sigs); free(p.blast); free(p.swap); free(p.val);
}

void cbp_orders_merge(cbp_result *r, cbp_result *found) {
   for (size_t k = 0; k < found->n; k++) {
      r->c = cbp_grow(r->c, &r->cap, r->n, sizeof *r->c);
      r->c[r->n++] = found->c[k];
      r->orders++;
   }
   r->cutpoints += found->cutpoints;
   r->dropped_vc += found->dropped_vc;
   r->dropped_insn += found->dropped_insn;
   if (found->n && r->n > 1) qsort(r->c, r->n, sizeof *r->c, cbp_candidate_cmp);
   free(found->c);
   memset(found, 0, sizeof *found);
}

void cbp_orders(const cb_trace *t, const cbp_hb *hb, const cbp_escape *x,
                const cbp_vclock *v, cbp_locks *L, cbp_result *r) {
   cbp_result found;
   cbp_orders_pass(t, hb, x, v, NULL, L, &found);
   cbp_orders_merge(r, &found);
}
