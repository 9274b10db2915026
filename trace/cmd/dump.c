/* dump.c: `cbtrace dump`: every event of a trace in words, one a line, in
 * the format of cb_event_print (cbtrace.h); other tests grep it.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cbtrace_cmd.h"

static const char help[] =
    "usage: cbtrace dump [--header] trace.pb | sN.pb\n"
    "Prints every event, one a line:\n"
    "  INDEX T<tid> KIND [OPERANDS] [@ FILE:LINE] [in FUNCTION]\n"
    "e.g. \"42 T2 write counter size 4 = 7 @ rww.c:14 in deposit\".\n"
    "  --header   first print the header, locations, symbols, footer (and\n"
    "             what each thread waited for, when the program deadlocked)\n"
    "             and each thread's stable path (T3 = 1.2: main's second\n"
    "             child) as lines starting with '#'\n"
    "Given a schedule file (cbpredict's sN.pb), prints what it forces:\n"
    "the pattern, e1, f and e2, each thread's prefix and each tail\n"
    "variant's steps.\n"
    "Exit: 0 whole trace or a schedule; 3 truncated trace (printed as far\n"
    "as whole, warning on stderr); 2 bad usage, unreadable trace or damaged\n"
    "schedule.\n";

static void print_header(const cb_trace *t)
{
   const cb_header *h = &t->header;
   printf("# program: %s\n# argv:", h->program);
   for (int i = 0; i < h->argc; i++)
      printf(" %s", h->argv[i]);
   printf("\n# tool: %s\n# instrumented: %s\n", h->tool_version,
          h->instrumented);
   printf("# trace id: %016" PRIx64 "\n# program digest: %016" PRIx64 "\n",
          h->trace_id, h->program_digest);
   printf("# started: %" PRIu64 "\n", h->start_time_unix);
   for (size_t i = 1; i < t->nlocs; i++) {
      const cb_location *l = &t->locs[i];
      printf("# location %zu: 0x%" PRIx64 " %s %s %s:%u\n", i, l->address,
             l->object[0] ? l->object : "?", l->function[0] ? l->function : "?",
             l->file[0] ? l->file : "?", l->line);
   }
   for (size_t i = 0; i < t->nsyms; i++)
      printf("# symbol: 0x%" PRIx64 " size %" PRIu64 " %s\n",
             t->syms[i].address, t->syms[i].size, t->syms[i].name);
   for (size_t i = 0; i < t->nvars; i++) {
      const cb_variable *v = &t->vars[i];
      printf("# variable: 0x%" PRIx64 " %s", v->address, v->name);
      if (v->offset)
         printf(" +%u", v->offset);
      printf(" (%s", v->local ? "local" : "global");
      if (v->file[0])
         printf(", declared at %s:%u", v->file, v->line);
      printf(")\n");
   }
   if (t->footer.present)
      printf("# footer: %" PRIu64 " events, exit status %d, signal %d, "
             "tool ended: %s\n",
             t->footer.event_count, t->footer.exit_status,
             t->footer.exit_signal, t->footer.tool_ended ? "yes" : "no");
   else
      printf("# footer: none\n");
   char line[2048];
   for (size_t i = 0; i < t->footer.nblocked; i++)
      printf("# deadlock: %s\n",
             cb_blocked_str(t, &t->footer.blocked[i], line, sizeof line));
   cb_thread_origin *o;
   cb_error err;
   if (cb_trace_thread_origins(t, &o, &err) == 0) {
      char path[256];
      for (uint32_t tid = 1; tid <= t->nthreads; tid++)
         printf("# thread: T%u = %s\n", tid,
                cb_thread_path(o, t->nthreads, tid, path, sizeof path));
      free(o);
   }
}

int cmd_dump(int argc, char **argv)
{
   int header = 0;
   const char *path = NULL;
   for (int i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
         fputs(help, stdout);
         return 0;
      } else if (!strcmp(argv[i], "--header")) {
         header = 1;
      } else if (argv[i][0] == '-' && argv[i][1]) {
         cbt_error("dump", "unknown option '%s' (try cbtrace dump --help)",
                   argv[i]);
         return CBTRACE_EXIT_USAGE;
      } else if (path) {
         cbt_error("dump", "one trace at a time (try cbtrace dump --help)");
         return CBTRACE_EXIT_USAGE;
      } else {
         path = argv[i];
      }
   }
   if (!path) {
      cbt_error("dump", "no trace given (try cbtrace dump --help)");
      return CBTRACE_EXIT_USAGE;
   }
   if (cb_is_schedule_file(path)) {
      cb_schedule *s;
      cb_error serr;
      if (cb_schedule_read(path, &s, &serr) != 0) {
         cbt_error("dump", "%s: %s", path, serr.msg);
         return CBTRACE_EXIT_USAGE;
      }
      cbt_print_schedule(s);
      cb_schedule_free(s);
      return fflush(stdout) == 0 ? CBTRACE_EXIT_OK : CBTRACE_EXIT_USAGE;
   }
   cb_trace t;
   if (cbt_read_trace("dump", path, &t) < 0)
      return CBTRACE_EXIT_USAGE;
   static char obuf[1 << 16];
   setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
   if (header)
      print_header(&t);
   for (size_t i = 0; i < t.nevents; i++)
      cb_event_print(stdout, &t, i);
   int rc = t.truncated ? CBTRACE_EXIT_TRUNCATED : CBTRACE_EXIT_OK;
   if (fflush(stdout) != 0 || ferror(stdout)) {
      cbt_error("dump", "writing the output failed");
      rc = CBTRACE_EXIT_USAGE;
   }
   cb_trace_free(&t);
   return rc;
}
