/* analyze.c: the passes in order (escape, cut-points, deadlocks, orders), then
 * synthesis for the candidates that will be written, and only those: with
 * --max N a large trace does not pay for schedules nobody writes, and a
 * keep hook (the Z3 check) is asked only about candidates that would be.
 *
 * With two jobs or more, the order-violation pass runs on a thread of its
 * own beside pass B and the deadlock pass (about a third of their time):
 * it reads only the trace, the escape analysis and the happens-before
 * edges, which nobody writes then, and builds its own lock states and
 * clocks (pass B's are built as pass B goes).  Its lock-state ids must be
 * pass B's, since its candidates carry them: lock states are numbered in
 * the order they are first met, and both passes meet them in trace order,
 * so they are, and the merge checks it (with the clocks) before taking its
 * candidates; if not (no trace has shown that), the pass runs again the
 * old way.  Its candidates are merged where the single-threaded run adds
 * them, and sorted as that run sorts them: the output is the same.
 * That thread then builds the reads-from index, which ranking and
 * synthesis would build after the passes (it reads only the trace and the
 * escape analysis), and before them the happens-before edges are found
 * on it while the escape analysis runs (each reads only the trace).
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "predict.h"

unsigned cbp_default_jobs(void) {
   long n = sysconf(_SC_NPROCESSORS_ONLN);
   if (n < 1) return 1;
   return n > CBP_JOBS_MAX ? CBP_JOBS_MAX : (unsigned)n;
}

/* The order-violation pass on its own thread, with its own lock states
 * and clocks. */
typedef struct {
   const cb_trace *t;
   const cbp_hb *hb;
   const cbp_escape *x;
   cbp_vclock v;
   cbp_locks *L;
   cbp_result found;
   struct cbp_rf *rf;
} orders_job;

static void *orders_alone(void *arg) {
   orders_job *j = arg;
   cbp_orders_pass(j->t, j->hb, j->x, &j->v, &j->v, j->L, &j->found);
   j->rf = cbp_rf_new(j->t, j->x);
   return NULL;
}

typedef struct { cbp_hb *hb; const cb_trace *t; } hb_job;

static void *hb_alone(void *arg) {
   hb_job *j = arg;
   cbp_hb_build(j->hb, j->t);
   return NULL;
}

/* The escape analysis and the happens-before edges, side by side when
 * there are two jobs. */
static void escape_and_hb(const cb_trace *t, unsigned jobs, cbp_analysis *a) {
   hb_job j = {&a->hb, t};
   pthread_t th;
   int beside = jobs > 1 && pthread_create(&th, NULL, hb_alone, &j) == 0;
   cbp_escape_run(t, &a->x);
   if (beside) pthread_join(th, NULL);
   else cbp_hb_build(&a->hb, t);
}

/* Starts the job (its clocks and locks made here, before the thread runs);
 * 0 when no thread could be started. */
static int orders_start(orders_job *j, pthread_t *th, const cb_trace *t, cbp_analysis *a) {
   memset(j, 0, sizeof *j);
   j->t = t; j->hb = &a->hb; j->x = &a->x;
   cbp_vc_init(&j->v, a->x.nthreads, &a->hb);
   j->L = cbp_locks_new();
   if (pthread_create(th, NULL, orders_alone, j) == 0) return 1;
   cbp_vc_free(&j->v);
   cbp_locks_free(j->L);
   return 0;
}

/* Takes the job's candidates, or runs the pass again with pass B's lock
 * states and clocks when its own differ. */
static void orders_finish(orders_job *j, pthread_t th, const cb_trace *t, cbp_analysis *a) {
   pthread_join(th, NULL);
   if (cbp_locks_extend(a->L, j->L) && cbp_vc_same(&a->v, &j->v)) {
      cbp_orders_merge(&a->r, &j->found);
   } else {
      cbp_result_free(&j->found);
      cbp_orders(t, &a->hb, &a->x, &a->v, a->L, &a->r);
   }
   cbp_vc_free(&j->v);
   cbp_locks_free(j->L);
   if (!a->r.rf) a->r.rf = j->rf;
   else cbp_rf_free(j->rf);
}

void cbp_analyze_candidates(const cb_trace *t, const cbp_options *o, cbp_analysis *a) {
   memset(a, 0, sizeof *a);
   unsigned jobs = o->jobs ? o->jobs : cbp_default_jobs();
   escape_and_hb(t, jobs, a);
   cbp_vc_init(&a->v, a->x.nthreads, &a->hb);
   a->L = cbp_locks_new();
   int orders = !(o->skip & CBP_FAM_ORDER);
   orders_job job;
   pthread_t th;
   int beside = orders && jobs > 1 && orders_start(&job, &th, t, a);
   cbp_cutpoints(t, &a->x, &a->v, a->L, cbp_blocks_resolve(t, o->blocks), &a->r);
   if (o->skip & CBP_FAM_ATOMICITY) { /* the pass also feeds the clocks */
      cbp_result_free(&a->r);
      a->r.blocks = cbp_blocks_resolve(t, o->blocks);
   }
   if (!(o->skip & CBP_FAM_DEADLOCK)) cbp_deadlocks(t, &a->x, &a->v, a->L, &a->r);
   if (beside) orders_finish(&job, th, t, a);
   else if (orders) cbp_orders(t, &a->hb, &a->x, &a->v, a->L, &a->r);
   if (!(o->skip & CBP_FAM_ATOMICITY)) cbp_two_vars(t, a);
}

void cbp_analyze(const cb_trace *t, const cbp_options *o, cbp_analysis *a) {
   cbp_analyze_candidates(t, o, a);
   cbp_build_schedules(t, a, o->max ? o->max : SIZE_MAX, NULL, NULL);
}

/* Candidates are taken in batches of what is still wanted, so that one
 * sweep of the trace (synthesis' region I) serves a whole batch; a batch
 * falls short only by what synthesis drops, and the next one makes up. */
size_t cbp_build_schedules(const cb_trace *t, cbp_analysis *a, size_t want,
                           cbp_keep_fn keep, void *keep_ctx) {
   cbp_result *r = &a->r;
   size_t built = 0, i = 0;
   size_t *batch = cbp_xcalloc(r->n, sizeof *batch);
   while (built < want && i < r->n) {
      size_t nb = 0;
      for (; i < r->n && nb < want - built; i++) {
         cbp_candidate *c = &r->c[i];
         if (c->dropped || c->built) continue;
         if (keep && !keep(keep_ctx, t, a, c)) {
            c->dropped = 1;
            if (!c->why) c->why = "dropped by the check";
            r->dropped_filter++;
            continue;
         }
         batch[nb++] = i;
      }
      cbp_synthesize_some(t, &a->x, &a->v, a->L, r, batch, nb);
      for (size_t k = 0; k < nb; k++)
         if (!r->c[batch[k]].dropped) built++;
   }
   free(batch);
   return built;
}

void cbp_analysis_free(cbp_analysis *a) {
   cbp_result_free(&a->r);
   cbp_locks_free(a->L);
   cbp_vc_free(&a->v);
   cbp_hb_free(&a->hb);
   cbp_escape_free(&a->x);
}
