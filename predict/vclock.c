/* vclock.c: vector clocks from the happens-before edges of hb.c (create,
 * join, barrier rounds, the signal that woke a wait, the post a semaphore
 * wait took, releases to later acquires), the one definition the Z3
 * encoding takes too.  They drop cut-points whose events are ordered
 * (PENELOPE 4.2.1) and keep the synthesized prefix a consistent cut.  A
 * clock only changes at incoming edges, so each thread keeps a short list
 * of segments instead of a clock per event.
 *
 * Memory is linear in the edges, not quadratic in the threads (a program
 * of 10,000 threads would need 10,000 x 10,000 dense components):
 *   - a thread stores only the components its own edges raised, each as a
 *     history of (segment seq, value) in a (thread, component) slot;
 *   - everything else it knows came from its creator at the create: it
 *     reads its creator's clock as of the create (a base segment), so a
 *     new thread costs nothing however much its creator knows;
 *   - edge groups keep sparse clocks, freed once read.
 * Reading component j walks the base chain (creation depth) with a binary
 * search per level.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "predict.h"

#define NONE32 UINT32_MAX

typedef struct { uint32_t seq; uint64_t val; } hist;
typedef struct {
   uint32_t tid, j;      /* thread tid's component j */
   uint32_t n, cap;
   hist *h;              /* by seq, increasing */
} slot;
typedef struct {         /* an edge group's clock */
   cbp_vc_ent *e;
   uint32_t n, cap;
   uint32_t refs;        /* sinks and a chained group still to read it */
   uint8_t live;         /* a source has set it */
} gclock;
typedef struct {
   uint32_t base_seg;    /* creator's segment at the create, NONE32 none */
   uint32_t base_tid;    /* the creator */
   uint32_t base_seq;    /* first own segment that reads the base */
   uint64_t base_own;    /* creator's own count at the create */
   uint64_t own;         /* own component: events so far */
   uint32_t nseq;        /* segments so far */
   uint32_t *comps;      /* its slots */
   uint32_t ncomps, capcomps;
   uint32_t create_seg;  /* as a child: where its creator was at the create */
   uint64_t create_own;
   uint32_t create_tid;
} thr;

struct cbp_vc_priv {
   thr *th;                       /* [0..nthreads] */
   size_t w;                      /* nthreads + 1 */
   slot *slots; size_t nslots, capslots;
   cbp_map slotmap;               /* (tid, j) -> slot */
   const cbp_hb *hb;
   gclock *gc;                    /* per edge group */
   size_t cin, cout;              /* next refs of hb->in, hb->out */
   uint64_t next_ref;             /* no ref before this trace index */
   /* Scratch for merging: dense by thread, valid where stamp == gen. */
   uint64_t *acc; uint32_t *stamp, gen;
   cbp_vc_ent *out; size_t capout;
   cbp_vc_ent *pend; size_t cappend;
   size_t hist_bytes;
};

static uint64_t slot_key(uint32_t tid, uint32_t j) { return (uint64_t)tid << 32 | j; }
static int eq_slot(const void *c, uint32_t i, const void *k) {
   const slot *s = &((const cbp_vc_priv *)c)->slots[i];
   return slot_key(s->tid, s->j) == *(const uint64_t *)k;
}
static uint64_t hash_slot(const void *c, uint32_t i) {
   const slot *s = &((const cbp_vc_priv *)c)->slots[i];
   return cbp_mix(slot_key(s->tid, s->j));
}

static slot *find_slot(cbp_vc_priv *p, uint32_t tid, uint32_t j, int create) {
   uint64_t k = slot_key(tid, j);
   uint32_t *s = cbp_map_probe(&p->slotmap, cbp_mix(k), eq_slot, p, &k);
   if (*s) return &p->slots[*s - 1];
   if (!create) return NULL;
   p->slots = cbp_grow(p->slots, &p->capslots, p->nslots, sizeof *p->slots);
   uint32_t id = (uint32_t)p->nslots++;
   memset(&p->slots[id], 0, sizeof p->slots[id]);
   p->slots[id].tid = tid; p->slots[id].j = j;
   *s = id + 1;
   cbp_map_added(&p->slotmap, hash_slot, p);
   thr *t = &p->th[tid];
   if (t->ncomps == t->capcomps) {
      t->capcomps = t->capcomps ? 2 * t->capcomps : 4;
      t->comps = cbp_xrealloc(t->comps, t->capcomps * sizeof *t->comps);
   }
   t->comps[t->ncomps++] = id;
   return &p->slots[id];
}

/* The slot's value as of segment seq: its last entry at or before it. */
static uint64_t slot_at(const slot *s, uint32_t seq) {
   if (!s->n || s->h[0].seq > seq) return 0;
   uint32_t lo = 0, hi = s->n;
   while (hi - lo > 1) {
      uint32_t m = (lo + hi) / 2;
      if (s->h[m].seq <= seq) lo = m; else hi = m;
   }
   return s->h[lo].val;
}

static void new_segment(cbp_vclock *v, uint32_t tid, uint64_t start,
                        uint64_t empty_before) {
   thr *t = &v->p->th[tid];
   v->segs = cbp_grow(v->segs, &v->capsegs, v->nsegs, sizeof *v->segs);
   uint32_t id = (uint32_t)v->nsegs++;
   cbp_segment *s = &v->segs[id];
   s->tid = tid; s->seq = t->nseq++; s->start = start; s->empty_before = empty_before;
   v->cur_seg[tid] = id;
   uint32_t n = v->nthread_segs[tid];
   if (n == v->capthread_segs[tid]) {
      v->capthread_segs[tid] = n ? n * 2 : 4;
      v->thread_segs[tid] = cbp_xrealloc(v->thread_segs[tid],
                                    v->capthread_segs[tid] * sizeof(uint32_t));
   }
   v->thread_segs[tid][v->nthread_segs[tid]++] = id;
}

void cbp_vc_init(cbp_vclock *v, uint32_t nthreads, const cbp_hb *hb) {
   memset(v, 0, sizeof *v);
   size_t w = (size_t)nthreads + 1;
   v->nthreads = nthreads;
   v->p = cbp_xcalloc(1, sizeof *v->p);
   cbp_vc_priv *p = v->p;
   p->w = w;
   p->th = cbp_xcalloc(w, sizeof *p->th);
   for (size_t t = 0; t < w; t++) p->th[t].base_seg = p->th[t].create_seg = NONE32;
   p->acc = cbp_xcalloc(w, sizeof *p->acc);
   p->stamp = cbp_xcalloc(w, sizeof *p->stamp);
   cbp_map_init(&p->slotmap, 64);
   p->hb = hb;
   p->gc = cbp_xcalloc(hb->ng, sizeof *p->gc);
   for (size_t g = 0; g < hb->ng; g++) {
      p->gc[g].refs += (uint32_t)hb->g[g].ndst;
      if (hb->g[g].prev) p->gc[hb->g[g].prev - 1].refs++;
   }
   v->cur_seg = cbp_xcalloc(w, sizeof *v->cur_seg);
   v->thread_segs = cbp_xcalloc(w, sizeof *v->thread_segs);
   v->nthread_segs = cbp_xcalloc(w, sizeof *v->nthread_segs);
   v->capthread_segs = cbp_xcalloc(w, sizeof *v->capthread_segs);
   for (uint32_t t = 0; t <= nthreads; t++) new_segment(v, t, 0, 0);
}

void cbp_vc_free(cbp_vclock *v) {
   cbp_vc_priv *p = v->p;
   if (p) {
      for (size_t t = 0; t <= v->nthreads; t++) free(p->th[t].comps);
      for (size_t i = 0; i < p->nslots; i++) free(p->slots[i].h);
      for (size_t g = 0; g < p->hb->ng; g++) free(p->gc[g].e);
      free(p->th); free(p->slots); free(p->gc);
      cbp_map_free(&p->slotmap);
      free(p->acc); free(p->stamp); free(p->out); free(p->pend);
      free(p);
   }
   for (uint32_t t = 0; t <= v->nthreads && v->thread_segs; t++) free(v->thread_segs[t]);
   free(v->cur_seg); free(v->segs);
   free(v->thread_segs); free(v->nthread_segs); free(v->capthread_segs);
   memset(v, 0, sizeof *v);
}

uint64_t cbp_vc_get(const cbp_vclock *v, uint32_t seg, uint32_t j) {
   const cbp_segment *s = &v->segs[seg];
   if (j == s->tid) return s->start;
   cbp_vc_priv *p = v->p;
   uint64_t r = 0;
   uint32_t tid = s->tid, seq = s->seq;
   for (;;) {
      const slot *sl = find_slot(p, tid, j, 0);
      if (sl) { uint64_t x = slot_at(sl, seq); if (x > r) r = x; }
      const thr *t = &p->th[tid];
      if (t->base_seg == NONE32 || seq < t->base_seq) return r;
      if (t->base_tid == j) return t->base_own > r ? t->base_own : r;
      seq = v->segs[t->base_seg].seq;
      tid = t->base_tid;
   }
}

/* Scratch merge: starts a new set, adds (j, c) keeping the larger. */
static void acc_begin(cbp_vc_priv *p) {
   if (++p->gen == 0) { /* wrapped: forget every old stamp */
      memset(p->stamp, 0, p->w * sizeof *p->stamp);
      p->gen = 1;
   }
}
static size_t acc_add(cbp_vc_priv *p, size_t n, uint32_t j, uint64_t c) {
   if (!c) return n;
   if (p->stamp[j] == p->gen) {
      if (c > p->acc[j]) p->acc[j] = c;
      return n;
   }
   p->stamp[j] = p->gen;
   p->acc[j] = c;
   p->out = cbp_grow(p->out, &p->capout, n, sizeof *p->out);
   p->out[n].tid = j;
   return n + 1;
}
static size_t acc_end(cbp_vc_priv *p, size_t n) {
   for (size_t i = 0; i < n; i++) p->out[i].count = p->acc[p->out[i].tid];
   return n;
}

/* Whether thread recv's clock now holds thread u's first c events, and so
 * (clocks only grow along edges) everything u knew then. */
static int knows(const cbp_vclock *v, uint32_t recv, uint32_t u, uint64_t c) {
   if (recv == NONE32) return 0;
   if (recv == u) return v->p->th[recv].own >= c;
   return cbp_vc_get(v, v->cur_seg[recv], u) >= c;
}

/* Adds segment seg's components (not its own thread's) to the scratch.
 * recv (NONE32: none) is a thread the result is for: a base it already
 * knows is not walked (a thread joining its child knows the child's base,
 * itself at the create, so a join costs the child's own edges only). */
static size_t acc_segment(const cbp_vclock *v, size_t n, uint32_t seg, uint32_t recv) {
   cbp_vc_priv *p = v->p;
   uint32_t self = v->segs[seg].tid, tid = self, seq = v->segs[seg].seq;
   for (;;) {
      const thr *t = &p->th[tid];
      for (uint32_t k = 0; k < t->ncomps; k++) {
         const slot *sl = &p->slots[t->comps[k]];
         if (sl->j != self) n = acc_add(p, n, sl->j, slot_at(sl, seq));
      }
      if (t->base_seg == NONE32 || seq < t->base_seq) return n;
      if (knows(v, recv, t->base_tid, t->base_own)) return n;
      if (t->base_tid != self) n = acc_add(p, n, t->base_tid, t->base_own);
      seq = v->segs[t->base_seg].seq;
      tid = t->base_tid;
   }
}

size_t cbp_vc_entries(const cbp_vclock *v, uint32_t seg, const cbp_vc_ent **out) {
   cbp_vc_priv *p = v->p;
   acc_begin(p);
   size_t n = acc_end(p, acc_segment(v, 0, seg, NONE32));
   *out = p->out;
   return n;
}

/* Thread tid's clock now, its own component included, in p->out; recv as
 * for acc_segment. */
static size_t current(cbp_vclock *v, uint32_t tid, uint32_t recv) {
   cbp_vc_priv *p = v->p;
   acc_begin(p);
   size_t n = acc_segment(v, 0, v->cur_seg[tid], recv);
   n = acc_add(p, n, tid, p->th[tid].own);
   return acc_end(p, n);
}

/* Merges src (n entries, not p->out) into thread tid's clock; a new segment
 * if anything rose. */
static void receive(cbp_vclock *v, uint32_t tid, const cbp_vc_ent *src,
                    size_t n, uint64_t cidx, uint64_t empty_before) {
   cbp_vc_priv *p = v->p;
   size_t np = 0;
   for (size_t i = 0; i < n; i++) {
      if (src[i].tid == tid || src[i].tid > v->nthreads) continue;
      if (src[i].count <= cbp_vc_get(v, v->cur_seg[tid], src[i].tid)) continue;
      p->pend = cbp_grow(p->pend, &p->cappend, np, sizeof *p->pend);
      p->pend[np++] = src[i];
   }
   if (!np) return;
   new_segment(v, tid, cidx, empty_before);
   uint32_t seq = v->segs[v->cur_seg[tid]].seq;
   for (size_t i = 0; i < np; i++) {
      slot *sl = find_slot(p, tid, p->pend[i].tid, 1);
      if (sl->n == sl->cap) {
         sl->cap = sl->cap ? 2 * sl->cap : 1;
         sl->h = cbp_xrealloc(sl->h, sl->cap * sizeof *sl->h);
         p->hist_bytes += (sl->cap - sl->n) * sizeof *sl->h;
      }
      sl->h[sl->n].seq = seq;
      sl->h[sl->n++].val = p->pend[i].count;
   }
}

/* An edge group's clock (hb.h): the sources' clocks joined, read by its
 * sinks; freed once every sink and the group chained after it read it. */
static void gc_set(gclock *c, const cbp_vc_ent *e, size_t n) {
   if (n > c->cap) {
      c->cap = (uint32_t)n;
      c->e = cbp_xrealloc(c->e, n * sizeof *c->e);
   }
   if (n) memcpy(c->e, e, n * sizeof *e);
   c->n = (uint32_t)n;
}

static void gc_unref(cbp_vc_priv *p, uint32_t g) {
   gclock *c = &p->gc[g];
   if (c->refs && --c->refs == 0) {
      free(c->e);
      c->e = NULL;
      c->n = c->cap = 0;
   }
}

/* Event `tid` is a source of group g. */
static void source(cbp_vclock *v, uint32_t tid, uint32_t g) {
   cbp_vc_priv *p = v->p;
   const cbp_hb_group *G = &p->hb->g[g];
   if (G->kind == CBP_HB_CREATE) {
      /* The child reads its creator's clock as of now through its base. */
      if (G->tid <= v->nthreads && G->tid != tid) {
         thr *c = &p->th[G->tid];
         c->create_seg = v->cur_seg[tid];
         c->create_own = p->th[tid].own;
         c->create_tid = tid;
      }
      return;
   }
   /* JOIN: read at the join (the child makes no event in between). */
   if (G->kind == CBP_HB_JOIN) return;
   gclock *c = &p->gc[g];
   if (!c->live) {
      c->live = 1;
      if (G->prev) { /* a release run starts from the runs before it */
         const gclock *pc = &p->gc[G->prev - 1];
         gc_set(c, pc->e, pc->n);
         gc_unref(p, G->prev - 1);
      }
   }
   /* c := max(c, the thread's clock now). */
   size_t n = current(v, tid, NONE32);
   for (uint32_t k = 0; k < c->n; k++) n = acc_add(p, n, c->e[k].tid, c->e[k].count);
   gc_set(c, p->out, acc_end(p, n));
}

/* Event of `tid` with counted index cidx is a sink of group g. */
static void sink(cbp_vclock *v, uint32_t tid, uint32_t g, uint64_t cidx,
                 uint64_t empty_before) {
   cbp_vc_priv *p = v->p;
   const cbp_hb_group *G = &p->hb->g[g];
   thr *me = &p->th[tid];
   switch (G->kind) {
   case CBP_HB_CREATE:
      if (me->create_seg != NONE32 && me->base_seg == NONE32) {
         new_segment(v, tid, cidx, empty_before);
         me->base_seg = me->create_seg;
         me->base_tid = me->create_tid;
         me->base_own = me->create_own;
         me->base_seq = v->segs[v->cur_seg[tid]].seq;
      }
      break;
   case CBP_HB_JOIN:
      if (G->tid <= v->nthreads && G->tid != tid) {
         size_t n = current(v, G->tid, tid);
         receive(v, tid, p->out, n, cidx, empty_before);
      }
      break;
   default:
      if (p->gc[g].live) receive(v, tid, p->gc[g].e, p->gc[g].n, cidx, empty_before);
      gc_unref(p, g);
      break;
   }
}

int cbp_vc_event(cbp_vclock *v, const cb_event *e, uint64_t i, uint64_t cidx,
                 uint64_t empty_before) {
   uint32_t tid = e->tid;
   if (tid > v->nthreads) return 0;
   cbp_vc_priv *p = v->p;
   /* Most events are no end of an edge.  A thread's own component is read
    * only while an event of its own is a sink or source (knows, current,
    * a create's base), so it is set only then. */
   if (i < p->next_ref) return 0;
   const cbp_hb *hb = p->hb;
   /* Own component: events up to and including this one. */
   p->th[tid].own = CB_IS_COUNTED(e->kind) ? cidx + 1 : cidx;
   /* Events come in trace order: the refs are walked once. */
   while (p->cin < hb->nin && hb->in[p->cin].ev < i) p->cin++;
   for (; p->cin < hb->nin && hb->in[p->cin].ev == i; p->cin++)
      sink(v, tid, hb->in[p->cin].group, cidx, empty_before);
   while (p->cout < hb->nout && hb->out[p->cout].ev < i) p->cout++;
   int src = 0;
   for (; p->cout < hb->nout && hb->out[p->cout].ev == i; p->cout++, src = 1)
      source(v, tid, hb->out[p->cout].group);
   uint64_t ni = p->cin < hb->nin ? hb->in[p->cin].ev : UINT64_MAX;
   uint64_t no = p->cout < hb->nout ? hb->out[p->cout].ev : UINT64_MAX;
   p->next_ref = ni < no ? ni : no;
   return src;
}

uint32_t cbp_vc_seg_at(const cbp_vclock *v, uint32_t tid, uint64_t count) {
   const uint32_t *s = v->thread_segs[tid];
   uint32_t lo = 0, hi = v->nthread_segs[tid]; /* last with start <= count */
   while (hi - lo > 1) {
      uint32_t m = (lo + hi) / 2;
      if (v->segs[s[m]].start <= count) lo = m; else hi = m;
   }
   return s[lo];
}

size_t cbp_vc_bytes(const cbp_vclock *v) {
   const cbp_vc_priv *p = v->p;
   size_t b = v->capsegs * sizeof *v->segs + p->capslots * sizeof *p->slots +
              p->hist_bytes + p->hb->ng * sizeof *p->gc;
   for (size_t g = 0; g < p->hb->ng; g++) b += p->gc[g].cap * sizeof(cbp_vc_ent);
   return b + ((size_t)v->nthreads + 1) * (sizeof(thr) + 3 * sizeof(uint32_t) + 12);
}

/* Slot by slot in creation order: the same trace gives the same order. */
static int same_slots(const cbp_vc_priv *a, const cbp_vc_priv *b) {
   if (a->nslots != b->nslots) return 0;
   for (size_t i = 0; i < a->nslots; i++) {
      const slot *x = &a->slots[i], *y = &b->slots[i];
      if (x->tid != y->tid || x->j != y->j || x->n != y->n) return 0;
      for (uint32_t k = 0; k < x->n; k++)
         if (x->h[k].seq != y->h[k].seq || x->h[k].val != y->h[k].val) return 0;
   }
   return 1;
}

int cbp_vc_same(const cbp_vclock *a, const cbp_vclock *b) {
   if (a->nthreads != b->nthreads || a->nsegs != b->nsegs) return 0;
   for (size_t i = 0; i < a->nsegs; i++) {
      const cbp_segment *x = &a->segs[i], *y = &b->segs[i];
      if (x->tid != y->tid || x->seq != y->seq || x->start != y->start ||
          x->empty_before != y->empty_before)
         return 0;
   }
   for (uint32_t t = 0; t <= a->nthreads; t++) {
      const thr *x = &a->p->th[t], *y = &b->p->th[t];
      if (x->base_seg != y->base_seg || x->base_tid != y->base_tid ||
          x->base_seq != y->base_seq || x->base_own != y->base_own)
         return 0;
   }
   return same_slots(a->p, b->p);
}
