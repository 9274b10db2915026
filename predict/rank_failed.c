/* rank_failed.c: the violations a failing recording shows.
 *
 * A test that fails in every recorded run (under Valgrind's scheduler a
 * textbook `tmp = balance; usleep(1); balance = tmp + 1` always does) is
 * predicted from a run that failed (cbtest), and then every forced run
 * fails, whatever it forces: the schedule ranked first is the one reported.
 * The run that failed says more: the shapes that actually happened in it,
 * a thread's access to a variable, another thread's conflicting access,
 * then the first thread's next access to it, are where the failure most
 * likely came from.  Candidates with such a shape (pattern, variable and
 * the three code sites; the threads may differ) are ranked first (rank.c).
 *
 * "Next access" is the thread's adjacent access to the variable (the pair
 * a check-then-act or a read-modify-write spans, as cut_blocks.c's root
 * block pairs them), with no synchronisation of that thread between them
 * (a lock, an unlock, a wait, a post...): a `log_lines++` under its lock
 * in each round of a loop writes at the end of one critical section and
 * reads at the start of the next, and a `while (full) pthread_cond_wait`
 * reads its flag before and after the wait; another thread's write between
 * them happens in any run, saying nothing about the failure; so does a
 * spin on a flag, its read at one line before and after the write (an
 * RWR at one site never counts: blind trial 19's mailbox, whose display
 * spins on `ready` in every run, had that spin named as the bug of a run
 * that failed because the sensor raised the flag first).  Only a read
 * then a write in a later critical section, another thread's write between
 * (RWW), counts across them: a check and an act, which a lock released
 * between does not make atomic (the stale check).  The other
 * thread's access is the variable's last write between them (RWR, RWW,
 * WWR, WWW), or for WRW its last read.  With --recorded-failed only these
 * candidates' schedules are written (write_schedules.c): a test failing
 * for a reason of its own, not a race, then gets none rather than its
 * first-ranked shape named as the bug.  Nothing is computed for a run that
 * passed, deadlocked (the deadlock is its own report) or was cut short.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "rank.h"

typedef struct { uint32_t pat, var, s1, sf, s2, pad; } shape_key;

typedef struct {
   shape_key *k;
   size_t n, cap;
   cbp_map m;
} shape_set;

/* A thread's latest access to a variable (key var, tid). */
typedef struct { uint32_t var, tid; uint64_t idx; uint32_t site, epoch; uint8_t kind; } last_own;

typedef struct {
   last_own *a;
   size_t n, cap;
   cbp_map m;
} own_set;

/* The variable's latest write and read: trace index + 1 (0: none), site. */
typedef struct { uint64_t w, r; uint32_t wsite, rsite; } var_last;

static int eq_shape(const void *ctx, uint32_t idx, const void *key) {
   return !memcmp(&((const shape_key *)ctx)[idx], key, sizeof(shape_key));
}

static uint64_t shape_hash(const shape_key *k) {
   return cbp_mix(((uint64_t)k->pat << 32 | k->var) ^
                  cbp_mix((uint64_t)k->s1 << 32 | k->sf) ^ cbp_mix(k->s2));
}

static uint64_t hash_shape(const void *ctx, uint32_t idx) {
   return shape_hash(&((const shape_key *)ctx)[idx]);
}

static int eq_own(const void *ctx, uint32_t idx, const void *key) {
   const last_own *a = &((const last_own *)ctx)[idx], *b = key;
   return a->var == b->var && a->tid == b->tid;
}

static uint64_t own_hash(uint32_t var, uint32_t tid) {
   return cbp_mix((uint64_t)var << 32 | tid);
}

static uint64_t hash_own(const void *ctx, uint32_t idx) {
   const last_own *a = &((const last_own *)ctx)[idx];
   return own_hash(a->var, a->tid);
}

/* The slot of k in s (1-based), added when add, else 0 when absent. */
static uint32_t shape_find(shape_set *s, const shape_key *k, int add) {
   uint32_t *slot = cbp_map_probe(&s->m, shape_hash(k), eq_shape, s->k, k);
   if (*slot || !add) return *slot;
   s->k = cbp_grow(s->k, &s->cap, s->n, sizeof *s->k);
   s->k[s->n] = *k;
   *slot = (uint32_t)++s->n;
   cbp_map_added(&s->m, hash_shape, s->k);
   return *slot;
}

/* Thread tid's latest access to var, created empty (idx 0: none). */
static last_own *own_of(own_set *o, uint32_t var, uint32_t tid) {
   last_own key = {var, tid, 0, 0, 0, 0};
   uint32_t *slot = cbp_map_probe(&o->m, own_hash(var, tid), eq_own, o->a, &key);
   if (*slot) return &o->a[*slot - 1];
   o->a = cbp_grow(o->a, &o->cap, o->n, sizeof *o->a);
   o->a[o->n] = key;
   *slot = (uint32_t)++o->n;
   cbp_map_added(&o->m, hash_own, o->a);
   return &o->a[o->n - 1];
}

/* The pattern of accesses of kinds a, f, b (1: a write), or -1. */
static int pattern_of(int a, int f, int b) {
   if (!f) return a && b ? CBP_WRW : -1;
   return a ? (b ? CBP_WWW : CBP_WWR) : (b ? CBP_RWW : CBP_RWR);
}

/* One pass over the wanted variables' accesses: marks hit[slot] for each
 * shape of s the run showed. */
static void mark_shown(const cb_trace *t, const cbp_escape *x, const uint32_t *sites,
                       const uint8_t *want, shape_set *s, uint8_t *hit) {
   var_last *vl = cbp_xcalloc((size_t)x->nvars + 1, sizeof *vl);
   uint32_t *epoch = cbp_xcalloc((size_t)t->nthreads + 1, sizeof *epoch);
   own_set o;
   memset(&o, 0, sizeof o);
   cbp_map_init(&o.m, 64);
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      uint32_t v = x->var_of[i];
      if (e->kind != CB_EV_READ && e->kind != CB_EV_WRITE) {
         if (cbp_counted_event(e, t->nthreads)) epoch[e->tid]++;
         continue;
      }
      if (!v || v > x->nvars || !want[v] || e->tid > t->nthreads) continue;
      int w = e->kind == CB_EV_WRITE;
      uint32_t site = cbp_site_at(t, sites, i);
      last_own *p = own_of(&o, v, e->tid);
      var_last *l = &vl[v];
      /* Another thread's access after p's: the thread's own would be p. */
      int apart = p->epoch != epoch[e->tid]; /* see the head */
      for (int fw = 1; p->idx && fw >= 0; fw--) {
         uint64_t at = fw ? l->w : l->r;
         int pat = pattern_of(p->kind, fw, w);
         if (pat < 0 || at <= p->idx || (apart && pat != CBP_RWW) ||
             (pat == CBP_RWR && p->site == site))
            continue;
         shape_key k = {(uint32_t)pat, v, p->site, fw ? l->wsite : l->rsite, site, 0};
         uint32_t slot = shape_find(s, &k, 0);
         if (slot) hit[slot - 1] = 1;
      }
      p->idx = i + 1;
      p->site = site;
      p->kind = (uint8_t)w;
      p->epoch = epoch[e->tid];
      if (w) { l->w = i + 1; l->wsite = site; }
      else { l->r = i + 1; l->rsite = site; }
   }
   cbp_map_free(&o.m);
   free(o.a);
   free(epoch);
   free(vl);
}

uint8_t *cbp_rank_failed(const cb_trace *t, const cbp_escape *x, const cbp_result *r,
                         size_t *nshown) {
   *nshown = 0;
   if (!cb_trace_failed(t) || !r->n) return NULL;
   uint8_t *out = cbp_xcalloc(r->n, 1);
   uint32_t *sites = cbp_loc_sites(t);
   uint32_t *kidx = cbp_xcalloc(r->n, sizeof *kidx);
   uint8_t *want = cbp_xcalloc((size_t)x->nvars + 1, 1);
   shape_set s;
   memset(&s, 0, sizeof s);
   cbp_map_init(&s.m, 64);
   for (size_t i = 0; i < r->n; i++) {
      const cbp_candidate *c = &r->c[i];
      if (!c->built || c->dropped || c->pattern > CBP_WWW || !c->var || c->var > x->nvars ||
          c->e1 >= t->nevents || c->f >= t->nevents || c->e2 >= t->nevents)
         continue;
      shape_key k = {(uint32_t)c->pattern, c->var, cbp_site_at(t, sites, c->e1),
                     cbp_site_at(t, sites, c->f), cbp_site_at(t, sites, c->e2), 0};
      kidx[i] = shape_find(&s, &k, 1);
      want[c->var] = 1;
   }
   if (s.n) {
      uint8_t *hit = cbp_xcalloc(s.n, 1);
      mark_shown(t, x, sites, want, &s, hit);
      for (size_t i = 0; i < r->n; i++)
         if (kidx[i] && hit[kidx[i] - 1]) { out[i] = 1; ++*nshown; }
      free(hit);
   }
   cbp_map_free(&s.m);
   free(s.k);
   free(want);
   free(kidx);
   free(sites);
   return out;
}
