/* cbtrace_main.c: the `cbtrace` command: record a run, dump or count a
 * trace.  Subcommands live in record.c, dump.c, stats.c; their shared
 * words on stderr in say.c.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdio.h>
#include <string.h>

#include "cbtrace_cmd.h"
#include "trace_internal.h"

static const char usage[] =
    "usage: cbtrace record [-o trace.pb] [--instrument=default|main|all]\n"
    "                      [--parent-first] -- PROG [ARGS...]\n"
    "       cbtrace dump [--header] trace.pb | sN.pb (what a schedule forces)\n"
    "       cbtrace stats trace.pb\n"
    "       cbtrace encode [-o trace.pb] RAW   (debugging: raw tool records)\n"
    "       cbtrace --help | --version | SUBCOMMAND --help\n"
    "\n"
    "Records one run of a C/pthreads program under the cbtools Valgrind tool\n"
    "into a trace (protobuf chunks, proto/trace.proto), and shows traces and\n"
    "cbpredict's schedule files.\n"
    "\n"
    "Exit status:\n"
    "  record       the program's own exit status (128+N if signal N killed it);\n"
    "               6 if the program deadlocked (the tool ended it at once and\n"
    "               cbtrace says who waits for what); 2 if cbtrace itself\n"
    "               failed (usage, program missing or not executable, tool not\n"
    "               built, trace not writable).\n"
    "  dump, stats  0 a whole trace (or a schedule); 3 a truncated trace,\n"
    "               shown as far as it is whole (a warning on stderr says\n"
    "               why); 2 bad usage or an unreadable trace (missing, empty,\n"
    "               not a trace, bad header) or a damaged schedule.\n";

int main(int argc, char **argv)
{
   if (argc < 2) {
      fputs(usage, stderr);
      return CBTRACE_EXIT_USAGE;
   }
   const char *sub = argv[1];
   if (!strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help")) {
      fputs(usage, stdout);
      return 0;
   }
   if (!strcmp(sub, "--version")) {
      printf("cbtrace (cbtools) %s, trace format %u, wire version %u\n",
             CB_TOOLS_VERSION, CB_TRACE_FORMAT_VERSION, CB_WIRE_VERSION);
      return 0;
   }
   if (!strcmp(sub, "record"))
      return cmd_record(argc - 1, argv + 1);
   if (!strcmp(sub, "dump"))
      return cmd_dump(argc - 1, argv + 1);
   if (!strcmp(sub, "stats"))
      return cmd_stats(argc - 1, argv + 1);
   if (!strcmp(sub, "encode"))
      return cmd_encode(argc - 1, argv + 1);
   cbt_error(NULL, "unknown subcommand '%s' (try cbtrace --help)", sub);
   return CBTRACE_EXIT_USAGE;
}
