/* fuzz_source_expr.c: libFuzzer harness of the source-expression finder
 * (trace/source_expr.c), which reads lines of the user's source files: the
 * input is cut at newlines into up to 4 lines, given as they are (and the
 * last as an allocation's line, cb_source_expr_in).  No crash,
 * no read past a line; a name found is a string that fits its buffer.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cbtrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   char *text = malloc(size + 1);
   if (!text)
      return 0;
   memcpy(text, data, size);
   text[size] = 0;
   const char *lines[4] = {NULL, NULL, NULL, NULL};
   size_t n = 0;
   for (char *at = text; at && n < 4; n++) {
      lines[n] = at;
      at = strchr(at, '\n');
      if (at)
         *at++ = 0;
   }
   char out[40];
   memset(out, 'x', sizeof out);
   if (cb_source_expr(lines, n, out, sizeof out) &&
       memchr(out, 0, sizeof out) == NULL)
      abort();
   /* The last line as an allocation's, the others as the accesses'. */
   memset(out, 'x', sizeof out);
   if (n > 1 && cb_source_expr_in(lines, n - 1, lines[n - 1], out, sizeof out) &&
       memchr(out, 0, sizeof out) == NULL)
      abort();
   free(text);
   return 0;
}
