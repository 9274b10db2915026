/* z3_bench.c: the Z3 check on every candidate cbpredict finds in a trace,
 * the way `cbpredict --z3` will run it; prints how many were kept, dropped
 * and undecided, and the time per query.  Used by scripts/bench-z3.sh.
 *
 *   usage: z3-bench [-w MAX_WINDOW_EVENTS] [-T TIMEOUT_MS] [-s] [-z] TRACE
 *     -s  strict maximal causal model (cb_z3_query.strict)
 *     -z  window from the start of the trace (default: from the candidate's
 *         last empty-lockset cuts, x1 and x2, as cbpredict's prefix)
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "predict.h"
#include "z3_check.h"

static double now_ms(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
   size_t window = 1000;
   unsigned timeout = 2000;
   int strict = 0, from_zero = 0, c;
   while ((c = getopt(argc, argv, "w:T:szh")) != -1) {
      switch (c) {
      case 'w': window = strtoull(optarg, NULL, 10); break;
      case 'T': timeout = (unsigned)strtoul(optarg, NULL, 10); break;
      case 's': strict = 1; break;
      case 'z': from_zero = 1; break;
      default:
         fprintf(stderr, "usage: z3-bench [-w N] [-T MS] [-s] [-z] TRACE\n");
         return 2;
      }
   }
   if (optind != argc - 1) {
      fprintf(stderr, "z3-bench: one trace, please\n");
      return 2;
   }
   cb_trace t;
   cb_error err;
   memset(&t, 0, sizeof t);
   if (cb_trace_read(argv[optind], &t, &err)) {
      fprintf(stderr, "z3-bench: cannot read %s: %s\n", argv[optind], err.msg);
      return 2;
   }
   double t0 = now_ms();
   cbp_options o = {CBP_BLOCKS_AUTO, 0, 0, 0};
   cbp_analysis a;
   cbp_analyze(&t, &o, &a);
   double t1 = now_ms();
   cb_z3 *z = cb_z3_new(timeout, window);
   if (!z) {
      fprintf(stderr, "z3-bench: cannot start Z3\n");
      return 1;
   }
   size_t cands = 0;
   double worst = 0;
   for (size_t i = 0; i < a.r.n; i++) {
      cbp_candidate *cd = &a.r.c[i];
      if (cd->dropped || cd->pattern == CBP_DLK)
         continue;
      cands++;
      size_t wb = 0;
      if (!from_zero) {
         uint64_t p1 = cd->x1.tidx == UINT64_MAX ? 0 : cd->x1.tidx + 1;
         uint64_t p2 = cd->x2.tidx == UINT64_MAX ? 0 : cd->x2.tidx + 1;
         wb = (size_t)(p1 < p2 ? p1 : p2);
         size_t low = cd->e1 < cd->f ? cd->e1 : cd->f;
         if (wb > low)
            wb = low;
      }
      cb_z3_query q = {.e1 = cd->e1, .f = cd->f, .e2 = cd->e2, .window_begin = wb,
                       .strict = strict, .hb = &a.hb,
                       .kind = cd->pattern == CBP_ORD ? CB_Z3_ORDER : CB_Z3_ATOMICITY};
      cb_z3_result r;
      double q0 = now_ms();
      cb_z3_verdict v = cb_z3_check(z, &t, &q, &r);
      double dt = now_ms() - q0;
      if (dt > worst)
         worst = dt;
      if (getenv("Z3_BENCH_VERBOSE"))
         printf("%s %s e1=%llu f=%llu e2=%llu window %zu from %zu, %.2f ms %s\n",
                cbp_pattern_name[cd->pattern], cb_z3_verdict_name(v),
                (unsigned long long)cd->e1, (unsigned long long)cd->f,
                (unsigned long long)cd->e2, r.window_events, r.window_begin,
                dt, r.why);
   }
   double t2 = now_ms();
   cb_z3_stats st;
   cb_z3_get_stats(z, &st);
   printf("z3: %zu events, %zu candidates: %lu kept (sat), %lu dropped (unsat), "
          "%lu undecided\n", t.nevents, cands, st.sat, st.unsat, st.unknown);
   printf("z3: predict %.1f ms, z3 %.1f ms, %.2f ms per query (worst %.1f), "
          "%.0f events per window, ratio %.2f\n",
          t1 - t0, t2 - t1, st.queries ? st.solver_ms / st.queries : 0.0, worst,
          st.queries ? (double)st.window_events / st.queries : 0.0,
          t1 > t0 ? (t2 - t0) / (t1 - t0) : 0.0);
   cb_z3_free(z);
   cbp_analysis_free(&a);
   cb_trace_free(&t);
   return 0;
}
