/* json_escape.c: the one JSON string escaper, for every command that prints
 * JSON (cbpredict --json, cbreplay --json, cbtest's report.json and SARIF).
 * Control characters are escaped and invalid UTF-8 becomes U+FFFD, so the
 * output always parses, whatever bytes a program path or symbol holds.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdio.h>

#include "cbtrace.h"

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when it is not one
 * (overlong forms, surrogates and values past U+10FFFF are not valid). */
static int utf8_len(const unsigned char *s)
{
   unsigned c = s[0];
   int n;
   unsigned min, cp;
   if (c < 0x80)
      return 1;
   if ((c & 0xE0) == 0xC0) {
      n = 2, min = 0x80, cp = c & 0x1F;
   } else if ((c & 0xF0) == 0xE0) {
      n = 3, min = 0x800, cp = c & 0x0F;
   } else if ((c & 0xF8) == 0xF0) {
      n = 4, min = 0x10000, cp = c & 0x07;
   } else {
      return 0;
   }
   for (int i = 1; i < n; i++) {
      if ((s[i] & 0xC0) != 0x80)
         return 0;
      cp = (cp << 6) | (s[i] & 0x3F);
   }
   if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return 0;
   return n;
}

void cb_json_write_escaped(FILE *out, const char *str)
{
   const unsigned char *s = (const unsigned char *)str;
   while (*s) {
      unsigned c = *s;
      switch (c) {
      case '"': fputs("\\\"", out); s++; continue;
      case '\\': fputs("\\\\", out); s++; continue;
      case '\n': fputs("\\n", out); s++; continue;
      case '\r': fputs("\\r", out); s++; continue;
      case '\t': fputs("\\t", out); s++; continue;
      case '\b': fputs("\\b", out); s++; continue;
      case '\f': fputs("\\f", out); s++; continue;
      default: break;
      }
      if (c < 0x20 || c == 0x7F) {
         fprintf(out, "\\u%04x", c);
         s++;
         continue;
      }
      int n = utf8_len(s);
      if (n == 0) {
         fputs("\\ufffd", out);
         s++;
         continue;
      }
      fwrite(s, 1, (size_t)n, out);
      s += n;
   }
}

void cb_json_write_string(FILE *out, const char *s)
{
   fputc('"', out);
   cb_json_write_escaped(out, s ? s : "");
   fputc('"', out);
}
