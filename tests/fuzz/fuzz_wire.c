/* fuzz_wire.c: libFuzzer harness of the encoder of the tool's raw record
 * stream (cb_wire.h; trace/wire_read.c and the writer behind it), which
 * `cbtrace record` runs on whatever the tool writes.  The input is fed in
 * pieces whose sizes come from its first byte (records split anywhere, as
 * a pipe delivers them); the trace it writes must then read back whole or
 * cut, never be refused.
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

static char path[64];

static void cleanup(void)
{
   unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   if (!path[0]) {
      /* In memory when possible: a file per run costs more on a disk. */
      snprintf(path, sizeof path, "%s/cbfuzz-wire-%ld.pb",
               access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp",
               (long)getpid());
      atexit(cleanup);
   }
   if (size == 0)
      return 0;
   size_t piece = 1 + data[0] % 64;
   data++;
   size--;
   cb_header h = {0};
   h.format_version = 1;
   h.program = "fuzz";
   cb_error err;
   cb_writer *w = cb_writer_open(path, &h, &err);
   if (!w)
      abort();
   cb_wire_decoder d;
   cb_wire_init(&d, w);
   for (size_t at = 0; at < size; at += piece)
      cb_wire_feed(&d, data + at, size - at < piece ? size - at : piece);
   cb_wire_finish(&d);
   cb_footer f = {1, d.events, 0, 0, d.end_seen};
   if (cb_writer_close(w, &f, &err) != 0)
      abort();
   cb_wire_free(&d);
   cb_trace t;
   if (cb_trace_read(path, &t, &err) != 0) {
      fprintf(stderr, "the encoded trace is unreadable: %s\n", err.msg);
      abort();
   }
   if (t.nevents != d.events) {
      fprintf(stderr, "encoded %llu events, read %zu back\n",
              (unsigned long long)d.events, t.nevents);
      abort();
   }
   cb_trace_free(&t);
   return 0;
}
