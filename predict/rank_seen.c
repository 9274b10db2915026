/* rank_seen.c: whether the read a schedule moves would see a value its
 * code already saw in the recorded run.
 *
 * Many candidates on a polled variable change one read's writer and
 * nothing else: a consumer's `if (atomic_load(&producing) == 0)` forced
 * before the last producer's decrement reads 1 and polls once more; a
 * worker's `while (!stop)` reads 0 once more.  When that thread already
 * read that value from that variable at that line in the recorded run, it
 * has already taken the path the schedule forces, and passed: the forced run
 * can only fail by something the schedule does not describe.  Test 47's
 * spin ring, whose runs lose a record whatever is forced, had its done
 * counter's order ranked first (its lines are the rarest) and reported
 * as the bug in clean clones.  Such candidates are ranked after those
 * whose read is new (rank.c), not dropped: one value is not the program's
 * whole state.
 *
 * The read a pattern moves, and the value it is forced to see:
 *   RWR, WWR  e2 sees f's value;  WRW  f sees e1's value;
 *   ORD       f (a read) sees what the variable held before e1 (a write:
 *             the value its last write or read before e1 had),
 *             e1 (a read) sees f's value (a write);
 *   RWW, WWW, DLK, EXP: no read moves (a lost update shows later).
 * "That line" is the source line (an inlined helper's copies are one).
 * Another thread's read does not count: a lazy initialiser's first caller
 * reads its flag clear, and a second caller forced to read it clear too
 * initialises twice (unit predict_rank).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "predict.h"

#define NONE UINT64_MAX

typedef struct {
   uint64_t rd;    /* the moved read's trace index, NONE: no read moves */
   uint64_t need;  /* the value is the variable's before this event */
   uint64_t val;
   int known;
} query;

typedef struct { uint32_t site, var, tid, pad; uint64_t val; } seen_key;

typedef struct {
   seen_key *k;
   size_t n, cap;
   cbp_map m;
} seen_set;

static int eq_key(const void *ctx, uint32_t idx, const void *key) {
   return !memcmp(&((const seen_key *)ctx)[idx], key, sizeof(seen_key));
}

static uint64_t key_hash(const seen_key *k) {
   return cbp_mix(((uint64_t)k->site << 32 | k->var) ^ cbp_mix(k->val + k->tid));
}

static uint64_t hash_key(const void *ctx, uint32_t idx) {
   return key_hash(&((const seen_key *)ctx)[idx]);
}

static int is_kind(const cb_trace *t, uint64_t i, int kind) {
   return i < t->nevents && t->events[i].kind == kind;
}

/* The read c moves and the value it will see (or the event before which
 * the variable's value is that value). */
static query moved_read(const cb_trace *t, const cbp_candidate *c) {
   query q = {NONE, NONE, 0, 0};
   uint64_t rd = NONE, from = NONE;
   /* f may be a read-modify-write (fwidth 2): its store is the next event. */
   uint64_t fw = c->fwidth == 2 && is_kind(t, c->f, CB_EV_READ) ? c->f + 1 : c->f;
   switch (c->pattern) {
   case CBP_RWR: case CBP_WWR: rd = c->e2; from = fw; break;
   case CBP_WRW: rd = c->f; from = c->e1; break;
   case CBP_ORD:
      if (is_kind(t, c->f, CB_EV_READ) && is_kind(t, c->e1, CB_EV_WRITE)) {
         q.rd = c->f;
         q.need = c->e1;
         return q;
      }
      rd = c->e1; from = fw;
      break;
   default: return q;
   }
   if (!is_kind(t, rd, CB_EV_READ) || !is_kind(t, from, CB_EV_WRITE)) return q;
   q.rd = rd;
   q.val = t->events[from].value;
   q.known = 1;
   return q;
}

static seen_key key_of(const cb_trace *t, const cbp_escape *x, uint64_t i, uint64_t val) {
   seen_key k = {cbp_code_site(t, i), x->var_of[i], t->events[i].tid, 0, val};
   return k;
}

static void seen_add(seen_set *s, const seen_key *k) {
   uint32_t *slot = cbp_map_probe(&s->m, key_hash(k), eq_key, s->k, k);
   if (*slot) return;
   s->k = cbp_grow(s->k, &s->cap, s->n, sizeof *s->k);
   s->k[s->n] = *k;
   *slot = (uint32_t)++s->n;
   cbp_map_added(&s->m, hash_key, s->k);
}

static int seen_has(seen_set *s, const seen_key *k) {
   return s->n && *cbp_map_probe(&s->m, key_hash(k), eq_key, s->k, k) != 0;
}

static int by_need(const void *a, const void *b) {
   const query *x = *(const query *const *)a, *y = *(const query *const *)b;
   return (x->need > y->need) - (x->need < y->need);
}

/* One pass over the trace: the values the queries wait for (the
 * variable's last write or read before their event), and every value a read of a
 * wanted variable saw, by line. */
static void scan(const cb_trace *t, const cbp_escape *x, query *q, size_t nq,
                 const uint8_t *want, seen_set *s) {
   query **order = cbp_xcalloc(nq + 1, sizeof *order);
   size_t nneed = 0;
   for (size_t i = 0; i < nq; i++)
      if (q[i].rd != NONE && q[i].need != NONE) order[nneed++] = &q[i];
   qsort(order, nneed, sizeof *order, by_need);
   uint64_t *cur = cbp_xcalloc((size_t)x->nvars + 1, sizeof *cur);
   uint8_t *has = cbp_xcalloc((size_t)x->nvars + 1, 1);
   size_t next = 0;
   for (size_t i = 0; i < t->nevents; i++) {
      for (; next < nneed && order[next]->need == i; next++) {
         uint32_t v = x->var_of[order[next]->rd];
         order[next]->val = cur[v];
         order[next]->known = has[v];
      }
      const cb_event *e = &t->events[i];
      uint32_t v = x->var_of[i];
      if ((e->kind != CB_EV_READ && e->kind != CB_EV_WRITE) || !v || v > x->nvars || !want[v])
         continue;
      /* A read shows the value too: a static initialiser writes none. */
      cur[v] = e->value;
      has[v] = 1;
      if (e->kind == CB_EV_READ) {
         seen_key k = key_of(t, x, i, e->value);
         seen_add(s, &k);
      }
   }
   free(has);
   free(cur);
   free(order);
}

uint8_t *cbp_rank_seen(const cb_trace *t, const cbp_escape *x, const cbp_result *r) {
   uint8_t *out = cbp_xcalloc(r->n + 1, 1);
   query *q = cbp_xcalloc(r->n + 1, sizeof *q);
   uint8_t *want = cbp_xcalloc((size_t)x->nvars + 1, 1);
   size_t nwant = 0;
   for (size_t i = 0; i < r->n; i++) {
      const cbp_candidate *c = &r->c[i];
      q[i] = c->built && !c->dropped ? moved_read(t, c) : (query){NONE, NONE, 0, 0};
      uint32_t v = q[i].rd != NONE ? x->var_of[q[i].rd] : 0;
      if (!v || v > x->nvars) q[i].rd = NONE;
      else if (!want[v]) { want[v] = 1; nwant++; }
   }
   if (nwant) {
      seen_set s;
      memset(&s, 0, sizeof s);
      cbp_map_init(&s.m, 64);
      scan(t, x, q, r->n, want, &s);
      for (size_t i = 0; i < r->n; i++) {
         if (q[i].rd == NONE || !q[i].known) continue;
         seen_key k = key_of(t, x, q[i].rd, q[i].val);
         out[i] = (uint8_t)seen_has(&s, &k);
      }
      cbp_map_free(&s.m);
      free(s.k);
   }
   free(want);
   free(q);
   return out;
}
