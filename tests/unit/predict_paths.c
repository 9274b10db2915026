/* predict_paths: schedules that keep the path to f the recorded one, and
 * exploration's new paths first, on text-form traces (TAP).
 *   - synthesis.c, t1_past_e: main's unlocked `len == 1` check read what
 *     the producer wrote after e1 in its critical section; the schedule
 *     runs the producer on through that write before main reads it (and
 *     stops it at e1 when main read nothing of the kind);
 *   - read_first.c: a test-then-set guard; the other clerk's test of the
 *     flag runs before the first clerk sets it, or it would spin there;
 *   - fresh.c: against a base run that never took the fast path, the
 *     violations on its lines are built and numbered first, also under
 *     --max 1 (exploration's rounds are short).
 * Built plain and under ASan+UBSan.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank.h"
#include "tap_ok.h"
#include "text_trace.h"

/* A producer pushes one node under m (at -O2 the count before the head)
 * and counts it in stats; main then takes the single node without the
 * lock (d.c:36-37) when its check of len (d.c:35) reads 1.  len_first:
 * the producer counts before its read of head (e1), so main's check reads
 * a write from before e1. */
static void fast_path_trace(char *buf, size_t n, int len_first) {
   const char *len = "T2 read len =0 @p.c:22\nT2 write len =1 @p.c:22\n";
   snprintf(buf, n,
            "T1 start T1\nT1 begin main\nT1 create T2\n"
            "T2 start T1\nT2 begin producer\nT2 lock m\n%sT2 read head =0 @p.c:20\n%s"
            "T2 write head =77 @p.c:21\nT2 unlock m\nT2 write stats =1 @p.c:25\n"
            "T2 end producer\n"
            "T1 read len =1 @d.c:35\nT1 read head =77 @d.c:36\nT1 write head =0 @d.c:37\n"
            "T1 read stats =1 @d.c:60\nT1 join T2\nT1 end main\n",
            len_first ? len : "", len_first ? "" : len);
}

/* The RWW on head with the producer's read and write around main's
 * write; NULL when none was built. */
static const cbp_candidate *rww_head(void) {
   for (size_t i = 0; i < A.r.n; i++) {
      const cbp_candidate *c = &A.r.c[i];
      if (c->pattern == CBP_RWW && c->built && !c->dropped && c->t1 == 2 && c->t2 == 1)
         return c;
   }
   return NULL;
}

/* Thread o's count when the tail step of thread r that runs r's counted
 * event `rd` begins (UINT64_MAX: in the prefix, no order at all). */
static uint64_t other_at(const cbp_candidate *c, uint32_t o, uint32_t r, uint64_t rd) {
   uint64_t p = c->prefix[o - 1], m = c->prefix[r - 1];
   if (m > rd) return UINT64_MAX;
   for (uint32_t k = 0; k < c->ntail; k++) {
      if (c->tail[k].tid == r) {
         if (m + c->tail[k].count > rd) return p;
         m += c->tail[k].count;
      } else if (c->tail[k].tid == o) {
         p += c->tail[k].count;
      }
   }
   return UINT64_MAX;
}

/* The producer's count when main's step that runs its read of len
 * (main's counted event `rd`) begins. */
static uint64_t producer_at_main_read(const cbp_candidate *c, uint64_t rd) {
   return other_at(c, 2, 1, rd);
}

/* Counted index of the first event of thread tid at file:line. */
static uint64_t counted_at(uint32_t tid, const char *file, uint32_t line) {
   uint64_t k = 0;
   for (size_t i = 0; i < T.nevents; i++) {
      const cb_event *e = &T.events[i];
      if (e->tid != tid || e->kind >= CB_EV_KIND_COUNT || !CB_IS_COUNTED(e->kind)) continue;
      if (!strcmp(T.locs[e->loc].file, file) && T.locs[e->loc].line == line) return k;
      k++;
   }
   return UINT64_MAX;
}

/* The built RWW of threads t1 and t2 whose e1 (e2 when which is 1) is at
 * file:line; NULL when none. */
static const cbp_candidate *rww_at(uint32_t t1, uint32_t t2, int which, const char *file,
                                   uint32_t line) {
   for (size_t i = 0; i < A.r.n; i++) {
      const cbp_candidate *k = &A.r.c[i];
      const cb_location *l = &T.locs[T.events[which ? k->e2 : k->e1].loc];
      if (k->pattern == CBP_RWW && k->built && !k->dropped && k->t1 == t1 && k->t2 == t2 &&
          !strcmp(l->file, file) && l->line == line)
         return k;
   }
   return NULL;
}

static void test_t1_past_e(void) {
   char text[2048];
   fast_path_trace(text, sizeof text, 0);
   analyse_text(text, (cbp_options){CBP_BLOCKS_AUTO, 0, 0, 0});
   const cbp_candidate *c = rww_head();
   ok(c != NULL, "fast path: the RWW on head (producer's read and write, main's write) is built");
   uint64_t wlen = counted_at(2, "p.c", 22) + 1; /* the write of len */
   uint64_t rd = counted_at(1, "d.c", 35);
   uint64_t at = c ? producer_at_main_read(c, rd) : 0;
   ok(c && at != UINT64_MAX && at > wlen && at <= c->ce2,
      "the producer runs on past e1 through its write of len before main reads len "
      "(producer at %llu, its write of len is %llu, e2 %llu)",
      (unsigned long long)at, (unsigned long long)wlen, c ? (unsigned long long)c->ce2 : 0ull);

   fast_path_trace(text, sizeof text, 1);
   analyse_text(text, (cbp_options){CBP_BLOCKS_AUTO, 0, 0, 0});
   c = rww_head();
   rd = counted_at(1, "d.c", 35);
   at = c ? producer_at_main_read(c, rd) : 0;
   ok(c && at == c->ce + 1,
      "main's check read a write from before e1: the producer stops at e1 (at %llu, e1 %llu)",
      (unsigned long long)at, c ? (unsigned long long)c->ce : 0ull);
}

/* Two clerks take a guard by test-then-set (g.c:20 waits for busy == 0,
 * g.c:22 sets it) and move stock; the second clerk came after the first
 * had left.  The RWW on front (T2 reads and writes it, T3's write between)
 * needs T3 past its test while T2 is inside: T3's read of busy must run
 * before T2's write of it, or T3 reads 1 and spins. */
static const char *guard_run =
   "T1 start T1\nT1 begin main\nT1 create T2\nT1 create T3\n"
   "T2 start T1\nT2 begin clerk\nT2 read busy =0 @g.c:20\nT2 write busy =1 @g.c:22\n"
   "T2 read front =500 @g.c:48\nT2 write front =496 @g.c:49\nT2 write busy =0 @g.c:30\n"
   "T2 end clerk\n"
   "T3 start T1\nT3 begin clerk\nT3 read busy =0 @g.c:20\nT3 write busy =1 @g.c:22\n"
   "T3 read front =496 @g.c:48\nT3 write front =490 @g.c:49\nT3 write busy =0 @g.c:30\n"
   "T3 end clerk\n"
   "T1 join T2\nT1 join T3\nT1 end main\n";

static void test_read_first(void) {
   analyse_text(guard_run, (cbp_options){CBP_BLOCKS_AUTO, 0, 0, 0});
   const cbp_candidate *c = rww_at(2, 3, 0, "g.c", 48);
   ok(c != NULL, "guard: the RWW on front (T2 reads and writes, T3 writes) is built");
   uint64_t set = counted_at(2, "g.c", 22), test = counted_at(3, "g.c", 20);
   uint64_t at = c ? other_at(c, 2, 3, test) : UINT64_MAX;
   ok(c && at != UINT64_MAX && at <= set,
      "guard: T3 tests busy before T2 sets it (T2 at %llu when T3 tests, its set is %llu)",
      (unsigned long long)at, (unsigned long long)set);
   uint64_t f_at = c ? other_at(c, 2, 3, c->cf) : UINT64_MAX;
   ok(c && f_at == c->ce + 1, "guard: and T3's write of front still comes right after e1 "
      "(T2 at %llu, e1 %llu)", (unsigned long long)f_at, c ? (unsigned long long)c->ce : 0ull);
}

/* A flusher polls a dirty flag (w.c:35) while an application thread is
 * not yet running; then the application updates twice back to back, and
 * the flusher's next poll sees the flag set and clears it (w.c:42).  The
 * RWW on dirty puts the second update between that poll and the clear;
 * the tail runs the application to it first, so the flusher's earlier
 * polls must not be lowered into the tail behind the updates (they would
 * read 1 and flush at once). */
static const char *flush_run =
   "T1 start T1\nT1 begin main\nT1 create T2\nT1 create T3\n"
   "T2 start T1\nT2 begin flusher\n"
   "T2 lock m\nT2 read dirty =0 @w.c:35\nT2 unlock m\n"
   "T2 lock m\nT2 read dirty =0 @w.c:35\nT2 unlock m\n"
   "T2 lock m\nT2 read dirty =0 @w.c:35\nT2 unlock m\n"
   "T3 start T1\nT3 begin app\n"
   "T3 lock m\nT3 write value =1 @w.c:60\nT3 write dirty =1 @w.c:61\nT3 unlock m\n"
   "T3 lock m\nT3 write value =2 @w.c:60\nT3 write dirty =1 @w.c:61\nT3 unlock m\n"
   "T3 end app\n"
   "T2 lock m\nT2 read dirty =1 @w.c:35\nT2 read value =2 @w.c:36\nT2 unlock m\n"
   "T2 lock m\nT2 write dirty =0 @w.c:42\nT2 unlock m\nT2 end flusher\n"
   "T1 join T2\nT1 join T3\nT1 end main\n";

static void test_polls_first(void) {
   analyse_text(flush_run, (cbp_options){CBP_BLOCKS_AUTO, 0, 0, 0});
   const cbp_candidate *c = rww_at(2, 3, 1, "w.c", 42);
   ok(c != NULL, "flusher: the RWW on dirty (the flusher's poll and clear, an update between) is built");
   uint64_t poll = 7, set = counted_at(3, "w.c", 61); /* the third poll's read */
   uint64_t at = c ? other_at(c, 3, 2, poll) : 0;
   ok(c && (at == UINT64_MAX || at <= set),
      "flusher: its third poll runs before the first update sets dirty (the application "
      "at %llu when it runs, its first write of dirty is %llu)",
      (unsigned long long)at, (unsigned long long)set);
}

/* The base run: main drained under the lock (d.c:44-47), never through
 * the fast path. */
static const char *base_run =
   "T1 start T1\nT1 begin main\nT1 create T2\n"
   "T2 start T1\nT2 begin producer\nT2 lock m\nT2 read head =0 @p.c:20\n"
   "T2 read len =0 @p.c:22\nT2 write len =1 @p.c:22\n"
   "T2 write head =77 @p.c:21\nT2 unlock m\nT2 write stats =1 @p.c:25\nT2 end producer\n"
   "T1 lock m\nT1 read head =77 @d.c:45\nT1 write head =0 @d.c:47\nT1 unlock m\n"
   "T1 read stats =1 @d.c:60\nT1 join T2\nT1 end main\n";

static int on_fast_path(const cbp_candidate *c) {
   uint64_t ev[3] = {c->e1, c->f, c->e2};
   for (int k = 0; k < 3; k++) {
      uint32_t line = T.locs[T.events[ev[k]].loc].line;
      if (!strcmp(T.locs[T.events[ev[k]].loc].file, "d.c") && line >= 35 && line <= 37) return 1;
   }
   return 0;
}

static void test_fresh(void) {
   cb_trace base;
   memset(&base, 0, sizeof base);
   cb_error err;
   if (cb_trace_from_text(base_run, &base, &err)) {
      printf("# text form: %s\nBail out! text form rejected\n", err.msg);
      exit(1);
   }
   char text[2048];
   fast_path_trace(text, sizeof text, 0);
   load_text(text);
   cbp_analyze_candidates(&T, &(cbp_options){CBP_BLOCKS_AUTO, 0, 0, 0}, &A);
   analysed = 1;
   size_t n = A.r.n, fresh = cbp_prefer_fresh(&T, &base, &A.r);
   size_t on = 0, first_ok = 1, seen_old = 0;
   for (size_t i = 0; i < A.r.n; i++) {
      const cbp_candidate *c = &A.r.c[i];
      on += on_fast_path(c);
      if (c->fresh != on_fast_path(c)) first_ok = 0;
      if (!c->fresh) seen_old = 1;
      else if (seen_old) first_ok = 0;
   }
   ok(fresh > 0 && fresh < n && fresh == on,
      "fresh: the %zu of %zu candidates on the fast path's lines are marked", fresh, n);
   ok(first_ok, "fresh: they come first, every one of them");
   /* --max 1: the one schedule built is on the new path, and ranks first. */
   cbp_build_schedules(&T, &A, 1, NULL, NULL);
   cbp_rank(&T, &A.x, &A.r);
   const cbp_candidate *top = NULL;
   for (size_t i = 0; i < A.r.n && !top; i++)
      if (A.r.c[i].built && !A.r.c[i].dropped) top = &A.r.c[i];
   ok(top && top->fresh && on_fast_path(top), "--max 1 builds a fast-path violation, first");
   cb_trace_free(&base);

   /* Against itself nothing is fresh, and the order is untouched. */
   load_text(text);
   cbp_analyze_candidates(&T, &(cbp_options){CBP_BLOCKS_AUTO, 0, 0, 0}, &A);
   ok(cbp_prefer_fresh(&T, &T, &A.r) == 0, "fresh: a run against itself has no new line");
}

int main(void) {
   test_t1_past_e();
   test_read_first();
   test_polls_first();
   test_fresh();
   text_trace_free();
   printf("1..%d\n", ntest);
   return nfail != 0;
}
