/* schedule_digest: prints the ordering digest (cb_schedule_digest) of each
 * schedule file named, one a line, for the shell tests; exit 1 when one
 * cannot be read.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdio.h>

#include "cbtrace.h"

int main(int argc, char **argv)
{
   int rc = 0;
   for (int i = 1; i < argc; i++) {
      cb_schedule *s;
      cb_error err;
      if (cb_schedule_read(argv[i], &s, &err) != 0) {
         fprintf(stderr, "schedule_digest: %s\n", err.msg);
         rc = 1;
         continue;
      }
      printf("%016llx %s\n", (unsigned long long)cb_schedule_digest(s), argv[i]);
      cb_schedule_free(s);
   }
   return rc;
}
