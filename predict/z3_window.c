/* z3_window.c: chooses the window of one Z3 query and collects, without
 * Z3, every fact the encoding needs (z3_window.h says what the window is).
 *
 * Four linear passes over the trace: [0, cut] for the locks each thread
 * holds at the cut (to extend threads until they release them), a count to
 * fit the window limit, [0, window_begin) for the state at the window's
 * start (locks held, the value of every address, barrier episodes), then
 * the window itself.  Cost is O(cut) per query, small next to Z3's.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "z3_window.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- A bump allocator: lists live until z3w_free ---------------------- */

typedef struct arena_block {
   struct arena_block *next;
   size_t used, cap;
   max_align_t data[];
} arena_block;

static void *arena_alloc(void **arena, size_t bytes)
{
   arena_block *b = *arena;
   bytes = (bytes + sizeof(max_align_t) - 1) / sizeof(max_align_t) *
           sizeof(max_align_t);
   if (bytes == 0)
      bytes = sizeof(max_align_t);
   if (!b || b->cap - b->used < bytes) {
      size_t cap = bytes > 65536 ? bytes : 65536;
      arena_block *nb = malloc(sizeof *nb + cap);
      if (!nb)
         return NULL;
      nb->next = b;
      nb->used = 0;
      nb->cap = cap;
      *arena = b = nb;
   }
   void *p = (char *)b->data + b->used;
   b->used += bytes;
   return p;
}

static void arena_free(void *arena)
{
   for (arena_block *b = arena, *n; b; b = n) {
      n = b->next;
      free(b);
   }
}

/* ---- Growable arrays of positions ---------------------------------------- */

typedef struct {
   size_t *v;
   size_t n, cap;
} posvec;

static int pv_push(posvec *p, size_t x)
{
   if (p->n == p->cap) {
      size_t cap = p->cap ? p->cap * 2 : 8;
      size_t *v = realloc(p->v, cap * sizeof *v);
      if (!v)
         return -1;
      p->v = v;
      p->cap = cap;
   }
   p->v[p->n++] = x;
   return 0;
}

#define GROW(arr, n, cap)                                                    \
   ((n) < (cap) ? 0                                                          \
                : grow_((void **)&(arr), &(cap), sizeof *(arr)))

static int grow_(void **arr, size_t *cap, size_t elem)
{
   size_t nc = *cap ? *cap * 2 : 16;
   void *p = realloc(*arr, nc * elem);
   if (!p)
      return -1;
   *arr = p;
   *cap = nc;
   return 0;
}

/* ---- Addresses: an open-addressing map from address to a record -------- */

typedef struct {
   uint64_t addr;
   /* value state, from the start of the trace */
   uint8_t seen, start_known, has_write_before_wb;
   uint64_t start_val, last_write_val;
   /* in the window */
   uint32_t tid1;  /* first thread that touched it in the window, 0 = none */
   uint8_t multi;  /* touched by two threads or more in the window */
   posvec reads, writes;
   posvec read_writer; /* per window read: trace index + 1 of the write it
                          read from in the recorded run (0 = none seen) */
   size_t last_write;  /* trace index + 1 of the last write so far */
   /* conditions and barriers share the map (different objects) */
   size_t last_signal; /* trace index + 1 of the last signal, 0 = none */
   posvec signals;
   size_t enters; /* barrier enters so far */
} addr_rec;

typedef struct {
   size_t *slot; /* index + 1 into rec, 0 = empty */
   size_t nslots;
   addr_rec *rec;
   size_t nrec, caprec;
} addr_map;

static uint64_t hash64(uint64_t x)
{
   x ^= x >> 33;
   x *= 0xff51afd7ed558ccdull;
   x ^= x >> 33;
   x *= 0xc4ceb9fe1a85ec53ull;
   x ^= x >> 33;
   return x;
}

static addr_rec *map_get(addr_map *m, uint64_t addr)
{
   if (m->nrec * 2 >= m->nslots) {
      size_t ns = m->nslots ? m->nslots * 2 : 256;
      size_t *slot = calloc(ns, sizeof *slot);
      if (!slot)
         return NULL;
      for (size_t i = 0; i < m->nrec; i++) {
         size_t h = hash64(m->rec[i].addr) & (ns - 1);
         while (slot[h])
            h = (h + 1) & (ns - 1);
         slot[h] = i + 1;
      }
      free(m->slot);
      m->slot = slot;
      m->nslots = ns;
   }
   size_t h = hash64(addr) & (m->nslots - 1);
   while (m->slot[h]) {
      if (m->rec[m->slot[h] - 1].addr == addr)
         return &m->rec[m->slot[h] - 1];
      h = (h + 1) & (m->nslots - 1);
   }
   if (GROW(m->rec, m->nrec, m->caprec) < 0)
      return NULL;
   addr_rec *r = &m->rec[m->nrec];
   memset(r, 0, sizeof *r);
   r->addr = addr;
   m->slot[h] = ++m->nrec;
   return r;
}

static void map_free(addr_map *m)
{
   for (size_t i = 0; i < m->nrec; i++) {
      free(m->rec[i].reads.v);
      free(m->rec[i].writes.v);
      free(m->rec[i].read_writer.v);
      free(m->rec[i].signals.v);
   }
   free(m->rec);
   free(m->slot);
}

/* ---- Per-thread state ------------------------------------------------------ */

typedef struct {
   uint64_t lock;
   unsigned depth;
   size_t section; /* index into w->sec while in the window */
   uint8_t shared;
} held_lock;

typedef struct {
   size_t end;        /* last trace index of the thread in the window, or NONE */
   size_t last_idx;   /* last event at or before the cut, or NONE */
   long nheld;        /* locks held while scanning to the cut */
   int extend;        /* still extending past the cut */
   held_lock *held;
   size_t nheld_v, capheld;
   size_t create_idx; /* trace index of its creation, NONE if not seen */
   size_t create_pos; /* its position in the window, NONE if not there */
   size_t last_var_idx, last_var_pos; /* last event with a variable */
   size_t first_pos, last_pos;        /* in the window */
   uint64_t barrier;  /* barrier of its last enter, and the episode */
   size_t episode;
} thread_st;

/* Events that can order threads, hence get an order variable. */
static int has_var(unsigned kind)
{
   switch (kind) {
   case CB_EV_READ: case CB_EV_WRITE: case CB_EV_LOCK: case CB_EV_UNLOCK:
   case CB_EV_COND_WAIT: case CB_EV_COND_SIGNAL: case CB_EV_BARRIER_ENTER:
   case CB_EV_BARRIER_LEAVE: case CB_EV_THREAD_CREATE:
   case CB_EV_THREAD_START: case CB_EV_THREAD_JOIN: case CB_EV_THREAD_EXIT:
      return 1;
   default:
      return 0;
   }
}

/* Events that synchronise threads: they end the stretch of plain
 * accesses before f. */
static int is_sync(unsigned kind)
{
   return has_var(kind) && kind != CB_EV_READ && kind != CB_EV_WRITE;
}

/* Part of one machine instruction with the thread's previous event, so
 * that nothing runs between them (a split store is not: predict.h, cbp_glued). */
static int same_insn(const cb_event *e)
{
   return (e->kind == CB_EV_READ || e->kind == CB_EV_WRITE) &&
          (e->size & CB_SIZE_SAME_INSN) && !(e->size & CB_SIZE_SPLIT);
}

static uint64_t value_mask(unsigned bytes)
{
   return bytes >= 8 ? ~(uint64_t)0 : (((uint64_t)1 << (8 * bytes)) - 1);
}

static int carries_value(const cb_event *e)
{
   unsigned b = CB_SIZE_BYTES(e->size);
   return b > 0 && b <= 8;
}

static held_lock *held_find(thread_st *th, uint64_t lock)
{
   for (size_t i = 0; i < th->nheld_v; i++)
      if (th->held[i].lock == lock)
         return &th->held[i];
   return NULL;
}

/* Barrier episodes in the window: enters of one (barrier, episode). */
typedef struct {
   uint64_t barrier;
   size_t episode;
   size_t seen;     /* enters seen in the trace so far */
   size_t counted;  /* of those, before the window or in it */
   posvec enters;   /* positions in the window */
} episode_rec;

/* Waits, before their signal lists are known. */
typedef struct {
   size_t wait, prev;
   uint64_t cond;
} pending_wait;

typedef struct {
   thread_st *th;
   size_t nth;
   addr_map mem, sync; /* data addresses; conditions and barriers */
   episode_rec *eps;
   size_t neps, capeps;
   pending_wait *pw;
   size_t npw, cappw;
   size_t capev, capsec, capbefore, caplate;
} scratch;

static void scratch_free(scratch *s)
{
   for (size_t i = 0; i < s->nth; i++)
      free(s->th[i].held);
   free(s->th);
   map_free(&s->mem);
   map_free(&s->sync);
   for (size_t i = 0; i < s->neps; i++)
      free(s->eps[i].enters.v);
   free(s->eps);
   free(s->pw);
}

static episode_rec *episode_get(scratch *s, uint64_t barrier, size_t episode)
{
   for (size_t i = 0; i < s->neps; i++)
      if (s->eps[i].barrier == barrier && s->eps[i].episode == episode)
         return &s->eps[i];
   if (GROW(s->eps, s->neps, s->capeps) < 0)
      return NULL;
   episode_rec *e = &s->eps[s->neps++];
   memset(e, 0, sizeof *e);
   e->barrier = barrier;
   e->episode = episode;
   return e;
}

/* A thread entering a barrier: the episode is the enter's rank among all
 * enters of that barrier divided by the barrier's count.  Both passes keep
 * the same bookkeeping; NULL when out of memory. */
static episode_rec *barrier_enter(scratch *s, thread_st *th, const cb_event *e)
{
   addr_rec *r = map_get(&s->sync, e->addr);
   if (!r)
      return NULL;
   size_t ep = r->enters++ / (e->value ? e->value : 1);
   episode_rec *er = episode_get(s, e->addr, ep);
   if (!er)
      return NULL;
   er->seen++;
   th->barrier = e->addr;
   th->episode = ep;
   return er;
}

/* Lock bookkeeping shared by the passes; sec_of_new is called when a
 * thread takes a lock it did not hold (depth 0 -> 1). */
static int lock_acquire(thread_st *th, uint64_t lock, uint8_t shared,
                        held_lock **out)
{
   held_lock *h = held_find(th, lock);
   if (!h) {
      if (GROW(th->held, th->nheld_v, th->capheld) < 0)
         return -1;
      h = &th->held[th->nheld_v++];
      h->lock = lock;
      h->depth = 0;
      h->section = Z3W_NONE;
      h->shared = shared;
   }
   h->depth++;
   *out = h;
   return 0;
}

/* Returns the section index that closes (depth 1 -> 0), NONE otherwise. */
static size_t lock_release(thread_st *th, uint64_t lock, int *closed)
{
   held_lock *h = held_find(th, lock);
   *closed = 0;
   if (!h)
      return Z3W_NONE; /* released a lock taken before the trace: ignore */
   if (--h->depth > 0)
      return Z3W_NONE;
   size_t sec = h->section;
   *h = th->held[--th->nheld_v];
   *closed = 1;
   return sec;
}

/* Value state of an address as the trace goes by (any thread). */
static void note_value(addr_rec *r, const cb_event *e, int before_wb)
{
   if (!r->seen) {
      r->seen = 1;
      if (e->kind == CB_EV_READ && carries_value(e)) {
         r->start_known = 1;
         r->start_val = e->value & value_mask(CB_SIZE_BYTES(e->size));
      }
   }
   if (e->kind == CB_EV_WRITE && before_wb) {
      r->has_write_before_wb = carries_value(e);
      r->last_write_val = e->value;
   }
}

/* Keeps the Z3W_MAX_SOURCES positions of v whose events are nearest
 * trace index `near` in the trace, the recorded writer (index + 1 = rec)
 * first. */
static void keep_nearest(const z3w_window *w, size_t *v, size_t *n,
                         size_t near, size_t rec)
{
   for (size_t k = 0; k < Z3W_MAX_SOURCES; k++) {
      size_t best = k;
      for (size_t j = k + 1; j < *n; j++) {
         size_t ij = w->ev[v[j]].idx, ib = w->ev[v[best]].idx;
         size_t dj = ij < near ? near - ij : ij - near;
         size_t db = ib < near ? near - ib : ib - near;
         if (ij + 1 == rec || (ib + 1 != rec && dj < db))
            best = j;
      }
      size_t tmp = v[k];
      v[k] = v[best];
      v[best] = tmp;
   }
   *n = Z3W_MAX_SOURCES;
}

static size_t *list_copy(z3w_window *w, const size_t *v, size_t n)
{
   size_t *p = arena_alloc(&w->arena_, n * sizeof *p);
   if (p && n)
      memcpy(p, v, n * sizeof *p);
   return p;
}

#define OOM()                                                                \
   do {                                                                      \
      snprintf(why, whylen, "out of memory");                                \
      goto fail;                                                             \
   } while (0)

int z3w_build(z3w_window *w, const cb_trace *t, size_t e1, size_t f,
              size_t e2, size_t window_begin, size_t max_events, int strict,
              char *why, size_t whylen)
{
   scratch s;
   memset(w, 0, sizeof *w);
   memset(&s, 0, sizeof s);
   const cb_event *ev = t ? t->events : NULL;
   size_t n = t ? t->nevents : 0;

   if (!t || e1 >= n || f >= n || e2 >= n) {
      snprintf(why, whylen, "event index out of range");
      return -1;
   }
   if (!(e1 < e2) || ev[e1].tid != ev[e2].tid || ev[f].tid == ev[e1].tid) {
      snprintf(why, whylen, "not a candidate: e1 and e2 must be one thread "
                            "(e1 first), f another");
      return -1;
   }
   if (!has_var(ev[e1].kind) || !has_var(ev[f].kind) ||
       !has_var(ev[e2].kind)) {
      snprintf(why, whylen, "e1, f and e2 must be events that order threads");
      return -1;
   }
   size_t lowest = e1 < f ? e1 : f;
   if (window_begin > lowest) {
      snprintf(why, whylen, "window_begin %zu is after e1 or f", window_begin);
      return -1;
   }
   size_t cut = f > e2 ? f : e2;
   uint32_t t1 = ev[e1].tid;

   /* Threads: ids are creation order, so the highest id in [0, cut] and the
    * children named by creates and joins bound them. */
   size_t nth = t->nthreads + 1;
   for (size_t i = 0; i <= cut; i++)
      if (ev[i].tid >= nth)
         nth = (size_t)ev[i].tid + 1;
   s.th = calloc(nth, sizeof *s.th);
   if (!s.th)
      OOM();
   s.nth = nth;
   for (size_t i = 0; i < nth; i++) {
      thread_st *th = &s.th[i];
      th->end = th->last_idx = th->create_idx = th->create_pos = Z3W_NONE;
      th->last_var_idx = th->last_var_pos = Z3W_NONE;
      th->first_pos = th->last_pos = Z3W_NONE;
   }

   /* Pass 1: locks held at the cut; extend those threads until released. */
   for (size_t i = 0; i <= cut; i++) {
      thread_st *th = &s.th[ev[i].tid];
      th->last_idx = i;
      if (ev[i].kind == CB_EV_LOCK)
         th->nheld++;
      else if (ev[i].kind == CB_EV_UNLOCK && th->nheld > 0)
         th->nheld--;
   }
   size_t extending = 0;
   for (size_t k = 0; k < nth; k++) {
      thread_st *th = &s.th[k];
      th->end = th->last_idx;
      if (k != t1 && th->last_idx != Z3W_NONE && th->nheld > 0) {
         th->extend = 1;
         extending++;
      }
   }
   s.th[t1].end = e2;
   size_t ext_cap = max_events ? max_events : n;
   for (size_t i = cut + 1; i < n && extending && i - cut <= ext_cap; i++) {
      if (ev[i].tid >= nth)
         continue;
      thread_st *th = &s.th[ev[i].tid];
      if (!th->extend)
         continue;
      th->end = i;
      if (ev[i].kind == CB_EV_LOCK)
         th->nheld++;
      else if (ev[i].kind == CB_EV_UNLOCK && --th->nheld <= 0) {
         th->extend = 0;
         extending--;
      }
   }
   size_t maxend = cut;
   for (size_t k = 0; k < nth; k++)
      if (s.th[k].end != Z3W_NONE && s.th[k].end > maxend)
         maxend = s.th[k].end;

#define IN_WINDOW(i) (ev[i].tid < nth && s.th[ev[i].tid].end != Z3W_NONE &&  \
                      (i) <= s.th[ev[i].tid].end && has_var(ev[i].kind))

   /* Pass 2: fit the limit by moving window_begin forward. */
   size_t wb = window_begin;
   if (max_events) {
      size_t count = 0;
      for (size_t i = wb; i <= maxend; i++)
         count += IN_WINDOW(i);
      if (count > max_events) {
         size_t drop = count - max_events, seen = 0;
         for (size_t i = wb; i <= maxend; i++)
            if (IN_WINDOW(i) && seen++ == drop) {
               wb = i;
               break;
            }
         if (wb > lowest)
            wb = lowest;
      }
   }
   /* Never start inside one machine instruction. */
   while (wb > window_begin && same_insn(&ev[wb]))
      wb--;
   w->wb = wb;
   w->cut = cut;

   /* Pass 3: the state at window_begin. */
   for (size_t i = 0; i < wb; i++) {
      const cb_event *e = &ev[i];
      if (e->tid >= nth)
         continue;
      thread_st *th = &s.th[e->tid];
      held_lock *h;
      int closed;
      switch (e->kind) {
      case CB_EV_READ:
      case CB_EV_WRITE: {
         addr_rec *r = map_get(&s.mem, e->addr);
         if (!r)
            OOM();
         note_value(r, e, 1);
         break;
      }
      case CB_EV_LOCK:
         if (lock_acquire(th, e->addr, e->size == CB_LOCK_RD, &h) < 0)
            OOM();
         break;
      case CB_EV_UNLOCK:
         lock_release(th, e->addr, &closed);
         break;
      case CB_EV_BARRIER_ENTER: {
         episode_rec *er = barrier_enter(&s, th, e);
         if (!er)
            OOM();
         er->counted++;
         break;
      }
      case CB_EV_THREAD_CREATE:
         if (e->value < nth)
            s.th[e->value].create_idx = i;
         break;
      default:
         break;
      }
      if (has_var(e->kind))
         th->last_var_idx = i;
   }

   /* Sections held since before the window. */
   for (size_t k = 0; k < nth; k++) {
      thread_st *th = &s.th[k];
      for (size_t j = 0; j < th->nheld_v; j++) {
         if (GROW(w->sec, w->nsec, s.capsec) < 0)
            OOM();
         th->held[j].section = w->nsec;
         w->sec[w->nsec++] = (z3w_section){th->held[j].lock, Z3W_NONE,
                                           Z3W_NONE, (uint32_t)k,
                                           th->held[j].shared};
      }
   }

   /* Pass 4: the window. */
   w->pe1 = w->pf = w->pe2 = Z3W_NONE;
   for (size_t i = wb; i <= maxend; i++) {
      const cb_event *e = &ev[i];
      if (e->tid >= nth)
         continue;
      thread_st *th = &s.th[e->tid];
      int in = IN_WINDOW(i);
      size_t pos = Z3W_NONE;

      if (in) {
         if (GROW(w->ev, w->nev, s.capev) < 0)
            OOM();
         pos = w->nev++;
         z3w_event *we = &w->ev[pos];
         we->idx = i;
         we->tid = e->tid;
         we->tprev = th->last_pos;
         we->var = (same_insn(e) && th->last_pos != Z3W_NONE)
                      ? w->ev[th->last_pos].var
                      : w->nvars++;
         if (th->first_pos == Z3W_NONE) {
            th->first_pos = pos;
            /* Created in the window by an event that cannot run before
             * e2 (after its creator's end): neither can the child. */
            if (th->create_idx != Z3W_NONE && th->create_idx >= wb) {
               if (th->create_pos != Z3W_NONE) {
                  if (GROW(w->before, w->nbefore, s.capbefore) < 0)
                     OOM();
                  w->before[w->nbefore++] = (z3w_pair){th->create_pos, pos};
               } else {
                  if (GROW(w->late, w->nlate, s.caplate) < 0)
                     OOM();
                  w->late[w->nlate++] = pos;
               }
            }
         }
         th->last_pos = pos;
         if (i == e1)
            w->pe1 = pos;
         if (i == f)
            w->pf = pos;
         if (i == e2)
            w->pe2 = pos;
      }

      switch (e->kind) {
      case CB_EV_READ:
      case CB_EV_WRITE: {
         addr_rec *r = map_get(&s.mem, e->addr);
         if (!r)
            OOM();
         note_value(r, e, 0);
         if (in) {
            if (!r->tid1)
               r->tid1 = e->tid;
            else if (r->tid1 != e->tid)
               r->multi = 1;
            if (pv_push(e->kind == CB_EV_READ ? &r->reads : &r->writes,
                        pos) < 0)
               OOM();
            if (e->kind == CB_EV_READ &&
                pv_push(&r->read_writer, r->last_write) < 0)
               OOM();
         }
         if (e->kind == CB_EV_WRITE)
            r->last_write = i + 1;
         break;
      }
      case CB_EV_LOCK:
         if (in) {
            held_lock *h;
            if (lock_acquire(th, e->addr, e->size == CB_LOCK_RD, &h) < 0)
               OOM();
            if (h->depth == 1) {
               if (GROW(w->sec, w->nsec, s.capsec) < 0)
                  OOM();
               h->section = w->nsec;
               w->sec[w->nsec++] = (z3w_section){e->addr, pos, Z3W_NONE,
                                                 e->tid, h->shared};
            }
         }
         break;
      case CB_EV_UNLOCK:
         if (in) {
            int closed;
            size_t sec = lock_release(th, e->addr, &closed);
            if (closed && sec != Z3W_NONE)
               w->sec[sec].rel = pos;
         }
         break;
      case CB_EV_COND_SIGNAL: {
         addr_rec *r = map_get(&s.sync, e->addr);
         if (!r)
            OOM();
         r->last_signal = i + 1;
         if (in && pv_push(&r->signals, pos) < 0)
            OOM();
         break;
      }
      case CB_EV_COND_WAIT:
         if (in && w->ev[pos].tprev != Z3W_NONE) {
            addr_rec *r = map_get(&s.sync, e->addr);
            if (!r)
               OOM();
            size_t prev = w->ev[pos].tprev;
            /* Woken by a signal (not a timeout or a spurious wake-up). */
            if (r->last_signal > w->ev[prev].idx + 1) {
               if (GROW(s.pw, s.npw, s.cappw) < 0)
                  OOM();
               s.pw[s.npw++] = (pending_wait){pos, prev, e->addr};
            }
         }
         break;
      case CB_EV_BARRIER_ENTER: {
         episode_rec *er = barrier_enter(&s, th, e);
         if (!er)
            OOM();
         if (in) {
            er->counted++;
            if (pv_push(&er->enters, pos) < 0)
               OOM();
         }
         break;
      }
      case CB_EV_BARRIER_LEAVE:
         if (in) {
            episode_rec *er = episode_get(&s, th->barrier, th->episode);
            if (!er)
               OOM();
            for (size_t j = 0; j < er->enters.n; j++) {
               if (GROW(w->before, w->nbefore, s.capbefore) < 0)
                  OOM();
               w->before[w->nbefore++] = (z3w_pair){er->enters.v[j], pos};
            }
            /* An enter of this episode lies past its thread's end. */
            if (er->counted < er->seen) {
               if (GROW(w->late, w->nlate, s.caplate) < 0)
                  OOM();
               w->late[w->nlate++] = pos;
            }
         }
         break;
      case CB_EV_THREAD_CREATE:
         if (e->value < nth) {
            s.th[e->value].create_idx = i;
            s.th[e->value].create_pos = pos;
         }
         break;
      case CB_EV_THREAD_JOIN:
         if (in && e->value < nth) {
            thread_st *ch = &s.th[e->value];
            if (ch->last_var_idx == Z3W_NONE || ch->last_var_idx < wb)
               break; /* the child was done before the window */
            if (ch->last_var_pos != Z3W_NONE &&
                w->ev[ch->last_var_pos].idx == ch->last_var_idx) {
               if (GROW(w->before, w->nbefore, s.capbefore) < 0)
                  OOM();
               w->before[w->nbefore++] = (z3w_pair){ch->last_var_pos, pos};
            } else {
               /* the child ran past its end of window: cannot join before e2 */
               if (GROW(w->late, w->nlate, s.caplate) < 0)
                  OOM();
               w->late[w->nlate++] = pos;
            }
         }
         break;
      default:
         break;
      }
      if (has_var(e->kind)) {
         th->last_var_idx = i;
         if (in)
            th->last_var_pos = pos;
      }
   }
   if (w->pe1 == Z3W_NONE || w->pf == Z3W_NONE || w->pe2 == Z3W_NONE) {
      snprintf(why, whylen, "internal: e1, f or e2 fell out of the window");
      goto fail;
   }

   /* Waits: every signal on the condition in the window is a candidate. */
   if (s.npw) {
      w->waits = calloc(s.npw, sizeof *w->waits);
      if (!w->waits)
         OOM();
   }
   for (size_t j = 0; j < s.npw; j++) {
      addr_rec *r = map_get(&s.sync, s.pw[j].cond);
      if (!r)
         OOM();
      z3w_wait *zw = &w->waits[w->nwaits++];
      zw->wait = s.pw[j].wait;
      zw->prev = s.pw[j].prev;
      zw->nsig = 0;
      zw->sig = arena_alloc(&w->arena_, (r->signals.n + 1) * sizeof(size_t));
      if (!zw->sig)
         OOM();
      for (size_t k = 0; k < r->signals.n; k++)
         if (w->ev[r->signals.v[k]].tid != w->ev[zw->wait].tid)
            zw->sig[zw->nsig++] = r->signals.v[k];
   }

   /* The violation's own loads of its variable (cb_z3_query.strict): the
    * f thread's since its last synchronisation before f. */
   size_t f_stretch = wb;
   for (size_t i = f; i-- > wb;)
      if (ev[i].tid == ev[f].tid && is_sync(ev[i].kind)) {
         f_stretch = i + 1;
         break;
      }

   /* Reads that must keep their value: on addresses two threads touch in
    * the window and someone writes there. */
   size_t capreads = 0;
   posvec src = {0};
   for (size_t a = 0; a < s.mem.nrec; a++) {
      addr_rec *r = &s.mem.rec[a];
      if (r->reads.n == 0)
         continue;
      const size_t *writes = list_copy(w, r->writes.v, r->writes.n);
      if (!writes)
         OOM();
      int init_known = r->has_write_before_wb || r->start_known;
      uint64_t init = r->has_write_before_wb ? r->last_write_val
                                             : r->start_val;
      for (size_t k = 0; k < r->reads.n; k++) {
         size_t rp = r->reads.v[k];
         const cb_event *re = &ev[w->ev[rp].idx];
         if (rp == w->pf || rp == w->pe2 || !carries_value(re))
            continue; /* the violation's own values; wide reads: no value */
         if (!strict && (re->addr == ev[e1].addr || re->addr == ev[f].addr ||
                         re->addr == ev[e2].addr)) {
            size_t ri = w->ev[rp].idx;
            if (re->tid == ev[e1].tid && ri >= e1 && ri < e2)
               continue;
            if (re->tid == ev[f].tid && ri >= f_stretch && ri < f)
               continue;
         }
         /* Its recorded write lies past its thread's end of window. */
         size_t wi = r->read_writer.v[k];
         int outside = wi && wi - 1 >= wb && !IN_WINDOW(wi - 1);
         if ((!r->multi || r->writes.n == 0) && !outside)
            continue; /* program order alone gives it its value */
         uint64_t m = value_mask(CB_SIZE_BYTES(re->size));
         uint64_t want = re->value & m;
         uint32_t rt = w->ev[rp].tid;
         /* Only the thread's last own write before the read can feed it
          * among its own writes; and then not the initial value. */
         size_t own = Z3W_NONE;
         for (size_t j = 0; j < r->writes.n; j++) {
            size_t wp = r->writes.v[j];
            if (w->ev[wp].tid == rt && w->ev[wp].idx < w->ev[rp].idx)
               own = wp;
         }
         src.n = 0;
         for (size_t j = 0; j < r->writes.n; j++) {
            size_t wp = r->writes.v[j];
            const cb_event *we = &ev[w->ev[wp].idx];
            if (w->ev[wp].tid == rt && wp != own)
               continue;
            if (!carries_value(we) ||
                (we->value & m) != want ||
                CB_SIZE_BYTES(we->size) < CB_SIZE_BYTES(re->size))
               continue;
            if (pv_push(&src, wp) < 0) {
               free(src.v);
               OOM();
            }
         }
         /* At most Z3W_MAX_SOURCES: the recorded writer, then the writes
          * nearest the read.  Any subset keeps SAT answers sound; it only
          * forgets some orders where the value came from elsewhere. */
         if (src.n > Z3W_MAX_SOURCES)
            keep_nearest(w, src.v, &src.n, w->ev[rp].idx, wi);
         int init_ok = own == Z3W_NONE && init_known && (init & m) == want;
         if (src.n == 0 && !init_ok) {
            if (outside && carries_value(&ev[wi - 1]) &&
                (ev[wi - 1].value & m) == want) {
               /* Its value comes from a write that cannot run before e2
                * (past its thread's end): neither can the read. */
               if (GROW(w->late, w->nlate, s.caplate) < 0) {
                  free(src.v);
                  OOM();
               }
               w->late[w->nlate++] = rp;
            }
            /* Else written by something the trace does not show (the
             * kernel, untraced code): leave it free. */
            continue;
         }
         if (GROW(w->reads, w->nreads, capreads) < 0) {
            free(src.v);
            OOM();
         }
         z3w_read *zr = &w->reads[w->nreads++];
         zr->read = rp;
         zr->src = list_copy(w, src.v, src.n);
         zr->nsrc = src.n;
         zr->init_ok = init_ok;
         zr->writes = writes;
         zr->nwrites = r->writes.n;
         if (!zr->src) {
            free(src.v);
            OOM();
         }
      }
   }
   free(src.v);
   scratch_free(&s);
   return 0;

fail:
   scratch_free(&s);
   z3w_free(w);
   return -1;
}

void z3w_free(z3w_window *w)
{
   free(w->ev);
   free(w->sec);
   free(w->before);
   free(w->late);
   free(w->waits);
   free(w->reads);
   arena_free(w->arena_);
   memset(w, 0, sizeof *w);
}
