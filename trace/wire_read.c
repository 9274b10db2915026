/* wire_read.c: decodes the tool's raw record stream (cb_wire.h) into the
 * trace writer while the program runs.  Records arrive in pieces of any
 * size; a protocol error stops decoding (what came before is kept) but the
 * caller keeps draining the pipe so the program is never blocked.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_internal.h"
#include "wire_read.h"

_Static_assert(sizeof(cb_wire_event) == 32, "wire records are 32 bytes");
_Static_assert(sizeof(cb_wire_locdef) == 32, "wire records are 32 bytes");

void cb_wire_init(cb_wire_decoder *d, cb_writer *w)
{
   memset(d, 0, sizeof *d);
   d->w = w;
}

static void broken(cb_wire_decoder *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void broken(cb_wire_decoder *d, const char *fmt, ...)
{
   if (d->broken)
      return;
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(d->why, sizeof d->why, fmt, ap);
   va_end(ap);
   d->broken = 1;
}

/* The i-th NUL-terminated string of a LOCDEF/SYMDEF/VARDEF tail, "" if
 * absent. */
static const char *tail_string(const unsigned char *s, size_t n, int i,
                               char *out, size_t outlen)
{
   size_t pos = 0;
   for (int k = 0; k < i && pos < n; k++) {
      while (pos < n && s[pos])
         pos++;
      pos++;
   }
   size_t l = 0;
   while (pos + l < n && s[pos + l] && l + 1 < outlen)
      l++;
   if (pos >= n)
      l = 0;
   else
      memcpy(out, s + pos, l);
   out[l] = 0;
   return out;
}

/* The first record must be HELLO of our wire version. */
static void take_hello(cb_wire_decoder *d, const cb_wire_event *e,
                       const unsigned char *r)
{
   if (e->kind != CB_WIRE_HELLO) {
      broken(d, "the first record is kind %u, not HELLO", e->kind);
      return;
   }
   if (e->addr != CB_WIRE_VERSION) {
      /* Version 1's 24-byte HELLO had the version at offset 8. */
      unsigned long long v = e->addr, v1;
      memcpy(&v1, r + 8, sizeof v1);
      if (v1 == 1)
         v = 1;
      broken(d, "the tool speaks wire version %llu, cbtrace reads %u", v,
             CB_WIRE_VERSION);
      return;
   }
   d->hello_seen = 1;
}

static void write_failed(cb_wire_decoder *d, const cb_error *err)
{
   d->write_failed = 1;
   d->write_err = *err;
}

static void take_locdef(cb_wire_decoder *d, const unsigned char *r,
                        size_t tail_len)
{
   cb_wire_locdef l;
   memcpy(&l, r, sizeof l);
   char obj[1024], fn[1024], file[1024], dir[1024];
   const unsigned char *s = r + sizeof l;
   cb_location loc = {l.address, tail_string(s, tail_len, 0, obj, sizeof obj),
                      tail_string(s, tail_len, 1, fn, sizeof fn),
                      tail_string(s, tail_len, 2, file, sizeof file), l.line,
                      tail_string(s, tail_len, 3, dir, sizeof dir)};
   if (l.id == 0 || l.id > (1u << 26)) {
      broken(d, "location id %u out of range", l.id);
      return;
   }
   /* The tool numbers locations 1, 2, 3, ...: an id past the number of
    * LOCDEFs is damage, and must not size the writer's tables. */
   if (l.id > d->nlocdefs + 1) {
      broken(d, "location id %u after only %u locations", l.id, d->nlocdefs);
      return;
   }
   d->nlocdefs++;
   cb_error err;
   if (cb_writer_location(d->w, l.id, &loc, &err) < 0) {
      write_failed(d, &err);
      return;
   }
   if (l.id > d->max_loc)
      d->max_loc = l.id;
}

static void take_symdef(cb_wire_decoder *d, const unsigned char *r,
                        size_t tail_len)
{
   cb_wire_locdef l;
   memcpy(&l, r, sizeof l);
   char name[1024];
   cb_symbol sym = {l.address, l.line,
                    tail_string(r + sizeof l, tail_len, 0, name, sizeof name)};
   cb_error err;
   if (cb_writer_symbol(d->w, &sym, &err) < 0)
      write_failed(d, &err);
}

static void take_vardef(cb_wire_decoder *d, const unsigned char *r,
                        size_t tail_len)
{
   cb_wire_locdef l;
   memcpy(&l, r, sizeof l);
   char name[1024], file[1024];
   const unsigned char *s = r + sizeof l;
   cb_variable v = {l.address, l.id,
                    tail_string(s, tail_len, 0, name, sizeof name),
                    tail_string(s, tail_len, 1, file, sizeof file), l.line,
                    l.pad & 1};
   cb_error err;
   if (cb_writer_variable(d->w, &v, &err) < 0)
      write_failed(d, &err);
}

static void take_event(cb_wire_decoder *d, const cb_wire_event *e)
{
   if (e->kind == CB_EV_NONE || e->kind >= CB_EV_KIND_COUNT) {
      broken(d, "unknown record kind %u", e->kind);
      return;
   }
   if (e->tid == 0) {
      d->dropped++;
      return;
   }
   cb_event ev = {.kind = e->kind, .size = e->size, .tid = e->tid, .loc = e->loc,
                   .rmw = e->kind == CB_EV_WRITE && e->rmw < CB_RMW_COUNT ? e->rmw : 0,
                   .addr = e->addr, .value = e->value};
   if (ev.loc > d->max_loc) {
      ev.loc = 0;
      d->bad_loc++;
   }
   cb_error err;
   if (cb_writer_event(d->w, &ev, &err) < 0) {
      write_failed(d, &err);
      return;
   }
   d->events++;
}

/* A BLOCKED record (cb_wire.h, "Deadlocks"): kept for the footer. */
static void blocked_record(cb_wire_decoder *d, const cb_wire_event *e)
{
   if (e->size == 0 || e->size >= CB_WAIT_KIND_COUNT || e->tid == 0) {
      broken(d, "a BLOCKED record of kind %u for thread %u", e->size, e->tid);
      return;
   }
   if (d->nblocked == d->capblocked) {
      size_t nc = d->capblocked ? 2 * d->capblocked : 8;
      cb_blocked *nb = realloc(d->blocked, nc * sizeof *nb);
      if (!nb) {
         broken(d, "out of memory");
         return;
      }
      d->blocked = nb;
      d->capblocked = nc;
   }
   cb_blocked *b = &d->blocked[d->nblocked++];
   memset(b, 0, sizeof *b);
   b->tid = e->tid;
   b->kind = e->size;
   b->loc = e->loc <= d->max_loc ? e->loc : 0;
   b->object = e->addr;
   switch (e->size) {
   case CB_WAIT_LOCK:
   case CB_WAIT_RDLOCK:
   case CB_WAIT_WRLOCK:
      b->holder = (uint32_t)e->value;
      b->holder_loc = (uint32_t)(e->value >> 32);
      if (b->holder_loc > d->max_loc)
         b->holder_loc = 0;
      break;
   case CB_WAIT_JOIN:
      b->holder = (uint32_t)e->value;
      break;
   default:
      b->value = e->value;
   }
}

/* Handles one whole record (tail_len: the bytes of its strings). */
static void one_record(cb_wire_decoder *d, const unsigned char *r,
                       size_t tail_len)
{
   cb_wire_event e;
   memcpy(&e, r, sizeof e);
   if (!d->hello_seen) {
      take_hello(d, &e, r);
      return;
   }
   if (d->end_seen) {
      d->after_end++;
      return;
   }
   switch (e.kind) {
   case CB_WIRE_HELLO: broken(d, "a second HELLO"); return;
   case CB_WIRE_END: d->end_seen = 1; return;
   case CB_WIRE_BLOCKED: blocked_record(d, &e); return;
   case CB_WIRE_LOCDEF: take_locdef(d, r, tail_len); return;
   case CB_WIRE_SYMDEF: take_symdef(d, r, tail_len); return;
   case CB_WIRE_VARDEF: take_vardef(d, r, tail_len); return;
   default: take_event(d, &e); return;
   }
}

/* Length of the record at p, given n >= 32 bytes of it. */
static size_t record_len(const unsigned char *p)
{
   if (CB_WIRE_HAS_STRINGS(p[0])) {
      cb_wire_locdef l;
      memcpy(&l, p, sizeof l);
      return sizeof l + l.strlen;
   }
   return sizeof(cb_wire_event);
}

static size_t consume(cb_wire_decoder *d, const unsigned char *p, size_t n)
{
   const size_t rec = sizeof(cb_wire_event);
   size_t done = 0;
   while (n - done >= rec && !d->broken && !d->write_failed) {
      if (d->hello_seen && !d->end_seen) {
         /* The bulk of the stream: runs of plain events, taken by the
          * writer in one call. */
         cb_wire_counts c = {0, 0, 0};
         long k = cb_writer_wire_events(d->w, p + done, (n - done) / rec, &c,
                                        &d->write_err);
         d->events += c.events;
         d->dropped += c.dropped;
         d->bad_loc += c.bad_loc;
         if (k < 0) {
            d->write_failed = 1;
            break;
         }
         done += (size_t)k * rec;
         if (n - done < rec)
            break;
      }
      size_t rl = record_len(p + done);
      if (n - done < rl)
         break;
      one_record(d, p + done, rl - rec);
      done += rl;
   }
   if (d->broken || d->write_failed)
      return n;
   return done;
}

void cb_wire_feed(cb_wire_decoder *d, const void *data, size_t n)
{
   const unsigned char *p = data;
   if (d->broken || d->write_failed)
      return;
   if (d->len > 0) {
      /* Complete the pending record from the new bytes first. */
      size_t need = sizeof(cb_wire_event);
      if (d->len >= need)
         need = record_len(d->buf);
      while (d->len < need && n > 0) {
         size_t take = need - d->len < n ? need - d->len : n;
         if (d->len + take > d->cap) {
            size_t nc = d->cap ? d->cap * 2 : 1024;
            while (nc < d->len + take)
               nc *= 2;
            unsigned char *nb = realloc(d->buf, nc);
            if (!nb) {
               broken(d, "out of memory");
               return;
            }
            d->buf = nb;
            d->cap = nc;
         }
         memcpy(d->buf + d->len, p, take);
         d->len += take;
         p += take;
         n -= take;
         if (d->len == sizeof(cb_wire_event))
            need = record_len(d->buf);
      }
      if (d->len < need)
         return;
      consume(d, d->buf, d->len);
      d->len = 0;
   }
   size_t done = consume(d, p, n);
   if (done < n) {
      if (n - done > d->cap) {
         unsigned char *nb = realloc(d->buf, n - done + 1024);
         if (!nb) {
            broken(d, "out of memory");
            return;
         }
         d->buf = nb;
         d->cap = n - done + 1024;
      }
      memcpy(d->buf, p + done, n - done);
      d->len = n - done;
   }
}

void cb_wire_finish(cb_wire_decoder *d)
{
   if (d->len > 0 && !d->broken && !d->write_failed)
      broken(d, "the stream ends inside a record (%zu bytes)", d->len);
}

size_t cb_wire_troubles(const cb_wire_decoder *d,
                        char out[CB_WIRE_NTROUBLES][CB_WIRE_TROUBLE_LEN])
{
   size_t n = 0;
   if (d->broken)
      snprintf(out[n++], CB_WIRE_TROUBLE_LEN,
               "%s; events after it are lost", d->why);
   if (d->dropped)
      snprintf(out[n++], CB_WIRE_TROUBLE_LEN,
               "%llu events without a thread id were dropped",
               (unsigned long long)d->dropped);
   if (d->bad_loc)
      snprintf(out[n++], CB_WIRE_TROUBLE_LEN,
               "%llu events named an undefined location (kept, location "
               "unknown)",
               (unsigned long long)d->bad_loc);
   if (d->after_end)
      snprintf(out[n++], CB_WIRE_TROUBLE_LEN, "%llu records after END ignored",
               (unsigned long long)d->after_end);
   return n;
}

void cb_wire_free(cb_wire_decoder *d)
{
   free(d->buf);
   d->buf = NULL;
   free(d->blocked);
   d->blocked = NULL;
   d->nblocked = d->capblocked = 0;
}
