/* predict_unit: cbpredict's analysis pinned on PENELOPE's own examples,
 * written as text-form traces (TAP).  Built plain and under ASan+UBSan.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "predict.h"
#include "tap_ok.h"


static cb_trace T;
static cbp_analysis A;
static int loaded;

/* Parses and analyses a text trace (functions as blocks unless markup),
 * looking for the families not in skip. */
static void run_skip(const char *text, unsigned skip) {
   if (loaded) { cbp_analysis_free(&A); cb_trace_free(&T); }
   cb_error err;
   if (cb_trace_from_text(text, &T, &err)) {
      printf("# text form: %s\n", err.msg);
      printf("Bail out! text form rejected\n");
      exit(1);
   }
   cbp_options o = {CBP_BLOCKS_AUTO, 0, skip, 0};
   cbp_analyze(&T, &o, &A);
   loaded = 1;
}

/* PENELOPE's patterns and deadlocks, as the paper's examples pin them. */
static void run(const char *text) { run_skip(text, CBP_FAM_ORDER); }

static uint32_t held_ah(cbp_locks *L, uint32_t s, uint32_t lock, uint32_t *ah_out,
                        uint32_t *nah_out) {
   for (uint32_t i = 0; i < cbp_locks_nheld(L, s); i++) {
      const uint32_t *ah; uint32_t nah;
      if (cbp_locks_held(L, s, i, &ah, &nah) == lock) {
         memcpy(ah_out, ah, nah * sizeof *ah);
         *nah_out = nah;
         return 1;
      }
   }
   return 0;
}

static void test_section_3_2(void) {
   /* synchronize(l1) { A: synchronize(l2) { B } synchronize(l3) { C } } */
   cbp_locks *L = cbp_locks_new();
   uint32_t l1 = cbp_lock_id(L, 0x100), l2 = cbp_lock_id(L, 0x200), l3 = cbp_lock_id(L, 0x300);
   uint32_t A1 = cbp_locks_acquire(L, 0, l1);
   uint32_t B = cbp_locks_acquire(L, A1, l2);
   uint32_t afterB = cbp_locks_release(L, B, l2);
   uint32_t C = cbp_locks_acquire(L, afterB, l3);
   uint32_t ah[8], n;
   ok(cbp_locks_nheld(L, A1) == 1 && held_ah(L, A1, l1, ah, &n) && n == 0,
      "3.2: LockSet(A) = {l1}, AH(A) = {(l1, {})}");
   ok(cbp_locks_nheld(L, B) == 2 && held_ah(L, B, l1, ah, &n) && n == 1 && ah[0] == l2 &&
      held_ah(L, B, l2, ah, &n) && n == 0,
      "3.2: LockSet(B) = {l1, l2}, AH(B) = {(l1, {l2}), (l2, {})}");
   ok(cbp_locks_nheld(L, C) == 2 && held_ah(L, C, l1, ah, &n) && n == 2 && ah[0] == l2 &&
      ah[1] == l3 && held_ah(L, C, l3, ah, &n) && n == 0 && !held_ah(L, C, l2, ah, &n),
      "3.2: LockSet(C) = {l1, l3}, AH(C) = {(l1, {l2, l3}), (l3, {})}");
   ok(cbp_locks_release(L, cbp_locks_release(L, C, l3), l1) == 0,
      "releasing everything gives the empty state");
   ok(cbp_locks_acquire(L, 0, l1) == A1, "lock states are interned");
   /* Compatibility: T1 holds l1 having taken l2 inside; T2 holds l2 having
    * taken l1 inside: incompatible (each waits for the other).  */
   uint32_t t2_l2 = cbp_locks_acquire(L, 0, l2);
   uint32_t t2_l2_l1 = cbp_locks_release(L, cbp_locks_acquire(L, t2_l2, l1), l1);
   ok(!cbp_locks_compatible(L, afterB, t2_l2_l1),
      "incompatible: l2 in AH1(l1) and l1 in AH2(l2)");
   ok(cbp_locks_compatible(L, afterB, t2_l2),
      "compatible: l2 in AH1(l1) but AH2(l2) is empty");
   ok(!cbp_locks_compatible(L, A1, A1), "a lock held on both sides: not compatible");
   ok(cbp_locks_compatible(L, A1, cbp_locks_acquire(L, 0, l3)), "disjoint locksets: compatible");
   ok(cbp_locks_compatible(L, 0, C), "nothing held is compatible with anything");
   /* Re-entrant acquisition counted once. */
   cbp_held h; memset(&h, 0, sizeof h);
   ok(cbp_held_acquire(&h, l1) == 1 && cbp_held_acquire(&h, l1) == 0 &&
      cbp_held_release(&h, l1) == 0 && cbp_held_release(&h, l1) == 1,
      "re-entrant lock: only the first acquire and last release count");
   cbp_held_free(&h);
   cbp_locks_free(L);
}

/* Two threads; T1's block `op` does e1 then e2 on x, T2's block does f. */
static void pattern_trace(char *buf, size_t len, const char *k1, const char *kf,
                          const char *k2, int locked) {
   const char *lk = locked ? "T1 lock m\n" : "", *ul = locked ? "T1 unlock m\n" : "";
   const char *lk2 = locked ? "T2 lock m\n" : "", *ul2 = locked ? "T2 unlock m\n" : "";
   snprintf(buf, len,
            "T1 start T1\nT1 begin main\nT1 create T2\nT2 start T1\nT2 begin thread2\n"
            "T1 begin op\n%sT1 %s x @p.c:10\nT1 read y @p.c:11\nT1 %s x @p.c:12\n%sT1 end op\n"
            "T2 begin other\n%sT2 %s x @p.c:20\n%sT2 end other\n"
            "T2 end thread2\nT2 exit\nT1 join T2\nT1 end main\n",
            lk, k1, k2, ul, lk2, kf, ul2);
}

static void test_patterns(void) {
   static const char *pat[][4] = {{"RWR", "read", "write", "read"},
                                  {"RWW", "read", "write", "write"},
                                  {"WRW", "write", "read", "write"},
                                  {"WWR", "write", "write", "read"},
                                  {"WWW", "write", "write", "write"}};
   char buf[2048];
   for (int i = 0; i < 5; i++) {
      pattern_trace(buf, sizeof buf, pat[i][1], pat[i][2], pat[i][3], 0);
      run(buf);
      int found = A.r.n == 1 && !strcmp(cbp_pattern_name[A.r.c[0].pattern], pat[i][0]) &&
                  A.r.c[0].t1 == 1 && A.r.c[0].t2 == 2;
      ok(found, "%s found on a minimal two-thread trace", pat[i][0]);
      if (!found) printf("#   %zu candidates, first %s\n", A.r.n,
                         A.r.n ? cbp_pattern_name[A.r.c[0].pattern] : "-");
      pattern_trace(buf, sizeof buf, pat[i][1], pat[i][2], pat[i][3], 1);
      run(buf);
      ok(A.r.n == 0, "%s not found when a common lock protects the accesses", pat[i][0]);
   }
   /* The lock held only around e1 and around e2, not between: found. */
   run("T1 start T1\nT1 begin main\nT1 create T2\nT2 start T1\nT2 begin thread2\n"
       "T1 begin op\nT1 lock m\nT1 read x @q.c:1\nT1 unlock m\nT1 lock m\n"
       "T1 read x @q.c:2\nT1 unlock m\nT1 end op\n"
       "T2 begin g\nT2 lock m\nT2 write x @q.c:3\nT2 unlock m\nT2 end g\n"
       "T2 end thread2\nT1 join T2\nT1 end main\n");
   ok(A.r.n == 1 && A.r.c[0].pattern == CBP_RWR, "RWR found when the lock is dropped between e1 and e2");
   if (A.r.n == 1) {
      cbp_candidate *c = &A.r.c[0];
      /* T1 counted: create 0, lock 1, read 2, unlock 3, lock 4, read 5, unlock 6.
       * T2: lock 0, write 1, unlock 2.  e is the unlock (3), f the write. */
      ok(c->ce1 == 2 && c->ce == 3 && c->ce2 == 5 && c->cf == 1 &&
         c->e1 == 7 && c->e == 8 && c->e2 == 10 && c->f == 15,
         "e1/e/e2/f indices (counted 2/3/5/1, trace 7/8/10/15)");
      ok(c->prefix[0] == 4 && c->prefix[1] == 0, "prefix: T1 up to its empty cut after e (4), T2 0");
      ok(c->ntail == 2 && c->tail[0].tid == 2 && c->tail[0].count == 3 &&
         c->tail[1].tid == 1 && c->tail[1].count == 2,
         "tail: T2 lock+f+unlock (3), then T1 to e2 (2)");
      if (c->ntail) printf("#   tail[0] = (T%u, %llu), ntail %u\n", c->tail[0].tid,
                           (unsigned long long)c->tail[0].count, c->ntail);
   }
}

static void test_schedule_simple(void) {
   run("T1 start T1\nT1 begin main\nT1 create T2\nT2 start T1\nT2 begin thread2\n"
       "T1 begin deposit\nT1 read x =0 @a.c:10\nT1 read x =0 @a.c:11\nT1 end deposit\n"
       "T2 begin withdraw\nT2 write x =5 @a.c:20\nT2 end withdraw\nT1 join T2\n");
   ok(A.r.n == 1, "simple RWR: one candidate");
   if (A.r.n != 1) return;
   cbp_candidate *c = &A.r.c[0];
   ok(c->e1 == 6 && c->e == 6 && c->e2 == 7 && c->f == 10 && c->ce1 == 1 && c->ce == 1 &&
      c->ce2 == 2 && c->cf == 0, "e1 = e = T1#1 (trace 6), e2 = T1#2 (7), f = T2#0 (10)");
   ok(c->prefix[0] == 2 && c->prefix[1] == 0, "prefix [2, 0]: T1 runs through e1");
   ok(c->ntail == 2 && c->tail[0].tid == 2 && c->tail[0].count == 1 && c->tail[1].tid == 1 &&
      c->tail[1].count == 1, "tail (T2,1) (T1,1): f, then e2");
   cb_error err;
   char path[] = "/tmp/predict_unit_XXXXXX";
   int fd = mkstemp(path);
   if (fd >= 0) close(fd);
   c->id = 1;
   ok(fd >= 0 && cbp_schedule_write(&T, &A, c, path, &err) == 0, "schedule written");
   remove(path);
}

static void test_ordered(void) {
   /* T2 is created after T1's block: f cannot come between e1 and e2. */
   run("T1 start T1\nT1 begin main\nT1 begin op\nT1 read x @o.c:1\nT1 read x @o.c:2\n"
       "T1 end op\nT1 create T2\nT2 start T1\nT2 write x @o.c:3\nT1 join T2\n");
   ok(A.r.n == 0 && A.r.dropped_vc > 0, "dropped: f's thread is created after e2");
   /* T1 joins T2 before its block. */
   run("T1 start T1\nT1 begin main\nT1 create T2\nT2 start T1\nT2 write x @o.c:3\n"
       "T2 exit\nT1 join T2\nT1 begin op\nT1 read x @o.c:1\nT1 read x @o.c:2\nT1 end op\n");
   ok(A.r.n == 0 && A.r.dropped_vc > 0, "dropped: f's thread was joined before e1");
   /* A barrier separates them. */
   run("T1 start T1\nT1 begin main\nT1 create T2\nT2 start T1\n"
       "T1 begin op\nT1 read x @o.c:1\nT1 read x @o.c:2\nT1 end op\n"
       "T1 barrier-enter b 2\nT2 barrier-enter b 2\nT2 barrier-leave b 2\n"
       "T1 barrier-leave b 2\nT2 write x @o.c:3\nT1 join T2\n");
   ok(A.r.n == 0 && A.r.dropped_vc > 0, "dropped: a barrier orders e2 before f");
   /* A consumed signal orders them too: T2's wait began (its unlock)
    * before the signal and ended after it. */
   run("T1 start T1\nT1 begin main\nT1 create T2\nT2 start T1\n"
       "T1 begin op\nT1 read x @o.c:1\nT1 read x @o.c:2\nT1 end op\n"
       "T2 lock m\nT2 unlock m\nT1 lock m\nT1 signal c\nT1 unlock m\n"
       "T2 wait c m\nT2 lock m\nT2 unlock m\nT2 write x @o.c:3\n");
   ok(A.r.n == 0 && A.r.dropped_vc > 0, "dropped: a consumed signal orders e2 before f");
   /* Without the barrier: found. */
   run("T1 start T1\nT1 begin main\nT1 create T2\nT2 start T1\n"
       "T1 begin op\nT1 read x @o.c:1\nT1 read x @o.c:2\nT1 end op\n"
       "T2 write x @o.c:3\nT1 join T2\n");
   ok(A.r.n == 1 && A.r.dropped_vc == 0, "the same without ordering: found");
}

static void test_misc(void) {
   run("T1 start T1\nT1 begin main\nT1 begin op\nT1 read x @s.c:1\nT1 write x @s.c:2\n"
       "T1 read x @s.c:3\nT1 end op\nT1 end main\n");
   ok(A.r.n == 0 && A.x.active_threads == 1 && A.x.nshared == 0, "a single thread: zero");
   /* addl $1,x: the read and write of one instruction cannot be split. */
   run("T1 start T1\nT1 begin main\nT1 create T2\nT2 start T1\n"
       "T1 begin incr\nT1 read x @i.c:5\nT1 write x @i.c:5 same-insn\nT1 end incr\n"
       "T2 begin incr\nT2 write x @i.c:9\nT2 end incr\nT1 join T2\n");
   ok(A.r.n == 0 && A.r.dropped_insn > 0, "same-instruction read/write: refused");
   /* The root activation (main, a start routine) is a block too. */
   run("T1 start T1\nT1 begin main\nT1 create T2\nT2 start T1\n"
       "T1 read x @r.c:1\nT1 read x @r.c:2\nT2 write x @r.c:3\nT1 join T2\n");
   ok(A.r.n == 1 && A.r.c[0].pattern == CBP_RWR,
      "accesses in the root activation form a block (RWR)");
   /* Lock-free code: T2's only write is the write half of a CAS; f is the
    * whole instruction, run in one step from its read half. */
   run("T1 start T1\nT1 begin main\nT1 create T2\nT2 start T1\n"
       "T1 read x =0 @f.c:1\nT1 read x =0 @f.c:2\nT1 write x =1 @f.c:2 same-insn\n"
       "T2 read x =1 @f.c:2\nT2 write x =2 @f.c:2 same-insn\nT1 join T2\n");
   int cas = 0;
   for (size_t i = 0; i < A.r.n; i++)
      if (A.r.c[i].fwidth == 2 && A.r.c[i].t2 == 2 && A.r.c[i].built && !A.r.c[i].dropped) {
         const cbp_candidate *d = &A.r.c[i];
         uint64_t f_steps = 0;
         for (uint32_t k = 0; k < d->ntail; k++) if (d->tail[k].tid == 2) f_steps += d->tail[k].count;
         cas = f_steps == 2;
      }
   ok(cas, "a CAS's write half makes f: T2 runs its whole instruction in one step");
   /* A cut-point may follow a happens-before edge: e is main's create of
    * the thread whose write f needs it. */
   run("T1 start T1\nT1 begin main\nT1 write x =1 @c.c:1\nT1 create T2\n"
       "T1 read x =1 @c.c:3\nT2 start T1\nT2 write x =2 @c.c:9\nT1 join T2\n");
   ok(A.r.n == 1 && A.r.c[0].pattern == CBP_WWR && T.events[A.r.c[0].e].kind == CB_EV_THREAD_CREATE,
      "a cut-point just after the create that f needs (WWR)");
   /* Markup overrides functions. */
   run("T1 start T1\nT1 begin main\nT1 create T2\nT2 start T1\n"
       "T1 atomic-begin\nT1 read x @m.c:1\nT1 read x @m.c:2\nT1 atomic-end\n"
       "T2 write x @m.c:3\nT1 join T2\n");
   ok(A.r.n == 1 && A.r.blocks == CBP_BLOCKS_MARKUP, "markup: the atomic region is the block");
   /* Freed and reallocated memory is a new variable: no sharing. */
   run("T1 start T1\nT1 begin main\nT1 create T2\nT2 start T1\n"
       "T1 alloc h 16\nT1 begin op\nT1 read h @h.c:1\nT1 read h @h.c:2\nT1 end op\n"
       "T1 free h\nT2 alloc h 16\nT2 begin op2\nT2 write h @h.c:3\nT2 end op2\n");
   ok(A.r.n == 0 && A.x.nshared == 0, "free then alloc at the same address: a new variable");
   /* Bad text is refused with the line. */
   cb_trace t; cb_error err;
   ok(cb_trace_from_text("T1 read\n", &t, &err) == -1 && strstr(err.msg, "line 1"),
      "text form: bad line refused (%s)", err.msg);
}

/* ---- Replayability: an independent check of a plan ------------------------
 * Follows a candidate's plan the way the tool does (prefix counts freely
 * interleaved, then each tail step alone) on the trace's own events: a
 * thread exists once its create ran, a join needs the joined thread done,
 * a mutex must be free.  Returns 1 when every step can be taken. */
typedef struct { const cb_event **ev; size_t n, cap; } tevents;

static int sim_enabled(tevents *th, uint32_t n, const size_t *pos, const uint32_t *owner,
                       const uint64_t *lockaddr, size_t nlocks, int *created, uint32_t w) {
   if (!created[w] || pos[w] >= th[w].n) return 0;
   const cb_event *e = th[w].ev[pos[w]];
   if (e->kind == CB_EV_THREAD_JOIN)
      return e->value <= n && pos[e->value] >= th[e->value].n;
   if (e->kind == CB_EV_LOCK)
      for (size_t k = 0; k < nlocks; k++)
         if (lockaddr[k] == e->addr && owner[k] && owner[k] != w) return 0;
   return 1;
}

static void sim_step(tevents *th, size_t *pos, uint32_t *owner, uint64_t *lockaddr,
                     size_t *nlocks, int *created, uint32_t w) {
   const cb_event *e = th[w].ev[pos[w]++];
   if (e->kind == CB_EV_THREAD_CREATE) created[e->value] = 1;
   if (e->kind == CB_EV_LOCK || e->kind == CB_EV_UNLOCK) {
      size_t k = 0;
      while (k < *nlocks && lockaddr[k] != e->addr) k++;
      if (k == *nlocks) { lockaddr[k] = e->addr; owner[k] = 0; (*nlocks)++; }
      owner[k] = e->kind == CB_EV_LOCK ? w : 0;
   }
}

static int plan_feasible(const cb_trace *t, const cbp_candidate *c, uint32_t n) {
   tevents *th = calloc(n + 1, sizeof *th);
   size_t *pos = calloc(n + 1, sizeof *pos);
   int *created = calloc(n + 1, sizeof *created);
   uint32_t owner[64]; uint64_t lockaddr[64]; size_t nlocks = 0;
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      if (e->tid == 0 || e->tid > n || !CB_IS_COUNTED(e->kind)) continue;
      tevents *v = &th[e->tid];
      if (v->n == v->cap) { v->cap = v->cap ? 2 * v->cap : 16; v->ev = realloc(v->ev, v->cap * sizeof *v->ev); }
      v->ev[v->n++] = e;
   }
   created[1] = 1;
   int ok = 1;
   for (int progress = 1; progress;) { /* the prefix, in any order */
      progress = 0;
      for (uint32_t w = 1; w <= n; w++)
         while (pos[w] < c->prefix[w - 1] &&
                sim_enabled(th, n, pos, owner, lockaddr, nlocks, created, w)) {
            sim_step(th, pos, owner, lockaddr, &nlocks, created, w);
            progress = 1;
         }
   }
   for (uint32_t w = 1; w <= n; w++) if (pos[w] != c->prefix[w - 1]) ok = 0;
   for (uint32_t s = 0; s < c->ntail && ok; s++)
      for (uint64_t k = 0; k < c->tail[s].count && ok; k++) {
         uint32_t w = c->tail[s].tid;
         if (!sim_enabled(th, n, pos, owner, lockaddr, nlocks, created, w)) ok = 0;
         else sim_step(th, pos, owner, lockaddr, &nlocks, created, w);
      }
   for (uint32_t w = 0; w <= n; w++) free(th[w].ev);
   free(th); free(pos); free(created);
   return ok;
}

static const char *plan_str(const cbp_candidate *c, uint32_t n) {
   static char b[512];
   size_t k = (size_t)snprintf(b, sizeof b, "prefix [");
   for (uint32_t j = 0; j < n && k < sizeof b; j++)
      k += (size_t)snprintf(b + k, sizeof b - k, "%s%llu", j ? "," : "",
                            (unsigned long long)(c->prefix ? c->prefix[j] : 0));
   k += (size_t)snprintf(b + k, sizeof b - k, "] tail");
   for (uint32_t j = 0; j < c->ntail && k < sizeof b; j++)
      k += (size_t)snprintf(b + k, sizeof b - k, " (T%u,%llu)", c->tail[j].tid,
                            (unsigned long long)c->tail[j].count);
   return b;
}

/* rww.c as recorded: main creates T2, T2 runs its whole deposit, and only
 * then main creates T3.  The pattern is between T2 and T3. */
static const char *three_threads =
   "T1 start T1\nT1 begin main\nT1 create T2\nT2 start T1\nT2 begin teller\n"
   "T2 begin deposit\nT2 read x =100 @r.c:28\nT2 write x =110 @r.c:29\nT2 end deposit\n"
   "T2 end teller\nT1 create T3\nT3 start T1\nT2 exit\nT3 begin teller\nT3 begin deposit\n"
   "T3 read x =110 @r.c:28\nT3 write x =130 @r.c:29\nT3 end deposit\nT3 end teller\n"
   "T3 exit\nT1 join T2 @r.c:43\nT1 join T3 @r.c:44\nT1 read x @r.c:45\nT1 end main\n";

static void test_prefix_closure(void) {
   run(three_threads);
   ok(A.r.n == 2, "3 threads: two RWW candidates (T2/T3 and T3/T2)");
   for (size_t i = 0; i < A.r.n; i++) {
      cbp_candidate *c = &A.r.c[i];
      ok(!c->dropped && c->prefix && c->prefix[0] == 2,
         "T%u/T%u: main's prefix holds both creates and no join (%s)", c->t1, c->t2,
         plan_str(c, A.x.nthreads));
      ok(!c->dropped && plan_feasible(&T, c, A.x.nthreads),
         "T%u/T%u: the plan can be followed (%s)", c->t1, c->t2, plan_str(c, A.x.nthreads));
      /* Main was raised past T2's read, so T2 and T3 run everything alone
       * in the tail: a replay is one sequence, not a race in the prefix. */
      ok(!c->dropped && c->prefix[1] == 0 && c->prefix[2] == 0,
         "T%u/T%u: only main runs in the prefix", c->t1, c->t2);
      if (c->t1 == 2)
         ok(c->ntail == 3 && c->tail[0].tid == 2 && c->tail[0].count == 1 &&
            c->tail[1].tid == 3 && c->tail[1].count == 2 && c->tail[2].tid == 2 &&
            c->tail[2].count == 1, "T2/T3: T2 through e1, then T3's read and f, then e2");
   }
   /* Main creates T3 while holding a lock: it stops after the unlock. */
   run("T1 start T1\nT1 begin main\nT1 create T2\nT2 start T1\nT2 begin th\nT2 begin op\n"
       "T2 read x @l.c:1\nT2 write x @l.c:2\nT2 end op\nT1 lock m\nT1 create T3\n"
       "T1 unlock m\nT3 start T1\nT3 begin th\nT3 begin op\nT3 read x @l.c:1\n"
       "T3 write x @l.c:2\nT3 end op\nT1 join T2\nT1 join T3\n");
   int seen = 0;
   for (size_t i = 0; i < A.r.n; i++) {
      cbp_candidate *c = &A.r.c[i];
      if (c->t1 != 2 || c->t2 != 3) continue;
      seen = 1;
      ok(!c->dropped && c->prefix[0] == 4 && plan_feasible(&T, c, A.x.nthreads),
         "create under a lock: main stops at its empty lockset after the create (%s)",
         plan_str(c, A.x.nthreads));
   }
   ok(seen, "create under a lock: the T2/T3 candidate exists");
   /* Every candidate of the paper-style traces above stays replayable. */
   char buf[2048];
   pattern_trace(buf, sizeof buf, "read", "write", "write", 0);
   run(buf);
   ok(A.r.n == 1 && plan_feasible(&T, &A.r.c[0], A.x.nthreads),
      "two threads: the plan can be followed");
}

/* cbp_plan_check: synthesis' plans pass; plans that break a replay rule do
 * not (a tail thread not created yet, a count past the end, a switch inside
 * one instruction, a lock another thread holds, a prefix that waits). */
static int check_plan(const uint64_t *prefix, const cbp_step *tail, uint32_t ntail,
                      const char **why) {
   *why = cbp_plan_check(&T, &A.x, &A.v, A.L, prefix, tail, ntail);
   return *why == NULL;
}

static void test_plan_check(void) {
   const char *why = NULL;
   int r;
   run(three_threads);
   for (size_t i = 0; i < A.r.n; i++) {
      cbp_candidate *c = &A.r.c[i];
      r = !c->dropped && check_plan(c->prefix, c->tail, c->ntail, &why);
      ok(r, "plan check: synthesis' plan T%u/T%u passes (%s)", c->t1, c->t2, why ? why : "ok");
   }
   /* main's counted events: create T2, create T3, join, join, read. */
   uint64_t p1[3] = {1, 0, 0};
   cbp_step t1[] = {{3, 1}};
   r = check_plan(p1, t1, 1, &why);
   ok(!r && why && strstr(why, "needs"),
      "plan check: T3 in the tail before main created it (%s)", why ? why : "passed");
   uint64_t p2[3] = {2, 1, 0};
   cbp_step t2[] = {{3, 2}, {2, 1}};
   r = check_plan(p2, t2, 2, &why);
   ok(r, "plan check: both creates in the prefix (%s)",
      why ? why : "ok");
   uint64_t p3[3] = {2, 0, 0};
   cbp_step t3[] = {{2, 9}};
   r = check_plan(p3, t3, 1, &why);
   ok(!r && why && strstr(why, "past"),
      "plan check: a count past the thread's end (%s)", why ? why : "passed");
   uint64_t p4[3] = {0, 1, 0};
   r = check_plan(p4, NULL, 0, &why);
   ok(!r && why && strstr(why, "prefix"),
      "plan check: a prefix that waits for a create outside it (%s)", why ? why : "passed");

   /* One instruction: T2's read and write of x (addl $1,x). */
   run("T1 start T1\nT1 begin main\nT1 create T2\nT1 create T3\nT2 start T1\n"
       "T2 begin incr\nT2 read x @i.c:5\nT2 write x @i.c:5 same-insn\nT2 end incr\n"
       "T3 start T1\nT3 begin incr\nT3 read x @i.c:5\nT3 write x @i.c:5 same-insn\n"
       "T3 end incr\nT1 join T2\nT1 join T3\n");
   uint64_t p5[3] = {2, 0, 0};
   cbp_step t5[] = {{2, 1}, {3, 2}, {2, 1}};
   r = check_plan(p5, t5, 3, &why);
   ok(!r && why && strstr(why, "instruction"),
      "plan check: a switch inside one instruction (%s)", why ? why : "passed");
   uint64_t p6[3] = {2, 1, 0};
   r = check_plan(p6, NULL, 0, &why);
   ok(!r && why && strstr(why, "instruction"),
      "plan check: a prefix stop inside one instruction (%s)", why ? why : "passed");
   cbp_step t7[] = {{2, 2}, {3, 2}};
   r = check_plan(p5, t7, 2, &why);
   ok(r, "plan check: whole instructions (%s)", why ? why : "ok");

   /* Locks: T2 holds m in the tail when T3 asks for it. */
   run("T1 start T1\nT1 begin main\nT1 create T2\nT1 create T3\nT2 start T1\n"
       "T2 begin op\nT2 lock m\nT2 write x @l.c:1\nT2 unlock m\nT2 end op\n"
       "T3 start T1\nT3 begin op\nT3 lock m\nT3 write x @l.c:1\nT3 unlock m\n"
       "T3 end op\nT1 join T2\nT1 join T3\n");
   cbp_step t8[] = {{2, 2}, {3, 1}, {2, 1}};
   r = check_plan(p5, t8, 3, &why);
   ok(!r && why && strstr(why, "lock"),
      "plan check: the tail takes a lock another thread holds (%s)", why ? why : "passed");
   uint64_t p9[3] = {2, 2, 0};
   cbp_step t9[] = {{3, 1}};
   r = check_plan(p9, t9, 1, &why);
   ok(!r && why && strstr(why, "lock"),
      "plan check: a prefix stop holding a lock the tail takes (%s)", why ? why : "passed");
   uint64_t p10[3] = {2, 2, 3};
   r = check_plan(p10, NULL, 0, &why);
   ok(!r && why && strstr(why, "lock"),
      "plan check: a prefix stop holding a lock another prefix takes (%s)",
      why ? why : "passed");
   cbp_step t11[] = {{2, 3}, {3, 3}};
   r = check_plan(p5, t11, 2, &why);
   ok(r, "plan check: critical sections one after the other (%s)",
      why ? why : "ok");
}

static int keep_odd(void *ctx, const cb_trace *t, cbp_analysis *a, cbp_candidate *c) {
   (void)t;
   int *asked = ctx;
   (*asked)++;
   return (size_t)(c - a->r.c) % 2 == 1;
}

static void test_build_cap(void) {
   cb_error err;
   if (loaded) { cbp_analysis_free(&A); cb_trace_free(&T); loaded = 0; }
   if (cb_trace_from_text(three_threads, &T, &err)) { ok(0, "text: %s", err.msg); return; }
   cbp_options o = {CBP_BLOCKS_AUTO, 0, CBP_FAM_ORDER, 0};
   cbp_analyze_candidates(&T, &o, &A);
   loaded = 1;
   ok(A.r.n == 2 && !A.r.c[0].prefix && !A.r.c[1].prefix,
      "candidates alone: no schedule built yet");
   ok(cbp_build_schedules(&T, &A, 1, NULL, NULL) == 1 && A.r.c[0].built &&
      A.r.c[0].prefix && !A.r.c[1].built && !A.r.c[1].prefix,
      "--max 1: only the first candidate's schedule is built");
   cbp_analysis_free(&A);
   cbp_analyze_candidates(&T, &o, &A);
   int asked = 0;
   size_t got = cbp_build_schedules(&T, &A, 1, keep_odd, &asked);
   ok(got == 1 && A.r.c[0].dropped && !A.r.c[0].prefix && A.r.dropped_filter == 1 &&
      A.r.c[1].built && !A.r.c[1].dropped && asked == 2,
      "keep hook: a dropped candidate gets no schedule, the next is built instead");
   cbp_analysis_free(&A);
   cbp_analyze_candidates(&T, &o, &A);
   ok(cbp_build_schedules(&T, &A, 0, NULL, NULL) == 0 && !A.r.c[0].built,
      "--max 0: nothing built");
}

/* Lock-order inversions. */
static size_t count_dlk(void) {
   size_t k = 0;
   for (size_t i = 0; i < A.r.n; i++) k += A.r.c[i].pattern == CBP_DLK;
   return k;
}

static void dlk_trace(char *buf, size_t len, const char *t3_outer, const char *t3_inner,
                      const char *gate, const char *middle, const char *inner_kw) {
   char g2[32] = "", gu2[32] = "", g3[32] = "", gu3[32] = "";
   if (gate) {
      snprintf(g2, sizeof g2, "T2 lock %s\n", gate); snprintf(gu2, sizeof gu2, "T2 unlock %s\n", gate);
      snprintf(g3, sizeof g3, "T3 lock %s\n", gate); snprintf(gu3, sizeof gu3, "T3 unlock %s\n", gate);
   }
   snprintf(buf, len,
            "T1 start T1\nT1 begin main\nT1 create T2\nT2 start T1\n%s"
            "T2 begin fwd\n%sT2 lock a @d.c:1\nT2 lock b @d.c:2\nT2 unlock b\nT2 unlock a\n%s"
            "T2 end fwd\nT2 exit\n%sT1 create T3\nT3 start T1\nT3 begin bwd\n%s"
            "T3 lock %s @d.c:3\nT3 %s %s @d.c:4\nT3 unlock %s\nT3 unlock %s\n%sT3 end bwd\n"
            "T1 join T2\nT1 join T3\n",
            "", g2, gu2, middle, g3, t3_outer, inner_kw, t3_inner, t3_inner, t3_outer, gu3);
}

/* Three philosophers: T2 a->b, T3 b->c, T4 c->a, one after the other in
 * the recorded run.  No pair inverts; the three make a cycle. */
static void test_deadlock_cycle(void) {
   run("T1 start T1\nT1 create T2\nT1 create T3\nT1 create T4\n"
       "T2 start T1\nT2 lock a @d.c:8\nT2 lock b @d.c:9\nT2 unlock b\nT2 unlock a\n"
       "T3 start T1\nT3 lock b @d.c:8\nT3 lock c @d.c:9\nT3 unlock c\nT3 unlock b\n"
       "T4 start T1\nT4 lock c @d.c:8\nT4 lock a @d.c:9\nT4 unlock a\nT4 unlock c\n"
       "T1 join T2\nT1 join T3\nT1 join T4\n");
   const cbp_candidate *c = NULL;
   for (size_t i = 0; i < A.r.n; i++)
      if (A.r.c[i].pattern == CBP_DLK) c = &A.r.c[i];
   ok(c && c->nmore == 1 && c->t1 == 2 && c->t2 == 3 && c->more[0].tid == 4,
      "three philosophers: one DLK cycle of T2, T3, T4");
   if (c) {
      uint64_t per[5] = {0};
      for (uint32_t k = 0; k < c->ntail; k++) per[c->tail[k].tid] += c->tail[k].count;
      ok(c->built && !c->dropped && per[2] + c->prefix[1] == 1 && per[3] + c->prefix[2] == 1 &&
         per[4] + c->prefix[3] == 1,
         "three philosophers: each thread runs through its first lock, then all are released (%s)",
         plan_str((cbp_candidate *)c, A.x.nthreads));
   }
}

static void test_deadlocks(void) {
   char buf[2048];
   dlk_trace(buf, sizeof buf, "b", "a", NULL, "", "lock");
   run(buf);
   ok(count_dlk() == 1, "opposite lock orders: one DLK candidate (%zu)", count_dlk());
   for (size_t i = 0; i < A.r.n; i++) {
      cbp_candidate *c = &A.r.c[i];
      if (c->pattern != CBP_DLK) continue;
      const cb_event *e1 = &T.events[c->e1], *f = &T.events[c->f], *e2 = &T.events[c->e2];
      char v[64];
      ok(c->t1 == 2 && c->t2 == 3 && e1->tid == 2 && e1->kind == CB_EV_LOCK &&
         f->tid == 3 && f->kind == CB_EV_LOCK && e2->tid == 2 && e2->kind == CB_EV_LOCK &&
         e2->addr == f->addr && e1->addr != f->addr && c->addr == f->addr &&
         !strcmp(cb_variable_str_at(&T, c->addr, c->e1, v, sizeof v), "b"),
         "DLK: e1 = T2 takes a, f = T3 takes b, e2 = T2 takes b; variable b");
      ok(!c->dropped && c->prefix[1] == 0 && c->prefix[2] == 0 && c->ntail == 2 &&
         c->tail[0].tid == 2 && c->tail[0].count == 1 && c->tail[1].tid == 3 &&
         c->tail[1].count == 1, "DLK: the tail ends after T2 takes a and T3 takes b (%s)",
         plan_str(c, A.x.nthreads));
      ok(c->prefix[0] == 2 && plan_feasible(&T, c, A.x.nthreads),
         "DLK: main has created both, the plan can be followed (%s)", plan_str(c, A.x.nthreads));
      ok(!strcmp(cbp_pattern_name[c->pattern], "DLK"), "DLK: the pattern's name");
   }
   dlk_trace(buf, sizeof buf, "a", "b", NULL, "", "lock");
   run(buf);
   ok(count_dlk() == 0, "one lock order (nested.c): no DLK");
   dlk_trace(buf, sizeof buf, "b", "a", "g", "", "lock");
   run(buf);
   ok(count_dlk() == 0, "a common gate lock around both: no DLK");
   dlk_trace(buf, sizeof buf, "b", "a", NULL, "", "trylock");
   run(buf);
   ok(count_dlk() == 0, "the inner acquisition is a trylock: no DLK");
   dlk_trace(buf, sizeof buf, "b", "a", NULL, "T1 join T2\n", "lock");
   run(buf);
   ok(count_dlk() == 0 && A.r.dropped_vc > 0, "T2 joined before T3 is created: no DLK");
}

/* ---- Order violations (orders.c) ----------------------------------------- */
static const cbp_candidate *only_ord(void) {
   const cbp_candidate *c = NULL;
   for (size_t i = 0; i < A.r.n; i++)
      if (A.r.c[i].pattern == CBP_ORD) { if (c) return NULL; c = &A.r.c[i]; }
   return c;
}

static void test_orders(void) {
   /* Use before init: main creates T2 and then writes cfg; T2 reads it after
    * in the recorded run.  Forced: T2's read before main's write. */
   run_skip("T1 start T1\nT1 begin main\nT1 create T2\nT1 write cfg =7 @i.c:10\n"
            "T2 start T1\nT2 begin worker\nT2 read cfg =7 @i.c:20\nT2 end worker\n"
            "T1 join T2\nT1 end main\n", CBP_FAM_ATOMICITY | CBP_FAM_DEADLOCK);
   const cbp_candidate *c = only_ord();
   ok(c && c->t1 == 1 && c->t2 == 2 && c->e1 == c->e2 && c->ce1 == 1 && c->cf == 0,
      "ORD: a read after an unordered write, forced before it");
   if (c) ok(c->built && !c->dropped && c->ntail >= 2 && c->tail[0].tid == 2 &&
             c->tail[c->ntail - 1].tid == 1 && c->tail[c->ntail - 1].count == 1,
             "ORD schedule: T2 through its read, then T1's write");
   if (c) {
      const cbp_step *a = c->alt[CBP_ALT_F_FIRST], *b = c->alt[CBP_ALT_E2_ON];
      uint32_t na = c->nalt[CBP_ALT_F_FIRST], nb = c->nalt[CBP_ALT_E2_ON];
      ok(na >= 2 && a[na - 2].tid == 2 && a[na - 2].count == CBP_RUN_OUT &&
         a[na - 1].tid == 1 && a[na - 1].count == 1,
         "alternate tail: T2 runs on alone after f, then T1 through e2");
      ok(nb == c->ntail && b[nb - 1].tid == 1 && b[nb - 1].count == CBP_RUN_OUT &&
         !memcmp(b, c->tail, (nb - 1) * sizeof *b),
         "alternate tail: the main tail, with T1 running on alone after e2");
   }
   /* The write before the create orders them: nothing. */
   run_skip("T1 start T1\nT1 begin main\nT1 write cfg =7 @i.c:10\nT1 create T2\n"
            "T2 start T1\nT2 begin worker\nT2 read cfg =7 @i.c:20\nT2 end worker\n"
            "T1 join T2\nT1 end main\n", CBP_FAM_ATOMICITY | CBP_FAM_DEADLOCK);
   ok(A.r.n == 0, "ORD: a write before the create is ordered: none");
   /* A once control (GLib's g_once_init_enter): T2's inline test of o finds
    * it set, which orders T2 after T1's release of it, and cfg's write
    * before it; a test that finds it unset orders nothing. */
   for (int set = 1; set >= 0; set--) {
      char buf[512];
      snprintf(buf, sizeof buf,
               "T1 start T1\nT1 begin main\nT1 create T2\nT1 write cfg =7 @i.c:10\n"
               "T1 release o\nT2 start T1\nT2 begin worker\nT2 read o =%d @i.c:19\n"
               "T2 read cfg =7 @i.c:20\nT2 end worker\nT1 join T2\nT1 end main\n", set);
      run_skip(buf, CBP_FAM_ATOMICITY | CBP_FAM_DEADLOCK);
      if (set)
         ok(A.r.n == 0, "ORD: a read that finds a once control set acquires it: none");
      else
         ok(only_ord() != NULL, "ORD: a read that finds it unset orders nothing: found");
   }
   /* Check-then-act in critical sections: T2's check and act, then T3's
    * check.  Forced: T3's check before T2's act, which moves whole. */
   run_skip("T1 start T1\nT1 create T2\nT1 create T3\nT2 start T1\n"
            "T2 lock m\nT2 read n =1 @p.c:11\nT2 unlock m\n"
            "T2 lock m\nT2 read n =1 @p.c:15\nT2 write n =0 @p.c:15 same-insn\nT2 unlock m\n"
            "T3 start T1\nT3 lock m\nT3 read n =0 @p.c:11\nT3 unlock m\n"
            "T1 join T2\nT1 join T3\n", CBP_FAM_ATOMICITY | CBP_FAM_DEADLOCK);
   int found = 0;
   for (size_t i = 0; i < A.r.n; i++) {
      const cbp_candidate *d = &A.r.c[i];
      if (d->pattern == CBP_ORD && T.events[d->e1].kind == CB_EV_WRITE &&
          T.events[d->f].kind == CB_EV_READ && d->t1 == 2 && d->t2 == 3 && d->built &&
          !d->dropped) {
         /* T2 is cut after its first section: 3 counted events before T3. */
         uint64_t t2 = d->prefix[1];
         for (uint32_t k = 0; k < d->ntail && d->tail[k].tid != 3; k++)
            if (d->tail[k].tid == 2) t2 += d->tail[k].count;
         found = t2 == 3 && d->tail[d->ntail - 1].tid == 2;
      }
   }
   ok(found, "ORD: the second critical section moves after the other thread's check");
   if (!found)
      for (size_t i = 0; i < A.r.n; i++) {
         const cbp_candidate *d = &A.r.c[i];
         printf("#   %s e1 %llu f %llu T%u/T%u built %d dropped %d (%s) prefix T2 %llu\n",
                cbp_pattern_name[d->pattern], (unsigned long long)d->e1,
                (unsigned long long)d->f, d->t1, d->t2, d->built, d->dropped,
                d->why ? d->why : "", d->prefix ? (unsigned long long)d->prefix[1] : 0ull);
      }
}

/* The recorded order a prefix keeps (prefix_order.c): reads after the
 * other thread's last write, writes after its last read, locks after its
 * last unlock, one wait a pair of threads unless the count grows, and a
 * wait on an instruction's second access moved to its first. */
static void test_prefix_order(void) {
   run("T1 start T1\nT1 create T2\nT2 start T1\n"
       "T1 write q @p.c:1\n"                       /* T1#1 */
       "T2 read q @p.c:2\n"                        /* T2#0: after T1#1 */
       "T1 lock m @p.c:3\nT1 write q @p.c:4\n"     /* T1#3: after T2#0 */
       "T1 unlock m @p.c:5\n"                      /* T1#4 */
       "T2 lock m @p.c:6\n"                        /* T2#1: after T1#4 */
       "T2 read q @p.c:7\n"                        /* T2#2: adds nothing */
       "T2 unlock m @p.c:8\nT1 write z @p.c:9\n"   /* T1#5 */
       "T2 read y @p.c:10\nT2 write z @p.c:10 same-insn\n"); /* T2#4,#5 */
   cbp_porder *po = cbp_porder_new(&T, &A.hb, &A.x, &A.v);
   uint64_t all[2] = {6, 6}, *o = NULL;
   size_t n = cbp_porder_for(po, all, &o);
   static const uint64_t want[] = {1, 3, 2, 1, 2, 0, 1, 2, 2, 1, 1, 5, 2, 4, 1, 6};
   ok(n == 16 && o && !memcmp(o, want, sizeof want),
      "waits (T1#3 after T2 1), (T2#0 after T1 2), (T2#1 after T1 5), "
      "(T2#4 after T1 6): the write moved to its instruction's read");
   free(o);
   /* T1 stopped after its unlock: T2's counts are cut to 5, and only the
    * first wait past T1's prefix is kept; T2's prefix of 2 leaves out the
    * waits of its later events. */
   uint64_t cut[2] = {5, 2};
   n = cbp_porder_for(po, cut, &o);
   static const uint64_t want2[] = {1, 3, 2, 1, 2, 0, 1, 2, 2, 1, 1, 5};
   ok(n == 12 && o && !memcmp(o, want2, sizeof want2),
      "a prefix keeps only its own waits, counts cut to the other's prefix");
   free(o);
   uint64_t none[2] = {6, 0};
   n = cbp_porder_for(po, none, &o);
   ok(n == 0 && !o, "no wait for a thread with no prefix");
   cbp_porder_free(po);

   /* Two threads poll a flag; the write that ends their loops waits for
    * each one's last read, not only for the last reader's. */
   run("T1 start T1\nT1 create T2\nT1 create T3\nT2 start T1\nT3 start T1\n"
       "T2 read f @w.c:1\nT2 read f @w.c:1\nT3 read f @w.c:1\n"
       "T1 write f @w.c:2\nT2 read f @w.c:1\nT3 read f @w.c:1\n");
   po = cbp_porder_new(&T, &A.hb, &A.x, &A.v);
   uint64_t three[3] = {3, 3, 2};
   n = cbp_porder_for(po, three, &o);
   static const uint64_t want3[] = {1, 2, 2, 2, 1, 2, 3, 1, 2, 2, 1, 3, 3, 1, 1, 3};
   ok(n == 16 && o && !memcmp(o, want3, sizeof want3),
      "the flag's write waits for both pollers' reads, their next reads for it");
   free(o);
   cbp_porder_free(po);

   /* What the program orders itself needs no wait: a write before the
    * create, read by the new thread; a write after the join. */
   run("T1 start T1\nT1 write x @h.c:1\nT1 create T2\nT2 start T1\n"
       "T2 read x @h.c:2\nT2 write x @h.c:3\nT2 exit\nT1 join T2\n"
       "T1 write x @h.c:4\n");
   po = cbp_porder_new(&T, &A.hb, &A.x, &A.v);
   uint64_t both[2] = {4, 2};
   n = cbp_porder_for(po, both, &o);
   ok(n == 0 && !o, "no wait where create and join order the threads");
   free(o);
   cbp_porder_free(po);

   /* A spin ordered by what it saw keeps its wait: main spins until two
    * workers have counted themselves (0 four times, then 2); a forced
    * main that reads the first worker's 1 counts a read more. */
   run("T1 start T1\nT1 create T2\nT1 create T3\nT2 start T1\nT3 start T1\n"
       "T1 read s =0 @s.c:1\nT1 read s =0 @s.c:1\nT1 read s =0 @s.c:1\n"
       "T1 read s =0 @s.c:1\nT2 write s =1 @s.c:2\nT3 read s =1 @s.c:2\n"
       "T3 write s =2 @s.c:2 same-insn\nT1 read s =2 @s.c:1\n");
   po = cbp_porder_new(&T, &A.hb, &A.x, &A.v);
   uint64_t spun[3] = {7, 1, 2};
   n = cbp_porder_for(po, spun, &o);
   int kept = 0;
   for (size_t k = 0; k + 3 < n; k += 4)
      kept |= o[k] == 1 && o[k + 1] == 6 && o[k + 2] == 3 && o[k + 3] == 2;
   ok(kept, "the read that ends a spin waits for the write it saw (T1#6 after T3 2)");
   free(o);
   cbp_porder_free(po);
}

int main(void) {
   test_prefix_order();
   test_orders();
   test_section_3_2();
   test_patterns();
   test_schedule_simple();
   test_ordered();
   test_misc();
   test_prefix_closure();
   test_build_cap();
   test_deadlocks();
   test_deadlock_cycle();
   test_plan_check();
   if (loaded) { cbp_analysis_free(&A); cb_trace_free(&T); }
   printf("1..%d\n", ntest);
   return nfail != 0;
}
