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
#include "wire_read.h"

#define CBTRACE_EXIT_OK 0
#define CBTRACE_EXIT_USAGE 2
#define CBTRACE_EXIT_TRUNCATED 3
#define CBTRACE_EXIT_DEADLOCK 6

int cmd_record(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_encode(int argc, char **argv);
/* dump_schedule.c: a schedule file in words (cbtrace dump sN.pb). */
void cbt_print_schedule(const cb_schedule *s);

/* say.c: the command's words on stderr, used by every subcommand and by
 * main alike (so that no subcommand depends on cbtrace_main.c).
 * Prints "cbtrace: <sub>: <message>" on stderr. */
void cbt_error(const char *sub, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Reads a trace for dump/stats; on failure prints the line and returns -1;
 * on a truncated trace prints the warning. */
int cbt_read_trace(const char *sub, const char *path, cb_trace *t);

/* Prints the decoder's troubles as warnings ("cbtrace: SUB: warning:
 * tool stream: ..."), if it had any. */
void cbt_wire_report(const cb_wire_decoder *d, const char *sub);

#endif /* CBTRACE_CMD_H */
