/* hb.c: the happens-before edge groups of a trace (hb.h says which).
 *
 * Two passes.  The first finds where each condition wait began (its
 * thread's previous event), so that the second knows, at a signal, whether
 * anyone waits on that condition: a signal nobody waits for can wake no
 * one and is forgotten at once, and a condition's list of signals is
 * emptied whenever its last waiter woke.  A wait finds its signal by a
 * binary search and skips the used-up ones (sig.skip), so the matching
 * stays near linear even when the list is never emptied.
 * The second pass makes the groups in trace order; a group is made when
 * its first sink shows up (a post nobody took, a signal that woke no one
 * make none), except barrier rounds and release runs, made at their first
 * source.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "predict.h"

#define NONE UINT64_MAX

int cbp_hb_anchor(unsigned kind) {
   return kind < CB_EV_KIND_COUNT &&
          (CB_IS_COUNTED(kind) || kind == CB_EV_THREAD_START || kind == CB_EV_THREAD_EXIT);
}

enum { OBJ_BARRIER, OBJ_COND, OBJ_SEM, OBJ_RELEASE };

/* A signal that may still wake someone.  skip: the first entry at or
 * after this one that a wait may still take (itself until a wait used it
 * up), path-compressed: the matching stays linear however long a
 * condition always has a waiter (a pool of idle workers). */
typedef struct { uint64_t ev; size_t skip; uint32_t tid, group; uint8_t bcast; } sig;

/* A synchronisation object, by (what, address, sub): sub is a semaphore's
 * post number, a release object's class. */
typedef struct {
   uint8_t what;
   uint64_t addr, sub;
   uint32_t group;  /* barrier: open round + 1; release: current run + 1 */
   uint64_t n;      /* barrier: arrivals in the round; release: its sinks;
                       sem: the post's event + 1 (0: taken) */
   uint64_t count;  /* barrier: threads a round takes */
   uint32_t pending;/* cond: waits begun and not yet woken */
   sig *s; size_t ns, caps;
} obj;

/* A thread's run of reads of one word with one value, nothing between
 * (SPIN groups). */
#define SPIN_MIN 4     /* the recording keeps a spin's first four reads
                          (vgtool/cb_repeat.c) */
#define SPIN_BACK 4096 /* trace events looked back for the write */

typedef struct {
   uint64_t last;    /* last anchor event, NONE */
   uint64_t spin_addr, spin_value;
   uint32_t spin_n;  /* 0: no run */
   uint64_t create;  /* its create, while its first event is to come */
   uint32_t bar;     /* its last barrier enter's round + 1, until the leave */
   uint64_t bar_addr;
   uint8_t seen;
} thr;

typedef struct { uint64_t p, cond; } wstart;

typedef struct {
   cbp_hb *hb;
   const cb_trace *t;
   thr *th;
   obj *o; size_t no, capo;
   cbp_map map;
   size_t capg, capout, capin;
   uint64_t nonce;  /* once controls released so far */
} build;

static uint64_t okey(uint8_t what, uint64_t addr, uint64_t sub) {
   return cbp_mix(addr ^ cbp_mix(sub * 4 + what));
}
static int oeq(const void *c, uint32_t i, const void *k) {
   const obj *a = &((const build *)c)->o[i], *b = k;
   return a->what == b->what && a->addr == b->addr && a->sub == b->sub;
}
static uint64_t ohash(const void *c, uint32_t i) {
   const obj *a = &((const build *)c)->o[i];
   return okey(a->what, a->addr, a->sub);
}

/* The object, made if create; NULL if absent and not made. */
static obj *object(build *B, uint8_t what, uint64_t addr, uint64_t sub, int create) {
   obj k = {.what = what, .addr = addr, .sub = sub};
   uint32_t *s = cbp_map_probe(&B->map, okey(what, addr, sub), oeq, B, &k);
   if (*s) return &B->o[*s - 1];
   if (!create) return NULL;
   B->o = cbp_grow(B->o, &B->capo, B->no, sizeof *B->o);
   B->o[B->no] = k;
   *s = (uint32_t)++B->no;
   cbp_map_added(&B->map, ohash, B);
   return &B->o[B->no - 1];
}

static uint32_t new_group(build *B, cbp_hb_kind kind, uint32_t tid, uint32_t prev) {
   cbp_hb *hb = B->hb;
   hb->g = cbp_grow(hb->g, &B->capg, hb->ng, sizeof *hb->g);
   memset(&hb->g[hb->ng], 0, sizeof *hb->g);
   hb->g[hb->ng].kind = (uint8_t)kind;
   hb->g[hb->ng].tid = tid;
   hb->g[hb->ng].prev = prev;
   return (uint32_t)hb->ng++;
}
static void add_src(build *B, uint32_t g, uint64_t ev) {
   B->hb->out = cbp_grow(B->hb->out, &B->capout, B->hb->nout, sizeof *B->hb->out);
   B->hb->out[B->hb->nout++] = (cbp_hb_ref){ev, g};
}
static void add_dst(build *B, uint32_t g, uint64_t ev) {
   B->hb->in = cbp_grow(B->hb->in, &B->capin, B->hb->nin, sizeof *B->hb->in);
   B->hb->in[B->hb->nin++] = (cbp_hb_ref){ev, g};
}
static void pair(build *B, cbp_hb_kind kind, uint32_t tid, uint64_t src, uint64_t dst) {
   uint32_t g = new_group(B, kind, tid, 0);
   add_src(B, g, src);
   add_dst(B, g, dst);
}

static int valid_tid(const build *B, uint64_t tid) {
   return tid >= 1 && tid <= B->t->nthreads;
}

/* Pass 1: where each condition wait began, sorted by that event. */
static int by_p(const void *a, const void *b) {
   const wstart *x = a, *y = b;
   return x->p < y->p ? -1 : x->p > y->p;
}
static wstart *wait_starts(const cb_trace *t, size_t *n) {
   uint64_t *last = cbp_xcalloc((size_t)t->nthreads + 1, sizeof *last);
   for (uint32_t j = 0; j <= t->nthreads; j++) last[j] = NONE;
   wstart *w = NULL;
   size_t cap = 0;
   *n = 0;
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      if (e->tid > t->nthreads || !cbp_hb_anchor(e->kind)) continue;
      if (e->kind == CB_EV_COND_WAIT && last[e->tid] != NONE) {
         w = cbp_grow(w, &cap, *n, sizeof *w);
         w[(*n)++] = (wstart){last[e->tid], e->addr};
      }
      last[e->tid] = i;
   }
   free(last);
   if (*n > 1) qsort(w, *n, sizeof *w, by_p);
   return w;
}

/* The first of o's signals at or after k not used up (o->ns: none). */
static size_t sig_find(obj *o, size_t k) {
   size_t r = k;
   while (r < o->ns && o->s[r].skip != r) r = o->s[r].skip;
   while (k < o->ns && o->s[k].skip != k) { /* compress */
      size_t nx = o->s[k].skip;
      o->s[k].skip = r;
      k = nx;
   }
   return r;
}

/* The first signal after event `began` (signals are kept in trace order). */
static size_t sig_after(const obj *o, uint64_t began) {
   size_t lo = 0, hi = o->ns;
   while (lo < hi) {
      size_t m = (lo + hi) / 2;
      if (o->s[m].ev <= began) lo = m + 1; else hi = m;
   }
   return lo;
}

/* The earliest signal of another thread after the wait began that may
 * still wake someone; used up unless a broadcast. */
static void cond_wait(build *B, size_t i, const cb_event *e, uint64_t began) {
   obj *o = object(B, OBJ_COND, e->addr, 0, 1);
   if (began == NONE) return;
   if (o->pending) o->pending--;
   for (size_t k = sig_find(o, sig_after(o, began)); k < o->ns; k = sig_find(o, k + 1)) {
      sig *s = &o->s[k];
      if (s->tid == e->tid) continue;
      if (!s->bcast) s->skip = k + 1;
      if (!s->group) {
         s->group = new_group(B, CBP_HB_COND, 0, 0) + 1;
         add_src(B, s->group - 1, s->ev);
      }
      add_dst(B, s->group - 1, i);
      break;
   }
   if (!o->pending) o->ns = 0; /* no one waits: no signal so far can wake anyone */
}

static void barrier(build *B, thr *h, size_t i, const cb_event *e) {
   if (e->kind == CB_EV_BARRIER_LEAVE) {
      if (h->bar && h->bar_addr == e->addr) add_dst(B, h->bar - 1, i);
      h->bar = 0;
      return;
   }
   obj *o = object(B, OBJ_BARRIER, e->addr, 0, 1);
   if (!o->group || o->n >= o->count) { /* a new round */
      o->group = new_group(B, CBP_HB_BARRIER, 0, 0) + 1;
      o->n = 0;
      o->count = e->value ? e->value : 1;
   }
   add_src(B, o->group - 1, i);
   o->n++;
   h->bar = o->group;
   h->bar_addr = e->addr;
}

static void release(build *B, size_t i, const cb_event *e) {
   obj *o = object(B, OBJ_RELEASE, e->addr, e->size, e->kind == CB_EV_RELEASE);
   B->nonce += e->kind == CB_EV_RELEASE && e->size == CB_SYNC_ONCE;
   if (e->kind == CB_EV_ACQUIRE) {
      if (o && o->group) { add_dst(B, o->group - 1, i); o->n++; }
      return;
   }
   if (!o->group || o->n) { /* acquired since: a new run, after the old */
      o->group = new_group(B, CBP_HB_RELEASE, 0, o->group) + 1;
      o->n = 0;
   }
   add_src(B, o->group - 1, i);
}

static void sync_event(build *B, thr *h, size_t i, const cb_event *e) {
   switch (e->kind) {
   case CB_EV_THREAD_CREATE:
      if (valid_tid(B, e->value) && e->value != e->tid && !B->th[e->value].seen)
         B->th[e->value].create = i;
      break;
   case CB_EV_THREAD_JOIN:
      if (valid_tid(B, e->value) && e->value != e->tid && B->th[e->value].last != NONE)
         pair(B, CBP_HB_JOIN, (uint32_t)e->value, B->th[e->value].last, i);
      break;
   case CB_EV_BARRIER_ENTER: case CB_EV_BARRIER_LEAVE:
      barrier(B, h, i, e);
      break;
   case CB_EV_COND_SIGNAL: {
      obj *o = object(B, OBJ_COND, e->addr, 0, 1);
      if (!o->pending) break; /* wakes no one */
      o->s = cbp_grow(o->s, &o->caps, o->ns, sizeof *o->s);
      o->s[o->ns] = (sig){i, o->ns, e->tid, 0, (uint8_t)(e->size & 1)};
      o->ns++;
      break;
   }
   case CB_EV_COND_WAIT:
      cond_wait(B, i, e, h->last);
      break;
   case CB_EV_SEM_POST:
      if (e->value) object(B, OBJ_SEM, e->addr, e->value, 1)->n = i + 1;
      break;
   case CB_EV_SEM_WAIT: {
      obj *o = e->value ? object(B, OBJ_SEM, e->addr, e->value, 0) : NULL;
      if (o && o->n) { pair(B, CBP_HB_SEM, 0, o->n - 1, i); o->n = 0; }
      break;
   }
   case CB_EV_RELEASE: case CB_EV_ACQUIRE:
      release(B, i, e);
      break;
   case CB_EV_READ: {
      /* GLib's g_once and g_once_init_enter test the once control inline:
       * a caller that finds it set calls nothing, so its read is its
       * acquire of the once routine's release. */
      obj *o = B->nonce && e->value ? object(B, OBJ_RELEASE, e->addr, CB_SYNC_ONCE, 0) : NULL;
      if (o && o->group) { add_dst(B, o->group - 1, i); o->n++; }
      break;
   }
   default:
      break;
   }
}

/* ---- Spins (SPIN groups, hb.h) ---------------------------------------- */

/* The write that read i of addr read from: the latest write of addr before
 * it, when another thread's with the value read; NONE if not near. */
static uint64_t spin_writer(const cb_trace *t, size_t i, const cb_event *r) {
   size_t stop = i > SPIN_BACK ? i - SPIN_BACK : 0;
   for (size_t k = i; k-- > stop;) {
      const cb_event *w = &t->events[k];
      if (w->kind != CB_EV_WRITE || w->addr != r->addr) continue;
      return w->tid != r->tid && w->value == r->value ? k : NONE;
   }
   return NONE;
}

/* A read of e's thread: a word read SPIN_MIN times in a row with one
 * value and now with another ends a spin.  One word only: a loop that
 * polls several (a thief looking at a deque's top and bottom, a waiter at
 * a flag and a count) may see one of them change and go on polling, and
 * an edge there would order what it then races with (trial 11's
 * work-stealing deque, confirmed after 16 forced runs instead of 1). */
static void spin_read(build *B, thr *h, size_t i, const cb_event *e) {
   if (CB_SIZE_BYTES(e->size) > 8) { h->spin_n = 0; return; }
   if (h->spin_n && h->spin_addr == e->addr) {
      if (h->spin_value == e->value) { h->spin_n++; return; }
      if (h->spin_n >= SPIN_MIN) {
         uint64_t w = spin_writer(B->t, i, e);
         if (w != NONE) pair(B, CBP_HB_SPIN, 0, w, i);
      }
   }
   h->spin_addr = e->addr;
   h->spin_value = e->value;
   h->spin_n = 1;
}

static int by_group(const void *a, const void *b) {
   const cbp_hb_ref *x = a, *y = b;
   if (x->group != y->group) return x->group < y->group ? -1 : 1;
   return x->ev < y->ev ? -1 : x->ev > y->ev;
}
static int by_event(const void *a, const void *b) {
   const cbp_hb_ref *x = a, *y = b;
   if (x->ev != y->ev) return x->ev < y->ev ? -1 : 1;
   return x->group < y->group ? -1 : x->group > y->group;
}

/* Each group's sources and sinks as runs of hb->ev, then the refs by event. */
static void finish(cbp_hb *hb) {
   hb->ev = cbp_xcalloc(hb->nout + hb->nin, sizeof *hb->ev);
   size_t at = 0;
   if (hb->nout > 1) qsort(hb->out, hb->nout, sizeof *hb->out, by_group);
   for (size_t k = 0; k < hb->nout; k++) {
      cbp_hb_group *g = &hb->g[hb->out[k].group];
      if (!g->nsrc) g->src = at;
      g->nsrc++;
      hb->ev[at++] = hb->out[k].ev;
   }
   if (hb->nin > 1) qsort(hb->in, hb->nin, sizeof *hb->in, by_group);
   for (size_t k = 0; k < hb->nin; k++) {
      cbp_hb_group *g = &hb->g[hb->in[k].group];
      if (!g->ndst) g->dst = at;
      g->ndst++;
      hb->ev[at++] = hb->in[k].ev;
   }
   if (hb->nout > 1) qsort(hb->out, hb->nout, sizeof *hb->out, by_event);
   if (hb->nin > 1) qsort(hb->in, hb->nin, sizeof *hb->in, by_event);
}

void cbp_hb_build(cbp_hb *hb, const cb_trace *t) {
   memset(hb, 0, sizeof *hb);
   build B;
   memset(&B, 0, sizeof B);
   B.hb = hb; B.t = t;
   B.th = cbp_xcalloc((size_t)t->nthreads + 1, sizeof *B.th);
   for (uint32_t j = 0; j <= t->nthreads; j++) B.th[j].last = B.th[j].create = NONE;
   cbp_map_init(&B.map, 64);
   size_t nstarts, k = 0;
   wstart *starts = wait_starts(t, &nstarts);
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      if (e->tid > t->nthreads || !cbp_hb_anchor(e->kind)) continue;
      thr *h = &B.th[e->tid];
      if (!h->seen) {
         h->seen = 1;
         if (h->create != NONE) pair(&B, CBP_HB_CREATE, e->tid, h->create, i);
      }
      sync_event(&B, h, i, e);
      if (e->kind == CB_EV_READ) spin_read(&B, h, i, e);
      else h->spin_n = 0;
      for (; k < nstarts && starts[k].p <= i; k++) /* a wait begins after event p */
         object(&B, OBJ_COND, starts[k].cond, 0, 1)->pending++;
      h->last = i;
   }
   finish(hb);
   for (size_t j = 0; j < B.no; j++) free(B.o[j].s);
   free(B.o); free(B.th); free(starts);
   cbp_map_free(&B.map);
}

void cbp_hb_free(cbp_hb *hb) {
   free(hb->g); free(hb->ev); free(hb->out); free(hb->in);
   memset(hb, 0, sizeof *hb);
}

size_t cbp_hb_at(const cbp_hb_ref *r, size_t n, uint64_t ev, size_t *first) {
   size_t lo = 0, hi = n;
   while (lo < hi) {
      size_t m = (lo + hi) / 2;
      if (r[m].ev < ev) lo = m + 1; else hi = m;
   }
   *first = lo;
   size_t k = lo;
   while (k < n && r[k].ev == ev) k++;
   return k - lo;
}
