/* record_run.c: `cbreplay --record FILE`: a forced run is recorded too.
 *
 * In replay mode the tool writes the same raw record stream as when it
 * records (cb_wire.h), to the descriptor it is given: run_one.c sends it to
 * a file in the run's temporary folder (or to --events-out), and after the
 * run this encodes it into FILE, with the header `cbtrace record` writes
 * (program, arguments, digest, instrumentation) and a footer saying how the
 * run ended.  Counted events are numbered as in any recorded run and the
 * threads keep the schedule's ids, so cbpredict can predict from the trace
 * of a forced run that passed (cbtest --explore's rounds).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch.h"
#include "replay.h"
#include "wire_read.h"

/* The decoder's troubles, as `cbtrace record` says them (cb_wire_troubles):
 * the trace keeps what came before. */
static void say_troubles(const cb_wire_decoder *d)
{
   char why[CB_WIRE_NTROUBLES][CB_WIRE_TROUBLE_LEN];
   size_t n = cb_wire_troubles(d, why);
   for (size_t i = 0; i < n; i++)
      fprintf(stderr, "cbreplay: warning: tool stream: %s\n", why[i]);
}

/* Feeds the whole file at fd to the decoder. */
static int feed_file(int fd, cb_wire_decoder *d, cb_error *err)
{
   size_t cap = 1 << 20;
   unsigned char *buf = malloc(cap);
   if (!buf)
      return cb_fail(err, "out of memory");
   int rc = 0;
   for (;;) {
      ssize_t n = read(fd, buf, cap);
      if (n < 0 && errno == EINTR)
         continue;
      if (n < 0) {
         rc = cb_fail(err, "reading the run's events: %s", strerror(errno));
         break;
      }
      if (n == 0)
         break;
      cb_wire_feed(d, buf, (size_t)n);
   }
   free(buf);
   return rc;
}

int cbr_record_trace(const cbr_options *o, const char *raw,
                     const cbr_result *r, cb_error *err)
{
   const char *words = cb_instrument_words(
      o->instrument && *o->instrument ? o->instrument : "default");
   cb_header h;
   if (cb_run_header(&h, o->prog_argv[0], o->prog_argv, o->prog_argc,
                     words ? words : "", err) != 0)
      return -1;
   int fd = open(raw, O_RDONLY | O_CLOEXEC);
   if (fd < 0)
      return cb_fail(err, "cannot read the run's events %s: %s", raw,
                     strerror(errno));
   cb_writer *w = cb_writer_open(o->record, &h, err);
   if (!w) {
      close(fd);
      return -1;
   }
   cb_wire_decoder d;
   cb_wire_init(&d, w);
   int rc = feed_file(fd, &d, err);
   close(fd);
   cb_wire_finish(&d);
   say_troubles(&d);
   /* A run cbreplay stopped (hung) has no end: its trace has no footer,
    * as a recorded run that was killed. */
   cb_footer f = {0};
   f.present = 1;
   f.exit_status = r->signal ? 0 : r->exit_code;
   f.exit_signal = r->signal;
   f.tool_ended = d.end_seen && !d.broken;
   cb_error cerr;
   int stopped = r->exit_code < 0 && !r->signal;
   if (d.write_failed && rc == 0)
      rc = cb_fail(err, "%s", d.write_err.msg);
   if (cb_writer_close(w, stopped || rc ? NULL : &f, &cerr) != 0 && rc == 0)
      rc = cb_fail(err, "%s", cerr.msg);
   cb_wire_free(&d);
   return rc;
}
