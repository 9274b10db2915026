/* writer.c: the streaming trace writer.  Events are gathered into columns
 * (trace.proto, message Events): kind|size<<5 through a per-chunk table
 * (whose entries also carry a locked store's class, kind_size_rmw),
 * thread switches, zig-zag deltas of address (from the last address of the
 * same location) and location, and values only for events that carry one.
 * Every CB_CHUNK_EVENTS events (or on flush) the columns become one Chunk in
 * one frame, written straight to the descriptor, so a crash of the writer
 * loses at most the chunk in progress.  Deltas restart at every chunk, so
 * each chunk decodes on its own.
 *
 * Speed: `cbtrace record` runs the writer for every event of the program,
 * beside Valgrind, so it must cost a few nanoseconds an event.  The columns
 * are kept as the very varint bytes of trace.proto's packed fields,
 * appended as events arrive (write_events.c, the hot path); a chunk is
 * those columns behind hand-written tags and lengths, written with one
 * writev.  protobuf-c packs only the rare parts (header, locations,
 * symbols, variables, footer); trace_unit checks that protobuf-c re-packs a
 * chunk to the same bytes.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "writer_priv.h"

static inline size_t varint_len(uint64_t v)
{
   size_t n = 1;
   while (v >= 0x80) {
      v >>= 7;
      n++;
   }
   return n;
}

/* The field number of each column, and the worst-case bytes of one event
 * in each (varints of their types): a kind index < 8192; a switch offset
 * delta <= 65536 and a 32-bit thread id; a zig-zag 64-bit address delta; a
 * zig-zag 32-bit location delta; a 64-bit value. */
static const uint8_t col_field[NCOLS] = {2, 3, 4, 5, 6, 7};
static const size_t col_max[NCOLS] = {2, 3, 5, 10, 5, 10};

int cb_event_carries_value(unsigned kind, unsigned size)
{
   return cb_event_has_value(kind, size);
}

static char *dup_or_empty(const char *s)
{
   return strdup(s ? s : "");
}

/* Packs c with protobuf-c into *buf (grown as needed); its length, or
 * SIZE_MAX when out of memory. */
static size_t pack_into(const Cbtools__Chunk *c, uint8_t **buf, size_t *cap)
{
   size_t len = protobuf_c_message_get_packed_size(&c->base);
   if (len > *cap) {
      uint8_t *nb = realloc(*buf, len);
      if (!nb)
         return SIZE_MAX;
      *buf = nb;
      *cap = len;
   }
   protobuf_c_message_pack(&c->base, *buf);
   return len;
}

/* Writes one frame: `head` packed by protobuf-c (Chunk fields 1 and 2:
 * header, locations), then the Events message (field 3) from the columns,
 * then `tail` (fields 4 to 6: footer, symbols, variables).  A message may arrive in
 * pieces (protobuf's merge rule), so protobuf-c reads them as one Chunk;
 * being in field order, it is the very bytes protobuf-c would write. */
static int write_chunk(cb_writer *w, const Cbtools__Chunk *head,
                       const Cbtools__Chunk *tail, cb_error *err)
{
   if (w->failed)
      return cb_fail(err, "an earlier write failed");
   struct iovec iov[CB_FRAME_MAX_PARTS];
   int niov = 0;
   size_t len = head ? pack_into(head, &w->head_buf, &w->head_cap) : 0;
   if (len == SIZE_MAX)
      return cb_fail(err, "out of memory");
   if (len)
      iov[niov++] = (struct iovec){w->head_buf, len};
   if (w->n > 0) {
      /* The kind table first, at the end of `small`: its length counts. */
      uint8_t *table = w->small + 128, *t = table;
      int any_rmw = 0;
      for (size_t k = 0; k < w->nks; k++) {
         t = put_varint(t, w->ks_table[k] & (KS_COUNT - 1));
         any_rmw |= w->ks_table[k] >= KS_COUNT;
      }
      size_t table_len = (size_t)(t - table);
      size_t col_len[NCOLS], body = 0;
      for (int c = 0; c < NCOLS; c++) {
         col_len[c] = (size_t)(w->col_end[c] - w->col_base[c]);
         if (col_len[c])
            body += 1 + varint_len(col_len[c]) + col_len[c];
      }
      body += 1 + varint_len(w->first_index);       /* first_index */
      body += 1 + varint_len(table_len) + table_len; /* kind_size_table */
      body += 2;                                     /* addr_by_location */
      if (any_rmw)                                   /* kind_size_rmw */
         body += 1 + varint_len(w->nks) + w->nks;
      /* Tags and lengths go to small[0..127], each run of them flushed
       * into the iovec before the column it introduces. */
      uint8_t *s = w->small, *from = s;
      *s++ = 3 << 3 | 2; /* Chunk.events, length-delimited */
      s = put_varint(s, body);
      *s++ = 1 << 3 | 0; /* Events.first_index, varint */
      s = put_varint(s, w->first_index);
      for (int c = 0; c < NCOLS; c++) {
         if (!col_len[c])
            continue;
         *s++ = (uint8_t)(col_field[c] << 3 | 2);
         s = put_varint(s, col_len[c]);
         iov[niov++] = (struct iovec){from, (size_t)(s - from)};
         from = s;
         iov[niov++] = (struct iovec){w->col_base[c], col_len[c]};
      }
      *s++ = 8 << 3 | 2; /* Events.kind_size_table, packed */
      s = put_varint(s, table_len);
      iov[niov++] = (struct iovec){from, (size_t)(s - from)};
      iov[niov++] = (struct iovec){table, table_len};
      /* Events.addr_by_location = true, after the table. */
      t[0] = 9 << 3 | 0;
      t[1] = 1;
      iov[niov - 1].iov_len += 2;
      if (any_rmw) {
         /* Events.kind_size_rmw, packed: a class < 128 is one byte. */
         uint8_t *r = t + 2;
         *r++ = 10 << 3 | 2;
         r = put_varint(r, w->nks);
         for (size_t k = 0; k < w->nks; k++)
            *r++ = (uint8_t)(w->ks_table[k] / KS_COUNT);
         iov[niov - 1].iov_len += (size_t)(r - (t + 2));
      }
   }
   len = tail ? pack_into(tail, &w->tail_buf, &w->tail_cap) : 0;
   if (len == SIZE_MAX)
      return cb_fail(err, "out of memory");
   if (len)
      iov[niov++] = (struct iovec){w->tail_buf, len};
   if (cb_frame_writev(w->fd, iov, niov, err) < 0) {
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
      free(w->locs[i]->dir);
      free(w->locs[i]);
   }
   w->nlocs = 0;
   for (size_t i = 0; i < w->nsyms; i++) {
      free(w->syms[i]->name);
      free(w->syms[i]);
   }
   w->nsyms = 0;
   for (size_t i = 0; i < w->nvars; i++) {
      free(w->vars[i]->name);
      free(w->vars[i]->file);
      free(w->vars[i]);
   }
   w->nvars = 0;
}

static void start_chunk(cb_writer *w)
{
   for (int c = 0; c < NCOLS; c++)
      w->col_end[c] = w->col_base[c];
   for (size_t k = 0; k < w->nks; k++)
      w->kind_index[w->ks_table[k]] = KIND_ABSENT;
   w->nks = 0;
   w->n = 0;
   w->last_switch = 0;
   w->prev_loc = 0;
   w->cur_tid = 0;
   w->gen++;
}

/* Writes the chunk of everything pending, plus the footer if f != NULL. */
static int emit(cb_writer *w, Cbtools__Footer *f, cb_error *err)
{
   if (w->n == 0 && w->nlocs == 0 && w->nsyms == 0 && w->nvars == 0 && !f)
      return 0;
   Cbtools__Chunk head = CBTOOLS__CHUNK__INIT;
   head.locations = w->locs;
   head.n_locations = w->nlocs;
   Cbtools__Chunk tail = CBTOOLS__CHUNK__INIT;
   tail.footer = f;
   tail.symbols = w->syms;
   tail.n_symbols = w->nsyms;
   tail.variables = w->vars;
   tail.n_variables = w->nvars;
   int r = write_chunk(w, &head, &tail, err);
   free_pending(w);
   w->first_index += w->n;
   start_chunk(w);
   return r;
}

static void writer_free(cb_writer *w)
{
   free_pending(w);
   free(w->locs);
   free(w->syms);
   free(w->vars);
   free(w->col_base[0]);
   free(w->loc);
   free(w->head_buf);
   free(w->tail_buf);
   free(w);
}

cb_writer *cb_writer_open(const char *path, const cb_header *h, cb_error *err)
{
   cb_writer *w = calloc(1, sizeof *w);
   if (!w) {
      cb_fail(err, "out of memory");
      return NULL;
   }
   w->fd = -1;
   size_t total = 0;
   for (int c = 0; c < NCOLS; c++)
      total += col_max[c] * CB_CHUNK_EVENTS + COL_SLACK;
   uint8_t *cols = malloc(total);
   w->loc_cap = 1024;
   w->loc = calloc(w->loc_cap, sizeof *w->loc);
   if (!cols || !w->loc) {
      free(cols);
      cb_fail(err, "out of memory");
      goto fail;
   }
   for (int c = 0; c < NCOLS; c++) {
      w->col_base[c] = cols;
      cols += col_max[c] * CB_CHUNK_EVENTS + COL_SLACK;
   }
   memset(w->kind_index, 0xff, sizeof w->kind_index);
   start_chunk(w);
   /* Created under an unpredictable name and renamed at once: the trace
    * is at its name while it grows (a crash keeps what was written), and
    * a link planted at that name is replaced, never written through. */
   char tmp[4096];
   w->fd = cb_temp_beside(path, tmp, sizeof tmp, err);
   if (w->fd < 0)
      goto fail;
   if (cb_rename_into_place(tmp, path, err) < 0)
      goto fail;
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
   if (write_chunk(w, &c, NULL, err) < 0)
      goto fail;
   return w;
fail:
   if (w->fd >= 0)
      close(w->fd);
   writer_free(w);
   return NULL;
}

/* arr (n items, room for *cap) with room for one more, or NULL when out
 * of memory: the pending lists of locations, symbols and variables. */
static void *room_for_one(void *arr, size_t n, size_t *cap, size_t first,
                          size_t item)
{
   if (n < *cap)
      return arr;
   size_t nc = *cap ? *cap * 2 : first;
   void *g = realloc(arr, nc * item);
   if (g)
      *cap = nc;
   return g;
}

int cb_writer_location(cb_writer *w, uint32_t id, const cb_location *loc,
                       cb_error *err)
{
   if (id == 0 || id > (1u << 26))
      return cb_fail(err, "location id %u out of range", id);
   void *room = room_for_one(w->locs, w->nlocs, &w->cap_locs, 256,
                             sizeof *w->locs);
   if (!room)
      return cb_fail(err, "out of memory");
   w->locs = room;
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
   /* Absent rather than "" when unknown: most traces' tables stay as they
    * were. */
   l->dir = loc->dir && *loc->dir ? strdup(loc->dir) : NULL;
   w->locs[w->nlocs++] = l;
   if (!l->object || !l->function || !l->file ||
       (loc->dir && *loc->dir && !l->dir))
      return cb_fail(err, "out of memory");
   if (id >= w->loc_cap) {
      size_t nc = w->loc_cap;
      while (nc <= id)
         nc *= 2;
      loc_slot *a = realloc(w->loc, nc * sizeof *a);
      if (!a)
         return cb_fail(err, "out of memory");
      memset(a + w->loc_cap, 0, (nc - w->loc_cap) * sizeof *a);
      w->loc = a;
      w->loc_cap = nc;
   }
   if (id > w->max_loc)
      w->max_loc = id;
   return 0;
}

int cb_writer_symbol(cb_writer *w, const cb_symbol *s, cb_error *err)
{
   void *room = room_for_one(w->syms, w->nsyms, &w->cap_syms, 64,
                             sizeof *w->syms);
   if (!room)
      return cb_fail(err, "out of memory");
   w->syms = room;
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

int cb_writer_variable(cb_writer *w, const cb_variable *v, cb_error *err)
{
   void *room = room_for_one(w->vars, w->nvars, &w->cap_vars, 64,
                             sizeof *w->vars);
   if (!room)
      return cb_fail(err, "out of memory");
   w->vars = room;
   Cbtools__Variable *p = malloc(sizeof *p);
   if (!p)
      return cb_fail(err, "out of memory");
   cbtools__variable__init(p);
   p->has_address = p->has_offset = p->has_line = p->has_local = 1;
   p->address = v->address;
   p->offset = v->offset;
   p->line = v->line;
   p->local = v->local != 0;
   p->name = dup_or_empty(v->name);
   p->file = dup_or_empty(v->file);
   w->vars[w->nvars++] = p;
   return p->name && p->file ? 0 : cb_fail(err, "out of memory");
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
      Cbtools__Blocked *pb = NULL, **pp = NULL;
      if (f->nblocked) {
         pb = calloc(f->nblocked, sizeof *pb);
         pp = calloc(f->nblocked, sizeof *pp);
      }
      for (size_t i = 0; pb && pp && i < f->nblocked; i++) {
         const cb_blocked *b = &f->blocked[i];
         cbtools__blocked__init(&pb[i]);
         pb[i].has_tid = pb[i].has_kind = pb[i].has_location = 1;
         pb[i].has_object = pb[i].has_holder = pb[i].has_holder_location = 1;
         pb[i].has_value = 1;
         pb[i].tid = b->tid;
         pb[i].kind = b->kind;
         pb[i].location = b->loc;
         pb[i].object = b->object;
         pb[i].holder = b->holder;
         pb[i].holder_location = b->holder_loc;
         pb[i].value = b->value;
         pp[i] = &pb[i];
      }
      pf.n_deadlock = f->nblocked;
      pf.deadlock = pp;
      if (f->nblocked && (!pb || !pp))
         r = cb_fail(err, "out of memory");
      else
         r = emit(w, &pf, err);
      free(pb);
      free(pp);
   } else {
      r = emit(w, NULL, err);
   }
   if (close(w->fd) < 0 && r == 0)
      r = cb_fail(err, "close: %s", strerror(errno));
   writer_free(w);
   return r;
}
