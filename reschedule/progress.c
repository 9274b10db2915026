/* progress.c: what cbreplay --all says while its runs go on, on stderr.
 * Every finished schedule is a line as it comes ("cbreplay: [3/10] s4
 * passed (1.2 s)"), so that a log of a run stopped from outside (a time
 * limit, a kill) keeps what had finished.  On a terminal the line of a run
 * that passed or was infeasible is kept in place (\r) and overwritten by
 * the next; one that found a bug (failed, deadlock, hung) or was an error
 * stays.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <string.h>
#include <unistd.h>

#include "replay.h"

static int tty = -1;
static int pending; /* a line in place that the next must overwrite */

void cbr_progress_start(size_t n, int jobs)
{
   tty = isatty(2);
   pending = 0;
   if (tty)
      fprintf(stderr, "cbreplay: forcing %zu schedule%s, %d at a time...",
              n, n == 1 ? "" : "s", jobs);
   else
      fprintf(stderr, "cbreplay: forcing %zu schedule%s, %d at a time\n", n,
              n == 1 ? "" : "s", jobs);
   pending = tty;
   fflush(stderr);
}

void cbr_progress_done(size_t done, size_t n, int running,
                       const cbr_schedule *cs, const cbr_result *r)
{
   int keep = cbr_verdict_is_bug(r->verdict) || r->verdict == CBR_ERROR;
   if (pending)
      fputs("\r\033[K", stderr);
   fprintf(stderr, "cbreplay: [%zu/%zu] %s %s (%.1f s)", done, n, cs->name,
           cbr_verdict_name(r->verdict), r->seconds);
   if (tty && !keep && running > 0)
      fprintf(stderr, "; %d running", running);
   pending = tty && !keep;
   if (!pending)
      fputc('\n', stderr);
   fflush(stderr);
}

void cbr_progress_end(void)
{
   if (pending)
      fputs("\r\033[K", stderr);
   pending = 0;
   fflush(stderr);
}
