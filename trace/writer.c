/* writer.c: the streaming trace writer.  Events are gathered into columns
 * (trace.proto, message Events): kind|size<<5, thread switches, zig-zag
 * deltas of address and location, and values only for events that carry one.
 * Every CB_CHUNK_EVENTS events (or on flush) the columns become one Chunk in
 * one frame, written straight to the descriptor, so a crash of the writer
 * loses at most the chunk in progress.  Deltas restart at every chunk, so
 * each chunk decodes on its own.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.pb-c.h"
#include "trace_internal.h"

struct cb_writer {
   int fd;
   int failed;               /* a write failed: refuse everything after */
   uint64_t first_index;     /* index of the first event of this chunk */
   uint32_t max_loc;         /* highest location id defined */
   /* Columns of the chunk in progress. */
   size_t n;
   uint32_t *kind_size;
   int64_t *addr_delta;
   int32_t *loc_delta;
   uint64_t *values;
   size_t nvalues;
   uint32_t *switch_at, *switch_tid;
   size_t nswitch, switch_cap;
   size_t last_switch;       /* offset of the last switch in the chunk */
   uint32_t prev_loc;
   /* Denser forms (trace.proto): kind|size<<5 through a per-chunk table,
    * and addresses as deltas from the last address of the same location.
    * Entries stamped with an older chunk generation count as absent. */
   uint32_t gen;
   uint32_t ks_gen[8192], ks_table[8192];
   uint16_t ks_index[8192];
   size_t nks;
   uint64_t *loc_addr;
   uint32_t *loc_gen;
   size_t loc_cap;
   uint32_t cur_tid;
   /* Locations and symbols defined since the last chunk. */
   Cbtools__Location **locs;
   size_t nlocs, cap_locs;
   Cbtools__Symbol **syms;
   size_t nsyms, cap_syms;
   uint8_t *buf;
   size_t buf_cap;
};

int cb_event_carries_value(unsigned kind, unsigned size)
{
   return cb_event_has_value(kind, size);
}

static char *dup_or_empty(const char *s)
{
   return strdup(s ? s : "");
}

static int write_chunk(cb_writer *w, Cbtools__Chunk *c, cb_error *err)
{
   if (w->failed)
      return cb_fail(err, "an earlier write failed");
   size_t len = protobuf_c_message_get_packed_size(&c->base);
   if (len > w->buf_cap) {
      uint8_t *nb = realloc(w->buf, len);
      if (!nb)
         return cb_fail(err, "out of memory");
      w->buf = nb;
      w->buf_cap = len;
   }
   protobuf_c_message_pack(&c->base, w->buf);
   if (cb_frame_write(w->fd, w->buf, len, err) < 0) {
      w->failed = 1;
      return -1;
   }
   return 0;
}

static void free_pending(cb_writer *w)
{
   for (size_t i = 0; i < w->nlocs; i++) {
      free(w->locs[i]->object);
      free(w->locs[i]->function);
      free(w->locs[i]->file);
      free(w->locs[i]);
   }
   w->nlocs = 0;
   for (size_t i = 0; i < w->nsyms; i++) {
      free(w->syms[i]->name);
      free(w->syms[i]);
   }
   w->nsyms = 0;
}

/* Builds the chunk of everything pending, plus the footer if f != NULL. */
static int emit(cb_writer *w, Cbtools__Footer *f, cb_error *err)
{
   if (w->n == 0 && w->nlocs == 0 && w->nsyms == 0 && !f)
      return 0;
   Cbtools__Chunk c = CBTOOLS__CHUNK__INIT;
   Cbtools__Events ev = CBTOOLS__EVENTS__INIT;
   c.locations = w->locs;
   c.n_locations = w->nlocs;
   c.symbols = w->syms;
   c.n_symbols = w->nsyms;
   if (w->n > 0) {
      ev.has_first_index = 1;
      ev.first_index = w->first_index;
      ev.n_kind_size = w->n;
      ev.kind_size = w->kind_size;
      ev.n_addr_delta = w->n;
      ev.addr_delta = w->addr_delta;
      ev.n_loc_delta = w->n;
      ev.loc_delta = w->loc_delta;
      ev.n_value = w->nvalues;
      ev.value = w->values;
      ev.n_kind_size_table = w->nks;
      ev.kind_size_table = w->ks_table;
      ev.has_addr_by_location = 1;
      ev.addr_by_location = 1;
      ev.n_switch_at = ev.n_switch_tid = w->nswitch;
      ev.switch_at = w->switch_at;
      ev.switch_tid = w->switch_tid;
      c.events = &ev;
   }
   c.footer = f;
   int r = write_chunk(w, &c, err);
   free_pending(w);
   w->first_index += w->n;
   w->n = 0;
   w->nvalues = 0;
   w->nswitch = 0;
   w->prev_loc = 0;
   w->cur_tid = 0;
   w->nks = 0;
   w->gen++;
   return r;
}

cb_writer *cb_writer_open(const char *path, const cb_header *h, cb_error *err)
{
   cb_writer *w = calloc(1, sizeof *w);
   if (!w) {
      cb_fail(err, "out of memory");
      return NULL;
   }
   w->fd = -1;
   w->gen = 1;
   w->kind_size = malloc(CB_CHUNK_EVENTS * sizeof *w->kind_size);
   w->addr_delta = malloc(CB_CHUNK_EVENTS * sizeof *w->addr_delta);
   w->loc_delta = malloc(CB_CHUNK_EVENTS * sizeof *w->loc_delta);
   w->values = malloc(CB_CHUNK_EVENTS * sizeof *w->values);
   w->loc_cap = 1024;
   w->loc_addr = malloc(w->loc_cap * sizeof *w->loc_addr);
   w->loc_gen = calloc(w->loc_cap, sizeof *w->loc_gen);
   if (!w->kind_size || !w->addr_delta || !w->loc_delta || !w->values ||
       !w->loc_addr || !w->loc_gen) {
      cb_fail(err, "out of memory");
      goto fail;
   }
   w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
   if (w->fd < 0) {
      cb_fail(err, "%s", strerror(errno));
      goto fail;
   }
   if (cb_write_all(w->fd, cb_trace_magic, CB_MAGIC_LEN, err) < 0)
      goto fail;
   Cbtools__Header ph = CBTOOLS__HEADER__INIT;
   ph.has_format_version = 1;
   ph.format_version = CB_TRACE_FORMAT_VERSION;
   ph.program = (char *)(h->program ? h->program : "");
   ph.n_argv = h->argc > 0 && h->argv ? (size_t)h->argc : 0;
   ph.argv = (char **)h->argv;
   ph.tool_version = (char *)(h->tool_version ? h->tool_version : "");
   ph.instrumented = (char *)(h->instrumented ? h->instrumented : "");
   ph.has_trace_id = ph.has_program_digest = ph.has_start_time_unix = 1;
   ph.trace_id = h->trace_id;
   ph.program_digest = h->program_digest;
   ph.start_time_unix = h->start_time_unix;
   for (size_t i = 0; i < ph.n_argv; i++)
      if (!ph.argv[i]) {
         cb_fail(err, "header argv[%zu] is NULL", i);
         goto fail;
      }
   Cbtools__Chunk c = CBTOOLS__CHUNK__INIT;
   c.header = &ph;
   if (write_chunk(w, &c, err) < 0)
      goto fail;
   return w;
fail:
   if (w->fd >= 0)
      close(w->fd);
   free(w->kind_size);
   free(w->addr_delta);
   free(w->loc_delta);
   free(w->values);
   free(w->loc_addr);
   free(w->loc_gen);
   free(w);
   return NULL;
}

int cb_writer_location(cb_writer *w, uint32_t id, const cb_location *loc,
                       cb_error *err)
{
   if (id == 0 || id > (1u << 26))
      return cb_fail(err, "location id %u out of range", id);
   if (w->nlocs == w->cap_locs) {
      size_t nc = w->cap_locs ? w->cap_locs * 2 : 256;
      void *n = realloc(w->locs, nc * sizeof *w->locs);
      if (!n)
         return cb_fail(err, "out of memory");
      w->locs = n;
      w->cap_locs = nc;
   }
   Cbtools__Location *l = malloc(sizeof *l);
   if (!l)
      return cb_fail(err, "out of memory");
   cbtools__location__init(l);
   l->has_id = l->has_address = l->has_line = 1;
   l->id = id;
   l->address = loc->address;
   l->line = loc->line;
   l->object = dup_or_empty(loc->object);
   l->function = dup_or_empty(loc->function);
   l->file = dup_or_empty(loc->file);
   w->locs[w->nlocs++] = l;
   if (!l->object || !l->function || !l->file)
      return cb_fail(err, "out of memory");
   if (id > w->max_loc)
      w->max_loc = id;
   if (id >= w->loc_cap) {
      size_t nc = w->loc_cap ? w->loc_cap : 1024;
      while (nc <= id)
         nc *= 2;
      uint64_t *a = realloc(w->loc_addr, nc * sizeof *a);
      if (!a)
         return cb_fail(err, "out of memory");
      w->loc_addr = a;
      uint32_t *g = realloc(w->loc_gen, nc * sizeof *g);
      if (!g)
         return cb_fail(err, "out of memory");
      memset(g + w->loc_cap, 0, (nc - w->loc_cap) * sizeof *g);
      w->loc_gen = g;
      w->loc_cap = nc;
   }
   return 0;
}

int cb_writer_symbol(cb_writer *w, const cb_symbol *s, cb_error *err)
{
   if (w->nsyms == w->cap_syms) {
      size_t nc = w->cap_syms ? w->cap_syms * 2 : 64;
      void *n = realloc(w->syms, nc * sizeof *w->syms);
      if (!n)
         return cb_fail(err, "out of memory");
      w->syms = n;
      w->cap_syms = nc;
   }
   Cbtools__Symbol *p = malloc(sizeof *p);
   if (!p)
      return cb_fail(err, "out of memory");
   cbtools__symbol__init(p);
   p->has_address = p->has_size = 1;
   p->address = s->address;
   p->size = s->size;
   p->name = dup_or_empty(s->name);
   w->syms[w->nsyms++] = p;
   return p->name ? 0 : cb_fail(err, "out of memory");
}

int cb_writer_event(cb_writer *w, const cb_event *e, cb_error *err)
{
   if (e->kind == CB_EV_NONE || e->kind >= CB_EV_KIND_COUNT)
      return cb_fail(err, "event %llu: unknown kind %u",
                     (unsigned long long)(w->first_index + w->n), e->kind);
   if (e->tid == 0)
      return cb_fail(err, "event %llu: thread id 0",
                     (unsigned long long)(w->first_index + w->n));
   if (e->loc > w->max_loc)
      return cb_fail(err, "event %llu: location %u was never defined",
                     (unsigned long long)(w->first_index + w->n), e->loc);
   size_t i = w->n;
   if (e->tid != w->cur_tid) {
      if (w->nswitch == w->switch_cap) {
         size_t nc = w->switch_cap ? w->switch_cap * 2 : 1024;
         uint32_t *a = realloc(w->switch_at, nc * sizeof *a);
         if (!a)
            return cb_fail(err, "out of memory");
         w->switch_at = a;
         uint32_t *b = realloc(w->switch_tid, nc * sizeof *b);
         if (!b)
            return cb_fail(err, "out of memory");
         w->switch_tid = b;
         w->switch_cap = nc;
      }
      w->switch_at[w->nswitch] = (uint32_t)(i - (w->nswitch ? w->last_switch : 0));
      w->switch_tid[w->nswitch] = e->tid;
      w->nswitch++;
      w->last_switch = i;
      w->cur_tid = e->tid;
   }
   uint32_t ks = (uint32_t)e->kind | (uint32_t)e->size << 5;
   if (w->ks_gen[ks] != w->gen) {
      w->ks_gen[ks] = w->gen;
      w->ks_index[ks] = (uint16_t)w->nks;
      w->ks_table[w->nks++] = ks;
   }
   w->kind_size[i] = w->ks_index[ks];
   /* loc <= max_loc < loc_cap: checked above, grown by cb_writer_location. */
   uint64_t prev = w->loc_gen[e->loc] == w->gen ? w->loc_addr[e->loc] : 0;
   w->loc_gen[e->loc] = w->gen;
   w->loc_addr[e->loc] = e->addr;
   w->addr_delta[i] = (int64_t)(e->addr - prev);
   w->loc_delta[i] = (int32_t)(e->loc - w->prev_loc);
   w->prev_loc = e->loc;
   if (cb_event_has_value(e->kind, e->size))
      w->values[w->nvalues++] = e->value;
   w->n = i + 1;
   if (w->n == CB_CHUNK_EVENTS)
      return emit(w, NULL, err);
   return 0;
}

int cb_writer_flush(cb_writer *w, cb_error *err)
{
   return emit(w, NULL, err);
}

int cb_writer_close(cb_writer *w, const cb_footer *f, cb_error *err)
{
   int r = 0;
   if (f) {
      Cbtools__Footer pf = CBTOOLS__FOOTER__INIT;
      pf.has_event_count = pf.has_location_count = pf.has_exit_status =
          pf.has_exit_signal = pf.has_tool_ended = 1;
      pf.event_count = w->first_index + w->n;
      pf.location_count = w->max_loc;
      pf.exit_status = f->exit_status;
      pf.exit_signal = f->exit_signal;
      pf.tool_ended = f->tool_ended != 0;
      r = emit(w, &pf, err);
   } else {
      r = emit(w, NULL, err);
   }
   if (close(w->fd) < 0 && r == 0)
      r = cb_fail(err, "close: %s", strerror(errno));
   free_pending(w);
   free(w->locs);
   free(w->syms);
   free(w->kind_size);
   free(w->addr_delta);
   free(w->loc_delta);
   free(w->values);
   free(w->switch_at);
   free(w->switch_tid);
   free(w->loc_addr);
   free(w->loc_gen);
   free(w->buf);
   free(w);
   return r;
}

/* ---- A whole in-memory trace ---------------------------------------------- */
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
   for (size_t i = 0; i < t->nevents; i++)
      if (cb_writer_event(w, &t->events[i], err) < 0)
         goto fail;
   /* An in-memory trace written whole is whole: without a footer of its
    * own it gets one that says the run ended normally. */
   cb_footer whole = {1, t->nevents, 0, 0, 1};
   return cb_writer_close(w, t->footer.present ? &t->footer : &whole, err);
fail:
   cb_writer_close(w, NULL, NULL);
   return -1;
}
