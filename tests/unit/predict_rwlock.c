/* predict_rwlock: reader/writer locks in prediction (TAP).  Two sections
 * read-locked on one rwlock do not exclude each other, so a thread that
 * updates shared data under rdlock instead of wrlock is an atomicity
 * violation like an unlocked one: predicted, with a plan replay can
 * follow.  A write-locked section still excludes every other section of
 * the lock, and a cycle through two read acquisitions is no deadlock.
 * The text form's `unlock` carries no mode: the unlock of a read lock is
 * matched to the read hold (cbp_lock_of).  Built plain and under
 * ASan+UBSan.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict.h"
#include "tap_ok.h"
#include "text_trace.h"

/* The lock states themselves: ids in their modes, and what conflicts. */
static void test_lock_states(void) {
   cbp_locks *L = cbp_locks_new();
   uint32_t w = cbp_lock_id(L, 0x100), r = cbp_lock_rd_id(L, 0x100);
   uint32_t m = cbp_lock_id(L, 0x200);
   ok(r != w && cbp_lock_base(L, r) == w && cbp_lock_rd_id(L, 0x100) == r &&
      cbp_locks_nlocks(L) == 2, "a read hold has an id of its own, based on the lock's");
   ok(!cbp_locks_conflict(L, r, r) && cbp_locks_conflict(L, r, w) &&
      cbp_locks_conflict(L, w, r) && cbp_locks_conflict(L, w, w) &&
      !cbp_locks_conflict(L, r, m), "conflict: same lock and not both read");
   uint32_t R = cbp_locks_acquire(L, 0, r), W = cbp_locks_acquire(L, 0, w);
   ok(cbp_locks_compatible(L, R, R), "two read holds of one rwlock: compatible");
   ok(!cbp_locks_compatible(L, R, W) && !cbp_locks_compatible(L, W, W),
      "a write hold and any other hold: not compatible");
   /* T1 holds m and has read-locked rw since; T2 holds rw and has taken m
    * since: the acquisition histories clash only when T1's read lock
    * conflicts with T2's hold (a write hold). */
   uint32_t t1 = cbp_locks_release(L, cbp_locks_acquire(L, cbp_locks_acquire(L, 0, m), r), r);
   uint32_t t2r = cbp_locks_release(L, cbp_locks_acquire(L, R, m), m);
   uint32_t t2w = cbp_locks_release(L, cbp_locks_acquire(L, W, m), m);
   ok(cbp_locks_compatible(L, t1, t2r),
      "acquisition histories: a read section under m, a read hold taking m: compatible");
   ok(!cbp_locks_compatible(L, t1, t2w),
      "acquisition histories: a read section under m, a write hold taking m: not");
   cbp_locks_free(L);
}

/* T1's block `op`: e1 then e2 on x under the rwlock in mode k1; T2's
 * block: f under mode k2. */
static void rw_trace(char *buf, size_t len, const char *k1, const char *e1,
                     const char *f, const char *e2, const char *k2) {
   snprintf(buf, len,
            "T1 start T1\nT1 begin main\nT1 create T2\nT2 start T1\nT2 begin thread2\n"
            "T1 begin op\nT1 %s rw @b.c:9\nT1 %s x @b.c:10\nT1 read y @b.c:11\n"
            "T1 %s x @b.c:12\nT1 unlock rw @b.c:13\nT1 end op\n"
            "T2 begin touch\nT2 %s rw @b.c:19\nT2 %s x @b.c:20\nT2 unlock rw @b.c:21\n"
            "T2 end touch\nT2 end thread2\nT2 exit\nT1 join T2\nT1 end main\n",
            k1, e1, e2, k2, f);
}

static const cbp_candidate *only(enum cbp_pattern pattern) {
   const cbp_candidate *found = NULL;
   for (size_t i = 0; i < A.r.n; i++)
      if (!A.r.c[i].dropped && A.r.c[i].pattern == pattern) {
         if (found) return NULL;
         found = &A.r.c[i];
      }
   return found;
}

static void test_patterns(void) {
   static const char *pat[][4] = {{"RWR", "read", "write", "read"},
                                  {"RWW", "read", "write", "write"},
                                  {"WRW", "write", "read", "write"},
                                  {"WWR", "write", "write", "read"},
                                  {"WWW", "write", "write", "write"}};
   static const enum cbp_pattern code[] = {CBP_RWR, CBP_RWW, CBP_WRW, CBP_WWR, CBP_WWW};
   cbp_options o = {CBP_BLOCKS_AUTO, 0, CBP_FAM_ORDER, 0};
   char buf[2048];
   for (int i = 0; i < 5; i++) {
      rw_trace(buf, sizeof buf, "rdlock", pat[i][1], pat[i][2], pat[i][3], "rdlock");
      analyse_text(buf, o);
      const cbp_candidate *c = only(code[i]);
      ok(c && c->t1 == 1 && c->t2 == 2 && c->prefix && c->ntail,
         "%s predicted and built between two read-locked sections of one rwlock", pat[i][0]);
      if (c) {
         const char *why = cbp_plan_check(&T, &A.x, &A.v, A.L, c->prefix, c->tail, c->ntail);
         ok(!why, "%s: its plan passes the replay rules (%s)", pat[i][0], why ? why : "it does");
      } else {
         ok(0, "%s: no plan to check (%zu candidates)", pat[i][0], A.r.n);
      }
      rw_trace(buf, sizeof buf, "rdlock", pat[i][1], pat[i][2], pat[i][3], "wrlock");
      analyse_text(buf, o);
      ok(A.r.n == 0, "%s not predicted when f's section is write-locked (%zu)", pat[i][0], A.r.n);
      rw_trace(buf, sizeof buf, "wrlock", pat[i][1], pat[i][2], pat[i][3], "rdlock");
      analyse_text(buf, o);
      ok(A.r.n == 0, "%s not predicted when e1's section is write-locked (%zu)", pat[i][0],
         A.r.n);
   }
}

/* The tail runs T2 into the rwlock while T1 holds it: fine for two
 * readers, refused when either writes. */
static void test_plan_check(void) {
   cbp_options o = {CBP_BLOCKS_AUTO, 0, CBP_FAM_ORDER, 0};
   char buf[2048];
   /* T1 counted: create 0, lock 1, x 2, y 3, x 4, unlock 5; T2: lock 0. */
   uint64_t prefix[2] = {3, 0};
   cbp_step tail[2] = {{2, 3}, {1, 3}};
   rw_trace(buf, sizeof buf, "rdlock", "read", "write", "write", "rdlock");
   analyse_text(buf, o);
   const char *why = cbp_plan_check(&T, &A.x, &A.v, A.L, prefix, tail, 2);
   ok(!why, "plan check: a reader's step into the rwlock another reader holds (%s)",
      why ? why : "passes");
   rw_trace(buf, sizeof buf, "rdlock", "read", "write", "write", "wrlock");
   analyse_text(buf, o);
   why = cbp_plan_check(&T, &A.x, &A.v, A.L, prefix, tail, 2);
   ok(why && strstr(why, "into a lock"), "plan check: a writer's step into it refused (%s)",
      why ? why : "passed");
}

/* T2 takes a then b, T3 b then a, in the modes given. */
static size_t dlk_count(const char *a2, const char *b2, const char *b3, const char *a3) {
   char buf[2048];
   snprintf(buf, sizeof buf,
            "T1 start T1\nT1 begin main\nT1 create T2\nT1 create T3\n"
            "T2 start T1\nT2 %s a @d.c:1\nT2 write x =1 @d.c:2\nT2 %s b @d.c:3\n"
            "T2 unlock b\nT2 unlock a\nT2 exit\n"
            "T3 start T1\nT3 %s b @d.c:5\nT3 write x =2 @d.c:6\nT3 %s a @d.c:7\n"
            "T3 unlock a\nT3 unlock b\nT3 exit\nT1 join T2\nT1 join T3\n",
            a2, b2, b3, a3);
   cbp_options o = {CBP_BLOCKS_AUTO, 0, CBP_FAM_ORDER | CBP_FAM_ATOMICITY, 0};
   analyse_text(buf, o);
   size_t n = 0;
   for (size_t i = 0; i < A.r.n; i++) n += A.r.c[i].pattern == CBP_DLK && !A.r.c[i].dropped;
   return n;
}

static void test_deadlocks(void) {
   ok(dlk_count("rdlock", "rdlock", "rdlock", "rdlock") == 0,
      "a then b, b then a, every hold a read: no deadlock");
   ok(dlk_count("rdlock", "wrlock", "rdlock", "wrlock") == 1,
      "read holds, write requests: a deadlock");
   ok(dlk_count("wrlock", "rdlock", "wrlock", "rdlock") == 1,
      "write holds, read requests: a deadlock");
   ok(dlk_count("rdlock", "rdlock", "wrlock", "wrlock") == 1,
      "T2 reads both, T3 writes both: each waits for the other, a deadlock");
   ok(dlk_count("rdlock", "rdlock", "rdlock", "wrlock") == 0,
      "T2's read of b gets past T3's read hold: no deadlock");
}

int main(void) {
   test_lock_states();
   test_patterns();
   test_plan_check();
   test_deadlocks();
   text_trace_free();
   printf("1..%d\n", ntest);
   return nfail != 0;
}
