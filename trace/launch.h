/* launch.h: running a program under the cbtools Valgrind tool.  Shared by
 * `cbtrace record` and `cbreplay`, so that only one place knows where the
 * tool lives and how Valgrind must be started.
 *
 * The tool is found next to the running command: BINDIR/../lib/cbtools/
 * holds cbtools-amd64-linux, vgpreload_cbtools-amd64-linux.so and links to
 * the system's vgpreload_core-amd64-linux.so and default.supp; VALGRIND_LIB
 * is set to it for the child (users never set it).  CBTOOLS_LIB in the
 * environment overrides the folder.
 *
 * Valgrind is started as
 *   valgrind --tool=cbtools -q --fair-sched=yes --read-inline-info=yes
 *            --vgdb=no [tool_args...] -- PROG ARGS
 * and, in replay mode, also --px-default=allregs-at-mem-access.
 * Tool options (vgtool/): --cb-mode=record|replay, --cb-out-fd=N (raw
 * records, cb_wire.h), --cb-plan=FILE and --cb-status-fd=N (replay),
 * --cb-instrument=... (which objects; see `cbtrace record --help`).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CB_LAUNCH_H
#define CB_LAUNCH_H

#include <sys/types.h>

#include "cbtrace.h"
#include "spawn.h"

/* Fills buf with the tool folder; fails when the tool is not built. */
int cb_tool_dir(char *buf, size_t len, cb_error *err);

/* Resolves PROG as execvp would (PATH search when it has no '/') and checks
 * that it exists and is executable: "no such program", "not executable". */
int cb_find_program(const char *prog, char *resolved, size_t len,
                    cb_error *err);

typedef struct {
   const char *const *tool_args; /* NULL-terminated --cb-... options */
   int keep_fds[4];              /* descriptors the child keeps open */
   int nkeep;
   int replay;                   /* adds the replay-only Valgrind options */
} cb_launch;

/* Starts Valgrind with the tool on prog_argv (prog_argv[0] already
 * resolved) through cb_spawn.  Returns the child's pid, or -1 with *err
 * set. */
pid_t cb_tool_spawn(const cb_launch *l, char *const prog_argv[],
                    cb_error *err);

/* --instrument=WHAT (default, main, all) in the words a trace's header
 * keeps (Header.instrumented, "WHAT: what it means"); NULL for an unknown
 * WHAT.  And back: the WHAT of a header's words into buf, "" when they do
 * not start with one (a trace written by hand or generated); a WHAT this
 * cbtools does not know is copied too (cb_instrument_words says so). */
const char *cb_instrument_words(const char *what);
const char *cb_instrument_option(const char *words, char *buf, size_t len);

/* A random trace id (the clock and the pid when the kernel has no
 * randomness to give). */
uint64_t cb_random_id(void);

/* The header of a trace of prog_argv run under the tool (what `cbtrace
 * record` writes, and `cbreplay --record`): resolved is the program's file
 * (its digest), words the instrumentation in cb_instrument_words' words;
 * strings point into the arguments.  -1 when the program cannot be read. */
int cb_run_header(cb_header *h, const char *resolved, char *const prog_argv[],
                  int prog_argc, const char *words, cb_error *err);

#endif /* CB_LAUNCH_H */
