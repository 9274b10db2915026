/* fuzz_trace.c: libFuzzer harness of the trace reader (trace/reader.c,
 * frame.c, build.c, names.c).  Any input: reading must not crash, leak or
 * allocate more than the file can hold (make fuzz runs with
 * -malloc_limit_mb); a trace it takes is printed as `cbtrace dump` would,
 * then, for one input in four (chosen by its bytes, so that a finding
 * reproduces), written back with cb_trace_write and read again: the events
 * must come back the same.  The round trip costs three times the reading
 * (the writer's chunk buffers), hence the sample.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cbtrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;
static char rt_path[64];

static void cleanup(void)
{
   unlink(rt_path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   if (!devnull) {
      devnull = fopen("/dev/null", "w");
      /* In memory when possible: a file per run costs more on a disk. */
      snprintf(rt_path, sizeof rt_path, "%s/cbfuzz-trace-%ld.pb",
               access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp",
               (long)getpid());
      atexit(cleanup);
   }
   cb_trace t;
   cb_error err;
   if (cb_trace_read_mem(data, size, &t, &err) != 0)
      return 0;
   size_t n = t.nevents < 512 ? t.nevents : 512;
   char buf[256];
   for (size_t i = 0; i < n; i++) {
      cb_event_print(devnull, &t, i);
      cb_variable_str_at(&t, t.events[i].addr, i, buf, sizeof buf);
      cb_location_str(&t, t.events[i].loc, buf, sizeof buf);
   }
   uint32_t h = 2166136261u;
   for (size_t i = 0; i < size; i++)
      h = (h ^ data[i]) * 16777619u;
   if (h % 4 == 0 && cb_trace_write(rt_path, &t, &err) == 0) {
      cb_trace back;
      if (cb_trace_read(rt_path, &back, &err) != 0) {
         fprintf(stderr, "written trace unreadable: %s\n", err.msg);
         abort();
      }
      if (back.nevents != t.nevents ||
          (t.nevents && memcmp(back.events, t.events,
                               t.nevents * sizeof *t.events) != 0)) {
         fprintf(stderr, "written trace reads back different events\n");
         abort();
      }
      cb_trace_free(&back);
   }
   cb_trace_free(&t);
   return 0;
}
