/* read_first.c: the path to f keeps a value that T1 overwrites on its way
 * to e.  Mirror of synthesis.c's t1_past_e (T2 reads what T1 wrote later).
 *
 * In the tail, T1 runs from its cut to e before T2 runs to f.  When T1
 * writes a variable on that way (before e) and T2, on its way to f, then
 * reads it before writing it itself, T2 reads T1's value; when the
 * recorded run had T2 read another value there, the value the variable
 * held before T1's write, T2 leaves its recorded path.  A test-then-set
 * lock (`while (busy) ;  busy = 1;`) or a reentrancy guard
 * (`if (!refreshing) { refreshing = 1; ...`): T1's `busy = 1` before e
 * keeps T2 spinning at its test, and the forced run never reaches f, so
 * the two critical sections that this very check fails to separate are
 * never interleaved (trial 12's ttaslock: 0 of 25 forced runs, "T3
 * expected read checking, found write").  The step is moved: T1 stops
 * just before its first write of the variable, T2 runs through that read,
 * and T1 goes on; T2's later steps run what is left.  The new plan is
 * kept only when replay can follow it (cbp_plan_check); the read then sees
 * the value it saw in the recorded run, so the path to f stays the
 * recorded one.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "predict.h"

/* Bounds: the variables T1 writes (looked up linearly), T2's events
 * looked at, trace looked back for the value before T1's write.  Beyond
 * them nothing is moved.  T2's events are read only once T1 wrote: a
 * generated 1 M-event trace's 20,681 schedules took 10 s, not 1 s, while
 * every T2 event was looked at. */
#define RF1_VARS 32u
#define RF1_READS 65536u
#define RF1_BACK 65536u

/* A variable T1 writes on its way to e: its first write's count (where T1
 * stops) and step, its latest write's value, and whether T2 wrote it
 * since (then T2 reads its own value). */
typedef struct {
   uint64_t addr, value, first;
   size_t step;
   unsigned bytes;
   int t2_since;
} t1var;

typedef struct {
   const cb_trace *t;
   cbp_rf *rf;
   const cbp_candidate *c;
   t1var v[RF1_VARS];
   size_t nv;
} scan;

static const cb_event *event_of(const scan *S, uint32_t tid, uint64_t k) {
   uint64_t i = cbp_rf_trace_index(S->rf, tid, k);
   return i < S->t->nevents ? &S->t->events[i] : NULL;
}

static int plain_access(const cb_event *e, unsigned kind) {
   return e && e->kind == kind && !(e->flags & CB_EVF_LOCK_WORD) &&
          cb_event_carries_value(e->kind, e->size);
}

/* The value addr held just before trace index i: the latest access to it
 * (a read tells it as well as a write); 0 when none is in reach. */
static int value_before(const cb_trace *t, uint64_t i, uint64_t addr, unsigned bytes,
                        uint64_t *value) {
   uint64_t stop = i > RF1_BACK ? i - RF1_BACK : 0;
   while (i-- > stop) {
      const cb_event *e = &t->events[i];
      if (e->addr != addr || (e->kind != CB_EV_READ && e->kind != CB_EV_WRITE)) continue;
      if (CB_SIZE_BYTES(e->size) != bytes || !cb_event_carries_value(e->kind, e->size))
         return 0;
      *value = e->value;
      return 1;
   }
   return 0;
}

static t1var *var_of(scan *S, uint64_t addr) {
   for (size_t k = 0; k < S->nv; k++)
      if (S->v[k].addr == addr) return &S->v[k];
   return NULL;
}

/* T1's write e (count k, in tail step s) noted; 0 when there are too
 * many variables to follow. */
static int t1_wrote(scan *S, const cb_event *e, uint64_t k, size_t s) {
   t1var *v = var_of(S, e->addr);
   if (!v) {
      if (S->nv == RF1_VARS) return 0;
      v = &S->v[S->nv++];
      *v = (t1var){e->addr, 0, k, s, CB_SIZE_BYTES(e->size), 0};
   }
   v->value = e->value;
   v->bytes = CB_SIZE_BYTES(e->size);
   v->t2_since = 0;
   return 1;
}

/* Whether T2's read r would see T1's value where the recorded run had it
 * see the one from before T1's first write. */
static int conflicts(const scan *S, const t1var *v, const cb_event *r) {
   unsigned bytes = CB_SIZE_BYTES(r->size);
   if (v->t2_since || v->bytes != bytes || v->value == r->value) return 0;
   uint64_t before, wi = cbp_rf_trace_index(S->rf, S->c->t1, v->first);
   return value_before(S->t, wi, r->addr, bytes, &before) && before == r->value;
}

/* Walks the main tail up to f; on the first read of T2 that T1's earlier
 * write would change, *w1 = T1's count to stop at, *r2 = T2's count to
 * run through, *step = the tail step where T1 passes *w1.  0: none. */
static int find_read(scan *S, uint64_t *w1, uint64_t *r2, size_t *step) {
   const cbp_candidate *c = S->c;
   uint64_t p1 = c->prefix[c->t1 - 1], p2 = c->prefix[c->t2 - 1], looked = 0;
   for (size_t s = 0; s < c->through_f && p2 < c->cf; s++) {
      const cbp_step *st = &c->tail[s];
      if (st->count == CBP_RUN_OUT || (st->tid != c->t1 && st->tid != c->t2)) return 0;
      if (st->tid == c->t1) {
         for (uint64_t k = p1; k < p1 + st->count && k < c->ce; k++) {
            const cb_event *e = event_of(S, c->t1, k);
            if (plain_access(e, CB_EV_WRITE) && !t1_wrote(S, e, k, s)) return 0;
         }
         p1 += st->count;
         continue;
      }
      uint64_t end = p2 + st->count < c->cf ? p2 + st->count : c->cf;
      for (uint64_t k = p2; S->nv && k < end; k++) {
         if (looked++ == RF1_READS) return 0;
         const cb_event *e = event_of(S, c->t2, k);
         t1var *v = e ? var_of(S, e->addr) : NULL;
         if (!v) continue;
         if (plain_access(e, CB_EV_WRITE)) v->t2_since = 1;
         else if (plain_access(e, CB_EV_READ) && conflicts(S, v, e)) {
            *w1 = v->first; *r2 = k; *step = v->step;
            return 1;
         }
      }
      p2 += st->count;
   }
   return 0;
}

/* Stop points outside one instruction: T1 before its write's whole
 * instruction, T2 after its read's. */
static void whole_instructions(const scan *S, uint64_t *w1, uint64_t *r2) {
   const cbp_candidate *c = S->c;
   while (*w1 > c->prefix[c->t1 - 1]) {
      const cb_event *e = event_of(S, c->t1, *w1);
      if (!e || !cbp_glued(e)) break;
      (*w1)--;
   }
   for (;;) {
      const cb_event *e = event_of(S, c->t2, *r2 + 1);
      if (!e || !cbp_glued(e) || *r2 + 1 >= c->cf) break;
      (*r2)++;
   }
}

/* The tail with T2's steps through r2 inserted where T1 reaches w1 in
 * step `at`; its length in *n, *through_f moved by as many steps.  NULL
 * when w1 is not in that step (its instruction began in an earlier one). */
static cbp_step *moved_tail(const cbp_candidate *c, size_t at, uint64_t w1, uint64_t r2,
                            uint32_t *n, uint32_t *through_f) {
   cbp_step *out = cbp_xcalloc(c->ntail + 2, sizeof *out);
   uint64_t p1 = c->prefix[c->t1 - 1], p2 = c->prefix[c->t2 - 1], owed = 0;
   uint32_t k = 0;
   *through_f = c->through_f;
   for (size_t s = 0; s < c->ntail; s++) {
      cbp_step st = c->tail[s];
      if (s == at) {
         if (w1 < p1 || w1 >= p1 + st.count || r2 < p2) { /* not in this step */
            free(out);
            return NULL;
         }
         uint64_t pre = w1 - p1;
         if (pre) out[k++] = (cbp_step){c->t1, pre};
         out[k++] = (cbp_step){c->t2, r2 + 1 - p2};
         owed = r2 + 1 - p2;
         p2 = r2 + 1;
         st.count -= pre;
         p1 = w1;
         *through_f += pre ? 2 : 1;
      } else if (st.tid == c->t2 && owed && st.count != CBP_RUN_OUT) {
         uint64_t d = owed < st.count ? owed : st.count;
         st.count -= d; owed -= d;
         if (!st.count) {
            if (s < c->through_f) (*through_f)--;
            continue;
         }
      }
      if (st.count != CBP_RUN_OUT) {
         if (st.tid == c->t1) p1 += st.count;
         else if (st.tid == c->t2) p2 += st.count;
      }
      out[k++] = st;
   }
   *n = k;
   return out;
}

int cbp_read_first(const cb_trace *t, const cbp_escape *x, const cbp_vclock *v,
                   cbp_locks *L, cbp_rf *rf, cbp_candidate *c) {
   if (c->pattern == CBP_DLK || !c->ntail || c->through_f > c->ntail) return 0;
   scan S;
   S.t = t; S.rf = rf; S.c = c; S.nv = 0;
   uint64_t w1 = 0, r2 = 0;
   size_t at = 0;
   if (!find_read(&S, &w1, &r2, &at)) return 0;
   whole_instructions(&S, &w1, &r2);
   uint32_t n, through_f;
   cbp_step *tail = moved_tail(c, at, w1, r2, &n, &through_f);
   if (!tail || cbp_plan_check(t, x, v, L, c->prefix, tail, n)) {
      free(tail);
      return 0;
   }
   free(c->tail);
   c->tail = tail; c->ntail = n; c->through_f = through_f;
   return 1;
}
