/* predict_rank: cut-points inside a split read-modify-write instruction,
 * the order schedules are numbered in (rank.c), order violations inside a
 * critical section (orders.c) and the tail variants (alternates.c), on
 * text-form traces (TAP).  Built plain and under ASan+UBSan.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank.h"
#include "tap_ok.h"
#include "text_trace.h"


static void run(const char *text) {
   analyse_text(text, (cbp_options){CBP_BLOCKS_AUTO, 0, 0, 0});
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

/* The candidate of pattern p whose f is at file:line fl, built; NULL. */
static const cbp_candidate *built_at(enum cbp_pattern p, const char *fl, int tight) {
   for (size_t i = 0; i < A.r.n; i++) {
      const cbp_candidate *c = &A.r.c[i];
      if (c->pattern != p || !c->built || c->dropped) continue;
      const cb_location *l = &T.locs[T.events[c->f].loc];
      char at[64];
      snprintf(at, sizeof at, "%s:%u", l->file ? l->file : "", l->line);
      if (strcmp(at, fl)) continue;
      if (tight < 0 || (c->x1.count == c->ce1) == tight) return c;
   }
   return NULL;
}

/* Double-checked init that sets its flag before the port: T3 finds the
 * flag set and reads the port.  The order violation on the port must also
 * be tried with T2 stopped right before its write, holding the lock (T3
 * takes no lock on its way): moving the whole critical section would make
 * T3 find the flag clear. */
static void test_tight(void) {
   run("T1 start T1\nT1 begin main\nT1 create T2\nT1 create T3\n"
       "T2 start T1\nT2 begin get\nT2 read ready =0 @d.c:10\nT2 lock m\n"
       "T2 read ready =0 @d.c:12\nT2 write ready =1 @d.c:14\n"
       "T2 write port =8080 @d.c:15\nT2 unlock m\nT2 end get\nT2 exit\n"
       "T3 start T1\nT3 begin get\nT3 read ready =1 @d.c:10\nT3 end get\n"
       "T3 begin use\nT3 read port =8080 @d.c:20\nT3 end use\nT3 exit\n"
       "T1 join T2\nT1 join T3\nT1 end main\n");
   const cbp_candidate *c = built_at(CBP_ORD, "d.c:20", 1);
   ok(c != NULL, "flag before fields: an ORD on the port cut right before T2's write");
   ok(c && c->ls_e != 0, "tight: T2 holds its lock at the cut");
   ok(built_at(CBP_ORD, "d.c:20", 0) != NULL, "the whole-section ORD is still there");
}

/* A spin lock built by hand: T2 tests the flag, T3 tests and sets it and
 * walks in (writes `inside`), then T2 sets it.  Variant F_ON runs T3 on
 * through its write of `inside` (which T2 uses after e2) before T2 goes
 * on alone. */
static void test_f_on(void) {
   run("T1 start T1\nT1 begin main\nT1 create T2\nT1 create T3\n"
       "T2 start T1\nT2 begin work\nT2 read busy =0 @s.c:7\nT2 write busy =1 @s.c:8\n"
       "T2 read inside =0 @s.c:14\nT2 write inside =1 @s.c:14\n"
       "T2 write inside =0 @s.c:16\nT2 write busy =0 @s.c:20\nT2 end work\nT2 exit\n"
       "T3 start T1\nT3 begin work\nT3 read busy =0 @s.c:7\nT3 write busy =1 @s.c:8\n"
       "T3 read inside =0 @s.c:14\nT3 write inside =1 @s.c:14\n"
       "T3 write inside =0 @s.c:16\nT3 write busy =0 @s.c:20\nT3 end work\nT3 exit\n"
       "T1 join T2\nT1 join T3\nT1 end main\n");
   int found = 0;
   for (size_t i = 0; i < A.r.n && !found; i++) {
      const cbp_candidate *c = &A.r.c[i];
      if (c->pattern != CBP_RWW || !c->built || c->dropped || !c->nalt[CBP_ALT_F_ON]) continue;
      const cbp_step *a = c->alt[CBP_ALT_F_ON];
      uint32_t n = c->nalt[CBP_ALT_F_ON];
      /* ends: T2 (f's thread) a count step, then T1 run out */
      found = n >= 2 && a[n - 1].tid == c->t1 && a[n - 1].count == CBP_RUN_OUT &&
              a[n - 2].tid == c->t2 && a[n - 2].count >= 3;
   }
   ok(found, "home-made spin lock: an RWW on the flag has the F_ON variant, f's thread "
             "through its write of inside");
}

/* Two consumers wait (if, not while) before the producer adds a job and
 * signals.  The ORD that forces T2's check after the add keeps T3 waiting
 * in the prefix (it waited before the add in the recorded run) and has the
 * F_LAST variant: T3, woken, runs before the producer adds the second. */
static void test_f_last(void) {
   run("T1 start T1\nT1 begin main\nT1 create T2\nT1 create T3\nT1 create T4\n"
       "T2 start T1\nT2 begin consume\nT2 lock m\nT2 read jobs =0 @j.c:12\nT2 unlock m\n"
       "T3 start T1\nT3 begin consume\nT3 lock m\nT3 read jobs =0 @j.c:12\nT3 unlock m\n"
       "T4 start T1\nT4 begin produce\nT4 lock m\nT4 read jobs =0 @j.c:24\n"
       "T4 write jobs =1 @j.c:24\nT4 signal c\nT4 unlock m\nT4 lock m\n"
       "T4 read jobs =1 @j.c:24\nT4 write jobs =2 @j.c:24\nT4 signal c\nT4 unlock m\n"
       "T4 end produce\nT4 exit\n"
       "T3 wait c m\nT3 lock m\nT3 read jobs =2 @j.c:14\nT3 write jobs =1 @j.c:14\n"
       "T3 unlock m\nT3 end consume\nT3 exit\n"
       "T2 wait c m\nT2 lock m\nT2 read jobs =1 @j.c:14\nT2 write jobs =0 @j.c:14\n"
       "T2 unlock m\nT2 end consume\nT2 exit\n"
       "T1 join T2\nT1 join T3\nT1 join T4\nT1 end main\n");
   int found = 0;
   for (size_t i = 0; i < A.r.n && !found; i++) {
      const cbp_candidate *c = &A.r.c[i];
      if (c->pattern != CBP_ORD || !c->built || c->dropped) continue;
      uint32_t waiter = c->t1 == 2 ? 3 : 2;
      if (c->t2 != 4 || c->prefix[waiter - 1] < 3 || !c->nalt[CBP_ALT_F_LAST]) continue;
      const cbp_step *a = c->alt[CBP_ALT_F_LAST];
      uint32_t n = c->nalt[CBP_ALT_F_LAST];
      found = a[n - 1].tid == waiter && a[n - 1].count == CBP_RUN_OUT;
   }
   ok(found, "stolen wake-up: the ORD on jobs keeps the other consumer waiting and has "
             "F_LAST, the waiter on before the producer");
}

/* Two threads each fill a four-byte buffer byte by byte (load, store: the
 * same two lines for every byte), then update a count the same way at
 * other lines.  Each byte is a variable of its own, so each makes the same
 * RWW at the same lines: the count's RWW, the last in trace order, must
 * come before the second byte's (rank.c, mark_repeats), so that a budget
 * of forced runs meets it. */
static void test_repeats(void) {
   char text[4096];
   size_t n = (size_t)snprintf(text, sizeof text,
                               "T1 start T1\nT1 begin main\nT1 create T2\nT1 create T3\n");
   for (int t = 2; t <= 3; t++) {
      n += (size_t)snprintf(text + n, sizeof text - n, "T%d start T1\nT%d begin fill\n", t, t);
      for (int k = 0; k < 4; k++)
         n += (size_t)snprintf(text + n, sizeof text - n,
                               "T%d read b%d =%d @f.c:20\nT%d write b%d =%d @f.c:21\n",
                               t, k, t - 2, t, k, t - 1);
      n += (size_t)snprintf(text + n, sizeof text - n,
                            "T%d read count =%d @f.c:30\nT%d write count =%d @f.c:31\n"
                            "T%d end fill\n", t, t - 2, t, t - 1, t);
   }
   snprintf(text + n, sizeof text - n, "T1 join T2\nT1 join T3\nT1 end main\n");
   run(text);
   cbp_rank(&T, &A.x, &A.r);
   size_t first_count = SIZE_MAX, second_byte = SIZE_MAX, bytes = 0;
   uint32_t t1 = 0, t2 = 0;
   for (size_t i = 0; i < A.r.n; i++) {
      const cbp_candidate *c = &A.r.c[i];
      if (!c->built || c->dropped || c->pattern != CBP_RWW) continue;
      const cb_location *l = &T.locs[T.events[c->e1].loc];
      if (l->line == 30 && first_count == SIZE_MAX) first_count = i;
      if (l->line != 20) continue;
      if (bytes++ == 0) { t1 = c->t1; t2 = c->t2; continue; }
      if (c->t1 == t1 && c->t2 == t2 && second_byte == SIZE_MAX) second_byte = i;
   }
   ok(first_count != SIZE_MAX && bytes >= 2, "RWWs on the count and on %zu bytes", bytes);
   ok(second_byte == SIZE_MAX || first_count < second_byte,
      "the count's RWW (at %zu) before a second byte's of the same lines and threads (at %zu)",
      first_count, second_byte);
}

/* Two writers reserve space with a locked fetch-add at one line, three
 * times each, and count what they wrote with a plain `total += n` in
 * their work: a shape of the fetch-adds against themselves (WWW, an RWR
 * of their loads) goes after the others (rank.c, atomic_repeat; a repeat
 * of another's shape still goes after it), for no thread means two of
 * its fetch-adds to be one atomic block. */
static void test_atomic_repeat(void) {
   char text[4096];
   size_t n = (size_t)snprintf(text, sizeof text,
                               "T1 start T1\nT1 begin main\nT1 create T2\nT1 create T3\n"
                               "T2 start T1\nT3 start T1\n");
   int end = 0, total = 0;
   for (int k = 0; k < 3; k++)
      for (int t = 2; t <= 3; t++) {
         n += (size_t)snprintf(text + n, sizeof text - n,
                               "T%d read end =%d size 8 @r.c:10\n"
                               "T%d write end =%d size 8 @r.c:10 same-insn rmw-fetch-op\n"
                               "T%d begin work\nT%d read total =%d @r.c:20\n"
                               "T%d write total =%d @r.c:21\nT%d end work\n",
                               t, end, t, end + 4, t, t, total, t, total + 4, t);
         end += 4;
         total += 4;
      }
   snprintf(text + n, sizeof text - n, "T1 join T2\nT1 join T3\nT1 end main\n");
   run(text);
   cbp_rank(&T, &A.x, &A.r);
   size_t first_total = SIZE_MAX, first_end = SIZE_MAX, ends = 0, totals = 0;
   for (size_t i = 0; i < A.r.n; i++) {
      const cbp_candidate *c = &A.r.c[i];
      if (!c->built || c->dropped || c->pattern == CBP_ORD) continue;
      unsigned l1 = T.locs[T.events[c->e1].loc].line, lf = T.locs[T.events[c->f].loc].line,
               l2 = T.locs[T.events[c->e2].loc].line;
      if (l1 == 10 && lf == 10 && l2 == 10) {
         ends++;
         if (first_end == SIZE_MAX) first_end = i;
      } else if (l1 >= 20 && lf >= 20 && l2 >= 20) {
         if (totals++ == 0) first_total = i;
      }
   }
   ok(ends > 0 && totals > 0, "shapes of the fetch-adds (%zu) and of the total (%zu)", ends, totals);
   ok(first_end > first_total,
      "the fetch-adds' own shapes (first at %zu) after the total's (first at %zu)", first_end,
      first_total);
}

/* A poller (rank_seen.c): T2 reads `stop` clear three times at one line,
 * then set; T3 sets it, and later reads T2's `ack`.  Forcing T2's last
 * read before T3's store only has it read 0 once more, a value it read
 * there before: that ORD goes after the one on ack (whose read is new),
 * though its e1 comes first in the trace. */
static void test_seen(void) {
   run("T1 start T1\nT1 begin main\nT1 create T2\nT1 create T3\n"
       "T2 start T1\nT2 begin poll\nT2 read stop =0 @p.c:5\nT2 read stop =0 @p.c:5\n"
       "T2 read stop =0 @p.c:5\n"
       "T3 start T1\nT3 begin quit\nT3 write stop =1 @p.c:10\nT3 end quit\n"
       "T2 read stop =1 @p.c:5\nT2 write ack =1 @p.c:7\nT2 end poll\n"
       "T3 begin wait\nT3 read ack =1 @p.c:12\nT3 end wait\n"
       "T1 join T2\nT1 join T3\nT1 end main\n");
   const cbp_candidate *on_stop = built_at(CBP_ORD, "p.c:5", -1);
   const cbp_candidate *on_ack = built_at(CBP_ORD, "p.c:12", -1);
   ok(on_stop && on_ack && on_stop < on_ack, "seen: in trace order the poll's ORD comes first");
   uint8_t *seen = cbp_rank_seen(&T, &A.x, &A.r);
   ok(on_stop && on_ack && seen[on_stop - A.r.c] && !seen[on_ack - A.r.c],
      "seen: the poll's forced read saw its value before, ack's did not");
   free(seen);
   cbp_rank(&T, &A.x, &A.r);
   on_stop = built_at(CBP_ORD, "p.c:5", -1);
   on_ack = built_at(CBP_ORD, "p.c:12", -1);
   ok(on_stop && on_ack && on_ack < on_stop, "seen: ranked, ack's ORD comes before the poll's");
}

/* A run that failed (predict/rank_failed.c): T3's write of count came
 * between T2's read and write (no synchronisation of T2's between: the
 * lost update happened), T3's write of lines came between T2's two
 * critical sections on it (which also let T3 in, and are not the failure),
 * T3 took the seat T2 had checked in an earlier critical section, and
 * cleared the flag T2 polled.
 * The count's RWW is marked as shown, the lines' WWR is not, and it ranks
 * first; the same trace as a run that passed marks nothing. */
static void test_failed(void) {
   const char *text =
       "T1 start T1\nT1 begin main\nT1 create T2\nT1 create T3\n"
       "T2 start T1\nT2 begin work\nT2 lock m\nT2 write lines =1 @w.c:20\nT2 unlock m\n"
       "T2 read count =0 @w.c:16\n"
       "T3 start T1\nT3 begin work\nT3 read count =0 @w.c:16\nT3 write count =1 @w.c:18\n"
       "T3 lock m\nT3 write lines =2 @w.c:20\nT3 unlock m\nT3 end work\n"
       "T2 write count =1 @w.c:18\nT2 lock m\nT2 read lines =2 @w.c:20\nT2 unlock m\n"
       /* a seat checked under the lock and taken under it again later: T3
        * took it between (a stale check across two critical sections) */
       "T2 lock m\nT2 read seats =1 @w.c:30\nT2 unlock m\n"
       "T3 begin book\nT3 lock m\nT3 read seats =1 @w.c:30\nT3 write seats =0 @w.c:33\n"
       "T3 unlock m\nT3 end book\n"
       "T2 lock m\nT2 write seats =0 @w.c:33\nT2 unlock m\n"
       /* a flag spun on without a lock, raised between two reads */
       "T2 read go =0 @w.c:60\nT2 read go =0 @w.c:60\n"
       "T3 write go =1 @w.c:65\n"
       "T2 read go =1 @w.c:60\n"
       /* a flag polled under the lock, cleared between two polls: what
        * the polling is for */
       "T2 lock m\nT2 read full =1 @w.c:40\nT2 unlock m\n"
       "T3 lock m\nT3 write full =0 @w.c:50\nT3 unlock m\n"
       "T2 lock m\nT2 read full =0 @w.c:40\nT2 unlock m\n"
       "T2 end work\nT1 join T2\nT1 join T3\n"
       /* main's report runs the count's lines often: by rarity alone
        * the log count's shapes would come first */
       "T1 read count =2 @w.c:16\nT1 read count =2 @w.c:18\nT1 read count =2 @w.c:16\n"
       "T1 read count =2 @w.c:18\nT1 read count =2 @w.c:16\nT1 read count =2 @w.c:18\n"
       "T1 read count =2 @w.c:16\nT1 read count =2 @w.c:18\nT1 end main\n";
   run(text);
   size_t n;
   uint8_t *shown = cbp_rank_failed(&T, &A.x, &A.r, &n);
   ok(shown == NULL && n == 0, "failed: a run that passed shows nothing");
   free(shown);
   T.footer.present = 1;
   T.footer.exit_status = 1;
   const cbp_candidate *lost = built_at(CBP_RWW, "w.c:18", -1);
   const cbp_candidate *lines = built_at(CBP_WWR, "w.c:20", -1);
   shown = cbp_rank_failed(&T, &A.x, &A.r, &n);
   ok(shown && lost && lines && shown[lost - A.r.c] && !shown[lines - A.r.c] && n >= 1,
      "failed: the lost update happened in the failing run, the log count's WWR did not count");
   const cbp_candidate *stale = built_at(CBP_RWW, "w.c:33", -1);
   ok(shown && stale && shown[stale - A.r.c],
      "failed: a check and an act in two critical sections, another thread's act between, counts");
   const cbp_candidate *spun = built_at(CBP_RWR, "w.c:65", -1);
   ok(shown && spun && !shown[spun - A.r.c],
      "failed: a spin on a flag, raised between two reads at one line, does not count");
   const cbp_candidate *waited = built_at(CBP_RWR, "w.c:50", -1);

   ok(shown && waited && !shown[waited - A.r.c],
      "failed: a flag polled in two critical sections, written between, does not count");
   free(shown);
   cbp_rank(&T, &A.x, &A.r);
   size_t first_other = A.r.n, last_shown = 0;
   for (size_t i = 0; i < A.r.n; i++) {
      if (A.r.c[i].shown) last_shown = i;
      else if (first_other == A.r.n) first_other = i;
   }
   ok(A.r.n && A.r.c[0].shown && last_shown < first_other && A.r.shown_failed >= 2,
      "failed: ranked, what happened in the failing run comes first");
}

int main(void) {
   test_split();
   test_rank();
   test_seen();
   test_failed();
   test_repeats();
   test_atomic_repeat();
   test_tight();
   test_f_on();
   test_f_last();
   text_trace_free();
   printf("1..%d\n", ntest);
   return nfail != 0;
}
