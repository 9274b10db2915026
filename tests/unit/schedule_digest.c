/* schedule_digest: prints the ordering digest (cb_schedule_digest) of each
 * schedule file named, one a line, for the shell tests; with --site first,
 * the digest of its aim instead (cb_schedule_site_digest); exit 1 when one
 * cannot be read.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdio.h>
#include <string.h>

#include "cbtrace.h"

int main(int argc, char **argv)
{
   int rc = 0, site = argc > 1 && strcmp(argv[1], "--site") == 0;
   for (int i = 1 + site; i < argc; i++) {
      cb_schedule *s;
      cb_error err;
      if (cb_schedule_read(argv[i], &s, &err) != 0) {
         fprintf(stderr, "schedule_digest: %s\n", err.msg);
         rc = 1;
         continue;
      }
      uint64_t d = site ? cb_schedule_site_digest(s) : cb_schedule_digest(s);
      printf("%016llx %s\n", (unsigned long long)d, argv[i]);
      cb_schedule_free(s);
   }
   return rc;
}
