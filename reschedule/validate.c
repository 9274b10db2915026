/* validate.c: reads a schedule and refuses one that this run cannot mean.
 *
 * A schedule positions threads by counted event indices of one program as
 * one version of the tool counted them.  Forced on another program, or
 * counted differently, it would drive the threads to meaningless points and
 * any "failure" would be noise, so it is refused up front (exit 2):
 *   - counted_mask differs from CB_COUNTED_MASK (another cbtools version);
 *   - program_digest differs from the program's file digest;
 *   - with --trace, trace_id differs from the trace's;
 *   - thread ids that cannot exist (0, or beyond CB_PLAN_MAX_THREADS), in
 *     any tail variant, or a step count the plan cannot carry;
 *   - a prefix order that is not four numbers a wait, names a thread
 *     outside the prefix, or is out of order.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdlib.h>
#include <string.h>

#include "replay.h"

static void name_of(const char *path, const cb_schedule *s, char *buf,
                    size_t len)
{
   if (s && s->has_id) {
      snprintf(buf, len, "s%u", s->id);
      return;
   }
   const char *base = strrchr(path, '/');
   base = base ? base + 1 : path;
   snprintf(buf, len, "%s", base);
   size_t n = strlen(buf);
   if (n > 3 && strcmp(buf + n - 3, ".pb") == 0)
      buf[n - 3] = 0;
}

static int bad_tid(uint32_t tid)
{
   return tid == 0 || tid > CB_PLAN_MAX_THREADS;
}

/* Every step of every variant names a thread that can exist, and a count
 * that is not the plan's run-out mark. */
static int bad_tail(const cb_schedule *s, const char *nm,
                    const char *path, cb_error *err)
{
   size_t nv = cb_schedule_nvariants(s);
   for (size_t k = 0; k < nv; k++) {
      cb_sched_step *const *tail;
      size_t ntail;
      const char *name;
      if (cb_schedule_variant(s, k, &tail, &ntail, &name) != 0)
         return cb_fail(err, "schedule %s is malformed: tail variant %zu is "
                             "empty (%s)", nm, k, path) != 0;
      for (size_t i = 0; i < ntail; i++) {
         const cb_sched_step *t = tail[i];
         if (!t || bad_tid(t->tid))
            return cb_fail(err, "schedule %s is malformed: step %zu of tail "
                                "variant %zu names thread %u (%s)", nm, i + 1,
                           k, t ? t->tid : 0, path) != 0;
         if (t->count == CB_STEP_RUN_OUT && !(t->has_run_out && t->run_out))
            return cb_fail(err, "schedule %s is malformed: step %zu of tail "
                                "variant %zu counts %llu events (%s)", nm,
                           i + 1, k, (unsigned long long)t->count, path) != 0;
      }
   }
   return 0;
}

/* The prefix's waits (trace.proto, Schedule.prefix_order): four numbers
 * each, two threads of the prefix, sorted by waiting thread and event. */
static int bad_prefix_order(const cb_schedule *s, const char *nm,
                            const char *path, cb_error *err)
{
   const uint64_t *o = s->prefix_order;
   size_t n = s->n_prefix_order;
   if (n % 4 != 0)
      return cb_fail(err, "schedule %s is malformed: its prefix order has "
                          "%zu numbers, not four a wait (%s)", nm, n,
                     path) != 0;
   for (size_t k = 0; k < n; k += 4) {
      uint64_t w = o[k], u = o[k + 2];
      int sorted = k == 0 || w > o[k - 4] || (w == o[k - 4] && o[k + 1] >= o[k - 3]);
      if (w == 0 || w > s->n_prefix || u == 0 || u > s->n_prefix || u == w ||
          !sorted)
         return cb_fail(err, "schedule %s is malformed: wait %zu of its "
                             "prefix order (T%llu for T%llu) %s (%s)", nm,
                        k / 4 + 1, (unsigned long long)w,
                        (unsigned long long)u,
                        sorted ? "names a thread outside the prefix"
                               : "is out of order", path) != 0;
   }
   return 0;
}

int cbr_load_schedule(const char *path, uint64_t program_digest,
                      int trace_id_known, uint64_t trace_id,
                      cbr_schedule *out, cb_error *err)
{
   cb_error why;
   cb_schedule *s = NULL;

   memset(out, 0, sizeof *out);
   snprintf(out->path, sizeof out->path, "%s", path);
   /* (void *): cbtrace.h names the struct by its protobuf-c 1.5 tag. */
   if (cb_schedule_read(path, (void *)&s, &why) != 0) {
      name_of(path, NULL, out->name, sizeof out->name);
      return cb_fail(err, "cannot read schedule %s: %s", path, why.msg);
   }
   name_of(path, s, out->name, sizeof out->name);
   const char *nm = out->name;

   if (!s->has_counted_mask || s->counted_mask != CB_COUNTED_MASK) {
      cb_fail(err, "schedule %s counts events with mask 0x%x, this cbreplay "
                   "with 0x%x: it was predicted by another version of "
                   "cbtools (%s)", nm, s->has_counted_mask ? s->counted_mask : 0,
              (unsigned)CB_COUNTED_MASK, path);
      goto refuse;
   }
   if (!s->has_program_digest || s->program_digest != program_digest) {
      cb_fail(err, "schedule %s was predicted for another program (%s, "
                   "digest %016llx; this program's is %016llx): record and "
                   "predict this program first (%s)", nm,
              s->program && *s->program ? s->program : "unnamed",
              (unsigned long long)s->program_digest,
              (unsigned long long)program_digest, path);
      goto refuse;
   }
   if (trace_id_known && (!s->has_trace_id || s->trace_id != trace_id)) {
      cb_fail(err, "schedule %s was predicted from another trace (trace id "
                   "%016llx; the trace it belongs with, --trace or the one "
                   "beside its folder, has %016llx): run cbpredict on that "
                   "trace again (%s)", nm,
              (unsigned long long)s->trace_id, (unsigned long long)trace_id,
              path);
      goto refuse;
   }
   if (s->n_prefix > CB_PLAN_MAX_THREADS) {
      cb_fail(err, "schedule %s is malformed: prefix for %zu threads (%s)", nm,
              s->n_prefix, path);
      goto refuse;
   }
   if (bad_tail(s, nm, path, err) || bad_prefix_order(s, nm, path, err))
      goto refuse;
   out->s = s;
   return 0;
refuse:
   cb_schedule_free(s);
   return -1;
}

void cbr_free_schedule(cbr_schedule *cs)
{
   if (cs->s)
      cb_schedule_free(cs->s);
   cs->s = NULL;
}
