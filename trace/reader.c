/* reader.c: reads a whole trace into a flat array of events.  Chunks are
 * taken whole or not at all: each is checked (CRC by the framing, then every
 * column against the others) before any of its events is added, so a cut
 * or corrupt tail leaves exactly the events of the whole chunks before it.
 * The Events of a chunk are read_events.c's job; protobuf-c unpacks the
 * rest (header, locations, symbols, variables, footer).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "read_events.h"

static int take_header(cb_trace *t, const Cbtools__Header *h, cb_error *err)
{
   cb_header *o = &t->header;
   o->format_version = h->has_format_version ? h->format_version : 0;
   if (o->format_version != CB_TRACE_FORMAT_VERSION)
      return cb_fail(err, "trace format version %u, this cbtools reads %u",
                     o->format_version, CB_TRACE_FORMAT_VERSION);
   o->program = cb_trace_strdup(t, h->program);
   o->tool_version = cb_trace_strdup(t, h->tool_version);
   o->instrumented = cb_trace_strdup(t, h->instrumented);
   o->argv = cb_trace_alloc(t, (h->n_argv + 1) * sizeof *o->argv, err);
   if (!o->program || !o->tool_version || !o->instrumented || !o->argv)
      return cb_fail(err, "out of memory");
   for (size_t i = 0; i < h->n_argv; i++)
      if (!(o->argv[i] = cb_trace_strdup(t, h->argv[i])))
         return cb_fail(err, "out of memory");
   o->argv[h->n_argv] = NULL;
   o->argc = (int)h->n_argv;
   o->trace_id = h->trace_id;
   o->program_digest = h->program_digest;
   o->start_time_unix = h->start_time_unix;
   return 0;
}

/* The footer's deadlock (trace.proto Blocked): location ids the trace
 * does not define read as unknown, as an event's would not. */
static int take_deadlock(cb_trace *t, const Cbtools__Footer *f,
                         cb_error *why)
{
   cb_blocked *b = cb_trace_alloc(t, f->n_deadlock * sizeof *b, why);
   if (!b)
      return -1;
   for (size_t i = 0; i < f->n_deadlock; i++) {
      const Cbtools__Blocked *p = f->deadlock[i];
      b[i].tid = p->tid;
      b[i].kind = p->kind < CB_WAIT_KIND_COUNT ? (uint8_t)p->kind : 0;
      b[i].loc = p->location < t->nlocs ? p->location : 0;
      b[i].object = p->object;
      b[i].holder = p->holder;
      b[i].holder_loc = p->holder_location < t->nlocs ? p->holder_location : 0;
      b[i].value = p->value;
   }
   t->footer.blocked = b;
   t->footer.nblocked = f->n_deadlock;
   return 0;
}

/* One chunk (events in c->events, or in re when hand).  1: taken; 0: it
 * was the footer chunk; -1: damaged (why) or out of memory (err, fatal). */
static int take_chunk(cb_trace *t, const Cbtools__Chunk *c,
                      const raw_events *re, int hand, loc_state *ls,
                      scratch *s, cb_error *why)
{
   size_t nlocs = t->nlocs ? t->nlocs : 1; /* locs[0], unknown, always */
   for (size_t i = 0; i < c->n_locations; i++) {
      const Cbtools__Location *l = c->locations[i];
      if (!l->has_id || l->id == 0 || l->id > (1u << 26))
         return cb_fail(why, "bad location id");
      if (l->id > ls->ndefs + c->n_locations)
         return cb_fail(why, "location id %u, but the trace defines only "
                             "%zu locations", l->id,
                        ls->ndefs + c->n_locations);
      if (l->id >= nlocs)
         nlocs = (size_t)l->id + 1;
   }
   long n = 0;
   uint32_t max_tid = 0;
   if (hand && (n = cb_decode_events(t, re, nlocs, ls, s, &max_tid, why)) < 0)
      return -1;
   if (c->events && cb_check_events(c->events, t->nevents, nlocs, why) < 0)
      return -1;
   /* The chunk is sound: take all of it. */
   for (size_t i = 0; i < c->n_locations; i++) {
      const Cbtools__Location *l = c->locations[i];
      cb_location o = {l->address, l->object, l->function, l->file, l->line,
                       l->dir};
      if (cb_trace_set_location(t, l->id, &o, why) < 0)
         return -1;
   }
   ls->ndefs += c->n_locations;
   for (size_t i = 0; i < c->n_symbols; i++) {
      const Cbtools__Symbol *s = c->symbols[i];
      cb_symbol o = {s->address, s->size, s->name};
      if (cb_trace_add_symbol(t, &o, why) < 0)
         return -1;
   }
   for (size_t i = 0; i < c->n_variables; i++) {
      const Cbtools__Variable *v = c->variables[i];
      cb_variable o = {v->address, v->offset, v->name, v->file, v->line,
                       v->local};
      if (cb_trace_add_variable(t, &o, why) < 0)
         return -1;
   }
   if (hand) {
      t->nevents += (size_t)n;
      if (max_tid > t->nthreads)
         t->nthreads = max_tid;
   }
   if (c->events && cb_take_events(t, c->events, ls, why) < 0)
      return -1;
   if (c->footer) {
      const Cbtools__Footer *f = c->footer;
      t->footer.present = 1;
      t->footer.event_count = f->event_count;
      t->footer.exit_status = f->exit_status;
      t->footer.exit_signal = f->exit_signal;
      t->footer.tool_ended = f->tool_ended;
      if (f->n_deadlock && take_deadlock(t, f, why) < 0)
         return -1;
      return 0;
   }
   return 1;
}

/* Long reasons are cut to fit cb_trace.truncation; that is fine. */
static void set_truncated(cb_trace *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void set_truncated(cb_trace *t, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   t->truncated = 1;
   vsnprintf(t->truncation, sizeof t->truncation, fmt, ap);
   va_end(ap);
}

/* A trace read to its end without damage may still be incomplete: says
 * so in t->truncation. */
static void check_end(cb_trace *t, const cb_frame_reader *r)
{
   if (!t->footer.present)
      set_truncated(t, "no footer: the recording stopped after %zu events",
                    t->nevents);
   else if (r->pos != r->len)
      set_truncated(t, "data after the footer");
   else if (t->footer.event_count != t->nevents)
      set_truncated(t, "footer counts %llu events, found %zu",
                    (unsigned long long)t->footer.event_count, t->nevents);
   else if (!t->footer.tool_ended && t->footer.exit_signal)
      set_truncated(t, "the program was killed by signal %d before the "
                       "tool could finish: the last events may be missing",
                    t->footer.exit_signal);
   else if (!t->footer.tool_ended)
      set_truncated(t, "the tool did not report the end of the run: the "
                       "last events may be missing");
}

int cb_trace_read_mem(const void *data, size_t len, cb_trace *t, cb_error *err)
{
   memset(t, 0, sizeof *t);
   loc_state ls = {0};
   scratch s = {0};
   raw_events re;
   int hand;
   cb_frame_reader r;
   if (cb_frame_begin(&r, data, len, cb_trace_magic, "cbtools trace", err) < 0)
      return -1;
   const uint8_t *pl;
   size_t plen;
   cb_error why;
   int k = cb_frame_next(&r, &pl, &plen, &why);
   if (k <= 0)
      return cb_fail(err, "damaged header: %s",
                     k == 0 ? "no chunk after the magic" : why.msg);
   Cbtools__Chunk *c = cb_unpack_frame(pl, plen, &s, &re, &hand);
   if (!c || !c->header) {
      if (c)
         cbtools__chunk__free_unpacked(c, NULL);
      cb_scratch_free(&s); /* split_chunk has already used it */
      return cb_fail(err, "damaged header: %s",
                     c ? "first chunk has no header" : "cannot decode it");
   }
   if (!cb_trace_priv_get(t, err) || take_header(t, c->header, err) < 0)
      goto fail;
   /* A header chunk may carry more (locations, events): take it like any. */
   int more = take_chunk(t, c, &re, hand, &ls, &s, &why);
   cbtools__chunk__free_unpacked(c, NULL);
   c = NULL;
   if (more < 0)
      set_truncated(t, "%s", why.msg);
   while (more > 0) {
      k = cb_frame_next(&r, &pl, &plen, &why);
      if (k == 0)
         break;
      if (k < 0) {
         set_truncated(t, "%s", why.msg);
         break;
      }
      c = cb_unpack_frame(pl, plen, &s, &re, &hand);
      if (!c) {
         set_truncated(t, "chunk %u: cannot decode it", r.n);
         break;
      }
      if (c->header) {
         cbtools__chunk__free_unpacked(c, NULL);
         set_truncated(t, "chunk %u: a second header", r.n);
         break;
      }
      more = take_chunk(t, c, &re, hand, &ls, &s, &why);
      cbtools__chunk__free_unpacked(c, NULL);
      c = NULL;
      if (more < 0)
         set_truncated(t, "chunk %u: %s", r.n, why.msg);
   }
   if (!t->truncated)
      check_end(t, &r);
   cb_trace_finish(t);
   free(ls.addr);
   free(ls.gen);
   cb_scratch_free(&s);
   return 0;
fail:
   free(ls.addr);
   free(ls.gen);
   cb_scratch_free(&s);
   if (c)
      cbtools__chunk__free_unpacked(c, NULL);
   cb_trace_free(t);
   return -1;
}

int cb_trace_read(const char *path, cb_trace *t, cb_error *err)
{
   cb_blob b;
   memset(t, 0, sizeof *t);
   if (cb_blob_load(path, &b, err) < 0)
      return -1;
   int r = cb_trace_read_mem(b.data, b.len, t, err);
   cb_blob_free(&b);
   return r;
}
