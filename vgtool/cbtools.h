/* cbtools.h: markup a program may use to tell cbtools which code must run
 * atomically.  Include it and bracket the code:
 *
 *     CB_ATOMIC_BEGIN();
 *     balance = balance + amount;
 *     CB_ATOMIC_END();
 *
 * The macros are Valgrind client requests: a few no-op instructions when the
 * program runs natively, an event in the trace under `cbtrace record`.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CBTOOLS_H
#define CBTOOLS_H

#include <valgrind/valgrind.h>

#define CB_USERREQ_BASE (((unsigned int)'C' & 0xff) << 24 | ((unsigned int)'B' & 0xff) << 16)

/* Start of a block that should be atomic (a transaction for cbpredict). */
#define CB_ATOMIC_BEGIN()                                                    \
   VALGRIND_DO_CLIENT_REQUEST_STMT(CB_USERREQ_BASE + 1, 0, 0, 0, 0, 0)

/* End of the innermost block started by CB_ATOMIC_BEGIN(). */
#define CB_ATOMIC_END()                                                      \
   VALGRIND_DO_CLIENT_REQUEST_STMT(CB_USERREQ_BASE + 2, 0, 0, 0, 0, 0)

#endif /* CBTOOLS_H */
