/* shell_quote.c: words a person can paste into a shell.  Every command that
 * prints a reproduce line (cbreplay's bug report, cbtest's summary and
 * reports) quotes with this one function.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <string.h>

#include "cbtrace.h"

void cb_append_shell_quoted(char *buf, size_t len, const char *s)
{
   size_t n = strlen(buf);
   int plain = *s != 0;
   for (const char *p = s; *p; p++)
      if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                  "0123456789_./:=@%+,-", *p))
         plain = 0;
   if (n && n + 1 < len)
      buf[n++] = ' ';
   if (plain) {
      for (const char *p = s; *p && n + 1 < len; p++)
         buf[n++] = *p;
   } else {
      /* Single quotes keep everything literal but a single quote itself,
       * which becomes '\'' (close, escaped quote, reopen). */
      if (n + 1 < len)
         buf[n++] = '\'';
      for (const char *p = s; *p && n + 5 < len; p++) {
         if (*p == '\'') {
            memcpy(buf + n, "'\\''", 4);
            n += 4;
         } else {
            buf[n++] = *p;
         }
      }
      if (n + 1 < len)
         buf[n++] = '\'';
   }
   if (n < len)
      buf[n] = 0;
}
