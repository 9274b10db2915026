/* predict_hb: the one happens-before model (predict/hb.c) pinned on small
 * text-form traces, and the two that take it agreeing on every pair of
 * events: the vector clocks (vclock.c: a before b when b's clock holds a)
 * and the Z3 encoding (z3_window.c: a before b when Z3 proves that b
 * cannot run before a, an order-violation query).  Events are named by the
 * line of their location (@h.c:LINE).  Built plain and under ASan+UBSan.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict.h"
#include "tap_ok.h"
#include "z3_check.h"

static cb_trace T;
static cbp_hb H;
static cbp_vclock V;
static uint64_t *cidx; /* per event: its thread's counted index */
static cb_z3 *Z;
static int loaded;

static void unload(void) {
   if (!loaded) return;
   cbp_vc_free(&V);
   cbp_hb_free(&H);
   cb_trace_free(&T);
   free(cidx);
   loaded = 0;
}

/* Parses text and feeds every anchor event to fresh clocks, as the
 * lockset pass does. */
static void load(const char *text) {
   unload();
   cb_error err;
   memset(&T, 0, sizeof T);
   if (cb_trace_from_text(text, &T, &err)) {
      printf("Bail out! text form rejected: %s\n", err.msg);
      exit(1);
   }
   cbp_hb_build(&H, &T);
   cbp_vc_init(&V, T.nthreads, &H);
   cidx = cbp_xcalloc(T.nevents, sizeof *cidx);
   uint64_t *n = cbp_xcalloc((size_t)T.nthreads + 1, sizeof *n);
   for (size_t i = 0; i < T.nevents; i++) {
      const cb_event *e = &T.events[i];
      if (e->tid > T.nthreads || !cbp_hb_anchor(e->kind)) continue;
      cidx[i] = n[e->tid];
      cbp_vc_event(&V, e, i, n[e->tid], n[e->tid]);
      if (CB_IS_COUNTED(e->kind)) n[e->tid]++;
   }
   free(n);
   loaded = 1;
}

/* The event at @h.c:line. */
static size_t at(uint32_t line) {
   for (size_t i = 0; i < T.nevents; i++)
      if (T.events[i].loc && T.locs[T.events[i].loc].line == line) return i;
   printf("Bail out! no event at line %u\n", line);
   exit(1);
}

/* a before b by the clocks (counted events of two threads). */
static int vc_before(size_t a, size_t b) {
   const cb_event *ea = &T.events[a], *eb = &T.events[b];
   return cbp_vc_get(&V, cbp_vc_seg_at(&V, eb->tid, cidx[b]), ea->tid) > cidx[a];
}

/* a before b by Z3: 1 when b cannot run before a (unsat), 0 when it can,
 * -1 when Z3 did not say. */
static int z3_before(size_t a, size_t b) {
   cb_z3_query q = {.e1 = a, .f = b, .e2 = a, .kind = CB_Z3_ORDER, .hb = &H};
   cb_z3_result r;
   cb_z3_verdict v = cb_z3_check(Z, &T, &q, &r);
   if (v == CB_Z3_UNKNOWN) printf("#   z3 unknown on %zu, %zu: %s\n", a, b, r.why);
   return v == CB_Z3_UNSAT ? 1 : v == CB_Z3_SAT ? 0 : -1;
}

/* Pinned: the clocks and Z3 both order (or both leave unordered) the
 * events at lines la and lb (la first in the trace). */
static void pin(const char *name, uint32_t la, uint32_t lb, int want) {
   size_t a = at(la), b = at(lb);
   int vc = vc_before(a, b), z = z3_before(a, b);
   ok(vc == want, "%s: %s:%u %s :%u by the clocks", name, "h.c", la,
      want ? "happens before" : "does not happen before", lb);
   ok(z == want, "%s: %s:%u %s :%u by Z3 (got %d)", name, "h.c", la,
      want ? "happens before" : "does not happen before", lb, z);
}

/* Every counted event pair of two threads: the clocks and Z3 agree. */
static void agree(const char *name) {
   size_t pairs = 0, bad = 0, first_a = 0, first_b = 0;
   int first_vc = 0, first_z = 0;
   for (size_t a = 0; a < T.nevents; a++) {
      if (!CB_IS_COUNTED(T.events[a].kind)) continue;
      for (size_t b = a + 1; b < T.nevents; b++) {
         if (!CB_IS_COUNTED(T.events[b].kind) || T.events[b].tid == T.events[a].tid) continue;
         int vc = vc_before(a, b), z = z3_before(a, b);
         pairs++;
         if (vc != z && !bad++) { first_a = a; first_b = b; first_vc = vc; first_z = z; }
      }
   }
   ok(bad == 0 && pairs > 0, "%s: the clocks and Z3 agree on all %zu pairs", name, pairs);
   if (bad)
      printf("#   %zu disagree; first: events %zu, %zu: clocks %d, z3 %d\n", bad, first_a,
             first_b, first_vc, first_z);
}

static void test_barrier_rounds(void) {
   /* T2 leaves round 1 and enters round 2 before T1's leave of round 1 is
    * recorded: its write between the rounds (6) is not before T1's leave. */
   load("T1 start T1\nT1 create T2 @h.c:20\nT2 start T1\n"
        "T1 write a @h.c:1\nT2 write b @h.c:2\n"
        "T1 barrier-enter B 2 @h.c:3\nT2 barrier-enter B 2 @h.c:4\n"
        "T2 barrier-leave B 2 @h.c:5\nT2 write c @h.c:6\n"
        "T2 barrier-enter B 2 @h.c:7\nT1 barrier-leave B 2 @h.c:8\n"
        "T1 write d @h.c:9\nT1 barrier-enter B 2 @h.c:10\n"
        "T1 barrier-leave B 2 @h.c:11\nT2 barrier-leave B 2 @h.c:12\n"
        "T1 write e @h.c:13\nT2 write f @h.c:14\n");
   ok(H.ng == 3 && H.g[1].kind == CBP_HB_BARRIER && H.g[1].nsrc == 2 && H.g[1].ndst == 2 &&
      H.g[2].nsrc == 2 && H.g[2].ndst == 2,
      "barrier: one group per round, two arrivals and two departures each");
   pin("barrier round 1", 1, 5, 1);
   pin("barrier round 1", 2, 8, 1);
   pin("barrier, no more", 6, 9, 0);
   pin("barrier, no more", 7, 9, 0);
   pin("barrier round 2", 9, 12, 1);
   pin("barrier round 1 before round 2", 1, 14, 1);
   pin("barrier round 1 before round 2", 6, 13, 1);
   agree("barrier used for two rounds");
}

static void test_two_signals(void) {
   /* T2 and T3 wait; T1 signals twice; both waits are recorded after the
    * second signal.  T2 woke first: it took the first signal. */
   load("T1 start T1\nT1 create T2 @h.c:20\nT1 create T3 @h.c:21\n"
        "T2 start T1\nT3 start T1\n"
        "T2 lock m\nT2 unlock m @h.c:1\nT3 lock m\nT3 unlock m @h.c:2\n"
        "T1 write x @h.c:3\nT1 signal c @h.c:4\nT1 write y @h.c:5\nT1 signal c @h.c:6\n"
        "T2 wait c m @h.c:7\nT3 wait c m @h.c:8\n"
        "T2 write p @h.c:9\nT3 write q @h.c:10\n");
   pin("first signal, first wait", 3, 9, 1);
   pin("second signal, not the first wait", 5, 9, 0);
   pin("second signal, second wait", 5, 10, 1);
   pin("a wait does not order the other waiter", 9, 10, 0);
   agree("two signals, two waits");
   /* A signal sent before anyone waited wakes no one. */
   load("T1 start T1\nT1 create T2 @h.c:20\nT2 start T1\n"
        "T1 write x @h.c:1\nT1 signal c @h.c:2\n"
        "T2 lock m\nT2 unlock m @h.c:3\nT2 wait c m @h.c:4\nT2 write p @h.c:5\n");
   ok(H.ng == 1, "a signal before the wait began: no edge (%zu groups)", H.ng);
   pin("lost signal", 1, 5, 0);
   agree("a signal before the wait");
   /* A broadcast wakes every waiter. */
   load("T1 start T1\nT1 create T2 @h.c:20\nT1 create T3 @h.c:21\n"
        "T2 start T1\nT3 start T1\n"
        "T2 lock m\nT2 unlock m @h.c:1\nT3 lock m\nT3 unlock m @h.c:2\n"
        "T1 write x @h.c:3\nT1 broadcast c @h.c:4\n"
        "T2 wait c m @h.c:7\nT3 wait c m @h.c:8\nT2 write p @h.c:9\nT3 write q @h.c:10\n");
   pin("broadcast", 3, 9, 1);
   pin("broadcast", 3, 10, 1);
   agree("a broadcast, two waits");
}

static void test_semaphore(void) {
   /* T1 took post 1's token, T3 post 2's. */
   load("T1 start T1\nT1 create T2 @h.c:20\nT1 create T3 @h.c:21\n"
        "T2 start T1\nT3 start T1\n"
        "T2 write a @h.c:1\nT2 sem-post S 1 @h.c:2\nT2 write b @h.c:3\n"
        "T2 sem-post S 2 @h.c:4\n"
        "T1 sem-wait S 1 @h.c:5\nT1 write c @h.c:6\n"
        "T3 sem-wait S 2 @h.c:7\nT3 write d @h.c:8\n");
   pin("post 1 before its wait", 1, 6, 1);
   pin("post 2 not before post 1's wait", 3, 6, 0);
   pin("post 2 before its wait", 3, 8, 1);
   agree("semaphore posts and waits");
   /* An initial token orders nothing. */
   load("T1 start T1\nT1 create T2 @h.c:20\nT2 start T1\n"
        "T2 write a @h.c:1\nT2 sem-post S 1 @h.c:2\nT1 sem-wait S 0 @h.c:3\n"
        "T1 write c @h.c:4\n");
   pin("an initial token", 1, 4, 0);
}

static void test_once_and_threads(void) {
   /* pthread_once: the routine's end releases, every return acquires. */
   load("T1 start T1\nT1 create T2 @h.c:20\nT1 create T3 @h.c:21\n"
        "T2 start T1\nT3 start T1\n"
        "T2 write a @h.c:1\nT2 release O @h.c:2\nT2 acquire O @h.c:3\n"
        "T3 write b @h.c:4\nT3 acquire O @h.c:5\nT3 write c @h.c:6\n"
        "T2 write d @h.c:7\nT2 exit\nT1 join T2 @h.c:8\nT1 write e @h.c:9\n");
   pin("once: the routine before every return", 1, 6, 1);
   pin("once: a return does not order the routine", 4, 7, 0);
   pin("create before the child", 20, 1, 1);
   pin("the child before the join", 7, 9, 1);
   pin("no join of T3", 6, 9, 0);
   agree("once, create and join");
}

static void test_release_runs(void) {
   /* T3 acquires T2's release, then T1 releases again (a second run): T4,
    * acquiring after both, follows T2's release too, through the chain of
    * runs (cbp_hb_group.prev), though T1 never acquired. */
   load("T1 start T1\nT1 create T2 @h.c:20\nT1 create T3 @h.c:21\nT1 create T4 @h.c:22\n"
        "T2 start T1\nT3 start T1\nT4 start T1\n"
        "T2 write a @h.c:1\nT2 release O @h.c:2\nT3 acquire O @h.c:3\n"
        "T1 write b @h.c:4\nT1 release O @h.c:5\nT4 acquire O @h.c:6\nT4 write c @h.c:7\n"
        "T3 write d @h.c:8\n");
   pin("release runs: the first run before an acquire after the second", 1, 7, 1);
   pin("release runs: the second run", 4, 7, 1);
   pin("release runs: the second run not before an earlier acquire", 4, 8, 0);
   agree("two release runs");
}

static void test_spin(void) {
   /* T2 waits for ready by spinning (four reads of 0, the recording's
    * most: vgtool/cb_repeat.c), then reads T1's 1: T1's data before its
    * store of ready are ordered before what T2 does after its loop.  T3
    * read ready three times only, then 1: no spin, no edge.  T1's write
    * after its store (line 4) is ordered before nothing of T2's.  No
    * agree(): reads with values order events for Z3 (what they read) that
    * no edge orders. */
   load("T1 start T1\nT1 create T2 @h.c:20\nT1 create T3 @h.c:21\n"
        "T2 start T1\nT3 start T1\n"
        "T2 read ready =0 @h.c:10\nT2 read ready =0 @h.c:10\n"
        "T3 read ready =0 @h.c:30\nT3 read ready =0 @h.c:30\nT3 read ready =0 @h.c:30\n"
        "T2 read ready =0 @h.c:10\nT2 read ready =0 @h.c:10\n"
        "T1 write data =5 @h.c:1\nT1 write ready =1 @h.c:2\nT1 write more =1 @h.c:4\n"
        "T2 read ready =1 @h.c:11\nT2 read data =5 @h.c:12\n"
        "T3 read ready =1 @h.c:31\nT3 read data =5 @h.c:32\n");
   size_t nspin = 0;
   for (size_t g = 0; g < H.ng; g++) nspin += H.g[g].kind == CBP_HB_SPIN;
   ok(nspin == 1, "spin: one edge, from the store T2 waited for (%zu)", nspin);
   /* By the clocks only: Z3 orders these by the values read anyway
    * (data = 5, ready = 1), edge or not. */
   ok(vc_before(at(1), at(12)), "spin: the data stored before the flag, before the read after the loop (by the clocks)");
   ok(vc_before(at(2), at(11)), "spin: the store the loop saw, before the loop's last read (by the clocks)");
   pin("spin: a write after the flag is not ordered", 4, 12, 0);
   /* Z3 orders T3's read after line 1 by the value it read (data = 5):
    * only the clocks, which take no values, show that no edge reached it. */
   ok(!vc_before(at(1), at(32)), "spin: three reads are no spin (by the clocks)");
   /* A thief polls a deque's top and bottom; the owner's push moves
    * bottom: a poll of two words may go on polling, no edge. */
   load("T1 start T1\nT1 create T2 @h.c:20\nT2 start T1\n"
        "T2 read top =0 @h.c:10\nT2 read bottom =0 @h.c:11\nT2 read top =0 @h.c:10\n"
        "T2 read bottom =0 @h.c:11\nT2 read top =0 @h.c:10\nT2 read bottom =0 @h.c:11\n"
        "T2 read top =0 @h.c:10\nT2 read bottom =0 @h.c:11\n"
        "T1 write task =7 @h.c:1\nT1 write bottom =1 @h.c:2\n"
        "T2 read top =0 @h.c:12\nT2 read bottom =1 @h.c:13\nT2 write top =1 @h.c:14\n");
   nspin = 0;
   for (size_t g = 0; g < H.ng; g++) nspin += H.g[g].kind == CBP_HB_SPIN;
   ok(nspin == 0, "spin: a poll of two words makes no edge (%zu)", nspin);
   ok(!vc_before(at(1), at(14)), "spin: the push is not ordered before the steal (by the clocks)");
}

int main(void) {
   setvbuf(stdout, NULL, _IOLBF, 0);
   Z = cb_z3_new(10000, 0);
   if (!Z) {
      printf("1..0 # SKIP cannot start Z3\n");
      return 0;
   }
   test_barrier_rounds();
   test_two_signals();
   test_semaphore();
   test_once_and_threads();
   test_release_runs();
   test_spin();
   unload();
   cb_z3_free(Z);
   printf("1..%d\n", ntest);
   return nfail != 0;
}
