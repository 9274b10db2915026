/* error.c: the one-line error reports of the trace library.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdarg.h>
#include <stdio.h>

#include "cbtrace.h"

int cb_fail(cb_error *err, const char *fmt, ...)
{
   if (err) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(err->msg, sizeof err->msg, fmt, ap);
      va_end(ap);
   }
   return -1;
}
