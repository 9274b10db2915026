/* reader.c: reads a whole trace into a flat array of events.  Chunks are
 * taken whole or not at all: each is checked (CRC by the framing, then every
 * column against the others) before any of its events is added, so a cut
 * or corrupt tail leaves exactly the events of the whole chunks before it.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "trace.pb-c.h"
#include "trace_internal.h"

/* Per-location last address, for chunks with addr_by_location; entries
 * stamped with an older chunk generation count as 0. */
typedef struct {
   uint64_t *addr;
   uint32_t *gen;
   size_t cap;
   uint32_t cur;
} loc_state;

static int loc_state_fit(loc_state *s, size_t nlocs, cb_error *err)
{
   s->cur++;
   if (nlocs <= s->cap)
      return 0;
   size_t nc = s->cap ? s->cap : 1024;
   while (nc < nlocs)
      nc *= 2;
   uint64_t *a = realloc(s->addr, nc * sizeof *a);
   if (!a)
      return cb_fail(err, "out of memory");
   s->addr = a;
   uint32_t *g = realloc(s->gen, nc * sizeof *g);
   if (!g)
      return cb_fail(err, "out of memory");
   memset(g + s->cap, 0, (nc - s->cap) * sizeof *g);
   s->gen = g;
   s->cap = nc;
   return 0;
}

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

/* Checks every column of an Events message; on success the chunk can be
 * decoded without further checks.  nlocs: locations known after this
 * chunk's own definitions. */
static int check_events(const Cbtools__Events *ev, uint64_t expect_first,
                        size_t nlocs, cb_error *why)
{
   size_t n = ev->n_kind_size;
   if (!ev->has_first_index || ev->first_index != expect_first)
      return cb_fail(why, "events start at %llu, expected %llu",
                     (unsigned long long)ev->first_index,
                     (unsigned long long)expect_first);
   if (ev->n_addr_delta != n || ev->n_loc_delta != n ||
       ev->n_switch_at != ev->n_switch_tid)
      return cb_fail(why, "columns of different lengths");
   if (n > 0 && (ev->n_switch_at == 0 || ev->switch_at[0] != 0))
      return cb_fail(why, "no thread for the first event");
   size_t at = 0;
   for (size_t s = 0; s < ev->n_switch_at; s++) {
      if (s > 0 && ev->switch_at[s] == 0)
         return cb_fail(why, "empty thread switch");
      at += ev->switch_at[s];
      if (at >= n || ev->switch_tid[s] == 0 || ev->switch_tid[s] > 0xffff)
         return cb_fail(why, "bad thread switch");
   }
   for (size_t k = 0; k < ev->n_kind_size_table; k++)
      if (ev->kind_size_table[k] >= (1u << 13))
         return cb_fail(why, "bad kind table");
   size_t nval = 0;
   int64_t loc = 0;
   for (size_t i = 0; i < n; i++) {
      uint32_t ks = ev->kind_size[i];
      if (ev->n_kind_size_table) {
         if (ks >= ev->n_kind_size_table)
            return cb_fail(why, "event %llu: bad kind index",
                           (unsigned long long)(expect_first + i));
         ks = ev->kind_size_table[ks];
      }
      unsigned kind = ks & 31, size = ks >> 5;
      if (kind == CB_EV_NONE || kind >= CB_EV_KIND_COUNT || size > 255)
         return cb_fail(why, "event %llu: bad kind or size",
                        (unsigned long long)(expect_first + i));
      nval += (size_t)cb_event_has_value(kind, size);
      loc += ev->loc_delta[i];
      if (loc < 0 || (uint64_t)loc >= nlocs)
         return cb_fail(why, "event %llu: undefined location",
                        (unsigned long long)(expect_first + i));
   }
   if (nval != ev->n_value)
      return cb_fail(why, "%zu values for %zu events that carry one",
                     ev->n_value, nval);
   return 0;
}

static int take_events(cb_trace *t, const Cbtools__Events *ev, loc_state *ls,
                       cb_error *err)
{
   int by_loc = ev->has_addr_by_location && ev->addr_by_location;
   if (by_loc && loc_state_fit(ls, t->nlocs ? t->nlocs : 1, err) < 0)
      return -1;
   size_t n = ev->n_kind_size;
   cb_trace_priv *p = t->arena_;
   if (t->nevents + n > p->cap_events) {
      size_t nc = p->cap_events ? p->cap_events : 65536;
      while (nc < t->nevents + n)
         nc *= 2;
      cb_event *ne = realloc(t->events, nc * sizeof *ne);
      if (!ne)
         return cb_fail(err, "out of memory for %zu events", t->nevents + n);
      t->events = ne;
      p->cap_events = nc;
   }
   cb_event *out = t->events + t->nevents;
   uint64_t addr = 0;
   uint32_t loc = 0, tid = 0;
   size_t sw = 0, next_switch = n ? 0 : SIZE_MAX, vi = 0;
   for (size_t i = 0; i < n; i++) {
      if (i == next_switch) {
         tid = ev->switch_tid[sw++];
         if (tid > t->nthreads)
            t->nthreads = tid;
         next_switch = sw < ev->n_switch_at ? i + ev->switch_at[sw] : SIZE_MAX;
      }
      uint32_t ks = ev->kind_size[i];
      if (ev->n_kind_size_table)
         ks = ev->kind_size_table[ks];
      cb_event *e = &out[i];
      e->kind = (uint8_t)(ks & 31);
      e->size = (uint8_t)(ks >> 5);
      e->tid = (uint16_t)tid;
      loc += (uint32_t)ev->loc_delta[i];
      e->loc = loc;
      if (by_loc) {
         uint64_t prev = ls->gen[loc] == ls->cur ? ls->addr[loc] : 0;
         e->addr = prev + (uint64_t)ev->addr_delta[i];
         ls->gen[loc] = ls->cur;
         ls->addr[loc] = e->addr;
      } else {
         addr += (uint64_t)ev->addr_delta[i];
         e->addr = addr;
      }
      e->value = cb_event_has_value(e->kind, e->size) ? ev->value[vi++] : 0;
   }
   t->nevents += n;
   return 0;
}

/* One chunk after the header.  1: taken; 0: it was the footer chunk;
 * -1: damaged (why) or out of memory (err, fatal). */
static int take_chunk(cb_trace *t, const Cbtools__Chunk *c, loc_state *ls,
                      cb_error *why)
{
   size_t nlocs = t->nlocs ? t->nlocs : 1; /* locs[0], unknown, always */
   for (size_t i = 0; i < c->n_locations; i++) {
      const Cbtools__Location *l = c->locations[i];
      if (!l->has_id || l->id == 0 || l->id > (1u << 26))
         return cb_fail(why, "bad location id");
      if (l->id >= nlocs)
         nlocs = (size_t)l->id + 1;
   }
   if (c->events && check_events(c->events, t->nevents, nlocs, why) < 0)
      return -1;
   /* The chunk is sound: take all of it. */
   for (size_t i = 0; i < c->n_locations; i++) {
      const Cbtools__Location *l = c->locations[i];
      cb_location o = {l->address, l->object, l->function, l->file, l->line};
      if (cb_trace_set_location(t, l->id, &o, why) < 0)
         return -1;
   }
   for (size_t i = 0; i < c->n_symbols; i++) {
      const Cbtools__Symbol *s = c->symbols[i];
      cb_symbol o = {s->address, s->size, s->name};
      if (cb_trace_add_symbol(t, &o, why) < 0)
         return -1;
   }
   if (c->events && take_events(t, c->events, ls, why) < 0)
      return -1;
   if (c->footer) {
      const Cbtools__Footer *f = c->footer;
      t->footer.present = 1;
      t->footer.event_count = f->event_count;
      t->footer.exit_status = f->exit_status;
      t->footer.exit_signal = f->exit_signal;
      t->footer.tool_ended = f->tool_ended;
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

int cb_trace_read_mem(const void *data, size_t len, cb_trace *t, cb_error *err)
{
   memset(t, 0, sizeof *t);
   loc_state ls = {0};
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
   Cbtools__Chunk *c = cbtools__chunk__unpack(NULL, plen, pl);
   if (!c || !c->header) {
      if (c)
         cbtools__chunk__free_unpacked(c, NULL);
      return cb_fail(err, "damaged header: %s",
                     c ? "first chunk has no header" : "cannot decode it");
   }
   if (!cb_trace_priv_get(t, err) || take_header(t, c->header, err) < 0)
      goto fail;
   /* A header chunk may carry more (locations, events): take it like any. */
   int more = take_chunk(t, c, &ls, &why);
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
      c = cbtools__chunk__unpack(NULL, plen, pl);
      if (!c) {
         set_truncated(t, "chunk %u: cannot decode it", r.n);
         break;
      }
      if (c->header) {
         cbtools__chunk__free_unpacked(c, NULL);
         set_truncated(t, "chunk %u: a second header", r.n);
         break;
      }
      more = take_chunk(t, c, &ls, &why);
      cbtools__chunk__free_unpacked(c, NULL);
      c = NULL;
      if (more < 0)
         set_truncated(t, "chunk %u: %s", r.n, why.msg);
   }
   if (!t->truncated) {
      if (!t->footer.present)
         set_truncated(t, "no footer: the recording stopped after %zu events",
                       t->nevents);
      else if (r.pos != r.len)
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
   cb_trace_finish(t);
   free(ls.addr);
   free(ls.gen);
   return 0;
fail:
   free(ls.addr);
   free(ls.gen);
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
