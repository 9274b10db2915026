/* fuzz_schedule.c: libFuzzer harness of the schedule reader
 * (trace/schedule_io.c): any input must be refused or read whole, without
 * a crash, a leak or an allocation the file cannot justify; every tail
 * variant of a schedule it takes is walked as cbreplay does.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdint.h>
#include <stdlib.h>

#include "cbtrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the walk read, so that it is not optimised away. */
volatile uint64_t fuzz_sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   cb_schedule *s;
   cb_error err;
   if (cb_schedule_read_mem(data, size, &s, &err) != 0)
      return 0;
   size_t nv = cb_schedule_nvariants(s);
   uint64_t sum = 0;
   for (size_t k = 0; k <= nv; k++) { /* one past the end: must say no */
      cb_sched_step *const *tail;
      size_t ntail;
      const char *name;
      if (cb_schedule_variant(s, k, &tail, &ntail, &name) != 0) {
         if (k < nv)
            abort();
         continue;
      }
      for (size_t i = 0; i < ntail; i++)
         sum += tail[i] ? tail[i]->tid + tail[i]->count : 0;
      for (const char *p = name; *p; p++)
         sum += (unsigned char)*p;
   }
   for (size_t i = 0; i < s->n_prefix; i++)
      sum += s->prefix[i];
   for (size_t i = 0; i < s->n_prefix_order; i++) /* the waits, read back */
      sum += s->prefix_order[i];
   fuzz_sink = sum;
   cb_schedule_free(s);
   return 0;
}
