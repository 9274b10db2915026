/* trace_write.c: a whole in-memory trace written to a file through the
 * streaming writer (tests, generators, tools that rewrite traces).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "trace_internal.h"

int cb_trace_write(const char *path, const cb_trace *t, cb_error *err)
{
   cb_writer *w = cb_writer_open(path, &t->header, err);
   if (!w)
      return -1;
   for (size_t i = 1; i < t->nlocs; i++)
      if (cb_writer_location(w, (uint32_t)i, &t->locs[i], err) < 0)
         goto fail;
   for (size_t i = 0; i < t->nsyms; i++)
      if (cb_writer_symbol(w, &t->syms[i], err) < 0)
         goto fail;
   for (size_t i = 0; i < t->nvars; i++)
      if (cb_writer_variable(w, &t->vars[i], err) < 0)
         goto fail;
   for (size_t i = 0; i < t->nevents; i++)
      if (cb_writer_event(w, &t->events[i], err) < 0)
         goto fail;
   /* An in-memory trace written whole is whole: without a footer of its
    * own it gets one that says the run ended normally. */
   cb_footer whole = {.present = 1, .event_count = t->nevents,
                      .tool_ended = 1};
   return cb_writer_close(w, t->footer.present ? &t->footer : &whole, err);
fail:
   cb_writer_close(w, NULL, NULL);
   return -1;
}
