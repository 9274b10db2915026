/* predict_rank: cut-points inside a split read-modify-write instruction
 * and the order schedules are numbered in (rank.c), on text-form traces
 * (TAP).  Built plain and under ASan+UBSan.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict.h"
#include "tap_ok.h"


static cb_trace T;
static cbp_analysis A;
static int loaded;

static void run(const char *text) {
   if (loaded) { cbp_analysis_free(&A); cb_trace_free(&T); }
   cb_error err;
   if (cb_trace_from_text(text, &T, &err)) {
      printf("# text form: %s\nBail out! text form rejected\n", err.msg);
      exit(1);
   }
   cbp_options o = {CBP_BLOCKS_AUTO, 0, 0};
   cbp_analyze(&T, &o, &A);
   loaded = 1;
}

static size_t built_rww(void) {
   size_t n = 0;
   for (size_t i = 0; i < A.r.n; i++)
      n += A.r.c[i].pattern == CBP_RWW && A.r.c[i].built && !A.r.c[i].dropped;
   return n;
}

/* Two handlers each run `hits++` built -O2: one instruction, a load and a
 * store of hits.  Split, the load and the store may be cut apart (RWW, the
 * lost update); glued (a locked add), no schedule may cut them. */
static void test_split(void) {
   const char *fmt =
      "T1 start T1\nT1 begin main\nT1 create T2\nT1 create T3\n"
      "T2 start T1\nT2 begin handler\nT2 read hits =0 size 8 @h.c:5\n"
      "T2 write hits =1 size 8 @h.c:5 same-insn %s\nT2 end handler\n"
      "T3 start T1\nT3 begin handler\nT3 read hits =1 size 8 @h.c:5\n"
      "T3 write hits =2 size 8 @h.c:5 same-insn %s\nT3 end handler\n"
      "T1 join T2\nT1 join T3\nT1 read hits =2 size 8 @h.c:9\nT1 end main\n";
   char text[1024];
   snprintf(text, sizeof text, fmt, "split", "split");
   run(text);
   size_t n = built_rww();
   ok(n >= 1, "split read-modify-write: the lost update is an RWW schedule (%zu)", n);
   int cut_inside = 0;
   for (size_t i = 0; i < A.r.n; i++) {
      const cbp_candidate *c = &A.r.c[i];
      if (c->pattern == CBP_RWW && c->built && !c->dropped &&
          T.events[c->e1].kind == CB_EV_READ && c->e2 == c->e1 + 1)
      {
         /* e1's thread's events run before the step that runs f */
         uint64_t c1 = c->prefix[c->t1 - 1], c2 = c->prefix[c->t2 - 1];
         for (uint32_t k = 0; k < c->ntail && c2 <= c->cf; k++) {
            if (c->tail[k].tid == c->t2) c2 += c->tail[k].count;
            else if (c->tail[k].tid == c->t1) c1 += c->tail[k].count;
         }
         cut_inside |= c1 == c->ce1 + 1;
      }
   }
   ok(cut_inside, "split: e1's thread stops between the load and the store");
   snprintf(text, sizeof text, fmt, "", "");
   run(text);
   ok(built_rww() == 0 && A.r.dropped_insn > 0,
      "a locked add stays whole: no RWW, the cut is counted as inside one instruction");
}

/* A lazy initialiser: T2 finds the flag clear, fills the table, sets the
 * flag; T3 finds it set and reads the table.  Forcing T3's read of the
 * table before T2's write also moves T3's read of the flag before T2 sets
 * it (a read with another writer than recorded): that schedule must come
 * after the one on the flag itself. */
static void test_rank(void) {
   run("T1 start T1\nT1 begin main\nT1 create T2\nT1 create T3\n"
       "T2 start T1\nT2 begin lookup\nT2 read ready =0 @i.c:16\n"
       "T2 write table =5 @i.c:12\nT2 write ready =1 @i.c:16\nT2 end lookup\n"
       "T3 start T1\nT3 begin lookup\nT3 read ready =1 @i.c:16\n"
       "T3 read table =5 @i.c:17\nT3 end lookup\n"
       "T1 join T2\nT1 join T3\nT1 end main\n");
   const cbp_candidate *first = NULL, *on_table = NULL;
   size_t at_table = 0, at_flag = 0;
   for (size_t i = 0; i < A.r.n; i++) {
      const cbp_candidate *c = &A.r.c[i];
      if (!c->built || c->dropped || c->pattern != CBP_ORD) continue;
      if (!first) first = c;
      if (T.events[c->f].loc == T.events[13].loc) { on_table = c; at_table = i; }
      if (T.events[c->f].loc == T.events[12].loc) at_flag = i;
   }
   cbp_rank(&T, &A.x, &A.r);
   size_t nt = 0, nf = 0;
   for (size_t i = 0; i < A.r.n; i++) {
      const cbp_candidate *c = &A.r.c[i];
      if (!c->built || c->dropped || c->pattern != CBP_ORD) continue;
      if (T.events[c->f].loc == T.events[13].loc) nt = i;
      if (T.events[c->f].loc == T.events[12].loc) nf = i;
   }
   ok(on_table != NULL, "ORD on the table is predicted");
   ok(at_table < at_flag, "in trace order the table's ORD comes first");
   ok(nf < nt, "ranked: the flag's ORD comes before the table's");
}

int main(void) {
   test_split();
   test_rank();
   if (loaded) { cbp_analysis_free(&A); cb_trace_free(&T); }
   printf("1..%d\n", ntest);
   return nfail != 0;
}
