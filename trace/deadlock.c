/* deadlock.c: how a recorded run ended, and a deadlock in words.
 *
 * When the program deadlocks the tool ends the run and says, per live
 * thread, what it waits for (cb_wire.h, "Deadlocks").  `cbtrace record`
 * reads that from the trace's footer and cbreplay from the tool's status
 * lines; both say it with cb_blocked_describe, so that a deadlock reads
 * the same wherever it was found.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdio.h>
#include <string.h>

#include "cbtrace.h"

int cb_trace_exit_status(const cb_trace *t)
{
   if (!t->footer.present || t->footer.exit_signal || t->footer.nblocked)
      return -1;
   return t->footer.exit_status;
}

int cb_trace_failed(const cb_trace *t)
{
   const cb_footer *f = &t->footer;
   return f->present && !f->nblocked && (f->exit_signal || f->exit_status != 0);
}

const char *cb_wait_kind_name(unsigned kind)
{
   static const char *const names[CB_WAIT_KIND_COUNT] = {
      [CB_WAIT_LOCK] = "lock",  [CB_WAIT_RDLOCK] = "rdlock",
      [CB_WAIT_WRLOCK] = "wrlock", [CB_WAIT_JOIN] = "join",
      [CB_WAIT_COND] = "cond",  [CB_WAIT_SEM] = "sem",
      [CB_WAIT_BARRIER] = "barrier"};
   return kind < CB_WAIT_KIND_COUNT && names[kind] ? names[kind] : "?";
}

const char *cb_blocked_describe(const cb_blocked_words *w, char *buf,
                                size_t len)
{
   const char *obj = w->object && *w->object ? w->object : "?";
   const char *at = w->where && *w->where ? w->where : "?";
   const char *hat = w->holder_where && *w->holder_where ? w->holder_where
                                                         : "?";
   char holder[128] = "";
   if (w->holder && w->holder_ended && w->kind != CB_WAIT_JOIN)
      snprintf(holder, sizeof holder, ", held by T%u, which ended without "
               "releasing it (taken at %s)", w->holder, hat);
   else if (w->holder)
      snprintf(holder, sizeof holder, ", held by T%u (taken at %s)",
               w->holder, hat);
   switch (w->kind) {
   case CB_WAIT_LOCK:
      snprintf(buf, len, "T%u waits for lock %s at %s%s", w->tid, obj, at,
               holder);
      break;
   case CB_WAIT_RDLOCK:
   case CB_WAIT_WRLOCK:
      snprintf(buf, len, "T%u waits for rwlock %s (to %s) at %s%s", w->tid,
               obj, w->kind == CB_WAIT_RDLOCK ? "read" : "write", at, holder);
      break;
   case CB_WAIT_JOIN:
      snprintf(buf, len, "T%u waits to join T%u at %s", w->tid, w->holder, at);
      break;
   case CB_WAIT_COND:
      snprintf(buf, len, "T%u waits for condition %s at %s, with no signal "
               "on its way", w->tid, obj, at);
      break;
   case CB_WAIT_SEM:
      snprintf(buf, len, "T%u waits for semaphore %s at %s, whose count is 0",
               w->tid, obj, at);
      break;
   case CB_WAIT_BARRIER:
      snprintf(buf, len, "T%u waits at barrier %s at %s, where %u of %u "
               "threads arrived", w->tid, obj, at,
               (unsigned)(w->value >> 32), (unsigned)(w->value & 0xffffffffu));
      break;
   default:
      snprintf(buf, len, "T%u waits (kind %u) at %s", w->tid, w->kind, at);
      break;
   }
   return buf;
}

const char *cb_blocked_str(const cb_trace *t, const cb_blocked *b, char *buf,
                           size_t len)
{
   char obj[256] = "", at[512], hat[512];
   if (b->kind != CB_WAIT_JOIN)
      cb_variable_str(t, b->object, obj, sizeof obj);
   cb_blocked_words w = {b->tid, b->kind, obj,
                         cb_location_str(t, b->loc, at, sizeof at), b->holder,
                         cb_location_str(t, b->holder_loc, hat, sizeof hat),
                         b->value, 0};
   /* The footer lists every live thread: a holder not among them ended. */
   w.holder_ended = b->holder != 0;
   for (size_t i = 0; i < t->footer.nblocked && w.holder_ended; i++)
      w.holder_ended = t->footer.blocked[i].tid != b->holder;
   return cb_blocked_describe(&w, buf, len);
}

const char *cb_deadlock_str(const cb_trace *t, char *buf, size_t len)
{
   char one[1024];
   size_t used = 0;
   buf[0] = 0;
   for (size_t i = 0; i < t->footer.nblocked && used + 1 < len; i++) {
      cb_blocked_str(t, &t->footer.blocked[i], one, sizeof one);
      int n = snprintf(buf + used, len - used, "%s%s", i ? "; " : "", one);
      if (n < 0)
         break;
      used += (size_t)n < len - used ? (size_t)n : len - used - 1;
   }
   return buf;
}
