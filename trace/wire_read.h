/* wire_read.h: the tool's raw record stream (proto/cb_wire.h: HELLO,
 * LOCDEF, SYMDEF, VARDEF, events, END) decoded into a trace writer as it
 * arrives.  `cbtrace record` feeds it the pipe from the tool, `cbtrace
 * encode` a file, `cbreplay --record` the stream of a forced run;
 * tests/fuzz/fuzz_wire.c fuzzes it.  Nothing here prints: the decoder keeps
 * what went wrong for its caller to report (cb_wire_troubles).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CB_WIRE_READ_H
#define CB_WIRE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "cbtrace.h"

typedef struct {
   cb_writer *w;
   unsigned char *buf; /* bytes of a record not yet complete */
   size_t len, cap;
   int hello_seen, end_seen;
   int broken;         /* a protocol error: the rest is ignored */
   char why[256];
   int write_failed;   /* the writer failed: the rest is ignored */
   cb_error write_err;
   uint32_t max_loc;
   uint32_t nlocdefs;  /* LOCDEF records taken */
   uint64_t events, dropped, bad_loc, after_end;
   cb_blocked *blocked; /* BLOCKED records: the program deadlocked */
   size_t nblocked, capblocked;
} cb_wire_decoder;

void cb_wire_init(cb_wire_decoder *d, cb_writer *w);
/* Feeds bytes as they arrive; records may be split anywhere. */
void cb_wire_feed(cb_wire_decoder *d, const void *data, size_t n);
/* At the end of the stream: notes an incomplete last record. */
void cb_wire_finish(cb_wire_decoder *d);
/* What went wrong, if anything, as phrases for the caller's warnings
 * ("tool stream: PHRASE"), at most CB_WIRE_NTROUBLES; how many. */
#define CB_WIRE_NTROUBLES 4
#define CB_WIRE_TROUBLE_LEN 320
size_t cb_wire_troubles(const cb_wire_decoder *d,
                        char out[CB_WIRE_NTROUBLES][CB_WIRE_TROUBLE_LEN]);
void cb_wire_free(cb_wire_decoder *d);

#endif /* CB_WIRE_READ_H */
