/* predict_lockwords: the program's own lock words (trace/spinlocks.c) on
 * text-form traces (TAP): which words are locks (a test-and-set spin lock,
 * a futex mutex under contention) and which are not (a counter, a claim
 * never given back, a pointer swapped by a lock-free stack), and what
 * prediction makes of them: the data they guard, never the word itself;
 * a word set by locked instructions that never return its old value (a
 * bitmap's fetch-or) is none.
 * Built plain and under ASan+UBSan.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict.h"
#include "tap_ok.h"
#include "text_trace.h"

static void load_plain(const char *text) {
   load_text(text);
}

static long load(const char *text) {
   load_plain(text);
   return cb_spinlocks_mark(&T);
}

/* Whether an atomicity violation (not ORD) falls inside T2's sale, events
 * 17 and 18 of spin_sellers; whether any candidate names the lock word. */
static void predicted(int *in_section, int *on_word, uint32_t *nlocks) {
   cbp_analysis a;
   cbp_options o = {CBP_BLOCKS_AUTO, 0, 0, 0};
   cbp_analyze(&T, &o, &a);
   *in_section = *on_word = 0;
   for (size_t i = 0; i < a.r.n; i++) {
      const cbp_candidate *c = &a.r.c[i];
      if (c->dropped) continue;
      if (T.events[c->e1].addr == T.events[6].addr || T.events[c->f].addr == T.events[6].addr)
         *on_word = 1;
      if (c->pattern != CBP_ORD && c->e1 == 17 && c->e2 == 18) *in_section = 1;
   }
   *nlocks = a.r.nlocks;
   cbp_analysis_free(&a);
}

/* How many events are of kind k with flag f set (f 0: any flags). */
static size_t count(unsigned k, unsigned f) {
   size_t n = 0;
   for (size_t i = 0; i < T.nevents; i++)
      n += T.events[i].kind == k && (!f || (T.events[i].flags & f));
   return n;
}

/* How many events are of kind k and were of kind w in the trace. */
static size_t count_was(unsigned k, unsigned w) {
   size_t n = 0;
   for (size_t i = 0; i < T.nevents; i++)
      n += T.events[i].kind == k && T.events[i].was == w;
   return n;
}

/* A seller's two critical sections of a test-and-set lock on lk: the
 * check of stock, then the sale; T3 finds none left and restocks.  T3
 * tries the lock while T2 holds it (an exchange that reads 1 and writes 1)
 * and spins on plain reads. */
static const char *spin_sellers =
   "T1 start T1\nT1 begin main\nT1 create T2\nT1 create T3\n"
   "T2 start T1\nT2 begin seller\n"
   "T2 read lk =0 size 1 @s.c:10\nT2 write lk =1 size 1 @s.c:10 same-insn\n"
   "T2 read stock =1 @s.c:18\nT2 write lk =0 size 1 @s.c:11\n"
   "T2 read lk =0 size 1 @s.c:10\nT2 write lk =1 size 1 @s.c:10 same-insn\n"
   "T3 start T1\nT3 begin seller\n"
   "T3 read lk =1 size 1 @s.c:10\nT3 write lk =1 size 1 @s.c:10 same-insn\n"
   "T3 read lk =1 size 1 @s.c:10\n"
   "T2 read stock =1 @s.c:22\nT2 write stock =0 @s.c:22\nT2 write lk =0 size 1 @s.c:11\n"
   "T2 end seller\n"
   "T3 read lk =0 size 1 @s.c:10\nT3 write lk =1 size 1 @s.c:10 same-insn\n"
   "T3 read stock =0 @s.c:18\nT3 write stock =5 @s.c:19\nT3 write lk =0 size 1 @s.c:11\n"
   "T3 end seller\n"
   "T1 join T2\nT1 join T3\nT1 read stock =0 @s.c:34\nT1 end main\n";

static void test_spin_lock(void) {
   long n = load(spin_sellers);
   ok(n == 1, "a test-and-set spin lock is one lock word (%ld)", n);
   ok(count(CB_EV_LOCK, CB_EVF_GLUED) == 3 && count_was(CB_EV_LOCK, CB_EV_WRITE) == 3 &&
          count_was(CB_EV_UNLOCK, CB_EV_WRITE) == 3,
      "its three acquiring exchanges are LOCKs, its three releasing stores UNLOCKs");
   ok(count(CB_EV_UNLOCK, CB_EVF_GLUED) == 0,
      "a release by a plain store may be cut before (not glued)");
   size_t words = 0;
   for (size_t i = 0; i < T.nevents; i++)
      words += (T.events[i].flags & CB_EVF_LOCK_WORD) != 0;
   ok(words == 6 && count(CB_EV_WRITE, CB_EVF_LOCK_WORD) == 1,
      "the other accesses of the word (reads, the failed exchange) are lock-word accesses (%zu)",
      words);

   int in_section, on_word;
   uint32_t nlocks;
   predicted(&in_section, &on_word, &nlocks);
   ok(!on_word, "no violation names the lock word");
   ok(nlocks == 1, "the lockset pass counts one lock (%u)", nlocks);
   ok(!in_section, "nothing is forced inside a critical section of the spin lock");
   /* The same trace unmarked: what the tool predicted before. */
   load_plain(spin_sellers);
   predicted(&in_section, &on_word, &nlocks);
   ok(in_section && on_word && nlocks == 0,
      "unmarked, the word looks racy and T3's restock is forced into T2's sale");
}

/* Drepper's futex mutex, contended: T2 takes it (CAS 0 -> 1), T3 marks it
 * contended (exchange 1 -> 2), T2's fetch_sub reads 2 and leaves 1, then
 * T2 stores 0 and wakes T3, whose exchange reads 0 and writes 2. */
static void test_futex_mutex(void) {
   long n = load(
      "T1 start T1\nT1 begin main\nT1 create T2\nT1 create T3\nT2 start T1\nT3 start T1\n"
      "T2 read m =0 @f.c:5\nT2 write m =1 @f.c:5 same-insn\n"
      "T3 read m =1 @f.c:5\n"
      "T3 read m =1 @f.c:6\nT3 write m =2 @f.c:6 same-insn\n"
      "T2 write total =1 @f.c:30\n"
      "T2 read m =2 @f.c:12\nT2 write m =1 @f.c:12 same-insn\n"
      "T2 write m =0 @f.c:13\n"
      "T3 read m =0 @f.c:9\nT3 write m =2 @f.c:9 same-insn\n"
      "T3 write total =2 @f.c:30\n"
      "T3 read m =2 @f.c:12\nT3 write m =1 @f.c:12 same-insn\nT3 write m =0 @f.c:13\n"
      "T1 join T2\nT1 join T3\n");
   ok(n == 1 && count(CB_EV_LOCK, 0) == 2 && count(CB_EV_UNLOCK, 0) == 2,
      "a contended futex mutex (contention marks 1 and 2) is a lock word");
}

static void test_not_locks(void) {
   long n = load(
      "T1 start T1\nT1 create T2\nT2 start T1\n"
      "T1 read hits =0 @c.c:3\nT1 write hits =1 @c.c:3 same-insn\n"
      "T2 read hits =1 @c.c:3\nT2 write hits =2 @c.c:3 same-insn\n"
      "T1 read hits =2 @c.c:3\nT1 write hits =3 @c.c:3 same-insn\nT1 join T2\n");
   ok(n == 0 && count(CB_EV_LOCK, 0) == 0, "an atomic counter is not a lock");
   n = load(
      "T1 start T1\nT1 create T2\nT2 start T1\n"
      "T1 read claimed =0 @o.c:3\nT1 write claimed =1 @o.c:3 same-insn\n"
      "T2 read claimed =1 @o.c:3\nT1 join T2\n");
   ok(n == 0, "a claim taken by compare-and-swap and never given back is not a lock");
   n = load(
      "T1 start T1\nT1 create T2\nT2 start T1\n"
      "T1 read top =0 size 8 @k.c:9\nT1 write top =4198400 size 8 @k.c:9 same-insn\n"
      "T2 read top =4198400 size 8 @k.c:9\nT2 write top =4198464 size 8 @k.c:9 same-insn\n"
      "T1 read top =4198464 size 8 @k.c:20\nT1 write top =0 size 8 @k.c:20 same-insn\n"
      "T1 join T2\n");
   ok(n == 0, "a lock-free stack's top, swapped between pointers, is not a lock");
   n = load(
      "T1 start T1\nT1 create T2\nT2 start T1\n"
      "T1 read lk =0 @p.c:3\nT1 write lk =1 @p.c:3 same-insn split\n"
      "T1 write lk =0 @p.c:4\nT1 join T2\n");
   ok(n == 0, "a plain (not locked) read-modify-write takes no lock");
   n = load(
      "T1 start T1\nT1 create T2\nT2 start T1\n"
      "T1 read lk =0 @p.c:3\nT1 write lk =1 @p.c:3 same-insn\n"
      "T2 write lk =0 @p.c:4\nT1 join T2\n");
   ok(n == 0, "a word another thread clears while it is held is not a lock");
}

/* A bitmap allocator's map (trial 12's bitalloc): each thread loads it,
 * takes the first clear bit with a fetch-or and clears it with a
 * fetch-and when done.  Valgrind runs one thread at a time, so the map
 * only ever holds 0 and 1, as a lock word would.  RMW is the class of
 * the two locked instructions' stores. */
static long bitmap(const char *rmw) {
   char text[2048];
   snprintf(text, sizeof text,
            "T1 start T1\nT1 begin main\nT1 create T2\nT1 create T3\n"
            "T2 start T1\nT2 begin user\n"
            "T2 read map =0 size 8 @b.c:21\n"
            "T2 read map =0 size 8 @b.c:25\nT2 write map =1 size 8 @b.c:25 same-insn %s\n"
            "T2 write owner =2 @b.c:43\nT2 read owner =2 @b.c:46\n"
            "T2 read map =1 size 8 @b.c:32\nT2 write map =0 size 8 @b.c:32 same-insn %s\n"
            "T2 end user\nT3 start T1\nT3 begin user\n"
            "T3 read map =0 size 8 @b.c:21\n"
            "T3 read map =0 size 8 @b.c:25\nT3 write map =1 size 8 @b.c:25 same-insn %s\n"
            "T3 write owner =3 @b.c:43\nT3 read owner =3 @b.c:46\n"
            "T3 read map =1 size 8 @b.c:32\nT3 write map =0 size 8 @b.c:32 same-insn %s\n"
            "T3 end user\nT1 join T2\nT1 join T3\nT1 end main\n",
            rmw, rmw, rmw, rmw);
   return load(text);
}

static void test_computed_rmw(void) {
   ok(bitmap("rmw-op") == 0 && count(CB_EV_LOCK, 0) == 0,
      "a word set by a fetch-or whose result is thrown away (lock or) is no lock");
   ok(bitmap("rmw-fetch-op") == 1,
      "set by a fetch-or whose result the program gets (lock bts) it can be one");
   ok(bitmap("rmw-exchange") == 1, "and by an exchange or compare-and-swap");
   ok(bitmap("rmw-store") == 0 && count(CB_EV_LOCK, 0) == 0,
      "not by an exchange whose old value is thrown away (gcc's xchg for "
      "atomic_store: a busy flag checked, then set)");
   ok(bitmap("") == 1, "a trace without classes (older) is read as before");
   /* A fetch-and that clears the word is a release, whatever its class. */
   long n = load(
      "T1 start T1\nT1 create T2\nT2 start T1\n"
      "T1 read lk =0 @r.c:3\nT1 write lk =1 @r.c:3 same-insn rmw-fetch-op\n"
      "T1 write x =1 @r.c:4\n"
      "T1 read lk =1 @r.c:5\nT1 write lk =0 @r.c:5 same-insn rmw-op\n"
      "T2 read lk =0 @r.c:3\nT2 write lk =1 @r.c:3 same-insn rmw-fetch-op\n"
      "T2 write x =2 @r.c:4\n"
      "T2 read lk =1 @r.c:5\nT2 write lk =0 @r.c:5 same-insn rmw-op\nT1 join T2\n");
   ok(n == 1 && count(CB_EV_UNLOCK, 0) == 2,
      "a bts lock released by atomic_fetch_and(&l, 0) is a lock word (%ld)", n);
}

/* A pair (lo, hi) updated in two sections of a semaphore used as a lock,
 * read together by a checker in a third: a post happens before the wait
 * that takes its token, which would order every section after the one
 * before it and leave nothing to predict. */
static const char *sem_pair =
   "T1 start T1\nT1 begin main\nT1 create T2\nT1 create T3\n"
   "T2 start T1\nT2 begin shift\n"
   "T2 sem-wait s 0 @p.c:12\nT2 write lo =5 @p.c:13\nT2 sem-post s 1 @p.c:14\n"
   "T2 sem-wait s 1 @p.c:16\nT2 write hi =9 @p.c:17\nT2 sem-post s 2 @p.c:18\n"
   "T2 end shift\nT3 start T1\nT3 begin checker\n"
   "T3 sem-wait s 2 @p.c:31\nT3 read lo =5 @p.c:32\nT3 read hi =9 @p.c:33\n"
   "T3 sem-post s 3 @p.c:34\nT3 end checker\n"
   "T1 join T2\nT1 join T3\nT1 end main\n";

static size_t built_ord(void) {
   cbp_analysis a;
   cbp_options o = {CBP_BLOCKS_AUTO, 0, 0, 0};
   cbp_analyze(&T, &o, &a);
   size_t n = 0;
   for (size_t i = 0; i < a.r.n; i++)
      n += a.r.c[i].pattern == CBP_ORD && a.r.c[i].built && !a.r.c[i].dropped;
   cbp_analysis_free(&a);
   return n;
}

static void test_sem_lock(void) {
   load_plain(sem_pair);
   long n = cb_semlocks_mark(&T);
   ok(n == 1 && count_was(CB_EV_LOCK, CB_EV_SEM_WAIT) == 3 &&
          count_was(CB_EV_UNLOCK, CB_EV_SEM_POST) == 3,
      "a semaphore used as a lock: its waits are LOCKs, its posts UNLOCKs (%ld)", n);
   size_t ord = built_ord();
   ok(ord >= 1, "its sections move: the checker's section before a shift's (%zu ORD)", ord);
   load_plain(sem_pair);
   ord = built_ord();
   ok(ord == 0, "unmarked, post-to-wait orders every section: nothing predicted (%zu)", ord);
   load_plain(
      "T1 start T1\nT1 create T2\nT2 start T1\n"
      "T1 write job =1 @h.c:5\nT1 sem-post s 1 @h.c:6\n"
      "T2 sem-wait s 1 @h.c:10\nT2 read job =1 @h.c:11\nT1 join T2\n");
   ok(cb_semlocks_mark(&T) == 0 && count(CB_EV_SEM_WAIT, 0) == 1,
      "a hand-off (posted by another thread, before any wait) stays a semaphore");
   load_plain(
      "T1 start T1\nT1 create T2\nT1 create T3\nT2 start T1\nT3 start T1\n"
      "T2 sem-wait s 0 @c.c:5\nT3 sem-wait s 0 @c.c:5\n"
      "T2 sem-post s 1 @c.c:7\nT3 sem-post s 2 @c.c:7\nT1 join T2\n");
   ok(cb_semlocks_mark(&T) == 0, "a semaphore of two tokens (two waits inside at once) is not a lock");
}

int main(void) {
   test_spin_lock();
   test_sem_lock();
   test_futex_mutex();
   test_not_locks();
   test_computed_rmw();
   text_trace_free();
   printf("1..%d\n", ntest);
   return nfail != 0;
}
