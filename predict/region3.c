/* region3.c: PENELOPE section 4.2's region III, the one place two
 * threads of a schedule interleave by locks (synthesis.c builds the rest).
 *
 * T1 runs from its cut x1 to e (or further, synthesis.c's t1_past_e) and
 * T2 from its cut to just before f, interleaved by the causal edges of the
 * acquisition histories: for a lock l held at f and acquired-and-released
 * by T1 while it held l' (l in AH_e(l')), T1's last release of l comes
 * before T2's last acquisition of l; and symmetrically.  The interleaving
 * is then checked by simulating both threads' locks, T1 first and, failing
 * that, T2 first.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "predict.h"

#define NONE UINT64_MAX

static uint64_t pos_of(cbp_point p) { return p.tidx == NONE ? 0 : p.tidx + 1; }

/* Lock events of one thread between two cuts (lock: the id in its mode). */
typedef struct { uint64_t idx; uint32_t lock; uint8_t acquire; } lockev;
typedef struct { lockev *v; size_t n, cap; } lockevs;

static void collect(const cb_trace *t, cbp_locks *L, uint32_t tid, cbp_point from,
                    uint64_t to_count, lockevs *out) {
   out->n = 0;
   uint64_t c = from.count;
   cbp_held h; memset(&h, 0, sizeof h); /* an unlock's mode is the one held */
   for (size_t i = pos_of(from); i < t->nevents && c < to_count; i++) {
      const cb_event *e = &t->events[i];
      if (e->tid != tid || e->kind >= CB_EV_KIND_COUNT || !CB_IS_COUNTED(e->kind)) continue;
      if (e->kind == CB_EV_LOCK || e->kind == CB_EV_UNLOCK) {
         uint32_t l = cbp_lock_of(L, &h, e);
         if (e->kind == CB_EV_LOCK) cbp_held_acquire(&h, l); else cbp_held_release(&h, l);
         out->v = cbp_grow(out->v, &out->cap, out->n, sizeof *out->v);
         out->v[out->n++] = (lockev){c, l, e->kind == CB_EV_LOCK};
      }
      c++;
   }
   cbp_held_free(&h);
}

typedef struct { int who; uint64_t blocked_at, other_needs; } edge;

/* Edges "thread `who` may not run its event blocked_at before the other has
 * run other_needs events", from lock l in LS(at_other) that some lock in
 * an AH(l') of LS(at_me) conflicts with: my last release of such a lock
 * before the other's last acquire of l. */
static size_t edges_for(cbp_locks *L, uint32_t ls_me, uint32_t ls_other,
                        const lockevs *me, const lockevs *other, int other_who,
                        edge *out, size_t nout, size_t max) {
   uint32_t no = cbp_locks_nheld(L, ls_other), nm = cbp_locks_nheld(L, ls_me);
   for (uint32_t i = 0; i < no; i++) {
      const uint32_t *ah; uint32_t nah;
      uint32_t l = cbp_locks_held(L, ls_other, i, &ah, &nah);
      int in_ah = 0;
      for (uint32_t j = 0; j < nm && !in_ah; j++) {
         const uint32_t *ah2; uint32_t n2;
         cbp_locks_held(L, ls_me, j, &ah2, &n2);
         for (uint32_t k = 0; k < n2; k++) if (cbp_locks_conflict(L, ah2[k], l)) in_ah = 1;
      }
      if (!in_ah) continue;
      uint64_t u = NONE, v = NONE;
      for (size_t k = 0; k < me->n; k++)
         if (!me->v[k].acquire && cbp_locks_conflict(L, me->v[k].lock, l)) u = me->v[k].idx;
      for (size_t k = 0; k < other->n; k++)
         if (other->v[k].lock == l && other->v[k].acquire) v = other->v[k].idx;
      if (u == NONE || v == NONE || nout >= max) continue;
      out[nout++] = (edge){other_who, v, u + 1};
   }
   return nout;
}

/* Simulates the locks of T1 and T2 along the steps; 0 if one would block. */
static int lock_valid(const cbp_locks *L, const cbp_step *steps, size_t n, const uint32_t tids[2],
                      const lockevs ev[2], const uint64_t start[2]) {
   cbp_held h[2]; memset(h, 0, sizeof h);
   uint64_t pos[2] = {start[0], start[1]};
   size_t k[2] = {0, 0};
   int ok = 1;
   for (size_t s = 0; s < n && ok; s++) {
      int w = steps[s].tid == tids[0] ? 0 : 1;
      uint64_t end = pos[w] + steps[s].count;
      while (k[w] < ev[w].n && ev[w].v[k[w]].idx < end) {
         const lockev *x = &ev[w].v[k[w]++];
         if (x->acquire) {
            if (cbp_held_conflicts(L, &h[!w], x->lock)) ok = 0;
            cbp_held_acquire(&h[w], x->lock);
         } else {
            cbp_held_release(&h[w], x->lock);
         }
      }
      pos[w] = end;
   }
   cbp_held_free(&h[0]); cbp_held_free(&h[1]);
   return ok;
}

int cbp_region3(const cb_trace *t, cbp_locks *L, cbp_candidate *c, uint64_t t1_to,
                      cbp_point from2, cbp_step **out, size_t *nout, size_t *capout) {
   uint64_t p[2] = {c->x1.count, from2.count};
   uint64_t target[2] = {t1_to, c->cf};
   uint32_t tids[2] = {c->t1, c->t2};
   *nout = 0;
   if (p[0] >= target[0] && p[1] >= target[1]) return 1;
   lockevs ev[2]; memset(ev, 0, sizeof ev);
   collect(t, L, c->t1, c->x1, target[0], &ev[0]);
   collect(t, L, c->t2, from2, target[1], &ev[1]);
   edge edges[64];
   size_t ne = edges_for(L, c->ls_e, c->ls_f, &ev[0], &ev[1], 1, edges, 0, 64);
   ne = edges_for(L, c->ls_f, c->ls_e, &ev[1], &ev[0], 0, edges, ne, 64);
   int ok = 0;
   for (int first = 0; first < 2 && !ok; first++) {
      uint64_t q[2] = {p[0], p[1]};
      *nout = 0;
      int stuck = 0;
      while ((q[0] < target[0] || q[1] < target[1]) && !stuck) {
         stuck = 1;
         for (int r = 0; r < 2; r++) {
            int w = (first + r) & 1;
            uint64_t limit = target[w];
            for (size_t k = 0; k < ne; k++)
               if (edges[k].who == w && q[!w] < edges[k].other_needs &&
                   edges[k].blocked_at < limit)
                  limit = edges[k].blocked_at;
            if (limit > q[w]) {
               *out = cbp_grow(*out, capout, *nout, sizeof **out);
               (*out)[(*nout)++] = (cbp_step){tids[w], limit - q[w]};
               q[w] = limit;
               stuck = 0;
            }
         }
      }
      if (!stuck && lock_valid(L, *out, *nout, tids, ev, p)) ok = 1;
   }
   free(ev[0].v); free(ev[1].v);
   return ok;
}
