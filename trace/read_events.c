/* read_events.c: the Events message of a chunk into the trace's flat
 * event array (read_events.h; reader.c takes the rest of the chunk).
 *
 * Speed: cbpredict spends most of its reading here.  The Events message
 * (nearly all of a chunk's bytes) is decoded by hand, straight from the
 * payload into the event array, checked as it goes; protobuf-c unpacks the
 * rest of the chunk.  A chunk whose Events the hand decoder does not expect
 * (a field repeated, repeated fields not packed: legal protobuf that
 * cbtools never writes) goes through protobuf-c whole, and its Events are
 * checked and taken from protobuf-c's arrays.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>

#include "read_events.h"

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

/* Whether a read-modify-write class fits its kind table entry: a class,
 * and none but on a WRITE. */
static int rmw_ok(uint64_t ks, uint64_t rmw)
{
   return rmw < CB_RMW_COUNT && (rmw == 0 || (ks & 31) == CB_EV_WRITE);
}

/* Checks every column of an Events message; on success the chunk can be
 * decoded without further checks.  nlocs: locations known after this
 * chunk's own definitions. */
int cb_check_events(const Cbtools__Events *ev, uint64_t expect_first,
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
      if (at >= n || ev->switch_tid[s] == 0)
         return cb_fail(why, "bad thread switch");
   }
   for (size_t k = 0; k < ev->n_kind_size_table; k++)
      if (ev->kind_size_table[k] >= (1u << 13))
         return cb_fail(why, "bad kind table");
   if (ev->n_kind_size_rmw && ev->n_kind_size_rmw != ev->n_kind_size_table)
      return cb_fail(why, "%zu read-modify-write classes for %zu kinds",
                     ev->n_kind_size_rmw, ev->n_kind_size_table);
   for (size_t k = 0; k < ev->n_kind_size_rmw; k++)
      if (!rmw_ok(ev->kind_size_table[k], ev->kind_size_rmw[k]))
         return cb_fail(why, "bad read-modify-write class");
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

/* Room for `more` events after t->nevents.  The array is asked to live in
 * huge pages: a trace of millions of events otherwise costs a page fault
 * every 170 events, which on a virtual machine costs more than decoding. */
static int reserve_events(cb_trace *t, size_t more, cb_error *err)
{
   cb_trace_priv *p = t->arena_;
   if (t->nevents + more <= p->cap_events)
      return 0;
   size_t nc = p->cap_events ? p->cap_events : 65536;
   while (nc < t->nevents + more)
      nc *= 2;
   cb_event *ne = realloc(t->events, nc * sizeof *ne);
   if (!ne)
      return cb_fail(err, "out of memory for %zu events", t->nevents + more);
   t->events = ne;
   p->cap_events = nc;
#ifdef MADV_HUGEPAGE
   /* A block this large is a mapping of its own (glibc): advise all of it,
    * page-rounded outwards, so the mapping is not split and realloc can
    * still grow it by mremap instead of copying. */
   if (nc * sizeof *ne >= (8u << 20)) {
      uintptr_t a = (uintptr_t)ne & ~(uintptr_t)4095;
      uintptr_t e = ((uintptr_t)(ne + nc) + 4095) & ~(uintptr_t)4095;
      madvise((void *)a, e - a, MADV_HUGEPAGE); /* advice: failure is fine */
   }
#endif
   return 0;
}

/* ---- Events decoded by hand ------------------------------------------------ */

void cb_scratch_free(scratch *s)
{
   free(s->rest);
   free(s->u32);
}

static int get_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
   const uint8_t *p = *pp;
   uint64_t r = 0;
   for (unsigned shift = 0; shift < 64 && p < end; shift += 7) {
      uint8_t b = *p++;
      r |= (uint64_t)(b & 0x7f) << shift;
      if (b < 0x80) {
         *pp = p;
         *v = r;
         return 0;
      }
   }
   return -1;
}

/* Skips one field's value of wire type wt; -1 for groups or damage. */
static int skip_field(const uint8_t **pp, const uint8_t *end, unsigned wt)
{
   uint64_t v;
   switch (wt) {
   case 0:
      return get_varint(pp, end, &v);
   case 1:
   case 5: {
      size_t k = wt == 1 ? 8 : 4;
      if ((size_t)(end - *pp) < k)
         return -1;
      *pp += k;
      return 0;
   }
   case 2:
      if (get_varint(pp, end, &v) < 0 || v > (uint64_t)(end - *pp))
         return -1;
      *pp += v;
      return 0;
   default:
      return -1;
   }
}

/* Splits a Chunk's bytes into its Events field (*ev, p == NULL if none)
 * and the rest (copied into s->rest).  -1: not the expected shape (Events
 * twice, damage): let protobuf-c have all of it. */
static int split_chunk(const uint8_t *p, size_t len, span *ev, size_t *rest_len,
                       scratch *s)
{
   if (len > s->rest_cap) {
      size_t nc = s->rest_cap ? s->rest_cap : 4096;
      while (nc < len)
         nc *= 2;
      uint8_t *nb = realloc(s->rest, nc);
      if (!nb)
         return -1;
      s->rest = nb;
      s->rest_cap = nc;
   }
   const uint8_t *end = p + len;
   size_t rl = 0;
   ev->p = NULL;
   ev->len = 0;
   while (p < end) {
      const uint8_t *field = p;
      uint64_t tag;
      if (get_varint(&p, end, &tag) < 0)
         return -1;
      if (tag >> 3 == 3 && (tag & 7) == 2) {
         uint64_t l;
         if (ev->p || get_varint(&p, end, &l) < 0 || l > (uint64_t)(end - p))
            return -1;
         ev->p = p;
         ev->len = (size_t)l;
         p += l;
         continue;
      }
      if (skip_field(&p, end, (unsigned)(tag & 7)) < 0)
         return -1;
      memcpy(s->rest + rl, field, (size_t)(p - field));
      rl += (size_t)(p - field);
   }
   *rest_len = rl;
   return 0;
}

/* Varints in a packed column: the bytes that end one (high bit clear),
 * counted eight at a time (every column byte of every event passes here).
 * A column must end with the end of a varint. */
static int count_varints(span c, size_t *n)
{
   size_t k = 0, i = 0;
   for (; i + 8 <= c.len; i += 8) {
      uint64_t w;
      memcpy(&w, c.p + i, sizeof w);
      /* A 1 in each byte whose high bit is clear, summed by the multiply
       * into the top byte. */
      k += (((~w & 0x8080808080808080ull) >> 7) * 0x0101010101010101ull) >> 56;
   }
   for (; i < c.len; i++)
      k += c.p[i] < 0x80;
   *n = k;
   return c.len == 0 || c.p[c.len - 1] < 0x80 ? 0 : -1;
}

/* The next varint of a column that is known to end with a whole varint;
 * UINT64_MAX... is a legal value, so too-long varints set *bad. */
static inline uint64_t next_varint(const uint8_t **pp, int *bad)
{
   const uint8_t *p = *pp;
   uint64_t b = *p++;
   if (__builtin_expect(b < 0x80, 1)) {
      *pp = p;
      return b;
   }
   uint64_t r = b & 0x7f;
   unsigned shift = 7;
   do {
      b = *p++;
      if (shift < 64)
         r |= (b & 0x7f) << shift;
      else
         *bad = 1;
      shift += 7;
   } while (b >= 0x80);
   *pp = p;
   return r;
}

static uint32_t *scratch_u32(scratch *s, size_t n)
{
   if (n > s->u32_cap) {
      size_t nc = s->u32_cap ? s->u32_cap : 1024;
      while (nc < n)
         nc *= 2;
      uint32_t *a = realloc(s->u32, nc * sizeof *a);
      if (!a)
         return NULL;
      s->u32 = a;
      s->u32_cap = nc;
   }
   return s->u32;
}

/* Finds the fields of an Events message.  -1: not the shape cbtools
 * writes (a field repeated, a repeated field not packed) or damaged: then
 * protobuf-c decides. */
static int parse_events(span ev, raw_events *re)
{
   memset(re, 0, sizeof *re);
   int seen[F_END] = {0};
   const uint8_t *p = ev.p, *end = ev.p + ev.len;
   while (p < end) {
      uint64_t tag, v;
      if (get_varint(&p, end, &tag) < 0)
         return -1;
      unsigned f = (unsigned)(tag >> 3), wt = (unsigned)(tag & 7);
      if ((f >= F_KS && f <= F_TABLE) || f == F_RMW) {
         if (wt != 2 || seen[f])
            return -1;
         if (get_varint(&p, end, &v) < 0 || v > (uint64_t)(end - p))
            return -1;
         seen[f] = 1;
         re->col[f] = (span){p, (size_t)v};
         p += v;
         if (count_varints(re->col[f], &re->count[f]) < 0)
            return -1;
      } else if (f == 1 || f == 9) {
         if (wt != 0 || get_varint(&p, end, &v) < 0)
            return -1;
         if (f == 1) {
            re->has_first = 1;
            re->first = v;
         } else {
            re->by_loc = v != 0;
         }
      } else if (skip_field(&p, end, wt) < 0) {
         return -1;
      }
   }
   return 0;
}

/* Decodes the events of re into t->events[t->nevents ...] without taking
 * them (t->nevents is left alone), with every check of check_events.
 * Returns the number of events, or -1 with the reason. */
/* Checks re's first index and column lengths, then decodes its kind table
 * and thread switches into scratch space (the table, then switch offsets,
 * then thread ids) as *table, checked; *hi: the highest thread; *bad set
 * by a varint too long (reported after the events).  -1 with the
 * reason. */
static int decode_head(const cb_trace *t, const raw_events *re, scratch *s,
                       uint32_t **table, uint32_t *hi, int *bad,
                       cb_error *why)
{
   const span *col = re->col;
   size_t n = re->count[F_KS], n_at = re->count[F_SW_AT],
          n_table = re->count[F_TABLE];
   if (!re->has_first || re->first != t->nevents)
      return cb_fail(why, "events start at %llu, expected %llu",
                     (unsigned long long)re->first,
                     (unsigned long long)t->nevents);
   if (re->count[F_ADDR] != n || re->count[F_LOC] != n ||
       n_at != re->count[F_SW_TID])
      return cb_fail(why, "columns of different lengths");
   uint32_t *tb = *table = scratch_u32(s, n_table + 2 * n_at);
   if (!tb)
      return cb_fail(why, "out of memory");
   uint32_t *sw_at = tb + n_table, *sw_tid = sw_at + n_at;
   const uint8_t *p = col[F_TABLE].p;
   for (size_t k = 0; k < n_table; k++) {
      uint64_t v = next_varint(&p, bad);
      if (v >= (1u << 13))
         return cb_fail(why, "bad kind table");
      tb[k] = (uint32_t)v;
   }
   /* Each entry's read-modify-write class joins it above bit 13. */
   size_t n_rmw = re->count[F_RMW];
   if (n_rmw && n_rmw != n_table)
      return cb_fail(why, "%zu read-modify-write classes for %zu kinds", n_rmw,
                     n_table);
   p = col[F_RMW].p;
   for (size_t k = 0; k < n_rmw; k++) {
      uint64_t v = next_varint(&p, bad);
      if (!rmw_ok(tb[k], v))
         return cb_fail(why, "bad read-modify-write class");
      tb[k] |= (uint32_t)v << 13;
   }
   const uint8_t *pa = col[F_SW_AT].p, *pt = col[F_SW_TID].p;
   size_t at = 0;
   *hi = 0;
   for (size_t k = 0; k < n_at; k++) {
      uint64_t a = next_varint(&pa, bad), tid = next_varint(&pt, bad);
      sw_at[k] = (uint32_t)a;
      sw_tid[k] = (uint32_t)tid;
      if (k == 0 && a != 0)
         return cb_fail(why, "no thread for the first event");
      if (k > 0 && (uint32_t)a == 0)
         return cb_fail(why, "empty thread switch");
      at += (uint32_t)a;
      if (at >= n || tid == 0 || tid > 0xffffffffull)
         return cb_fail(why, "bad thread switch");
      if ((uint32_t)tid > *hi)
         *hi = (uint32_t)tid;
   }
   if (n > 0 && n_at == 0)
      return cb_fail(why, "no thread for the first event");
   return 0;
}

/* An event's address from its delta: to the last address of its code
 * location (by_loc), or to the previous event's (*addr). */
static inline uint64_t event_addr(loc_state *ls, int by_loc, int64_t loc,
                                  uint64_t *addr, uint64_t delta)
{
   if (!by_loc)
      return *addr += delta;
   uint64_t prev = ls->gen[loc] == ls->cur ? ls->addr[loc] : 0;
   ls->gen[loc] = ls->cur;
   return ls->addr[loc] = prev + delta;
}

long cb_decode_events(cb_trace *t, const raw_events *re, size_t nlocs,
                      loc_state *ls, scratch *s, uint32_t *max_tid,
                      cb_error *why)
{
   const span *col = re->col;
   size_t n = re->count[F_KS], n_at = re->count[F_SW_AT],
          n_val = re->count[F_VALUE], n_table = re->count[F_TABLE];
   int by_loc = re->by_loc;
   uint64_t expect_first = t->nevents;
   uint32_t *table = NULL, hi = 0;
   int bad = 0;
   if (decode_head(t, re, s, &table, &hi, &bad, why) < 0)
      return -1;
   const uint32_t *sw_at = table + n_table, *sw_tid = sw_at + n_at;
   if (by_loc && loc_state_fit(ls, nlocs, why) < 0)
      return -1;
   if (reserve_events(t, n, why) < 0)
      return -1;
   cb_event *out = t->events + t->nevents;
   const uint8_t *pks = col[F_KS].p, *pad = col[F_ADDR].p,
                 *plc = col[F_LOC].p, *pvl = col[F_VALUE].p;
   uint64_t addr = 0;
   int64_t loc = 0;
   uint32_t tid = 0;
   size_t sw = 0, next_switch = 0, vi = 0;
   for (size_t i = 0; i < n; i++) {
      if (__builtin_expect(i == next_switch, 0)) {
         tid = sw_tid[sw++];
         next_switch = sw < n_at ? i + sw_at[sw] : SIZE_MAX;
      }
      uint32_t ks = (uint32_t)next_varint(&pks, &bad);
      unsigned rmw = 0;
      if (n_table) {
         if (__builtin_expect(ks >= n_table, 0))
            return cb_fail(why, "event %llu: bad kind index",
                           (unsigned long long)(expect_first + i));
         ks = table[ks];
         rmw = ks >> 13;
         ks &= (1u << 13) - 1;
      }
      unsigned kind = ks & 31, size = ks >> 5;
      if (__builtin_expect(kind == CB_EV_NONE || kind >= CB_EV_KIND_COUNT ||
                               size > 255,
                           0))
         return cb_fail(why, "event %llu: bad kind or size",
                        (unsigned long long)(expect_first + i));
      uint32_t zl = (uint32_t)next_varint(&plc, &bad);
      loc += (int32_t)((zl >> 1) ^ (0u - (zl & 1)));
      if (__builtin_expect(loc < 0 || (uint64_t)loc >= nlocs, 0))
         return cb_fail(why, "event %llu: undefined location",
                        (unsigned long long)(expect_first + i));
      uint64_t za = next_varint(&pad, &bad);
      uint64_t delta = (za >> 1) ^ (0 - (za & 1));
      cb_event *e = &out[i];
      e->kind = (uint8_t)kind;
      e->size = (uint8_t)size;
      e->flags = e->was = 0; /* in memory only (cbtrace.h) */
      e->tid = (uint32_t)tid;
      e->loc = (uint32_t)loc;
      e->rmw = (uint8_t)rmw;
      e->addr = event_addr(ls, by_loc, loc, &addr, delta);
      e->value = 0;
      if (cb_event_has_value(kind, size)) {
         if (__builtin_expect(vi >= n_val, 0))
            return cb_fail(why, "more events carry a value than the %zu "
                                "values", n_val);
         e->value = next_varint(&pvl, &bad);
         vi++;
      }
   }
   if (bad)
      return cb_fail(why, "a varint longer than 64 bits");
   if (vi != n_val)
      return cb_fail(why, "%zu values for %zu events that carry one", n_val,
                     vi);
   *max_tid = hi;
   return (long)n;
}

int cb_take_events(cb_trace *t, const Cbtools__Events *ev, loc_state *ls,
                       cb_error *err)
{
   int by_loc = ev->has_addr_by_location && ev->addr_by_location;
   if (by_loc && loc_state_fit(ls, t->nlocs ? t->nlocs : 1, err) < 0)
      return -1;
   size_t n = ev->n_kind_size;
   if (reserve_events(t, n, err) < 0)
      return -1;
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
      cb_event *e = &out[i];
      e->rmw = ev->n_kind_size_rmw ? (uint8_t)ev->kind_size_rmw[ks] : 0;
      if (ev->n_kind_size_table)
         ks = ev->kind_size_table[ks];
      e->kind = (uint8_t)(ks & 31);
      e->size = (uint8_t)(ks >> 5);
      e->flags = e->was = 0; /* in memory only (cbtrace.h) */
      e->tid = (uint32_t)tid;
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

/* Unpacks a frame: the Events by hand into *re (*hand = 1) and the rest
 * with protobuf-c, or all of it with protobuf-c.  NULL: cannot decode. */
Cbtools__Chunk *cb_unpack_frame(const uint8_t *pl, size_t plen,
                                    scratch *s, raw_events *re, int *hand)
{
   span ev;
   size_t rest_len;
   *hand = 0;
   if (split_chunk(pl, plen, &ev, &rest_len, s) == 0 &&
       (!ev.p || parse_events(ev, re) == 0)) {
      Cbtools__Chunk *c = cbtools__chunk__unpack(NULL, rest_len, s->rest);
      if (c)
         *hand = ev.p != NULL;
      return c;
   }
   return cbtools__chunk__unpack(NULL, plen, pl);
}
