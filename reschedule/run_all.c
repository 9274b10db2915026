/* run_all.c: many schedules forced in parallel.
 *
 * Each schedule is forced in a worker process, a function job of the job
 * pool (trace/pool.h) that calls cbr_run_schedule (its tail variants one
 * after another) and hands back its cbr_result, plain data.  At most
 * o->jobs workers run at once; each of them keeps its forced program in a
 * process group of its own and kills it when it hangs.  The runs are independent: every one
 * reads its own plan and writes its own output files.  Each result is
 * reported as it comes (progress.c).
 *
 * Interrupted (SIGINT, SIGTERM, SIGHUP: the pool's stop signals, stop.c),
 * cbreplay stops starting runs and sends SIGTERM to its workers (the
 * handler wakes the pool's wait; the loop stops the pool); each kills its
 * forced program and removes its temporary files (keeper.c) before it dies.  cbr_run_all then returns
 * the signal, with finished[i] set for the schedules whose result had come:
 * the caller reports those and dies of the same signal.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "replay.h"

/* What one worker forces. */
typedef struct {
   const cbr_options *o;
   const cbr_schedule *cs;
   size_t index;
} worker;

/* In the worker process (cb_spawn put the stop signals back to their
 * default; run_one's handler, once installed, cleans up). */
static int worker_main(void *arg, void *result)
{
   const worker *w = arg;
   cbr_io io = {.capture_stdout = 1, .capture_stderr = 1};
   cbr_run_schedule(w->o, &io, w->cs, result);
   return 0;
}

static int start_worker(cb_pool *pool, worker *w, cbr_result *r)
{
   cb_job job;
   memset(&job, 0, sizeof job);
   job.spawn = (cb_spawn_spec)CB_SPAWN_SPEC_INIT;
   job.fn = worker_main;
   job.arg = w;
   job.result_size = sizeof *r;
   job.tag = w;
   job.pin = 1; /* -j N forced runs on N CPUs (trace/launch.c) */
   cb_job_end e;
   if (cb_pool_start(pool, &job, &e) == 0)
      return 0;
   memset(r, 0, sizeof *r);
   r->verdict = CBR_ERROR;
   snprintf(r->error, sizeof r->error, "cannot start a worker: %s", e.error);
   return -1;
}

/* A worker ended: its result, or an error when it died without one (not
 * when we are stopping: then the schedule is not finished). */
static int worker_ended(const cb_job_end *e, const cbr_schedule *cs,
                        cbr_result *results, int *finished)
{
   const worker *w = e->tag;
   if (e->result) {
      memcpy(&results[w->index], e->result, sizeof *results);
      free(e->result);
   } else if (!cb_stop_requested()) {
      cbr_result *r = &results[w->index];
      memset(r, 0, sizeof *r);
      r->verdict = CBR_ERROR;
      snprintf(r->error, sizeof r->error, "the worker of %s died (status %d)",
               cs[w->index].name, e->wstatus);
   } else {
      return 0;
   }
   finished[w->index] = 1;
   return 1;
}

int cbr_run_all(const cbr_options *o, const cbr_schedule *cs, size_t n,
                cbr_result *results, int *finished)
{
   int jobs = o->jobs;
   if ((size_t)jobs > n)
      jobs = (int)n;
   worker *wk = calloc(n ? n : 1, sizeof *wk);
   cb_pool *pool = wk ? cb_pool_new(jobs > 0 ? jobs : 1, 0) : NULL;
   if (!pool) {
      free(wk);
      return -1;
   }
   memset(finished, 0, n * sizeof *finished);
   cb_stop_catch();
   cbr_progress_start(n, jobs);
   size_t next = 0, done = 0;
   while (done < n && (!cb_stop_requested() || cb_pool_running(pool) > 0)) {
      while (!cb_stop_requested() && next < n &&
             cb_pool_free_slots(pool) > 0) {
         wk[next] = (worker){o, &cs[next], next};
         if (start_worker(pool, &wk[next], &results[next]) != 0) {
            finished[next] = 1;
            done++;
         }
         next++;
      }
      if (cb_stop_requested())
         cb_pool_stop(pool);
      if (cb_pool_running(pool) == 0)
         continue;
      cb_job_end e;
      if (!cb_pool_wait(pool, -1, &e))
         continue;
      const worker *w = e.tag;
      if (worker_ended(&e, cs, results, finished))
         cbr_progress_done(++done, n, cb_pool_running(pool), &cs[w->index],
                           &results[w->index]);
   }
   cbr_progress_end();
   int stopped_by = cb_stop_requested();
   cb_stop_restore();
   cb_pool_free(pool);
   free(wk);
   return stopped_by;
}
