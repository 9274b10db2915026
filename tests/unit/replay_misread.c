/* replay_misread.c: unit tests of misread.c (the value a failing run's
 * thread read otherwise than the recorded run) and of the tool's last
 * status line naming the thread that called exit.  Traces are written in
 * the text form (cb_trace_from_text); two texts that name their @file:line
 * locations in the same first order give them the same code addresses, as
 * two runs of one program do.  Prints TAP; exit 0 when every check passes.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "tap_ok.h"

static void load(const char *text, cb_trace *t)
{
   cb_error err;
   memset(t, 0, sizeof *t);
   if (cb_trace_from_text(text, t, &err) != 0) {
      printf("# text form: %s\nBail out! text form rejected\n", err.msg);
      exit(1);
   }
}

/* The locations, in one order, that both runs of a case name first. */
#define SITES                                                                 \
   "T1 write head =0 @q.c:10\n"                                               \
   "T1 write tail =0 @q.c:11\n"                                               \
   "T1 write copies =0 @q.c:20\n"                                             \
   "T1 write pages =0 @q.c:30\n"

static cbr_misread find(const char *rec_text, const char *run_text, unsigned tid)
{
   cb_trace rec, run;
   cbr_misread m;
   load(rec_text, &rec);
   load(run_text, &run);
   if (cbr_find_misread(&rec, &run, tid, &m) < 0)
      ok(0, "cbr_find_misread ran out of memory");
   cb_trace_free(&rec);
   cb_trace_free(&run);
   return m;
}

/* The spooler of tests/data/spooljob.c: the printer finds the queue empty
 * once more than in the recorded run (a branch the recorded run did not
 * take, and another tail write), then reads the job's copies 0. */
static void test_after_another_branch(void)
{
   const char *rec = SITES
      "T2 read head =1 @q.c:10\n"
      "T2 read copies =3 @q.c:20\n"
      "T2 write pages =3 @q.c:30\n";
   const char *run = SITES
      "T2 read head =0 @q.c:10\n"
      "T2 write tail =0 @q.c:11\n"
      "T2 read head =1 @q.c:10\n"
      "T2 read copies =0 @q.c:20\n";
   cbr_misread m = find(rec, run, 2);
   ok(m.found && m.tid == 2 && !strcmp(m.variable, "copies") && m.value == 0 &&
         m.recorded == 3 && !strcmp(m.where, "q.c:20"),
      "the read of copies after a branch the recorded run did not take: "
      "found %d, T%u %s = %llu (recorded %llu) at %s", m.found, m.tid, m.variable,
      m.value, m.recorded, m.where);
}

/* The last misread of the run counts, by the k-th time its code read: the
 * second read at q.c:10 is matched with the recorded run's second. */
static void test_last_by_occurrence(void)
{
   const char *rec = SITES
      "T2 read head =1 @q.c:10\n"
      "T2 read head =2 @q.c:10\n"
      "T2 read copies =3 @q.c:20\n";
   const char *run = SITES
      "T2 read head =1 @q.c:10\n"
      "T2 read copies =3 @q.c:20\n"
      "T2 read head =5 @q.c:10\n";
   cbr_misread m = find(rec, run, 2);
   ok(m.found && !strcmp(m.variable, "head") && m.value == 5 && m.recorded == 2,
      "the last read that differs, matched by occurrence: %s = %llu (recorded %llu)",
      m.variable, m.value, m.recorded);
}

/* Nothing to say: the same values; another thread's reads; another
 * address read at the same code (another block). */
static void test_nothing(void)
{
   const char *rec = SITES
      "T2 read copies =3 @q.c:20\n"
      "T3 read copies =3 @q.c:20\n";
   const char *same = SITES
      "T2 read copies =3 @q.c:20\n"
      "T3 read copies =0 @q.c:20\n";
   cbr_misread m = find(rec, same, 2);
   ok(!m.found, "no misread when the thread read what the recorded run read "
                "(another thread's misread is not its own)");
   const char *other = SITES
      "T2 read pages =0 @q.c:20\n";
   m = find(rec, other, 2);
   ok(!m.found, "a read of another address at the same code is no misread");
   m = find(rec, same, 3);
   ok(m.found && m.tid == 3, "T3's own misread is found for T3");
}

/* The tool's last line names the thread that called exit; an older
 * tool's does not. */
static void test_end_line(void)
{
   cbr_status st;
   cbr_status_init(&st);
   cbr_status_line(&st, "end exit 1 by 2");
   ok(st.end == CBR_END_EXIT && st.end_exit == 1 && st.end_tid == 2,
      "\"end exit 1 by 2\": exit 1 by T2 (end %d, exit %d, T%u)", st.end,
      st.end_exit, st.end_tid);
   cbr_status_init(&st);
   cbr_status_line(&st, "end exit 3");
   ok(st.end == CBR_END_EXIT && st.end_exit == 3 && st.end_tid == 0,
      "\"end exit 3\" (an older tool): exit 3, thread unknown");
}

int main(void)
{
   test_after_another_branch();
   test_last_by_occurrence();
   test_nothing();
   test_end_line();
   printf("1..%d\n", ntest);
   return nfail != 0;
}
