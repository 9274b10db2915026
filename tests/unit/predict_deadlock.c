/* predict_deadlock: lock-order inversions (pattern DLK) on text-form traces
 * (TAP): a gate-lock inversion (SCTBench's carter01: a lock taken under
 * another, which is released and then asked for again) must get a schedule,
 * and cycles of five to eight philosophers must be found, a ninth said not
 * to be searched.  Each schedule is checked by simulating its locks: every
 * thread of the cycle runs its tail without blocking, and ends holding a
 * lock the previous one asks for next.  Built plain and under ASan+UBSan.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict.h"
#include "tap_ok.h"
#include "text_trace.h"

static void run(const char *text) {
   analyse_text(text, (cbp_options){CBP_BLOCKS_AUTO, 0, CBP_FAM_ATOMICITY | CBP_FAM_ORDER, 0});
}

static size_t count_dlk(void) {
   size_t k = 0;
   for (size_t i = 0; i < A.r.n; i++) k += A.r.c[i].pattern == CBP_DLK && !A.r.c[i].dropped;
   return k;
}

/* The trace index of thread tid's counted event number k (nevents: none). */
static size_t nth(uint32_t tid, uint64_t k) {
   for (size_t i = 0; i < T.nevents; i++) {
      const cb_event *e = &T.events[i];
      if (e->tid != tid || e->kind >= CB_EV_KIND_COUNT || !CB_IS_COUNTED(e->kind)) continue;
      if (k-- == 0) return i;
   }
   return T.nevents;
}

#define HELD 4 /* locks one thread holds at once, at most, in these traces */

/* Who holds lock addr (0: nobody). */
static uint32_t holder(uint64_t (*held)[HELD], uint32_t n, uint64_t addr) {
   for (uint32_t j = 1; j <= n; j++)
      for (int k = 0; k < HELD; k++)
         if (held[j][k] == addr) return j;
   return 0;
}

/* Runs thread j's counted event number pos against the locks: 0, or the
 * thread whose lock it would block on. */
static uint32_t step(uint64_t (*held)[HELD], uint32_t n, uint32_t j, uint64_t pos) {
   const cb_event *e = &T.events[nth(j, pos)];
   uint32_t h = e->kind == CB_EV_LOCK ? holder(held, n, e->addr) : 0;
   if (h && h != j) return h;
   for (int k = 0; k < HELD; k++) {
      if (e->kind == CB_EV_LOCK && !held[j][k]) { held[j][k] = e->addr; break; }
      if (e->kind == CB_EV_UNLOCK && held[j][k] == e->addr) { held[j][k] = 0; break; }
   }
   return 0;
}

/* Replays c's prefix (each thread alone, in turn) and tail against the
 * locks: NULL when no thread blocks on the way and then each thread of the
 * tail, run on, blocks on a lock another thread of the tail holds, else
 * what went wrong. */
static const char *ends_deadlocked(const cbp_candidate *c) {
   static char why[128];
   uint32_t n = A.x.nthreads;
   uint64_t held[64][HELD], pos[64] = {0};
   memset(held, 0, sizeof held);
   if (n >= 64) return "too many threads for this check";
   for (uint32_t s = 0; s <= c->ntail; s++)
      for (uint32_t j = 1; j <= n; j++) {
         uint64_t to = s == 0 ? c->prefix[j - 1] : c->tail[s - 1].tid == j ?
                       pos[j] + c->tail[s - 1].count : pos[j];
         for (uint32_t h; pos[j] < to; pos[j]++)
            if ((h = step(held, n, j, pos[j])) != 0) {
               snprintf(why, sizeof why, "T%u blocks at event %zu on T%u's lock", j,
                        nth(j, pos[j]), h);
               return why;
            }
      }
   for (uint32_t s = 0; s < c->ntail; s++) {
      uint32_t j = c->tail[s].tid, h = 0;
      while (nth(j, pos[j]) < T.nevents && (h = step(held, n, j, pos[j])) == 0) pos[j]++;
      if (!h) {
         snprintf(why, sizeof why, "T%u runs to its end", j);
         return why;
      }
   }
   return NULL;
}

/* carter01's shape: each thread takes its class lock l under the gate m,
 * releases m, and takes m again to give l back.  T2 holding l asks for m
 * while T3 holds m and asks for l, and the other way round. */
static void test_gate(void) {
   run("T1 start T1\nT1 begin main\nT1 create T2\nT1 create T3\n"
       "T2 start T1\nT2 begin one\nT2 lock m @g.c:10\nT2 write a =1 @g.c:11\n"
       "T2 lock l @g.c:12\nT2 unlock m @g.c:13\nT2 lock m @g.c:14\nT2 unlock l @g.c:15\n"
       "T2 unlock m @g.c:16\nT2 end one\nT2 exit\n"
       "T3 start T1\nT3 begin two\nT3 lock m @g.c:20\nT3 write b =1 @g.c:21\n"
       "T3 lock l @g.c:22\nT3 unlock m @g.c:23\nT3 lock m @g.c:24\nT3 unlock l @g.c:25\n"
       "T3 unlock m @g.c:26\nT3 end two\nT3 exit\nT1 join T2\nT1 join T3\nT1 end main\n");
   ok(count_dlk() == 2 && A.r.dropped_synth == 0,
      "gate lock: both inversions get a schedule (%zu, %llu dropped)", count_dlk(),
      (unsigned long long)A.r.dropped_synth);
   for (size_t i = 0; i < A.r.n; i++) {
      const cbp_candidate *c = &A.r.c[i];
      if (c->pattern != CBP_DLK || c->dropped) continue;
      const char *why = ends_deadlocked(c);
      ok(!why, "gate lock, e1 at g.c:%u: the tail ends in the deadlock (%s)",
         T.locs[T.events[c->e1].loc].line, why ? why : "it does");
   }
}

/* Two threads, a then b against b then a: the tail of old, each thread
 * just past its first lock, T2 first. */
static void test_plain(void) {
   run("T1 start T1\nT1 create T2\nT1 create T3\n"
       "T2 start T1\nT2 lock a @d.c:1\nT2 write x =1 @d.c:2\nT2 lock b @d.c:3\n"
       "T2 unlock b\nT2 unlock a\nT2 exit\n"
       "T3 start T1\nT3 lock b @d.c:5\nT3 write x =2 @d.c:6\nT3 lock a @d.c:7\n"
       "T3 unlock a\nT3 unlock b\nT3 exit\nT1 join T2\nT1 join T3\n");
   const cbp_candidate *c = A.r.n == 1 ? &A.r.c[0] : NULL;
   ok(c && !c->dropped && c->ntail == 2 && c->tail[0].tid == 2 && c->tail[1].tid == 3 &&
      c->prefix[1] + c->tail[0].count == c->ce1 + 1 &&
      c->prefix[2] + c->tail[1].count == c->cf + 1,
      "a then b, b then a: each thread stops just past its first lock, T2 first");
   ok(c && !ends_deadlocked(c), "a then b, b then a: the tail ends in the deadlock");
}

/* n philosophers, one after the other: philosopher i takes fork i, then
 * fork i + 1 (mod n), at the same two lines. */
static void philosophers(int n) {
   static char buf[8192];
   size_t w = (size_t)snprintf(buf, sizeof buf, "T1 start T1\n");
   for (int i = 0; i < n; i++)
      w += (size_t)snprintf(buf + w, sizeof buf - w, "T1 create T%d\n", i + 2);
   for (int i = 0; i < n; i++)
      w += (size_t)snprintf(buf + w, sizeof buf - w,
                            "T%d start T1\nT%d lock f%d @p.c:8\nT%d lock f%d @p.c:9\n"
                            "T%d unlock f%d\nT%d unlock f%d\nT%d exit\n", i + 2, i + 2, i,
                            i + 2, (i + 1) % n, i + 2, (i + 1) % n, i + 2, i, i + 2);
   for (int i = 0; i < n; i++)
      w += (size_t)snprintf(buf + w, sizeof buf - w, "T1 join T%d\n", i + 2);
   run(buf);
}

static void test_philosophers(void) {
   for (int n = 5; n <= CBP_MAX_CYCLE; n += CBP_MAX_CYCLE - 5) {
      philosophers(n);
      const cbp_candidate *c = count_dlk() == 1 ? &A.r.c[0] : NULL;
      ok(c && c->nmore == (uint32_t)n - 2 && A.r.cycles_long == 0,
         "%d philosophers: one DLK cycle of %d threads", n, n);
      const char *why = c ? ends_deadlocked(c) : "no cycle";
      ok(!why, "%d philosophers: the tail ends in the deadlock (%s)", n, why ? why : "it does");
   }
   philosophers(CBP_MAX_CYCLE + 1);
   ok(count_dlk() == 0 && A.r.cycles_long > 0,
      "%d philosophers: a cycle longer than CBP_MAX_CYCLE is not searched, and counted (%llu)",
      CBP_MAX_CYCLE + 1, (unsigned long long)A.r.cycles_long);
   /* Forks always taken in one global order: no cycle can close, so no
    * chain is said to go on unsearched. */
   run("T1 start T1\nT1 create T2\nT1 create T3\nT1 create T4\nT1 create T5\n"
       "T1 create T6\nT1 create T7\nT1 create T8\nT1 create T9\nT1 create T10\n"
       "T2 start T1\nT2 lock f0\nT2 lock f1\nT2 unlock f1\nT2 unlock f0\n"
       "T3 start T1\nT3 lock f1\nT3 lock f2\nT3 unlock f2\nT3 unlock f1\n"
       "T4 start T1\nT4 lock f2\nT4 lock f3\nT4 unlock f3\nT4 unlock f2\n"
       "T5 start T1\nT5 lock f3\nT5 lock f4\nT5 unlock f4\nT5 unlock f3\n"
       "T6 start T1\nT6 lock f4\nT6 lock f5\nT6 unlock f5\nT6 unlock f4\n"
       "T7 start T1\nT7 lock f5\nT7 lock f6\nT7 unlock f6\nT7 unlock f5\n"
       "T8 start T1\nT8 lock f6\nT8 lock f7\nT8 unlock f7\nT8 unlock f6\n"
       "T9 start T1\nT9 lock f7\nT9 lock f8\nT9 unlock f8\nT9 unlock f7\n"
       "T10 start T1\nT10 lock f8\nT10 lock f9\nT10 unlock f9\nT10 unlock f8\n");
   ok(count_dlk() == 0 && A.r.cycles_long == 0 && A.r.cycles_capped == 0,
      "a chain of nine forks in one order: no cycle, none said to be left unsearched");
}

int main(void) {
   test_plain();
   test_gate();
   test_philosophers();
   text_trace_free();
   printf("1..%d\n", ntest);
   return nfail != 0;
}
