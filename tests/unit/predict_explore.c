/* predict_explore: cbpredict --delays (predict/explore.c) and the ordering
 * digests it deduplicates with (trace/ordering.c), on text-form traces (TAP).
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "predict.h"
#include "explore.h"

static int ntest, nfail;
static void ok(int cond, const char *fmt, ...) {
   va_list ap;
   va_start(ap, fmt);
   printf("%sok %d - ", cond ? "" : "not ", ++ntest);
   vprintf(fmt, ap);
   printf("\n");
   va_end(ap);
   if (!cond) nfail++;
}

/* ---- Digests: the normal form replay follows ---------------------------- */

static uint64_t dig(const uint64_t *prefix, size_t np, const cb_order_step *st, size_t n) {
   const cb_order_step *tails[1] = {st};
   size_t nt[1] = {n};
   return cb_ordering_digest(prefix, np, tails, nt, 1);
}

static void test_digest(void) {
   uint64_t p[3] = {2, 5, 0}, p2[2] = {2, 5}, q[3] = {2, 6, 0};
   cb_order_step a[] = {{2, 3}, {3, 1}, {2, 4}};
   cb_order_step zero[] = {{2, 3}, {1, 0}, {3, 1}, {2, 4}};
   cb_order_step split[] = {{2, 1}, {2, 2}, {3, 1}, {2, 4}};
   cb_order_step out[] = {{2, 3}, {3, CB_ORDER_RUN_OUT}, {3, 7}, {2, 4}};
   cb_order_step out2[] = {{2, 3}, {3, CB_ORDER_RUN_OUT}, {3, 9}, {2, 4}};
   uint64_t d = dig(p, 3, a, 3);
   ok(d == dig(p2, 2, a, 3), "digest: a thread past the prefix list runs 0 events");
   ok(d == dig(p, 3, zero, 4), "digest: a step of 0 events is no step");
   ok(d == dig(p, 3, split, 4), "digest: two steps of one thread in a row are one");
   ok(dig(p, 3, out, 4) == dig(p, 3, out2, 4),
      "digest: a thread's steps after it ran out are run out too");
   ok(d != dig(q, 3, a, 3), "digest: another prefix, another ordering");
   ok(d != dig(p, 3, out, 4), "digest: a run-out step is not a counted one");
   cb_order_step b[] = {{3, 1}, {2, 3}, {2, 4}};
   ok(d != dig(p, 3, b, 3), "digest: the same steps in another order differ");

   /* A schedule's digest is that of its prefix and tail variants. */
   cb_schedule s = {0};
   cb_sched_step st[3], *sp[3];
   for (int i = 0; i < 3; i++) {
      st[i] = (cb_sched_step){0};
      st[i].has_tid = st[i].has_count = 1;
      st[i].tid = a[i].tid;
      st[i].count = a[i].count;
      sp[i] = &st[i];
   }
   s.n_prefix = 3; s.prefix = p; s.n_tail = 3; s.tail = sp;
   ok(cb_schedule_digest(&s) == d, "digest: a schedule's is its ordering's");
   cb_sched_variant v = {0}, *vp = &v;
   v.n_tail = 1; v.tail = sp;
   s.n_variants = 1; s.variants = &vp;
   ok(cb_schedule_digest(&s) != d, "digest: a tail variant more is another set of orderings");
}

/* ---- Delay schedules ------------------------------------------------------ */

/* Two workers update x under m, main reads it after joining them. */
static const char *const workers =
   "T1 start T1\nT1 begin main\nT1 create T2\nT2 start T1\nT1 create T3\nT3 start T1\n"
   "T2 begin work\nT2 lock m\nT2 read x @w.c:10\nT2 write x @w.c:11\nT2 unlock m\n"
   "T2 read y @w.c:12\nT2 end work\n"
   "T3 begin work\nT3 lock m\nT3 read x @w.c:10\nT3 write x @w.c:11\nT3 unlock m\n"
   "T3 write y @w.c:13\nT3 end work\n"
   "T2 exit\nT3 exit\nT1 join T2\nT1 join T3\nT1 read x @w.c:20\nT1 end main\nT1 exit\n";

typedef struct {
   uint64_t d[256];
   size_t n;
   int unique;
} digests;

/* Writes the delay schedules of text into a fresh folder; their digests
 * in the order of their numbers. */
static void explore(const char *text, unsigned delays, uint64_t seed, const digests *seen,
                    size_t max, cbp_explore_result *res, digests *out) {
   cb_trace t;
   cb_error err;
   memset(out, 0, sizeof *out);
   if (cb_trace_from_text(text, &t, &err)) {
      printf("Bail out! text form: %s\n", err.msg);
      exit(1);
   }
   cbp_options o = {CBP_BLOCKS_AUTO, 0, CBP_FAM_ATOMICITY | CBP_FAM_DEADLOCK | CBP_FAM_ORDER, 0};
   cbp_analysis a;
   cbp_analyze_candidates(&t, &o, &a);
   char dir[] = "/tmp/predict_explore.XXXXXX";
   if (!mkdtemp(dir)) { printf("Bail out! mkdtemp\n"); exit(1); }
   cbp_explore_options eo = {delays, seed, max, seen ? seen->d : NULL, seen ? seen->n : 0};
   if (cbp_explore_write(&t, &a, &eo, dir, 1, res, &err)) {
      printf("Bail out! explore: %s\n", err.msg);
      exit(1);
   }
   out->unique = 1;
   uint32_t valid = 0;
   for (uint32_t id = 1; id <= res->written && out->n < 256; id++) {
      char path[64];
      cb_schedule *s;
      snprintf(path, sizeof path, "%s/s%u.pb", dir, id);
      if (cb_schedule_read(path, &s, &err)) { out->unique = 0; continue; }
      uint64_t d = cb_schedule_digest(s);
      for (size_t k = 0; k < out->n; k++) out->unique &= out->d[k] != d;
      out->d[out->n++] = d;
      valid += s->pattern && !strcmp(s->pattern, "explore") && s->n_prefix == 3;
      cb_schedule_free(s);
      unlink(path);
   }
   rmdir(dir);
   ok(valid == res->written, "--delays %u --seed %llu: %zu schedule files, pattern explore",
      delays, (unsigned long long)seed, res->written);
   cbp_analysis_free(&a);
   cb_trace_free(&t);
}

static int same(const digests *a, const digests *b) {
   if (a->n != b->n) return 0;
   for (size_t i = 0; i < a->n; i++) if (a->d[i] != b->d[i]) return 0;
   return 1;
}

static int same_set(const digests *a, const digests *b) {
   if (a->n != b->n) return 0;
   for (size_t i = 0; i < a->n; i++) {
      int found = 0;
      for (size_t k = 0; k < b->n; k++) found |= a->d[i] == b->d[k];
      if (!found) return 0;
   }
   return 1;
}

static void test_explore(void) {
   cbp_explore_result r1, r2, r3, r4;
   digests d1, d2, d3, d4;
   explore(workers, 1, 1, NULL, 100, &r1, &d1);
   ok(r1.points >= 6, "the lock calls and the accesses to x and y are delay points (%zu)",
      r1.points);
   ok(r1.written >= 3 && r1.written == d1.n, "single delays written (%zu)", r1.written);
   ok(d1.unique, "no ordering written twice");
   ok(r1.by_depth[1] == r1.written, "--delays 1: every schedule holds one thread once");
   explore(workers, 1, 1, NULL, 100, &r2, &d2);
   ok(same(&d1, &d2), "the same seed: the same schedules in the same order");
   explore(workers, 1, 7, NULL, 100, &r3, &d3);
   ok(same_set(&d1, &d3) && !same(&d1, &d3),
      "another seed: every single delay still, in another order");
   explore(workers, 1, 1, &d1, 100, &r4, &d4);
   ok(r4.written == 0 && r4.seen == r1.written,
      "--seen: none of the orderings forced before is written again (%zu seen)", r4.seen);
   cbp_explore_free(&r1); cbp_explore_free(&r2); cbp_explore_free(&r3); cbp_explore_free(&r4);

   explore(workers, 2, 1, &d1, 100, &r1, &d2);
   ok(r1.by_depth[2] > 0 && r1.by_depth[1] == 0 && d2.unique,
      "--delays 2 with the single delays seen: chains of two, each once (%zu)",
      r1.by_depth[2]);
   int fresh = 1;
   for (size_t i = 0; i < d2.n; i++)
      for (size_t k = 0; k < d1.n; k++) fresh &= d2.d[i] != d1.d[k];
   ok(fresh, "--delays 2: no chain repeats a single delay's ordering");
   cbp_explore_free(&r1);
   explore(workers, 2, 1, NULL, 3, &r2, &d2);
   ok(r2.written == 3, "--max caps what is written");
   cbp_explore_free(&r2);
}

int main(void) {
   test_digest();
   test_explore();
   printf("1..%d\n", ntest);
   return nfail != 0;
}
