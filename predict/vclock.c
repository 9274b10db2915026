/* vclock.c: vector clocks from thread create and join, barriers,
 * condition signals that a wait observably consumed, semaphore posts to the
 * wait that took their token, and once-routines to every return of the
 * once call (RELEASE to later ACQUIREs of the object).  They drop cut-points
 * whose events are ordered (PENELOPE 4.2.1) and keep the synthesized prefix
 * a consistent cut.  A clock only changes at incoming edges, so each thread
 * keeps a short list of segments instead of a clock per event.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "predict.h"

static int eq_sync(const void *c, uint32_t i, const void *k) {
   return ((const cbp_vclock *)c)->sync_addr[i] == *(const uint64_t *)k;
}
static uint64_t hash_sync(const void *c, uint32_t i) {
   return cbp_mix(((const cbp_vclock *)c)->sync_addr[i]);
}

static void new_segment(cbp_vclock *v, uint32_t tid, uint64_t start,
                        uint64_t empty_before) {
   v->segs = cbp_grow(v->segs, &v->capsegs, v->nsegs, sizeof *v->segs);
   v->pool = cbp_grow(v->pool, &v->cappool, v->npool + v->width, sizeof *v->pool);
   uint32_t id = (uint32_t)v->nsegs++;
   cbp_segment *s = &v->segs[id];
   s->tid = tid; s->start = start; s->empty_before = empty_before;
   s->vc = v->npool;
   memcpy(v->pool + v->npool, v->cur + (size_t)tid * v->width,
          v->width * sizeof *v->pool);
   v->npool += v->width;
   v->cur_seg[tid] = id;
   uint32_t n = v->nthread_segs[tid];
   if (n == v->capthread_segs[tid]) {
      v->capthread_segs[tid] = n ? n * 2 : 4;
      v->thread_segs[tid] = cbp_xrealloc(v->thread_segs[tid],
                                    v->capthread_segs[tid] * sizeof(uint32_t));
      if (!v->thread_segs[tid]) abort();
   }
   v->thread_segs[tid][v->nthread_segs[tid]++] = id;
}

void cbp_vc_init(cbp_vclock *v, uint32_t nthreads) {
   memset(v, 0, sizeof *v);
   v->nthreads = nthreads;
   v->width = nthreads + 1;
   v->cur = cbp_xcalloc((size_t)v->width * v->width, sizeof *v->cur);
   v->cur_seg = cbp_xcalloc(v->width, sizeof *v->cur_seg);
   v->thread_segs = cbp_xcalloc(v->width, sizeof *v->thread_segs);
   v->nthread_segs = cbp_xcalloc(v->width, sizeof *v->nthread_segs);
   v->capthread_segs = cbp_xcalloc(v->width, sizeof *v->capthread_segs);
   v->create_vc = cbp_xcalloc((size_t)v->width * v->width, sizeof *v->create_vc);
   v->create_seen = cbp_xcalloc(v->width, 1);
   cbp_map_init(&v->sync, 64);
   for (uint32_t t = 0; t <= nthreads; t++) new_segment(v, t, 0, 0);
}

void cbp_vc_free(cbp_vclock *v) {
   free(v->cur); free(v->cur_seg); free(v->segs); free(v->pool);
   for (uint32_t t = 0; t < v->width; t++) free(v->thread_segs[t]);
   free(v->thread_segs); free(v->nthread_segs); free(v->capthread_segs);
   cbp_map_free(&v->sync); free(v->sync_addr); free(v->sync_vc);
   free(v->create_vc); free(v->create_seen);
   memset(v, 0, sizeof *v);
}

/* The clock kept for a synchronisation object (barrier, condition). */
static uint64_t *sync_clock(cbp_vclock *v, uint64_t addr, uint32_t kind, int create) {
   uint64_t key = addr ^ ((uint64_t)kind << 58);
   uint32_t *s = cbp_map_probe(&v->sync, cbp_mix(key), eq_sync, v, &key);
   if (*s) return v->sync_vc + (size_t)(*s - 1) * v->width;
   if (!create) return NULL;
   if (v->nsync == v->capsync) {
      v->capsync = v->capsync ? v->capsync * 2 : 16;
      v->sync_addr = cbp_xrealloc(v->sync_addr, v->capsync * sizeof *v->sync_addr);
      v->sync_vc = cbp_xrealloc(v->sync_vc, v->capsync * v->width * sizeof *v->sync_vc);
      if (!v->sync_addr || !v->sync_vc) abort();
   }
   uint32_t id = (uint32_t)v->nsync++;
   v->sync_addr[id] = key;
   memset(v->sync_vc + (size_t)id * v->width, 0, v->width * sizeof *v->sync_vc);
   *s = id + 1;
   cbp_map_added(&v->sync, hash_sync, v);
   return v->sync_vc + (size_t)id * v->width;
}

/* The clock of post n of semaphore addr.  Each post has its own: a wait
 * is ordered after the one post whose token it took (cb_wire.h), not after
 * every post before it.  The key sets bit 63, which the keys of
 * sync_clock's other objects (an address below 2^48 with the kind in bits
 * 58-59) never do; the hash mixes the post number into the address. */
static uint64_t *sem_post_clock(cbp_vclock *v, uint64_t addr, uint64_t n, int create) {
   uint64_t key = cbp_mix(addr * 0x9e3779b97f4a7c15ull + n) | 1ull << 63;
   return sync_clock(v, key, 0, create);
}

static void join_into(uint64_t *dst, const uint64_t *src, uint32_t w) {
   for (uint32_t i = 0; i < w; i++) if (src[i] > dst[i]) dst[i] = src[i];
}

/* Merges src into thread tid's clock; a new segment if anything changed. */
static void receive(cbp_vclock *v, uint32_t tid, const uint64_t *src,
                    uint64_t cidx, uint64_t empty_before) {
   uint64_t *me = v->cur + (size_t)tid * v->width;
   int changed = 0;
   for (uint32_t i = 0; i < v->width; i++)
      if (i != tid && src[i] > me[i]) { me[i] = src[i]; changed = 1; }
   if (changed) new_segment(v, tid, cidx, empty_before);
}

void cbp_vc_event(cbp_vclock *v, const cb_event *e, uint64_t cidx,
                  uint64_t empty_before) {
   uint32_t tid = e->tid;
   if (tid >= v->width) return;
   uint64_t *me = v->cur + (size_t)tid * v->width;
   /* Own component: events up to and including this one. */
   me[tid] = CB_IS_COUNTED(e->kind) ? cidx + 1 : cidx;
   switch (e->kind) {
   case CB_EV_THREAD_CREATE:
      if (e->value && e->value < v->width) {
         memcpy(v->create_vc + e->value * v->width, me, v->width * sizeof *me);
         v->create_seen[e->value] = 1;
      }
      break;
   case CB_EV_THREAD_START:
      /* Its parent's clock at the create; cidx is 0 here. */
      if (v->create_seen[tid])
         receive(v, tid, v->create_vc + (size_t)tid * v->width, cidx, empty_before);
      break;
   case CB_EV_THREAD_JOIN:
      if (e->value && e->value < v->width && e->value != tid)
         receive(v, tid, v->cur + e->value * v->width, cidx, empty_before);
      break;
   case CB_EV_BARRIER_ENTER:
      join_into(sync_clock(v, e->addr, 1, 1), me, v->width);
      break;
   case CB_EV_BARRIER_LEAVE: {
      const uint64_t *b = sync_clock(v, e->addr, 1, 0);
      if (b) receive(v, tid, b, cidx, empty_before);
      break;
   }
   case CB_EV_COND_SIGNAL:
      memcpy(sync_clock(v, e->addr, 2, 1), me, v->width * sizeof *me);
      break;
   case CB_EV_COND_WAIT: {
      const uint64_t *c = sync_clock(v, e->addr, 2, 0);
      if (c) receive(v, tid, c, cidx, empty_before);
      break;
   }
   case CB_EV_SEM_POST:
      if (e->value)
         memcpy(sem_post_clock(v, e->addr, e->value, 1), me, v->width * sizeof *me);
      break;
   case CB_EV_SEM_WAIT: {
      const uint64_t *p = e->value ? sem_post_clock(v, e->addr, e->value, 0) : NULL;
      if (p) receive(v, tid, p, cidx, empty_before);
      break;
   }
   case CB_EV_RELEASE:
      join_into(sync_clock(v, e->addr, 3, 1), me, v->width);
      break;
   case CB_EV_ACQUIRE: {
      const uint64_t *o = sync_clock(v, e->addr, 3, 0);
      if (o) receive(v, tid, o, cidx, empty_before);
      break;
   }
   default:
      break;
   }
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
