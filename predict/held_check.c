/* held_check.c: whether an order violation is one that the alternate
 * tail F_HELD (alternates.c) can force: a write of a critical section
 * that another thread reads half done without the lock (cbp_held_ok), or
 * a lost wake-up: its f is a waiter's read
 * of its predicate, made holding the wait's lock, and T1 writes the
 * variable without that lock and then signals (or f's line is a predicate
 * check elsewhere in the trace).  Then stopping the waiter just after f,
 * its lock held, while T1 runs on through its signal, makes the waiter
 * wait for a signal already sent: the bug of a flag set and signalled
 * without the mutex.  In the correct program T1 takes the lock on its way
 * and no such tail is written.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "predict.h"

static int cmp_loc(const void *a, const void *b) {
   uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
   return x < y ? -1 : x > y;
}

/* The reads a thread made since it last took, released or got back a
 * lock, at most CHECK_READS of them (the last). */
#define CHECK_READS 8
typedef struct {
   uint32_t locs[CHECK_READS], saved[CHECK_READS];
   uint8_t n, nsaved, released; /* released: its last counted event was
                                   an unlock, whose reads are saved */
} reads_since;

/* The code locations of the reads a thread makes in a critical section
 * that ends by waiting on a condition (its predicate's check), sorted,
 * without repeats; caller frees.  One pass: a wait is recorded when it
 * returns, right after (in its thread) the unlock that began it. */
static uint32_t *wait_checks(const cb_trace *t, size_t *n) {
   reads_since *th = cbp_xcalloc((size_t)t->nthreads + 1, sizeof *th);
   uint32_t *locs = NULL;
   size_t cap = 0, k = 0;
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      if (e->tid > t->nthreads || e->kind >= CB_EV_KIND_COUNT || !CB_IS_COUNTED(e->kind))
         continue;
      reads_since *h = &th[e->tid];
      if (e->kind == CB_EV_COND_WAIT && h->released)
         for (uint8_t j = 0; j < h->nsaved; j++) {
            locs = cbp_grow(locs, &cap, k, sizeof *locs);
            locs[k++] = h->saved[j];
         }
      h->released = 0;
      if (e->kind == CB_EV_READ) {
         if (h->n == CHECK_READS) memmove(h->locs, h->locs + 1, (CHECK_READS - 1) * sizeof *h->locs);
         h->locs[h->n < CHECK_READS ? h->n++ : CHECK_READS - 1] = e->loc;
      } else if (e->kind == CB_EV_UNLOCK) {
         memcpy(h->saved, h->locs, h->n * sizeof *h->locs);
         h->nsaved = h->n;
         h->released = 1;
         h->n = 0;
      } else if (e->kind == CB_EV_LOCK || e->kind == CB_EV_COND_WAIT) {
         h->n = 0;
      }
   }
   free(th);
   if (k > 1) qsort(locs, k, sizeof *locs, cmp_loc);
   size_t m = 0;
   for (size_t i = 0; i < k; i++)
      if (!m || locs[m - 1] != locs[i]) locs[m++] = locs[i];
   *n = m;
   return locs;
}

/* Whether T1 takes none of the locks T2 holds at f on its way to e1 from
 * where the main tail leaves it at f (it would wait for T2 there).  T1's
 * events are found by the reads-from index, not by walking the trace past
 * every other thread's. */
#define HELD_SCAN 100000 /* T1's events looked at, at most */
static int f_lock_free(const cbp_rf *rf, const cb_trace *t, cbp_locks *L,
                       const cbp_candidate *c) {
   uint64_t from = c->prefix[c->t1 - 1];
   for (uint32_t s = 0; s < c->through_f; s++)
      if (c->tail[s].tid == c->t1) {
         if (c->tail[s].count == CBP_RUN_OUT) return 0;
         from += c->tail[s].count;
      }
   if (c->ce1 > from + HELD_SCAN) return 0; /* not tried */
   uint32_t n = cbp_locks_nheld(L, c->ls_f);
   for (uint64_t k = from; k < c->ce1; k++) {
      const cb_event *e = &t->events[cbp_rf_trace_index(rf, c->t1, k)];
      if (e->kind != CB_EV_LOCK) continue;
      for (uint32_t j = 0; j < n; j++) {
         const uint32_t *ah; uint32_t nah;
         if (cbp_lock_addr(L, cbp_locks_held(L, c->ls_f, j, &ah, &nah)) == e->addr) return 0;
      }
   }
   return 1;
}

/* Whether T1 signals a condition within a few of its counted events after
 * e1 (a write), taking no lock before: a flag set, then its waiters woken. */
#define SIGNAL_NEAR 4
static int signals_after(const cbp_rf *rf, const cb_trace *t, const cbp_candidate *c) {
   for (uint64_t k = c->ce1 + 1; k <= c->ce1 + SIGNAL_NEAR + 1; k++) {
      uint64_t i = cbp_rf_trace_index(rf, c->t1, k);
      if (i >= t->nevents || t->events[i].kind == CB_EV_LOCK) return 0;
      if (t->events[i].kind == CB_EV_COND_SIGNAL) return 1;
   }
   return 0;
}

/* Whether c is worth forcing with f's thread stopped at f, its locks held
 * (alternates.c, F_HELD): an order violation whose f is under a lock that
 * T1 does not take on its way to e1, and either
 *  - a write: T1's unlocked access sees the critical section half done,
 *    the flag published before the value it guards (a waiter's lock-free
 *    fast path that reads `set` and then `value` while the setter, in its
 *    critical section, has stored the one and not yet the other); the
 *    main tail runs the writer to its unlock, the whole section done; or
 *  - a read that is the predicate of a condition wait somewhere in the
 *    trace, or of a variable T1 then signals a condition about.  That is
 *    a lost wake-up: the waiter checked, the other thread changes the
 *    predicate and signals before the waiter's wait has begun. */
int cbp_held_ok(const cb_trace *t, cbp_locks *L, const cbp_rf *rf, cbp_result *r,
                const cbp_candidate *c) {
   if (c->pattern != CBP_ORD || !c->f_rel) return 0;
   /* A write in a critical section that T1 reads or writes without the
    * lock: T1 sees the section half done. */
   if (t->events[c->f].kind == CB_EV_WRITE) return f_lock_free(rf, t, L, c);
   if (t->events[c->f].kind != CB_EV_READ) return 0;
   if (t->events[c->e1].kind == CB_EV_WRITE && signals_after(rf, t, c))
      return f_lock_free(rf, t, L, c);
   if (!r->wait_locs_made) {
      r->wait_locs = wait_checks(t, &r->nwait_locs);
      r->wait_locs_made = 1;
   }
   uint32_t loc = t->events[c->f].loc;
   size_t lo = 0, hi = r->nwait_locs;
   while (lo < hi) {
      size_t m = (lo + hi) / 2;
      if (r->wait_locs[m] < loc) lo = m + 1; else hi = m;
   }
   if (lo == r->nwait_locs || r->wait_locs[lo] != loc) return 0;
   return f_lock_free(rf, t, L, c);
}
