/* explore.c: `cbpredict --delays N`: delay schedules, for when prediction
 * runs dry (cbtest --explore).
 *
 * A delay schedule follows the recorded run up to a delay point and holds
 * that point's thread back while the others run: delay bounding (Emmi,
 * Qadeer and Rakamaric, POPL 2011) and PCT's priority change points
 * (Burckhardt et al., ASPLOS 2010) over the same replay engine, with the
 * points only where a switch can matter: before a thread's access to a
 * conflicting variable (two threads touch it, one writes) and before its
 * synchronisation calls (locks, waits, signals, barriers, semaphores), never
 * at every instruction.  With d delays the
 * held thread's place is taken by a chain: the thread of the second point
 * runs alone to it and is held there in turn, and so on; after the last
 * point every other thread runs out, one at a time (alone until it exits or
 * blocks), then the held thread, and then everyone is released.
 * Written as an ordinary schedule (pattern "explore"): prefix = the
 * recorded cut before the first point, tail = the chain's counted steps,
 * then the run-outs.  A chain replay cannot follow (cbp_plan_check: a step
 * into a lock a held thread holds, a thread not yet created) is not written.
 *
 * Which, deterministic for one --seed: every single delay first (each
 * point once, in an order the seed shuffles), then chains of 2 .. N points
 * drawn at random, until --max are written.  No ordering is written twice
 * (cbp_candidate_digest of the schedule), nor one given as --seen (what
 * cbtest already forced in earlier rounds).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict.h"
#include "explore.h"

/* Chains drawn per schedule still wanted before a depth is given up. */
#define DRAWS_PER_WANTED 8

typedef struct {
   uint32_t tid;
   uint64_t k;  /* the thread's counted index of the event held back */
   size_t i;    /* its trace index */
} point;

typedef struct {
   const cb_trace *t;
   cbp_analysis *a;
   const cbp_explore_options *o;
   cbp_explore_result *res;
   uint32_t n;                 /* threads 1..n */
   size_t **ev; uint64_t *nev; /* per thread: trace indices of counted events */
   point *pts; size_t npts;
   size_t **tp; size_t *ntp;   /* per thread: its points (indices into pts) */
   uint64_t rng;
   uint64_t *digests; size_t ndigests, capdigests; /* seen, then written */
   size_t nseen;               /* the first nseen are --seen's */
   cbp_map dmap;
   uint64_t *prefix, *cur;     /* scratch, n entries */
   cbp_step *tail;             /* scratch, delays + n steps */
   const char *dir;
   uint32_t next_id;
} explorer;

/* splitmix64: a small generator whose whole state is the seed. */
static uint64_t next_rand(explorer *X) {
   uint64_t z = (X->rng += 0x9e3779b97f4a7c15ull);
   z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
   z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
   return z ^ (z >> 31);
}

static size_t rand_below(explorer *X, size_t n) {
   return n ? (size_t)(next_rand(X) % n) : 0;
}

/* ---- The set of orderings (digests) ----------------------------------- */

static uint64_t dhash(const void *ctx, uint32_t idx) {
   return cbp_mix(((const explorer *)ctx)->digests[idx]);
}

static int deq(const void *ctx, uint32_t idx, const void *key) {
   return ((const explorer *)ctx)->digests[idx] == *(const uint64_t *)key;
}

/* Adds d; 0 when it was there already. */
static int digest_add(explorer *X, uint64_t d) {
   uint32_t *slot = cbp_map_probe(&X->dmap, cbp_mix(d), deq, X, &d);
   if (*slot) return 0;
   X->digests = cbp_grow(X->digests, &X->capdigests, X->ndigests, sizeof *X->digests);
   X->digests[X->ndigests] = d;
   *slot = (uint32_t)++X->ndigests;
   cbp_map_added(&X->dmap, dhash, X);
   return 1;
}

/* Its index in X->digests, or -1. */
static long digest_find(explorer *X, uint64_t d) {
   return (long)*cbp_map_probe(&X->dmap, cbp_mix(d), deq, X, &d) - 1;
}

/* ---- Delay points ------------------------------------------------------- */

/* Synchronisation calls where holding a thread can matter.  Not a create
 * (holding the creator before it is the same as before its next access,
 * and the tool gives creates no code location to name) nor a join (a
 * thread held there waits anyway). */
static int is_sync(uint8_t kind) {
   return CB_IS_COUNTED(kind) && kind != CB_EV_READ && kind != CB_EV_WRITE &&
          kind != CB_EV_THREAD_CREATE && kind != CB_EV_THREAD_JOIN;
}

/* Per variable: bit 0 some thread writes it, bit 1 two threads touch it. */
static uint8_t *conflicting_vars(const cb_trace *t, const cbp_escape *x) {
   uint8_t *flags = cbp_xcalloc(x->nvars + 1, 1);
   uint32_t *first = cbp_xcalloc(x->nvars + 1, sizeof *first);
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      uint32_t v = x->var_of[i];
      if ((e->kind != CB_EV_READ && e->kind != CB_EV_WRITE) || !v || v > x->nvars ||
          !x->var_shared[v])
         continue;
      if (e->kind == CB_EV_WRITE) flags[v] |= 1;
      if (!first[v]) first[v] = e->tid;
      else if (first[v] != e->tid) flags[v] |= 2;
   }
   free(first);
   return flags;
}

/* Each thread's counted events, and the points among them: a point holds
 * its thread before the event, so the thread's previous counted event must
 * allow a cut after it. */
static void find_points(explorer *X) {
   const cb_trace *t = X->t;
   const cbp_escape *x = &X->a->x;
   uint8_t *conf = conflicting_vars(t, x);
   size_t *cap = cbp_xcalloc(X->n + 1, sizeof *cap), *tcap = cbp_xcalloc(X->n + 1, sizeof *tcap);
   size_t ptcap = 0;
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      uint32_t w = e->tid;
      if (w == 0 || w > X->n || e->kind >= CB_EV_KIND_COUNT || !CB_IS_COUNTED(e->kind))
         continue;
      uint64_t k = X->nev[w];
      uint32_t v = x->var_of[i];
      int access = (e->kind == CB_EV_READ || e->kind == CB_EV_WRITE) && v && v <= x->nvars &&
                   conf[v] == 3;
      int cut = k == 0 || cbp_cut_ok(x, X->ev[w][k - 1]);
      X->ev[w] = cbp_grow(X->ev[w], &cap[w], X->nev[w], sizeof **X->ev);
      X->ev[w][X->nev[w]++] = i;
      if (!cut || !(access || is_sync(e->kind))) continue;
      X->pts = cbp_grow(X->pts, &ptcap, X->npts, sizeof *X->pts);
      X->pts[X->npts] = (point){w, k, i};
      X->tp[w] = cbp_grow(X->tp[w], &tcap[w], X->ntp[w], sizeof **X->tp);
      X->tp[w][X->ntp[w]++] = X->npts++;
   }
   free(conf); free(cap); free(tcap);
}

/* Counted events of thread w before trace index i. */
static uint64_t count_before(const explorer *X, uint32_t w, size_t i) {
   size_t lo = 0, hi = X->nev[w];
   while (lo < hi) {
      size_t m = (lo + hi) / 2;
      if (X->ev[w][m] < i) lo = m + 1; else hi = m;
   }
   return lo;
}

/* ---- One chain -> one schedule ------------------------------------------ */

/* Prefix and tail of the chain in X->prefix, X->tail; the number of tail
 * steps, or 0 when the chain is no chain (a thread twice in a row, or a
 * point its thread has passed already).  *counted: the chain's steps. */
static uint32_t chain_plan(explorer *X, const point *ch, unsigned d, uint32_t *counted) {
   for (uint32_t u = 1; u <= X->n; u++)
      X->cur[u - 1] = X->prefix[u - 1] = count_before(X, u, ch[0].i);
   uint32_t ns = 0;
   for (unsigned j = 1; j < d; j++) {
      uint32_t u = ch[j].tid;
      if (u == ch[j - 1].tid || ch[j].k <= X->cur[u - 1]) return 0;
      X->tail[ns++] = (cbp_step){u, ch[j].k - X->cur[u - 1]};
      X->cur[u - 1] = ch[j].k;
   }
   *counted = ns;
   uint32_t held = ch[d - 1].tid, outs = 0;
   for (uint32_t u = 1; u <= X->n; u++)
      if (u != held && X->cur[u - 1] < X->nev[u]) {
         X->tail[ns++] = (cbp_step){u, CBP_RUN_OUT};
         outs++;
      }
   /* Then the held thread alone: one order after the hold, not whichever
    * the scheduler picks on release (a run that fails should fail again). */
   X->tail[ns++] = (cbp_step){held, CBP_RUN_OUT};
   return outs ? ns : 0; /* nobody to run while the held thread waits */
}

/* The candidate schedule_out.c writes: e1 the first point, f the second,
 * e2 the last (one point: all three), the variable the first point's. */
static void chain_candidate(const explorer *X, const point *ch, unsigned d,
                            uint32_t ntail, cbp_candidate *c) {
   memset(c, 0, sizeof *c);
   const point *p1 = &ch[0], *p2 = &ch[d > 1 ? 1 : 0], *pl = &ch[d - 1];
   c->pattern = CBP_EXP;
   c->addr = X->t->events[p1->i].addr;
   c->t1 = p1->tid;
   c->t2 = p2->tid;
   c->e1 = c->e = p1->i; c->ce1 = c->ce = p1->k;
   c->f = p2->i; c->cf = p2->k;
   c->e2 = pl->i; c->ce2 = pl->k;
   c->prefix = X->prefix;
   c->tail = X->tail;
   c->ntail = ntail;
   c->built = 1;
   c->z3 = "";
}

static void keep_row(explorer *X, uint32_t id, const point *ch, unsigned d) {
   cbp_explore_result *r = X->res;
   r->rows = cbp_grow(r->rows, &r->caprows, r->nrows, sizeof *r->rows);
   cbp_explore_row *row = &r->rows[r->nrows++];
   const point *pick[3] = {&ch[0], &ch[d > 1 ? 1 : 0], &ch[d - 1]};
   row->id = id;
   row->delays = d;
   for (int k = 0; k < 3; k++) {
      row->at[k] = pick[k]->i;
      row->index[k] = pick[k]->k;
   }
   row->ntids = d < CBP_EXPLORE_SHOWN ? d : CBP_EXPLORE_SHOWN;
   for (unsigned j = 0; j < row->ntids; j++) row->tids[j] = ch[j].tid;
   r->by_depth[d]++;
}

/* Writes the chain's schedule unless its ordering was written or seen, or
 * replay cannot follow it.  1 written, 0 not, -1 the file failed. */
static int try_chain(explorer *X, const point *ch, unsigned d, cb_error *err) {
   cbp_explore_result *r = X->res;
   uint32_t counted, ntail = chain_plan(X, ch, d, &counted);
   if (!ntail) return 0;
   cbp_analysis *a = X->a;
   cbp_candidate c;
   chain_candidate(X, ch, d, ntail, &c);
   uint64_t dg = cbp_candidate_digest(&a->x, &c);
   long known = digest_find(X, dg);
   if (known >= 0) {
      if ((size_t)known < X->nseen) r->seen++;
      else r->duplicates++;
      return 0;
   }
   if (cbp_plan_check(X->t, &a->x, &a->v, a->L, X->prefix, X->tail, counted)) {
      digest_add(X, dg); /* not asked again */
      r->unfollowable++;
      return 0;
   }
   c.id = X->next_id;
   char path[4096];
   snprintf(path, sizeof path, "%s/s%u.pb", X->dir, c.id);
   if (cbp_schedule_write(X->t, a, &c, path, err)) return -1;
   digest_add(X, dg);
   keep_row(X, c.id, ch, d);
   X->next_id++;
   r->written++;
   return 1;
}

/* ---- Which chains ---------------------------------------------------------- */

/* Every single delay, in an order the seed shuffles; on a large trace at
 * most DRAWS_PER_WANTED tries a schedule wanted (each check reads the
 * trace up to its point). */
static int single_delays(explorer *X, cb_error *err) {
   size_t *order = cbp_xcalloc(X->npts, sizeof *order);
   for (size_t i = 0; i < X->npts; i++) order[i] = i;
   for (size_t i = X->npts; i > 1; i--) {
      size_t j = rand_below(X, i), tmp = order[i - 1];
      order[i - 1] = order[j];
      order[j] = tmp;
   }
   int rc = 0;
   size_t tries = X->o->max * DRAWS_PER_WANTED;
   for (size_t i = 0; i < X->npts && i < tries && X->res->written < X->o->max && rc >= 0;
        i++)
      rc = try_chain(X, &X->pts[order[i]], 1, err);
   free(order);
   return rc < 0 ? -1 : 0;
}

/* A random point of thread u past its counted event `after`, or NULL. */
static const point *point_after(explorer *X, uint32_t u, uint64_t after) {
   size_t lo = 0, hi = X->ntp[u];
   while (lo < hi) {
      size_t m = (lo + hi) / 2;
      if (X->pts[X->tp[u][m]].k <= after) lo = m + 1; else hi = m;
   }
   if (lo == X->ntp[u]) return NULL;
   return &X->pts[X->tp[u][lo + rand_below(X, X->ntp[u] - lo)]];
}

/* A random chain of d points: the first anywhere, each next one a point of
 * another thread than the one before, past where that thread stands.
 * 0 when the draw led nowhere. */
static int draw_chain(explorer *X, point *ch, unsigned d) {
   ch[0] = X->pts[rand_below(X, X->npts)];
   for (uint32_t u = 1; u <= X->n; u++) X->cur[u - 1] = count_before(X, u, ch[0].i);
   for (unsigned j = 1; j < d; j++) {
      /* Threads with a point still ahead, other than the one just held. */
      uint32_t pick = 0, seen = 0;
      for (uint32_t u = 1; u <= X->n; u++) {
         if (u == ch[j - 1].tid || !X->ntp[u] ||
             X->pts[X->tp[u][X->ntp[u] - 1]].k <= X->cur[u - 1])
            continue;
         if (rand_below(X, ++seen) == 0) pick = u; /* reservoir: uniform */
      }
      const point *p = pick ? point_after(X, pick, X->cur[pick - 1]) : NULL;
      if (!p) return 0;
      ch[j] = *p;
      X->cur[pick - 1] = p->k;
   }
   return 1;
}

/* Chains of d points, an even share of what is still wanted among the
 * depths d .. N (a depth that falls short leaves the rest to the next). */
static int chains(explorer *X, unsigned d, cb_error *err) {
   point *ch = cbp_xcalloc(d, sizeof *ch);
   size_t left = X->o->max - X->res->written;
   size_t share = (left + (X->o->delays - d)) / (X->o->delays - d + 1);
   size_t stop = X->res->written + share, draws = share * DRAWS_PER_WANTED;
   int rc = 0;
   for (size_t k = 0; k < draws && X->res->written < stop && rc >= 0; k++)
      if (draw_chain(X, ch, d)) rc = try_chain(X, ch, d, err);
   free(ch);
   return rc < 0 ? -1 : 0;
}

int cbp_explore_write(const cb_trace *t, cbp_analysis *a, const cbp_explore_options *o,
                      const char *dir, uint32_t first_id, cbp_explore_result *res,
                      cb_error *err) {
   explorer X;
   memset(&X, 0, sizeof X);
   memset(res, 0, sizeof *res);
   res->delays = o->delays;
   res->seed = o->seed;
   X.t = t; X.a = a; X.o = o; X.res = res; X.dir = dir; X.next_id = first_id;
   X.n = a->x.nthreads;
   X.rng = o->seed;
   X.ev = cbp_xcalloc(X.n + 1, sizeof *X.ev);
   X.nev = cbp_xcalloc(X.n + 1, sizeof *X.nev);
   X.tp = cbp_xcalloc(X.n + 1, sizeof *X.tp);
   X.ntp = cbp_xcalloc(X.n + 1, sizeof *X.ntp);
   X.prefix = cbp_xcalloc(X.n + 1, sizeof *X.prefix);
   X.cur = cbp_xcalloc(X.n + 1, sizeof *X.cur);
   X.tail = cbp_xcalloc((size_t)o->delays + X.n + 1, sizeof *X.tail);
   cbp_map_init(&X.dmap, o->nseen + 64);
   for (size_t i = 0; i < o->nseen; i++) digest_add(&X, o->seen[i]);
   X.nseen = X.ndigests;
   find_points(&X);
   res->points = X.npts;
   int rc = X.npts && o->delays ? single_delays(&X, err) : 0;
   for (unsigned d = 2; d <= o->delays && rc == 0 && X.npts; d++)
      rc = chains(&X, d, err);
   for (uint32_t u = 0; u <= X.n; u++) { free(X.ev[u]); free(X.tp[u]); }
   free(X.ev); free(X.nev); free(X.tp); free(X.ntp);
   free(X.prefix); free(X.cur); free(X.tail); free(X.pts); free(X.digests);
   cbp_map_free(&X.dmap);
   return rc;
}

void cbp_explore_free(cbp_explore_result *res) {
   free(res->rows);
   memset(res, 0, sizeof *res);
}
