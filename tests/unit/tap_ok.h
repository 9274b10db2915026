/* tap_ok.h: the TAP `ok` line of the unit tests that print their own plan
 * (`printf("1..%d\n", ntest)` at the end; exit nfail != 0).  Header-only:
 * each test program is one file.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#ifndef CB_TAP_OK_H
#define CB_TAP_OK_H

#include <stdarg.h>
#include <stdio.h>

static int ntest, nfail;

static void ok(int cond, const char *fmt, ...) {
   va_list ap;
   va_start(ap, fmt);
   printf("%sok %d - ", cond ? "" : "not ", ++ntest);
   vprintf(fmt, ap);
   printf("\n");
   va_end(ap);
   if (!cond) nfail++;
}

#endif /* CB_TAP_OK_H */
