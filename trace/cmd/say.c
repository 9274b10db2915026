/* say.c: what the `cbtrace` subcommands print on stderr: the one-line
 * error, the trace read with its truncation warning, and the troubles of
 * the tool's raw stream.  A leaf every subcommand and main use, so that no
 * subcommand leans on cbtrace_main.c.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdarg.h>
#include <stdio.h>

#include "cbtrace_cmd.h"

void cbt_error(const char *sub, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   fprintf(stderr, "cbtrace: %s%s", sub ? sub : "", sub ? ": " : "");
   vfprintf(stderr, fmt, ap);
   fputc('\n', stderr);
   va_end(ap);
}

int cbt_read_trace(const char *sub, const char *path, cb_trace *t)
{
   cb_error err;
   if (cb_trace_read(path, t, &err) < 0) {
      cbt_error(sub, "%s: %s", path, err.msg);
      return -1;
   }
   if (t->truncated)
      fprintf(stderr, "cbtrace: warning: %s: truncated: %s\n", path,
              t->truncation);
   return 0;
}

void cbt_wire_report(const cb_wire_decoder *d, const char *sub)
{
   char why[CB_WIRE_NTROUBLES][CB_WIRE_TROUBLE_LEN];
   size_t n = cb_wire_troubles(d, why);
   for (size_t i = 0; i < n; i++)
      cbt_error(sub, "warning: tool stream: %s", why[i]);
}
