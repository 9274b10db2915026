/* predict_orders: order violations (orders.c) on text-form traces (TAP):
 * the other writers an order violation holds back (site_writers.c).
 * Three setters run `a = 1; b = -1;` and finish before a checker reads a
 * and b: the checker's read of b (f) forced before one setter's write of
 * b must also find the other two setters stopped before theirs, or it
 * reads their -1.  A write of b at another line (main's reset) is no
 * setter and stays where it ran.  And a site pair met on several
 * variables (one loop's results) gives its first and its last instance.
 * Built plain and under ASan+UBSan.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict.h"
#include "tap_ok.h"
#include "text_trace.h"

static const char *setters =
   "T1 start T1\nT1 begin main\nT1 write b =0 @r.c:20\n"
   "T1 create T2\nT1 create T3\nT1 create T4\n"
   "T2 start T1\nT2 begin set\nT2 write a =1 @r.c:5\nT2 write b =-1 @r.c:6\nT2 end set\n"
   "T3 start T1\nT3 begin set\nT3 write a =1 @r.c:5\nT3 write b =-1 @r.c:6\nT3 end set\n"
   "T4 start T1\nT4 begin set\nT4 write a =1 @r.c:5\nT4 write b =-1 @r.c:6\nT4 end set\n"
   "T1 create T5\n"
   "T5 start T1\nT5 begin check\nT5 read a =1 @r.c:10\nT5 read b =-1 @r.c:11\nT5 end check\n"
   "T1 join T2\nT1 join T3\nT1 join T4\nT1 join T5\nT1 end main\n";

/* The ORD whose f is the checker's read of b and whose a a setter's write
 * of b (r.c:6); NULL when none was built. */
static const cbp_candidate *checker_b(void) {
   for (size_t i = 0; i < A.r.n; i++) {
      const cbp_candidate *c = &A.r.c[i];
      if (c->dropped || !c->prefix || c->pattern != CBP_ORD) continue;
      const cb_event *f = &T.events[c->f], *a = &T.events[c->e1];
      if (f->tid == 5 && f->kind == CB_EV_READ && a->kind == CB_EV_WRITE &&
          a->addr == f->addr && a->tid >= 2 && a->tid <= 4 &&
          strcmp(T.locs[f->loc].file, "r.c") == 0 && T.locs[f->loc].line == 11)
         return c;
   }
   return NULL;
}

/* A worker stores each task's result (one line, a loop) and main adds them
 * up afterwards (one line): the site pair is met on res0 first, res1
 * last.  The first instance is the one data most often orders (a pending
 * count the reader waits for), so the last is a candidate too. */
static const char *results =
   "T1 start T1\nT1 begin main\nT1 create T2\n"
   "T2 start T1\nT2 begin work\n"
   "T2 write res0 =7 @p.c:42\nT2 write res1 =9 @p.c:42\nT2 end work\n"
   "T1 read res0 =7 @p.c:60\nT1 read res1 =9 @p.c:60\n"
   "T1 join T2\nT1 end main\n";

/* Whether an order violation forces main's read of the variable that
 * event `w` (T2's write of it) writes before that write. */
static int ord_on_write(size_t w) {
   for (size_t i = 0; i < A.r.n; i++) {
      const cbp_candidate *c = &A.r.c[i];
      if (!c->dropped && c->pattern == CBP_ORD && c->e1 == w && c->t2 == 1)
         return 1;
   }
   return 0;
}

static void test_later_instance(void) {
   cbp_options o = {CBP_BLOCKS_AUTO, 0, 0, 0};
   analyse_text(results, o);
   size_t w0 = 0, w1 = 0;
   for (size_t i = 0; i < T.nevents; i++)
      if (T.events[i].tid == 2 && T.events[i].kind == CB_EV_WRITE) {
         if (!w0) w0 = i; else w1 = i;
      }
   ok(w0 && w1, "the trace has both writes");
   ok(ord_on_write(w0), "the first instance of the site pair: res0");
   ok(ord_on_write(w1), "and its last, on another variable: res1");
}

/* readsfrom.c's question before synthesis moves T2's events after the
 * other prefixes: does another prefix read what they wrote?  T3 read the
 * task counter T2 had used up; with T2 moved after it, T3 would take a
 * task and leave the plan's path. */
static void test_others_read(void) {
   load_text("T1 start T1\nT1 begin main\nT1 create T2\nT1 create T3\n"
             "T2 start T1\nT2 begin work\nT2 write next =4 @q.c:5\nT2 end work\n"
             "T3 start T1\nT3 begin work\nT3 read next =4 @q.c:4\nT3 end work\n"
             "T1 join T2\nT1 join T3\nT1 end main\n");
   cbp_escape x;
   cbp_escape_run(&T, &x);
   cbp_rf *rf = cbp_rf_new(&T, &x);
   uint64_t prefix[3] = {2, 1, 1};
   ok(cbp_rf_others_read(rf, prefix, 2, 0, 1),
      "T3's prefix reads T2's write: T2 may not move after it");
   prefix[2] = 0;
   ok(!cbp_rf_others_read(rf, prefix, 2, 0, 1),
      "with T3 not yet past its read, it may");
   cbp_rf_free(rf);
   cbp_escape_free(&x);
}

int main(void) {
   cbp_options o = {CBP_BLOCKS_AUTO, 0, 0, 0};
   analyse_text(setters, o);
   const cbp_candidate *c = checker_b();
   ok(c != NULL, "an order violation: the checker's read of b before a setter's write");
   if (c) {
      int held = 0;
      for (uint32_t j = 2; j <= 4; j++)
         held += c->prefix[j - 1] <= 1; /* not past its write of a */
      ok(held == 3, "every setter stops before its write of b (%d of 3)", held);
      ok(c->prefix[0] >= 1, "main's own write of b (another line) stays in the prefix");
      int a_written = 0;
      for (uint32_t j = 2; j <= 4; j++) a_written += c->prefix[j - 1] == 1;
      ok(a_written >= 2, "the others are stopped just before it, past their write of a");
   }
   test_later_instance();
   test_others_read();
   text_trace_free();
   printf("1..%d\n", ntest);
   return nfail != 0;
}
