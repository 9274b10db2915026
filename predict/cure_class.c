/* cure_class.c: a cure that flips every instance of one order at once.
 *
 * A cure (cures.c) forces one order of the failing run the other way
 * round.  Some failures are one order repeated: a loop that hands each
 * thread the address of its counter (`pthread_create(&t[i], NULL, worker,
 * &i)`), whose threads read it only after main has moved it on.  Forcing
 * one worker's read before main's increment leaves the others reading
 * the wrong number, and the run still fails.  So for each cure of a
 * thread W's write and another thread's read at site B, when that read
 * site has more than one reader, one more cure forces them all: each read
 * at B by a thread U, that a write of W to the same variable preceded
 * since U's last synchronisation or its start, runs just before the first
 * such write (whatever its line: the workers of trial 21's loop read
 * their counter while main's second loop, the joins', rewrote it, and the
 * increment that first moved it on was the first loop's), together with
 * everything U did since that synchronisation (accesses only: moving them
 * moves no lock).  The schedule is the
 * recorded order from the first moved stretch on, as tail steps with the
 * stretches moved (the prefix keeps the recorded order: cbp_porder_for),
 * and every thread is let go after the last moved read.  Where a step
 * would end inside an instruction, or the stretch is long, there is none.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "predict.h"
#include "rank.h"

#define NONE UINT64_MAX
/* A class is a handful of threads handed one thing each: past this many
 * instances (a hot read site in a long failing run) there is none, and
 * past this many distinct classes none is looked for (each is a pass over
 * the trace). */
#define CLASS_MAX_INSTANCES 256
#define CLASS_MAX_KEYS 32
#define CLASS_BUDGET (1u << 22) /* events looked at back from reads, a class */

typedef struct {
   const cb_trace *t;
   const cbp_escape *x;
   const uint32_t *sites; /* cbp_loc_sites */
   uint32_t w, site_b;
   cbp_moved *in; size_t n, cap;
   uint64_t budget;     /* events still to look at back from reads */
} klass;

/* The instance of read r, or 0 when W wrote nothing to its variable since
 * its thread's last synchronisation or start (or that lies too far). */
static int instance_of(klass *k, uint64_t r, cbp_moved *out) {
   uint32_t u = k->t->events[r].tid, var = k->x->var_of[r];
   cbp_stretch s;
   if (!cbp_stretch_before(k->t, u, r, &k->budget, &s)) return 0;
   for (uint64_t i = s.sync + 1; i < r; i++) {
      const cb_event *e = &k->t->events[i];
      if (e->tid == k->w && e->kind == CB_EV_WRITE && k->x->var_of[i] == var) {
         *out = (cbp_moved){s.first, i, r, u};
         return 1;
      }
   }
   return 0;
}

/* Every read at site B of another thread than W, one instance for each
 * stretch (a later read of the same stretch replaces the earlier). */
static void find_instances(klass *k) {
   const cb_trace *t = k->t;
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      cbp_moved in;
      if (!k->budget) { /* too much to look at: no class */
         k->n = 0;
         return;
      }
      if (e->kind != CB_EV_READ || e->tid == k->w || e->tid == 0 ||
          cbp_site_at(t, k->sites, i) != k->site_b || !k->x->var_of[i] ||
          !instance_of(k, i, &in))
         continue;
      cbp_moved *last = k->n ? &k->in[k->n - 1] : NULL;
      if (last && last->u == in.u && last->from == in.from) {
         /* One stretch: its reads at B (a frame's bytes checksummed in a
          * loop) move together, before the earliest write any of them
          * needed. */
         last->r = in.r;
         if (in.w0 < last->w0) last->w0 = in.w0;
         continue;
      }
      if (k->n == CLASS_MAX_INSTANCES) { /* too many to be one hand-out each */
         k->n = 0;
         return;
      }
      k->in = cbp_grow(k->in, &k->cap, k->n, sizeof *k->in);
      k->in[k->n++] = in;
   }
}

/* The class of base's sites as one more candidate; 0 when there is none. */
static int class_of(const cb_trace *t, cbp_analysis *a, const uint32_t *sites,
                    const cbp_candidate *base, cbp_candidate *c) {
   klass k = {t, &a->x, sites, base->t1, cbp_site_at(t, sites, base->f), NULL, 0, 0,
              CLASS_BUDGET};
   cbp_rf *rf = a->r.rf;
   if (t->events[base->e1].kind != CB_EV_WRITE || t->events[base->f].kind != CB_EV_READ)
      return 0;
   find_instances(&k);
   int readers = 0; /* two or more */
   for (size_t j = 0; j < k.n; j++)
      readers |= k.in[j].u != k.in[0].u;
   uint64_t p0;
   memset(c, 0, sizeof *c);
   int ok = readers && cbp_moved_schedule(t, &a->x, rf, k.in, k.n, c, &p0);
   if (ok) {
      const cbp_moved *f = &k.in[0];
      c->pattern = CBP_ORD;
      c->var = a->x.var_of[f->r];
      c->addr = a->x.var_addr[c->var];
      c->t1 = k.w; c->t2 = f->u;
      c->e1 = c->e2 = f->w0; c->ce1 = c->ce2 = cbp_rf_count_at(rf, k.w, f->w0);
      c->f = f->r; c->cf = cbp_rf_count_at(rf, f->u, f->r);
      c->x1 = c->x2 = (cbp_point){c->prefix[k.w - 1], p0 ? p0 - 1 : NONE};
      c->e = p0 ? p0 - 1 : 0; c->ce = c->prefix[k.w - 1] - 1;
      c->seg_e = cbp_vc_seg_at(&a->v, c->t1, c->ce1);
      c->seg_f = cbp_vc_seg_at(&a->v, c->t2, c->cf);
      c->built = 1; c->cure = 2;
   } else {
      cbp_candidate_free(c);
   }
   free(k.in);
   return ok;
}

void cbp_cure_classes(const cb_trace *t, cbp_analysis *a) {
   cbp_result *r = &a->r;
   if (!r->rf) r->rf = cbp_rf_new(t, &a->x);
   uint32_t *sites = cbp_loc_sites(t);
   size_t n = r->n;
   uint32_t done[CLASS_MAX_KEYS][2]; /* (W, read site) of each class tried */
   size_t ndone = 0;
   for (size_t i = 0; i < n && ndone < CLASS_MAX_KEYS; i++) {
      const cbp_candidate *b = &r->c[i];
      uint32_t key[2] = {b->t1, cbp_site_at(t, sites, b->f)};
      int seen = 0;
      for (size_t j = 0; j < ndone && !seen; j++)
         seen = done[j][0] == key[0] && done[j][1] == key[1];
      if (seen) continue;
      memcpy(done[ndone++], key, sizeof key);
      cbp_candidate c;
      if (!class_of(t, a, sites, b, &c)) continue;
      r->c = cbp_grow(r->c, &r->cap, r->n, sizeof *r->c);
      r->c[r->n++] = c; /* b may have moved: not used again */
   }
   free(sites);
}
