/* cbtrace_cmd.h: what the files of the `cbtrace` command share.
 *
 * Exit codes of every subcommand (also in `cbtrace --help`):
 *   record: the program's own exit status (128 + N when signal N killed it);
 *           6 when the program deadlocked and the tool ended it; 2 when
 *           cbtrace itself failed (bad usage, program missing or not
 *           executable, tool not built, trace not writable).
 *   dump, stats, encode: 0 a whole trace; 3 a truncated trace, printed as far
 *           as it is whole; 2 bad usage or an unreadable trace.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CBTRACE_CMD_H
#define CBTRACE_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "cbtrace.h"

#define CBTRACE_EXIT_OK 0
#define CBTRACE_EXIT_USAGE 2
#define CBTRACE_EXIT_TRUNCATED 3
#define CBTRACE_EXIT_DEADLOCK 6

int cmd_record(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_encode(int argc, char **argv);

/* Prints "cbtrace: <sub>: <message>" on stderr. */
void cbt_error(const char *sub, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Reads a trace for dump/stats; on failure prints the line and returns -1;
 * on a truncated trace prints the warning. */
int cbt_read_trace(const char *sub, const char *path, cb_trace *t);

/* ---- wire_read.c: the tool's raw record stream into a trace writer ------ */
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
/* Prints what went wrong, if anything, as warnings. */
void cb_wire_report(const cb_wire_decoder *d, const char *sub);
void cb_wire_free(cb_wire_decoder *d);

#endif /* CBTRACE_CMD_H */
