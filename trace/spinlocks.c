/* spinlocks.c: finds the program's own lock words in a trace (a spin lock
 * built on an atomic exchange, a compare-and-swap mutex like the futex
 * locks of libraries the tool does not wrap) and marks their accesses, so
 * that prediction takes them for the locks they are, not for shared data.
 *
 * Without this, the accesses a hand-made lock protects look unprotected,
 * and the lock word itself is the most racy variable of the program: a
 * stock checked and taken in two critical sections of an atomic_flag lock
 * was reported as "WWR on lk", and every schedule that put one thread
 * inside the other's section spun until replay gave up.
 *
 * A word is a lock word when, over the whole trace (cb_lockword_state):
 *   - it is taken at least once by a locked read-modify-write instruction
 *     (xchg, lock cmpxchg, lock bts: a write glued to its read, not split)
 *     that reads 0 and writes non-zero: the acquire.  Not by one whose
 *     old value the program never gets (CB_RMW_OP: `atomic_fetch_or(&map,
 *     bit);` as a statement, a `lock or`): such a thread cannot know that
 *     it took anything, so the word is no lock (trial 12's bitmap
 *     allocator, whose map Valgrind's serial scheduling kept at 0 and 1,
 *     was taken for one and its check-then-act never predicted).  Nor
 *     by an exchange whose old value is thrown away (CB_RMW_STORE: gcc's
 *     `xchg` for a sequentially consistent `atomic_store(&busy, 1)`): a
 *     busy flag tested with atomic_load and then set was taken for a lock
 *     (trial 16's connection pool: its check-then-set on the sticky path,
 *     the bug, was never predicted).  A fetch-or whose result is tested
 *     (`lock bts`, a CAS loop) can be;
 *   - while it is held, only its holder writes 0 (the release: a plain
 *     store, or an exchange), and other threads' locked instructions leave
 *     it non-zero with the value they read or a small contention mark (1
 *     or 2, as a futex mutex does);
 *   - while it is free, it stays 0 (plain reads are free to spin on it);
 *   - it is free again at the end (a word taken and kept is a claim).
 * Anything else (a counter, a pointer swapped by a lock-free stack) leaves
 * the word alone.  A reference count that one thread takes from 0 to 1
 * and back, with no other thread in between, does look like a lock; the
 * recorded run is all the evidence there is.
 *
 * The marks (CB_EVF_*) live only in memory: the acquire's store becomes a
 * LOCK and the release's store an UNLOCK (both counted like the WRITE they
 * replace, so schedule counts do not move), `was` CB_EV_WRITE so that
 * what replay checks at a step is still the store; every other access
 * of the word is flagged CB_EVF_LOCK_WORD and is no variable.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "trace_internal.h"

/* A schedule counts events: a store taken for a LOCK or UNLOCK must count
 * as the WRITE replay sees. */
_Static_assert(CB_IS_COUNTED(CB_EV_WRITE) && CB_IS_COUNTED(CB_EV_LOCK) &&
                  CB_IS_COUNTED(CB_EV_UNLOCK),
               "a lock word's LOCK and UNLOCK replace counted WRITEs");

/* Contention marks a non-holder's locked instruction may leave. */
#define MAX_MARK 2u

typedef cb_lockcand word;
typedef cb_locktab words;

/* Whether event i is the store of a locked read-modify-write instruction
 * of one whole integer: glued to the read of the same address just before
 * it, in the same thread (Valgrind runs an instruction without a switch). */
static int locked_rmw_store(const cb_trace *t, size_t i) {
   const cb_event *e = &t->events[i];
   if (e->kind != CB_EV_WRITE || !(e->size & CB_SIZE_SAME_INSN) ||
       (e->size & CB_SIZE_SPLIT) || i == 0)
      return 0;
   const cb_event *r = &t->events[i - 1];
   unsigned b = CB_SIZE_BYTES(e->size);
   return r->kind == CB_EV_READ && r->tid == e->tid && r->addr == e->addr &&
          CB_SIZE_BYTES(r->size) == b && b <= 8 && cb_event_carries_value(e->kind, e->size) &&
          cb_event_carries_value(r->kind, r->size);
}

/* One access of a candidate word, its state advanced (the rules above).
 * Returns what the access is: 1 the acquire, 2 the release, 0 neither. */
static int step(word *w, const cb_trace *t, size_t i, int rmw) {
   const cb_event *e = &t->events[i];
   if (e->kind == CB_EV_READ) return 0; /* spinning, testing: free */
   uint64_t v = e->value, r = rmw ? t->events[i - 1].value : 0;
   if (!w->holder) {
      if (rmw && r == 0 && v != 0 && e->rmw != CB_RMW_OP && e->rmw != CB_RMW_STORE) {
         w->holder = e->tid;
         w->taken++;
         return 1;
      }
      if (v != 0 || (rmw && r != 0)) w->bad = 1; /* non-zero while free */
      return 0;
   }
   if (v == 0) {
      if (e->tid != w->holder || (rmw && r == 0)) { w->bad = 1; return 0; }
      w->holder = 0;
      return 2;
   }
   if (!rmw || r == 0 || (v != r && v > MAX_MARK)) w->bad = 1;
   return 0;
}

/* The addresses the candidate words span: an access wholly outside needs
 * no lookup (most of a program's accesses are not near its lock words). */
typedef struct { uint64_t lo, hi; } span;

static span span_of(const words *ws) {
   span s = {UINT64_MAX, 0};
   for (size_t i = 0; ws->c && i <= ws->mask; i++)
      if (ws->c[i].used) {
         if (ws->c[i].addr < s.lo) s.lo = ws->c[i].addr;
         if (ws->c[i].addr > s.hi) s.hi = ws->c[i].addr;
      }
   return s;
}

/* Whether e is a read or write that may start at or overlap a word of s
 * (an access is at most 8 bytes wide where it matters here). */
static int near_words(const cb_event *e, span s) {
   return (e->kind == CB_EV_READ || e->kind == CB_EV_WRITE) && e->addr <= s.hi &&
          e->addr + 8 > s.lo;
}

/* Pass 1: the words some locked instruction writes; pass 2 judges them. */
static int judge(const cb_trace *t, words *ws, span *sp) {
   int oom = 0;
   for (size_t i = 0; i < t->nevents; i++)
      if (locked_rmw_store(t, i) && !cb_locktab_find(ws, t->events[i].addr, 1, &oom) && oom)
         return -1;
   if (!ws->n) return 0;
   span s = *sp = span_of(ws);
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      if (!near_words(e, s)) continue;
      word *w = cb_locktab_find(ws, e->addr, 0, &oom);
      if (w && !w->bad) step(w, t, i, e->kind == CB_EV_WRITE && locked_rmw_store(t, i));
      /* An access that overlaps a word without starting at it (a wider
       * store over a struct) is not a lock's. */
      for (unsigned b = 1; b < CB_SIZE_BYTES(e->size) && b < 8; b++) {
         word *o = cb_locktab_find(ws, e->addr + b, 0, &oom);
         if (o) o->bad = 1;
      }
   }
   return 0;
}

/* Pass 3: the marks, on the words that are locks. */
static size_t mark(cb_trace *t, words *ws, span s) {
   size_t nlocks = 0;
   int oom = 0;
   for (size_t i = 0; ws->c && i <= ws->mask; i++) {
      word *w = &ws->c[i];
      if (!w->used) continue;
      /* A word taken and never given back is a claim (a once flag set by
       * compare-and-swap), not a lock. */
      if (w->bad || !w->taken || w->holder) w->bad = 1;
      else nlocks++;
      w->holder = 0;
   }
   if (!nlocks) return 0;
   for (size_t i = 0; i < t->nevents; i++) {
      cb_event *e = &t->events[i];
      if (!near_words(e, s)) continue;
      word *w = cb_locktab_find(ws, e->addr, 0, &oom);
      if (!w || w->bad) continue;
      int rmw = e->kind == CB_EV_WRITE && locked_rmw_store(t, i);
      int what = step(w, t, i, rmw);
      if (!what) {
         e->flags |= CB_EVF_LOCK_WORD;
         continue;
      }
      e->flags |= rmw ? CB_EVF_GLUED : 0;
      e->was = e->kind;
      e->kind = what == 1 ? CB_EV_LOCK : CB_EV_UNLOCK;
      e->size = CB_LOCK_MUTEX;
      e->value = 0;
   }
   return nlocks;
}

long cb_spinlocks_mark(cb_trace *t) {
   words ws = {0};
   span s = {UINT64_MAX, 0};
   long n = -1;
   if (judge(t, &ws, &s) == 0) n = ws.n ? (long)mark(t, &ws, s) : 0;
   cb_locktab_free(&ws);
   return n;
}
