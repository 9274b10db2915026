/* write_events.c: the hot path of the trace writer (writer_priv.h):
 * events appended to the chunk's columns as the varint bytes of
 * trace.proto's packed fields, one at a time (cb_writer_event) or straight
 * from runs of the tool's raw records (cb_writer_wire_events, for `cbtrace
 * record`).  A full chunk is written by writer.c (cb_writer_flush).
 *
 * Speed: `cbtrace record` runs this for every event of the program, beside
 * Valgrind, so it must cost a few nanoseconds an event.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <string.h>

#include "writer_priv.h"

/* Bytes of a varint by the count of leading zero bits of its value. */
static const uint8_t varint_len_by_clz[65] = {
   10, 9, 9, 9, 9, 9, 9, 9, 8, 8, 8, 8, 8, 8, 8, 7, 7, 7, 7, 7, 7, 7,
   6,  6, 6, 6, 6, 6, 6, 5, 5, 5, 5, 5, 5, 5, 4, 4, 4, 4, 4, 4, 4, 3,
   3,  3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1};

/* The same without a loop for values below 2^56 (nearly all): the 7-bit
 * groups are spread into 8 bytes, stored at once, and p advances by the
 * varint's length, so a length that varies from event to event costs no
 * mispredicted branch.  Used for address deltas, whose length does vary (a
 * loop there cost 1.7 ns an event); values and location deltas are faster
 * with the loop (mostly one length).  Writes up to 8 bytes from p whatever
 * the length: the buffer needs that slack. */
static inline uint8_t *put_varint_wide(uint8_t *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
   if (__builtin_expect(v < (1ull << 56), 1)) {
      uint64_t x = (v & 0xfffffffull) | (v << 4 & 0x0fffffff00000000ull);
      x = (x & 0x00003fff00003fffull) | (x << 2 & 0x3fff00003fff0000ull);
      x = (x & 0x007f007f007f007full) | (x << 1 & 0x7f007f007f007f00ull);
      unsigned len = varint_len_by_clz[__builtin_clzll(v | 1)];
      x |= 0x8080808080808080ull & ((1ull << (8 * len - 8)) - 1);
      memcpy(p, &x, 8);
      return p + len;
   }
#endif
   return put_varint(p, v);
}

/* ---- The hot path ---------------------------------------------------------
 * The column ends and per-chunk state live in a local `cursor` while a run
 * of events is appended, so the compiler keeps them in registers. */
typedef struct {
   uint8_t *ks, *sw_at, *sw_tid, *addr, *loc, *value;
   size_t n, last_switch;
   uint32_t prev_loc, cur_tid;
} cursor;

static inline void cursor_load(const cb_writer *w, cursor *c)
{
   c->ks = w->col_end[COL_KS];
   c->sw_at = w->col_end[COL_SW_AT];
   c->sw_tid = w->col_end[COL_SW_TID];
   c->addr = w->col_end[COL_ADDR];
   c->loc = w->col_end[COL_LOC];
   c->value = w->col_end[COL_VALUE];
   c->n = w->n;
   c->last_switch = w->last_switch;
   c->prev_loc = w->prev_loc;
   c->cur_tid = w->cur_tid;
}

static inline void cursor_store(cb_writer *w, const cursor *c)
{
   w->col_end[COL_KS] = c->ks;
   w->col_end[COL_SW_AT] = c->sw_at;
   w->col_end[COL_SW_TID] = c->sw_tid;
   w->col_end[COL_ADDR] = c->addr;
   w->col_end[COL_LOC] = c->loc;
   w->col_end[COL_VALUE] = c->value;
   w->n = c->n;
   w->last_switch = c->last_switch;
   w->prev_loc = c->prev_loc;
   w->cur_tid = c->cur_tid;
}

/* A new entry of the kind table; rare (a few per chunk). */
static __attribute__((noinline)) unsigned add_kind(cb_writer *w, unsigned ks)
{
   unsigned idx = (unsigned)w->nks;
   w->ks_table[w->nks++] = ks;
   if (cb_event_has_value(ks & 31, (ks >> 5) & 0xff))
      idx |= KIND_VALUE;
   w->kind_index[ks] = (uint16_t)idx;
   return idx;
}

/* Appends one event that is known to be sound: kind 1..18, tid != 0,
 * loc <= max_loc, rmw a class and 0 unless a WRITE; the chunk is not
 * full. */
static inline __attribute__((always_inline)) void
put_event(cb_writer *w, cursor *c, unsigned kind, unsigned size, unsigned rmw,
          unsigned tid, uint32_t loc, uint64_t addr, uint64_t value)
{
   if (__builtin_expect(tid != c->cur_tid, 0)) {
      c->sw_at = put_varint(c->sw_at, c->n - c->last_switch);
      c->sw_tid = put_varint(c->sw_tid, tid);
      c->last_switch = c->n;
      c->cur_tid = tid;
   }
   unsigned ks = kind | size << 5 | rmw << 13;
   unsigned idx = w->kind_index[ks];
   if (__builtin_expect(idx == KIND_ABSENT, 0))
      idx = add_kind(w, ks);
   unsigned ki = idx & ~KIND_VALUE;
   if (__builtin_expect(ki < 128, 1))
      *c->ks++ = (uint8_t)ki;
   else
      c->ks = put_varint(c->ks, ki);
   loc_slot *s = &w->loc[loc];
   uint64_t prev = s->gen == w->gen ? s->addr : 0;
   s->gen = w->gen;
   s->addr = addr;
   c->addr = put_varint_wide(c->addr, cb_zigzag64((int64_t)(addr - prev)));
   int32_t dl = (int32_t)(loc - c->prev_loc);
   c->prev_loc = loc;
   c->loc = put_varint(c->loc, ((uint32_t)dl << 1) ^ (uint32_t)(dl >> 31));
   if (idx & KIND_VALUE)
      c->value = put_varint(c->value, value);
   c->n++;
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
   if (e->rmw >= CB_RMW_COUNT || (e->rmw && e->kind != CB_EV_WRITE))
      return cb_fail(err, "event %llu: read-modify-write class %u on a %s",
                     (unsigned long long)(w->first_index + w->n), e->rmw,
                     e->kind == CB_EV_WRITE ? "write" : "non-write");
   cursor c;
   cursor_load(w, &c);
   put_event(w, &c, e->kind, e->size, e->rmw, e->tid, e->loc, e->addr, e->value);
   cursor_store(w, &c);
   if (w->n == CB_CHUNK_EVENTS)
      return cb_writer_flush(w, err);
   return 0;
}

long cb_writer_wire_events(cb_writer *w, const unsigned char *recs,
                           size_t nrec, cb_wire_counts *counts, cb_error *err)
{
   size_t i = 0;
   uint64_t dropped = 0, bad_loc = 0, events = 0;
   uint32_t max_loc = w->max_loc;
   int stop = 0;
   while (i < nrec && !stop) {
      cursor c;
      cursor_load(w, &c);
      size_t room = CB_CHUNK_EVENTS - c.n;
      size_t end = nrec - i < room ? nrec : i + room;
      for (; i < end; i++) {
         /* The fields of a cb_wire_event, loaded one by one (memcpy: the
          * bytes have no declared type and may be unaligned). */
         const unsigned char *r = recs + i * sizeof(cb_wire_event);
         unsigned kind = r[0], size = r[1], rmw = r[2];
         uint32_t tid, loc;
         uint64_t addr, value;
         memcpy(&tid, r + 4, 4);
         memcpy(&loc, r + 8, 4);
         memcpy(&addr, r + 16, 8);
         memcpy(&value, r + 24, 8);
         if (__builtin_expect(kind - 1u >= CB_EV_KIND_COUNT - 1u, 0)) {
            stop = 1; /* not an event: the caller's business */
            break;
         }
         if (__builtin_expect(tid == 0, 0)) {
            dropped++;
            continue;
         }
         if (__builtin_expect(loc > max_loc, 0)) {
            loc = 0;
            bad_loc++;
         }
         /* The tool sets rmw on a WRITE only; anything else is damage,
          * and an unknown class is none. */
         if (__builtin_expect(rmw != 0, 0) &&
             (kind != CB_EV_WRITE || rmw >= CB_RMW_COUNT))
            rmw = 0;
         put_event(w, &c, kind, size, rmw, tid, loc, addr, value);
      }
      events += c.n - w->n;
      cursor_store(w, &c);
      if (w->n == CB_CHUNK_EVENTS && cb_writer_flush(w, err) < 0) {
         counts->events += events;
         counts->dropped += dropped;
         counts->bad_loc += bad_loc;
         return -1;
      }
   }
   counts->events += events;
   counts->dropped += dropped;
   counts->bad_loc += bad_loc;
   return (long)i;
}
