/* z3_window.c: chooses the window of one Z3 query and collects its events
 * and critical sections (z3_window.h says what the window is; the
 * happens-before edges and the reads are z3_window_sync.c's and
 * z3_window_reads.c's).
 *
 * Four linear passes over the trace: [0, cut] for the locks each thread
 * holds at the cut (to extend threads until they release them), a count to
 * fit the window limit, [0, window_begin) for the state at the window's
 * start (locks held, the value of every address), then the window itself.
 * Cost is O(cut) per query, small next to Z3's.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "z3_window_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad(char *why, size_t whylen, const char *msg)
{
   snprintf(why, whylen, "%s", msg);
   return -1;
}

/* The query's shape, by kind. */
static int check_query(const cb_trace *t, const z3w_query *q, char *why,
                       size_t whylen)
{
   const cb_event *ev = t ? t->events : NULL;
   size_t n = t ? t->nevents : 0;
   int dlk = q->kind == Z3W_DEADLOCK;
   if (!t || q->e1 >= n || q->f >= n || q->e2 >= n || (dlk && q->g >= n))
      return bad(why, whylen, "event index out of range");
   if (ev[q->e1].tid != ev[q->e2].tid || ev[q->f].tid == ev[q->e1].tid)
      return bad(why, whylen, "not a candidate: e1 and e2 must be one thread, f another");
   if (q->kind == Z3W_ORDER ? q->e1 != q->e2 : !(q->e1 < q->e2))
      return bad(why, whylen, "not a candidate: e1 must come before e2 "
                              "(an order violation: be e2)");
   if (dlk && (ev[q->g].tid != ev[q->f].tid || q->g <= q->f ||
               ev[q->e2].kind != CB_EV_LOCK || ev[q->g].kind != CB_EV_LOCK))
      return bad(why, whylen, "not a deadlock: g must be a lock request of f's thread after f");
   if (!cbp_hb_anchor(ev[q->e1].kind) || !cbp_hb_anchor(ev[q->f].kind) ||
       !cbp_hb_anchor(ev[q->e2].kind))
      return bad(why, whylen, "e1, f and e2 must be events that order threads");
   size_t lowest = q->e1 < q->f ? q->e1 : q->f;
   if (q->window_begin > lowest)
      return bad(why, whylen, "window_begin is after e1 or f");
   return 0;
}

/* Pass 1: each thread's end of window.  Threads holding a lock at the cut
 * are extended until they release it (at most as far as the limit). */
static int thread_ends(z3w_window *w, z3w_scratch *s)
{
   const cb_event *ev = s->t->events;
   const z3w_query *q = s->q;
   size_t n = s->t->nevents, cut = w->cut;
   size_t nth = (size_t)s->t->nthreads + 1;
   for (size_t i = 0; i <= cut; i++)
      if (ev[i].tid >= nth)
         nth = (size_t)ev[i].tid + 1;
   s->th = calloc(nth, sizeof *s->th);
   if (!s->th)
      return -1;
   s->nth = nth;
   for (size_t k = 0; k < nth; k++)
      s->th[k].end = s->th[k].last_idx = s->th[k].last_pos = Z3W_NONE;
   for (size_t i = 0; i <= cut; i++) {
      thread_st *th = &s->th[ev[i].tid];
      th->last_idx = i;
      if (ev[i].kind == CB_EV_LOCK)
         th->nheld++;
      else if (ev[i].kind == CB_EV_UNLOCK && th->nheld > 0)
         th->nheld--;
   }
   size_t extending = 0;
   for (size_t k = 0; k < nth; k++) {
      thread_st *th = &s->th[k];
      th->end = th->last_idx;
      th->extend = th->last_idx != Z3W_NONE && th->nheld > 0 &&
                   !z3w_stops_for_good(w, s, (uint32_t)k);
      extending += (size_t)th->extend;
   }
   s->th[ev[q->e2].tid].end = q->e2;
   if (w->kind == Z3W_DEADLOCK)
      s->th[ev[q->f].tid].end = q->g;
   size_t ext_cap = q->max_events ? q->max_events : n;
   for (size_t i = cut + 1; i < n && extending && i - cut <= ext_cap; i++) {
      thread_st *th = ev[i].tid < nth ? &s->th[ev[i].tid] : NULL;
      if (!th || !th->extend)
         continue;
      th->end = i;
      if (ev[i].kind == CB_EV_LOCK)
         th->nheld++;
      else if (ev[i].kind == CB_EV_UNLOCK && --th->nheld <= 0) {
         th->extend = 0;
         extending--;
      }
   }
   s->maxend = cut;
   for (size_t k = 0; k < nth; k++)
      if (s->th[k].end != Z3W_NONE && s->th[k].end > s->maxend)
         s->maxend = s->th[k].end;
   return 0;
}

/* Pass 2: fit the limit by moving window_begin forward. */
static void fit_limit(z3w_window *w, const z3w_scratch *s)
{
   const z3w_query *q = s->q;
   size_t lowest = q->e1 < q->f ? q->e1 : q->f;
   size_t wb = q->window_begin;
   if (q->max_events) {
      size_t count = 0;
      for (size_t i = wb; i <= s->maxend; i++)
         count += (size_t)z3w_in(s, i);
      if (count > q->max_events) {
         size_t drop = count - q->max_events, seen = 0;
         for (size_t i = wb; i <= s->maxend; i++)
            if (z3w_in(s, i) && seen++ == drop) {
               wb = i;
               break;
            }
         if (wb > lowest)
            wb = lowest;
      }
   }
   /* Never start inside one machine instruction. */
   while (wb > q->window_begin && cbp_glued(&s->t->events[wb]))
      wb--;
   w->wb = wb;
   if (wb > 0)
      z3w_assume(w, "the window does not reach back to the trace's start "
                    "(what ran before it is taken in recorded order)");
}

/* Value state of an address as the trace goes by (any thread). */
static void note_value(addr_rec *r, const cb_event *e, int before_wb)
{
   if (!r->seen) {
      r->seen = 1;
      if (e->kind == CB_EV_READ && z3w_carries_value(e)) {
         r->start_known = 1;
         r->start_val = e->value & z3w_value_mask(CB_SIZE_BYTES(e->size));
      }
   }
   if (e->kind == CB_EV_WRITE && before_wb) {
      r->has_write_before_wb = z3w_carries_value(e);
      r->last_write_val = e->value;
   }
}

/* Pass 3: the state at window_begin: values, and the sections held since
 * before the window. */
static int state_at_begin(z3w_window *w, z3w_scratch *s)
{
   const cb_event *ev = s->t->events;
   for (size_t i = 0; i < w->wb; i++) {
      const cb_event *e = &ev[i];
      if (e->tid >= s->nth)
         continue;
      thread_st *th = &s->th[e->tid];
      held_lock *h;
      if ((e->kind == CB_EV_READ || e->kind == CB_EV_WRITE) && !(e->flags & CB_EVF_LOCK_WORD)) {
         addr_rec *r = z3w_map_get(&s->mem, e->addr);
         if (!r)
            return -1;
         note_value(r, e, 1);
      } else if (e->kind == CB_EV_LOCK) {
         if (z3w_lock_acquire(th, e->addr, e->size == CB_LOCK_RD, &h) < 0)
            return -1;
      } else if (e->kind == CB_EV_UNLOCK) {
         z3w_lock_release(th, e->addr);
      }
   }
   for (size_t k = 0; k < s->nth; k++) {
      thread_st *th = &s->th[k];
      for (size_t j = 0; j < th->nheld_v; j++) {
         if (GROW(w->sec, w->nsec, s->capsec) < 0)
            return -1;
         th->held[j].section = w->nsec;
         w->sec[w->nsec++] = (z3w_section){th->held[j].lock, Z3W_NONE, Z3W_NONE,
                                           (uint32_t)k, th->held[j].shared};
      }
   }
   return 0;
}

/* A window event gets its position and order variable. */
static int add_event(z3w_window *w, z3w_scratch *s, size_t i, size_t *pos)
{
   const cb_event *e = &s->t->events[i];
   thread_st *th = &s->th[e->tid];
   if (GROW(w->ev, w->nev, s->capev) < 0)
      return -1;
   *pos = w->nev++;
   z3w_event *we = &w->ev[*pos];
   we->idx = i;
   we->tid = e->tid;
   we->tprev = th->last_pos;
   we->var = (cbp_glued(e) && th->last_pos != Z3W_NONE) ? w->ev[th->last_pos].var
                                                            : w->nvars++;
   th->last_pos = *pos;
   const z3w_query *q = s->q;
   if (i == q->e1) w->pe1 = *pos;
   if (i == q->f) w->pf = *pos;
   if (i == q->e2) w->pe2 = *pos;
   if (w->kind == Z3W_DEADLOCK && i == q->g) w->pg = *pos;
   return 0;
}

/* A memory access of the window (or between the thread ends, outside it). */
static int mem_access(z3w_scratch *s, size_t i, int in, size_t pos)
{
   const cb_event *e = &s->t->events[i];
   addr_rec *r = z3w_map_get(&s->mem, e->addr);
   if (!r)
      return -1;
   note_value(r, e, 0);
   if (in) {
      if (!r->tid1)
         r->tid1 = e->tid;
      else if (r->tid1 != e->tid)
         r->multi = 1;
      if (z3w_pv_push(e->kind == CB_EV_READ ? &r->reads : &r->writes, pos) < 0)
         return -1;
      if (e->kind == CB_EV_READ && z3w_pv_push(&r->read_writer, r->last_write) < 0)
         return -1;
   }
   if (e->kind == CB_EV_WRITE)
      r->last_write = i + 1;
   return 0;
}

/* A lock event of the window.  A deadlock's two requests never get the
 * lock: they open no section. */
static int lock_event(z3w_window *w, z3w_scratch *s, size_t i, size_t pos)
{
   const cb_event *e = &s->t->events[i];
   thread_st *th = &s->th[e->tid];
   if (e->kind == CB_EV_UNLOCK) {
      size_t sec = z3w_lock_release(th, e->addr);
      if (sec != Z3W_NONE)
         w->sec[sec].rel = pos;
      return 0;
   }
   if (w->kind == Z3W_DEADLOCK && (i == s->q->e2 || i == s->q->g))
      return 0;
   held_lock *h;
   if (z3w_lock_acquire(th, e->addr, e->size == CB_LOCK_RD, &h) < 0)
      return -1;
   if (h->depth == 1) {
      if (GROW(w->sec, w->nsec, s->capsec) < 0)
         return -1;
      h->section = w->nsec;
      w->sec[w->nsec++] = (z3w_section){e->addr, pos, Z3W_NONE, e->tid, h->shared};
   }
   return 0;
}

/* Pass 4: the window. */
static int window_events(z3w_window *w, z3w_scratch *s)
{
   const cb_event *ev = s->t->events;
   w->pe1 = w->pf = w->pe2 = w->pg = Z3W_NONE;
   for (size_t i = w->wb; i <= s->maxend; i++) {
      const cb_event *e = &ev[i];
      if (e->tid >= s->nth)
         continue;
      int in = z3w_in(s, i);
      size_t pos = Z3W_NONE;
      if (in && add_event(w, s, i, &pos) < 0)
         return -1;
      if ((e->kind == CB_EV_READ || e->kind == CB_EV_WRITE) &&
          !(e->flags & CB_EVF_LOCK_WORD) && mem_access(s, i, in, pos) < 0)
         return -1;
      if ((e->kind == CB_EV_LOCK || e->kind == CB_EV_UNLOCK) && in &&
          lock_event(w, s, i, pos) < 0)
         return -1;
   }
   return 0;
}

static void scratch_free(z3w_scratch *s)
{
   for (size_t i = 0; i < s->nth; i++)
      free(s->th[i].held);
   free(s->th);
   z3w_map_free(&s->mem);
}

int z3w_build(z3w_window *w, const cb_trace *t, const z3w_query *q,
              char *why, size_t whylen)
{
   z3w_scratch s;
   memset(w, 0, sizeof *w);
   memset(&s, 0, sizeof s);
   if (check_query(t, q, why, whylen) < 0)
      return -1;
   s.t = t;
   s.q = q;
   w->kind = q->kind;
   w->pf_read = t->events[q->f].kind == CB_EV_READ;
   w->cut = q->f > q->e2 ? q->f : q->e2;
   if (q->kind == Z3W_DEADLOCK && q->g > w->cut)
      w->cut = q->g;
   if (thread_ends(w, &s) < 0)
      goto oom;
   fit_limit(w, &s);
   if (state_at_begin(w, &s) < 0 || window_events(w, &s) < 0)
      goto oom;
   if (w->pe1 == Z3W_NONE || w->pf == Z3W_NONE || w->pe2 == Z3W_NONE ||
       (q->kind == Z3W_DEADLOCK && w->pg == Z3W_NONE)) {
      snprintf(why, whylen, "internal: e1, f or e2 fell out of the window");
      goto fail;
   }
   if (z3w_sync(w, &s) < 0 || z3w_reads(w, &s) < 0)
      goto oom;
   scratch_free(&s);
   return 0;
oom:
   snprintf(why, whylen, "out of memory");
fail:
   scratch_free(&s);
   z3w_free(w);
   return -1;
}

size_t z3w_pos(const z3w_window *w, size_t idx)
{
   size_t lo = 0, hi = w->nev;
   while (lo < hi) {
      size_t m = (lo + hi) / 2;
      if (w->ev[m].idx < idx)
         lo = m + 1;
      else
         hi = m;
   }
   return lo < w->nev && w->ev[lo].idx == idx ? lo : Z3W_NONE;
}

void z3w_free(z3w_window *w)
{
   free(w->ev);
   free(w->sec);
   free(w->before);
   free(w->late);
   free(w->waits);
   free(w->reads);
   z3w_arena_free(w->arena_);
   memset(w, 0, sizeof *w);
}
