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
 * The reads a pattern gives a value, and the value:
 *   RWR  e1 what the variable held before f (the value of its last write
 *        or read before f), e2 f's value; the candidate is seen when both
 *        are (a read whose value does not change saw it: itself);
 *   WWR  e2 f's value;  WRW  f e1's value;
 *   ORD  f (a read) what the variable held before e1 (a write), e1 (a
 *        read) f's value (a write);
 *   RWW, WWW, DLK, EXP: none (a lost update shows later, whatever the
 *        check before it read: a busy flag checked and then set).
 * Nor a candidate with the held tail F_HELD (alternates.c): a waiter's
 * predicate check that reads the flag still set, as it did every round,
 * then waits for the signal its thread's shutdown already sent.  Its
 * failure is the wait's timing, not the value: trial 18's thread pool at
 * -O0, whose `running = 0` without the mutex ranked 26th of 31 behind
 * order violations between critical sections of one lock, past cbtest's
 * budget (found by exploration only).
 * "That line" is the source line (an inlined helper's copies are one).
 * Another thread's read does not count: a lazy initialiser's first caller
 * reads its flag clear, and a second caller forced to read it clear too
 * initialises twice (unit predict_rank).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "rank.h"

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

/* A read of the pattern, whose forced value is event from's (a write),
 * or, with need, the variable's before event need. */
static query read_of(const cb_trace *t, uint64_t rd, uint64_t from, int need) {
   query q = {NONE, NONE, 0, 0};
   if (!is_kind(t, rd, CB_EV_READ) || from >= t->nevents) return q;
   q.rd = rd;
   if (need) {
      q.need = from;
      return q;
   }
   if (!is_kind(t, from, CB_EV_WRITE)) return (query){NONE, NONE, 0, 0};
   q.val = t->events[from].value;
   q.known = 1;
   return q;
}

/* The reads c's forced order (e1, f, e2) gives a value, at most two, in
 * q[0] and q[1] (rd NONE: none).  A read whose value does not change is
 * one its thread read at its line already: itself. */
static void pattern_reads(const cb_trace *t, const cbp_candidate *c, query q[2]) {
   q[0] = q[1] = (query){NONE, NONE, 0, 0};
   /* f may be a read-modify-write (fwidth 2): its store is the next event. */
   uint64_t fw = c->fwidth == 2 && is_kind(t, c->f, CB_EV_READ) ? c->f + 1 : c->f;
   switch (c->pattern) {
   case CBP_RWR: /* e1 before f's store, e2 after it */
      q[0] = read_of(t, c->e1, fw, 1);
      q[1] = read_of(t, c->e2, fw, 0);
      break;
   case CBP_WWR: q[0] = read_of(t, c->e2, fw, 0); break;
   case CBP_WRW: q[0] = read_of(t, c->f, c->e1, 0); break;
   case CBP_ORD:
      if (is_kind(t, c->f, CB_EV_READ) && is_kind(t, c->e1, CB_EV_WRITE))
         q[0] = read_of(t, c->f, c->e1, 1);
      else
         q[0] = read_of(t, c->e1, fw, 0);
      break;
   default: break;
   }
}

static seen_key key_of(const cb_trace *t, const cbp_escape *x, const uint32_t *site,
                       uint64_t i, uint64_t val) {
   uint32_t loc = t->events[i].loc;
   seen_key k = {loc < t->nlocs ? site[loc] : loc, x->var_of[i], t->events[i].tid, 0, val};
   return k;
}

/* The slot of key k in s, added when absent. */
static uint32_t seen_add(seen_set *s, const seen_key *k) {
   uint32_t *slot = cbp_map_probe(&s->m, key_hash(k), eq_key, s->k, k);
   if (*slot) return *slot - 1;
   s->k = cbp_grow(s->k, &s->cap, s->n, sizeof *s->k);
   s->k[s->n] = *k;
   *slot = (uint32_t)++s->n;
   cbp_map_added(&s->m, hash_key, s->k);
   return (uint32_t)(s->n - 1);
}

static int by_need(const void *a, const void *b) {
   const query *x = *(const query *const *)a, *y = *(const query *const *)b;
   return (x->need > y->need) - (x->need < y->need);
}

/* The values the ORD queries wait for: the variable's last write or read
 * before their event (a read shows the value too: a static initialiser
 * writes none).  One pass, up to the last such event. */
static void values_before(const cb_trace *t, const cbp_escape *x, query *q, size_t nq,
                          const uint8_t *want) {
   query **order = cbp_xcalloc(nq + 1, sizeof *order);
   size_t nneed = 0;
   for (size_t i = 0; i < nq; i++)
      if (q[i].rd != NONE && q[i].need != NONE) order[nneed++] = &q[i];
   qsort(order, nneed, sizeof *order, by_need);
   uint64_t *cur = cbp_xcalloc((size_t)x->nvars + 1, sizeof *cur);
   uint8_t *has = cbp_xcalloc((size_t)x->nvars + 1, 1);
   size_t next = 0;
   for (size_t i = 0; i < t->nevents && next < nneed; i++) {
      for (; next < nneed && order[next]->need == i; next++) {
         uint32_t v = x->var_of[order[next]->rd];
         order[next]->val = cur[v];
         order[next]->known = has[v];
      }
      const cb_event *e = &t->events[i];
      uint32_t v = x->var_of[i];
      if ((e->kind == CB_EV_READ || e->kind == CB_EV_WRITE) && v && v <= x->nvars && want[v]) {
         cur[v] = e->value;
         has[v] = 1;
      }
   }
   free(has);
   free(cur);
   free(order);
}

/* One pass: which of the keys in s some read of the recording has. */
static void mark_seen(const cb_trace *t, const cbp_escape *x, const uint32_t *site,
                      const uint8_t *want, seen_set *s, uint8_t *hit) {
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      uint32_t v = x->var_of[i];
      if (e->kind != CB_EV_READ || !v || v > x->nvars || !want[v]) continue;
      seen_key k = key_of(t, x, site, i, e->value);
      uint32_t *slot = cbp_map_probe(&s->m, key_hash(&k), eq_key, s->k, &k);
      if (*slot) hit[*slot - 1] = 1;
   }
}

uint8_t *cbp_rank_seen(const cb_trace *t, const cbp_escape *x, const cbp_result *r) {
   uint8_t *out = cbp_xcalloc(r->n + 1, 1);
   size_t nq = 2 * r->n;
   query *q = cbp_xcalloc(nq + 1, sizeof *q);
   uint8_t *want = cbp_xcalloc((size_t)x->nvars + 1, 1);
   size_t nwant = 0;
   for (size_t i = 0; i < r->n; i++) {
      const cbp_candidate *c = &r->c[i];
      q[2 * i] = q[2 * i + 1] = (query){NONE, NONE, 0, 0};
      if (c->built && !c->dropped && !c->nalt[CBP_ALT_F_HELD]) pattern_reads(t, c, &q[2 * i]);
      for (size_t k = 2 * i; k < 2 * i + 2; k++) {
         uint32_t v = q[k].rd != NONE ? x->var_of[q[k].rd] : 0;
         if (!v || v > x->nvars) q[k].rd = NONE;
         else if (!want[v]) { want[v] = 1; nwant++; }
      }
   }
   if (nwant) {
      /* The keys the forced reads would have, then one look-up per read
       * of a wanted variable (no table of every value read). */
      values_before(t, x, q, nq, want);
      uint32_t *site = cbp_loc_sites(t), *kidx = cbp_xcalloc(nq + 1, sizeof *kidx);
      seen_set s;
      memset(&s, 0, sizeof s);
      cbp_map_init(&s.m, 64);
      for (size_t k = 0; k < nq; k++)
         if (q[k].rd != NONE && q[k].known) {
            seen_key key = key_of(t, x, site, q[k].rd, q[k].val);
            kidx[k] = seen_add(&s, &key) + 1;
         }
      uint8_t *hit = cbp_xcalloc(s.n + 1, 1);
      if (s.n) mark_seen(t, x, site, want, &s, hit);
      /* Seen: every read the pattern gives a value saw it before (and
       * there is one). */
      for (size_t i = 0; i < r->n; i++) {
         int any = 0, all = 1;
         for (size_t k = 2 * i; k < 2 * i + 2; k++) {
            if (q[k].rd == NONE) continue;
            any = 1;
            all &= kidx[k] && hit[kidx[k] - 1];
         }
         out[i] = (uint8_t)(any && all);
      }
      free(hit);
      cbp_map_free(&s.m);
      free(s.k);
      free(kidx);
      free(site);
   }
   free(want);
   free(q);
   return out;
}
