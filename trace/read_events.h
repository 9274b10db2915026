/* read_events.h: what reader.c (the trace file: frames, header, chunks,
 * footer) and read_events.c (a chunk's Events into the event array) share.
 * Private to the trace library.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CB_READ_EVENTS_H
#define CB_READ_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "trace.pb-c.h"
#include "trace_internal.h"

/* Per-location last address, for chunks with addr_by_location; entries
 * stamped with an older chunk generation count as 0. */
typedef struct {
   uint64_t *addr;
   uint32_t *gen;
   size_t cap;
   uint32_t cur;
   /* Location records taken so far.  Ids are dense (the tool and every
    * writer number them 1, 2, 3, ...), so an id above the number of records
    * the file has held is damage, and must not size the location array: a
    * 121-byte file naming id 2^26-1 would otherwise cost 2.6 GB. */
   size_t ndefs;
} loc_state;

typedef struct {
   const uint8_t *p;
   size_t len;
} span;

/* Scratch space of the hand decoder, kept from chunk to chunk. */
typedef struct {
   uint8_t *rest;       /* the chunk without its Events, for protobuf-c */
   size_t rest_cap;
   uint32_t *u32;       /* kind table, switch offsets and threads */
   size_t u32_cap;
} scratch;

/* An Events message as the hand decoder sees it: where each packed column
 * is and how many varints it holds. */
enum { F_KS = 2, F_SW_AT, F_SW_TID, F_ADDR, F_LOC, F_VALUE, F_TABLE,
       F_BY_LOC /* 9: a varint, in by_loc */, F_RMW, F_END };
typedef struct {
   span col[F_END];
   size_t count[F_END];
   int has_first, by_loc;
   uint64_t first;
} raw_events;

void cb_scratch_free(scratch *s);

/* Unpacks a frame: the Events by hand into *re (*hand = 1) and the rest
 * with protobuf-c, or all of it with protobuf-c.  NULL: cannot decode. */
Cbtools__Chunk *cb_unpack_frame(const uint8_t *pl, size_t plen, scratch *s,
                                raw_events *re, int *hand);

/* Decodes the events of re into t->events[t->nevents ...] without taking
 * them (t->nevents is left alone), with every check of cb_check_events.
 * nlocs: locations known after this chunk's own definitions.  Returns the
 * number of events, or -1 with the reason. */
long cb_decode_events(cb_trace *t, const raw_events *re, size_t nlocs,
                      loc_state *ls, scratch *s, uint32_t *max_tid,
                      cb_error *why);

/* The same in two steps for an Events message protobuf-c unpacked: checks
 * every column (then it can be taken without further checks), takes it. */
int cb_check_events(const Cbtools__Events *ev, uint64_t expect_first,
                    size_t nlocs, cb_error *why);
int cb_take_events(cb_trace *t, const Cbtools__Events *ev, loc_state *ls,
                   cb_error *err);

#endif /* CB_READ_EVENTS_H */
