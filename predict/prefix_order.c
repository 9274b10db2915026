/* prefix_order.c: the recorded order a schedule's prefix keeps.
 *
 * Replay used to run a prefix's threads freely up to their counts; what
 * each read from the others, and which took a lock first, was then the
 * machine's choice, and a forced run that failed once could pass the next
 * time (a compactor that finds the queue empty early takes another path,
 * and the plan's counts no longer fit it).  So a schedule carries waits
 * from the recorded run (trace.proto, Schedule.prefix_order): thread w
 * runs its counted event i only once thread u has run c counted events,
 * where w's event came after u's event c - 1 in the trace and
 *   - w's is a read of a shared variable, u's the last write of it by
 *     another thread;
 *   - w's is a write, u's the last write of it by another thread, or
 *     u's last read of it since that write (every such reader's: readers
 *     are not ordered among themselves, and a spinning reader that runs
 *     behind would read the write too early);
 *   - w's is a lock, u's the last unlock of that lock by another thread.
 * One pass over the trace finds them; a wait whose count for u is no
 * higher than an earlier wait of w's for u adds nothing and is not kept,
 * nor one the program's own synchronisation makes (the clocks of
 * vclock.c: a thread's first events after its create, a join).  Except
 * a read that is an edge's sink (hb.h: a spin's last read, a look at a
 * once control that found it set): the clocks order it after the write
 * it saw, but only because it saw it; a forced run's spinner may
 * see an earlier write first (a count of 1 before the 2 it waits for),
 * counts one more read and ends its prefix short (CI saw that: a main
 * whose prefix stopped before it set the flag its workers spun on).
 * A wait on the second event of one machine instruction is moved to the
 * first: replay gates instructions, not their parts.
 *
 * For one schedule, the waits of events inside the prefix are taken,
 * nearest the cut first, at most CBP_PORDER_MAX of them (48: a schedule
 * file stays under 1 KB); a count past u's
 * prefix is cut to the prefix (u's prefix events all came before w's in
 * the trace, so that still follows the recorded order).  Every wait is an
 * edge of the trace's own total order, so no set of them waits in a
 * circle, and the recorded run restricted to the prefix satisfies them.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "predict.h"

/* Beyond this many threads the pair table (n * n counts) is not made and
 * schedules carry no order. */
#define PORDER_MAX_THREADS 1024u

typedef struct {
   uint64_t at;     /* trace index of the waiting event */
   uint64_t i;      /* its counted index (its instruction's first) */
   uint64_t c;      /* the count u must have run */
   uint64_t prev_c; /* c of w's previous wait for u, 0: none */
   uint32_t u;
} po_wait;

struct cbp_porder {
   uint32_t n;
   po_wait **w;     /* per thread 1..n, in trace order */
   size_t *nw, *cap;
};

/* An access's last one: thread and counted index + 1 (0: none). */
typedef struct { uint32_t tid; uint64_t c; } po_last;

typedef struct { uint64_t addr; po_last last; } po_lock;

/* A variable's readers since its last write: one entry a thread, linked
 * from the variable (0 ends a list; entry 0 is never used).  A write
 * empties its variable's list; the entries it leaves are not reused. */
typedef struct { po_last r; uint32_t next; } po_reader;

typedef struct {
   const cb_trace *t;
   const cbp_escape *x;
   const cbp_vclock *v;
   const cbp_hb *hb;
   cbp_porder *po;
   uint64_t *cnt;        /* per thread: counted events so far */
   uint64_t *insn;       /* per thread: counted index its instruction began */
   uint64_t *pair;       /* [w * (n + 1) + u]: highest count kept */
   po_last *lw;          /* per variable: last write */
   uint32_t *rd;         /* per variable: its readers' list */
   po_reader *rp;        /* the lists' entries */
   size_t nrp, caprp;
   cbp_map locks;        /* lock address -> index into lk */
   po_lock *lk;          /* per lock: its address and last unlock */
   size_t nlk, caplk;
} po_pass;

/* always: the wait is kept even where the clocks order the two. */
static void add_wait(po_pass *p, uint32_t w, uint64_t at, po_last from, int always) {
   if (!from.c || from.tid == w || from.tid > p->po->n) return;
   uint64_t *hi = &p->pair[(size_t)w * (p->po->n + 1) + from.tid];
   if (from.c <= *hi) return;
   cbp_porder *po = p->po;
   /* The program orders them itself (a create, a join, a signal ...). */
   uint32_t seg = cbp_vc_seg_at(p->v, w, p->insn[w]);
   if (!always && cbp_vc_get(p->v, seg, from.tid) >= from.c) { *hi = from.c; return; }
   po->w[w] = cbp_grow(po->w[w], &po->cap[w], po->nw[w], sizeof *po->w[w]);
   po->w[w][po->nw[w]++] = (po_wait){at, p->insn[w], from.c, *hi, from.tid};
   *hi = from.c;
}

static int lk_eq(const void *ctx, uint32_t idx, const void *key) {
   return ((const po_pass *)ctx)->lk[idx].addr == *(const uint64_t *)key;
}
static uint64_t lk_hash(const void *ctx, uint32_t idx) {
   return cbp_mix(((const po_pass *)ctx)->lk[idx].addr);
}

/* The last unlock of the lock at addr (made empty when new). */
static po_last *lock_last(po_pass *p, uint64_t addr) {
   uint32_t *s = cbp_map_probe(&p->locks, cbp_mix(addr), lk_eq, p, &addr);
   if (*s) return &p->lk[*s - 1].last;
   p->lk = cbp_grow(p->lk, &p->caplk, p->nlk, sizeof *p->lk);
   p->lk[p->nlk] = (po_lock){addr, {0, 0}};
   *s = (uint32_t)++p->nlk;
   cbp_map_added(&p->locks, lk_hash, p);
   return &p->lk[p->nlk - 1].last;
}

/* Thread me.tid read variable v: its entry in v's readers moves on. */
static void note_read(po_pass *p, uint32_t v, po_last me) {
   for (uint32_t k = p->rd[v]; k; k = p->rp[k].next)
      if (p->rp[k].r.tid == me.tid) { p->rp[k].r = me; return; }
   if (p->nrp >= UINT32_MAX) return; /* a wait fewer, not a wrong one */
   if (p->nrp == 0) p->nrp = 1;
   p->rp = cbp_grow(p->rp, &p->caprp, p->nrp, sizeof *p->rp);
   p->rp[p->nrp] = (po_reader){me, p->rd[v]};
   p->rd[v] = (uint32_t)p->nrp++;
}

/* Whether the read at is the sink of an edge: a spin's last read (SPIN),
 * a look at a once control that found it set (RELEASE).  Such an edge
 * orders a read only because of the value it saw. */
static int read_is_sink(const po_pass *p, uint64_t at) {
   size_t first;
   return cbp_hb_at(p->hb->in, p->hb->nin, at, &first) > 0;
}

/* Event at of thread w, its counted index k. */
static void one_event(po_pass *p, size_t at, uint32_t w, uint64_t k) {
   const cb_event *e = &p->t->events[at];
   po_last me = {w, k + 1};
   uint32_t v = p->x->var_of[at];
   if ((e->kind == CB_EV_READ || e->kind == CB_EV_WRITE) && v &&
       p->x->var_shared[v]) {
      add_wait(p, w, at, p->lw[v], e->kind == CB_EV_READ && read_is_sink(p, at));
      if (e->kind == CB_EV_WRITE) {
         for (uint32_t r = p->rd[v]; r; r = p->rp[r].next) add_wait(p, w, at, p->rp[r].r, 0);
         p->rd[v] = 0;
         p->lw[v] = me;
      } else {
         note_read(p, v, me);
      }
   } else if (e->kind == CB_EV_LOCK) {
      add_wait(p, w, at, *lock_last(p, e->addr), 0);
   } else if (e->kind == CB_EV_UNLOCK) {
      *lock_last(p, e->addr) = me;
   }
}

cbp_porder *cbp_porder_new(const cb_trace *t, const cbp_hb *hb, const cbp_escape *x,
                           const cbp_vclock *v) {
   cbp_porder *po = cbp_xcalloc(1, sizeof *po);
   uint32_t n = x->nthreads;
   po->n = n;
   po->w = cbp_xcalloc((size_t)n + 1, sizeof *po->w);
   po->nw = cbp_xcalloc((size_t)n + 1, sizeof *po->nw);
   po->cap = cbp_xcalloc((size_t)n + 1, sizeof *po->cap);
   if (n > PORDER_MAX_THREADS) return po;
   po_pass p = {t, x, v, hb, po, cbp_xcalloc((size_t)n + 1, sizeof(uint64_t)),
                cbp_xcalloc((size_t)n + 1, sizeof(uint64_t)),
                cbp_xcalloc(((size_t)n + 1) * (n + 1), sizeof(uint64_t)),
                cbp_xcalloc((size_t)x->nvars + 1, sizeof(po_last)),
                cbp_xcalloc((size_t)x->nvars + 1, sizeof(uint32_t)),
                NULL, 0, 0, {0}, NULL, 0, 0};
   cbp_map_init(&p.locks, 64);
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      uint32_t w = e->tid;
      if (w == 0 || w > n || e->kind >= CB_EV_KIND_COUNT || !CB_IS_COUNTED(e->kind))
         continue;
      uint64_t k = p.cnt[w]++;
      if (!cbp_glued(e)) p.insn[w] = k;
      one_event(&p, i, w, k);
   }
   cbp_map_free(&p.locks);
   free(p.cnt); free(p.insn); free(p.pair); free(p.lw); free(p.rd); free(p.rp);
   free(p.lk);
   return po;
}

void cbp_porder_free(cbp_porder *po) {
   if (!po) return;
   for (uint32_t w = 0; w <= po->n; w++) free(po->w[w]);
   free(po->w); free(po->nw); free(po->cap);
   free(po);
}

/* How many of w's waits lie inside its prefix of `count` events. */
static size_t waits_inside(const cbp_porder *po, uint32_t w, uint64_t count) {
   size_t lo = 0, hi = po->nw[w];
   while (lo < hi) {
      size_t m = lo + (hi - lo) / 2;
      if (po->w[w][m].i < count) lo = m + 1; else hi = m;
   }
   return lo;
}

static int by_thread_then_index(const void *a, const void *b) {
   const uint64_t *x = a, *y = b;
   for (int k = 0; k < 3; k++)
      if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
   return 0;
}

/* The threads with waits left, as a max-heap on the trace index of each
 * one's latest wait not yet taken. */
typedef struct { const cbp_porder *po; const size_t *left; uint32_t *h; uint32_t n; } po_heap;

static uint64_t heap_key(const po_heap *q, uint32_t w) {
   return q->po->w[w][q->left[w] - 1].at;
}

static void heap_down(po_heap *q, uint32_t i) {
   for (;;) {
      uint32_t l = 2 * i + 1, r = l + 1, m = i;
      if (l < q->n && heap_key(q, q->h[l]) > heap_key(q, q->h[m])) m = l;
      if (r < q->n && heap_key(q, q->h[r]) > heap_key(q, q->h[m])) m = r;
      if (m == i) return;
      uint32_t x = q->h[i]; q->h[i] = q->h[m]; q->h[m] = x;
      i = m;
   }
}

size_t cbp_porder_for(const cbp_porder *po, const uint64_t *prefix,
                      uint64_t **out) {
   *out = NULL;
   if (!po) return 0;
   size_t *left = cbp_xcalloc((size_t)po->n + 1, sizeof *left);
   po_heap q = {po, left, cbp_xcalloc((size_t)po->n + 1, sizeof(uint32_t)), 0};
   for (uint32_t w = 1; w <= po->n; w++)
      if ((left[w] = waits_inside(po, w, prefix[w - 1]))) q.h[q.n++] = w;
   for (uint32_t i = q.n / 2; i-- > 0;) heap_down(&q, i);
   uint64_t *o = cbp_xcalloc(4 * CBP_PORDER_MAX, sizeof *o);
   size_t n = 0;
   /* Waits past u's prefix that add nothing are passed over; looking at
    * no more than this many keeps a schedule's cost bounded (fewer waits
    * are a weaker order, never a wrong one). */
   size_t budget = 64 * (size_t)CBP_PORDER_MAX;
   while (n < CBP_PORDER_MAX && q.n && budget--) {
      uint32_t w = q.h[0];
      const po_wait *x = &po->w[w][--left[w]];
      if (!left[w]) q.h[0] = q.h[--q.n];
      heap_down(&q, 0);
      uint64_t pre = prefix[x->u - 1];
      /* Past u's prefix: only the first such wait of w's for u is kept. */
      if (pre == 0 || (x->c >= pre && x->prev_c >= pre)) continue;
      uint64_t *r = &o[4 * n++];
      r[0] = w; r[1] = x->i; r[2] = x->u; r[3] = x->c < pre ? x->c : pre;
   }
   free(left); free(q.h);
   if (!n) { free(o); return 0; }
   qsort(o, n, 4 * sizeof *o, by_thread_then_index);
   *out = o;
   return 4 * n;
}
