/* threads.c: stable thread identity.  Trace thread ids are global creation
 * order, which another run may change when unrelated threads start in
 * another order.  A thread's path does not: its creator's path and the
 * creator's count of creates (main = 1, its second child 1.2, that one's
 * first child 1.2.1).  Computed from the trace's THREAD_CREATE events, so
 * every trace has it, old ones included.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cbtrace.h"

int cb_trace_thread_origins(const cb_trace *t, cb_thread_origin **out,
                            cb_error *err)
{
   *out = NULL;
   /* Ids are creation order, dense in a real trace: a highest id beyond
    * the events cannot be one, and must not size an allocation. */
   if (t->nthreads > t->nevents + 1)
      return cb_fail(err, "thread id %u in a trace of %zu events",
                     t->nthreads, t->nevents);
   size_t n = (size_t)t->nthreads + 1;
   cb_thread_origin *o = calloc(n, sizeof *o);
   uint32_t *nchild = calloc(n, sizeof *nchild);
   if (!o || !nchild) {
      free(o);
      free(nchild);
      return cb_fail(err, "out of memory for %zu threads", n);
   }
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      if (e->kind != CB_EV_THREAD_CREATE || e->value == 0 || e->value >= n ||
          e->value <= e->tid || o[e->value].parent)
         continue;   /* a child is younger than its creator */
      o[e->value].parent = e->tid;
      o[e->value].index = ++nchild[e->tid];
   }
   free(nchild);
   *out = o;
   return 0;
}

const char *cb_thread_path(const cb_thread_origin *o, uint32_t n,
                           uint32_t tid, char *buf, size_t len)
{
   /* Indexes from tid up to its root, then printed root first. */
   uint32_t idx[64];
   int k = 0;
   uint32_t cur = tid;
   while (o && cur <= n && cur > 1 && o[cur].parent && k < 64) {
      idx[k++] = o[cur].index;
      cur = o[cur].parent;
   }
   size_t at = 0;
   int w = cur == 1 ? snprintf(buf, len, "1") : snprintf(buf, len, "#%u", cur);
   at = w > 0 && (size_t)w < len ? (size_t)w : len ? len - 1 : 0;
   while (k > 0 && at + 1 < len) {
      w = snprintf(buf + at, len - at, ".%u", idx[--k]);
      if (w < 0 || (size_t)w >= len - at)
         break;
      at += (size_t)w;
   }
   return buf;
}
