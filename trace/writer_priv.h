/* writer_priv.h: the state of the streaming trace writer, shared by
 * writer.c (opening, metadata, assembling and writing chunks, closing) and
 * write_events.c (the hot path that appends events to the columns).
 * Private to the trace library.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CB_WRITER_PRIV_H
#define CB_WRITER_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "trace.pb-c.h"
#include "trace_internal.h"

/* ---- protobuf varints (base 128, low groups first) --------------------------
 * put_varint writes at most 10 bytes. */
static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
   while (v >= 0x80) {
      *p++ = (uint8_t)(v | 0x80);
      v >>= 7;
   }
   *p++ = (uint8_t)v;
   return p;
}

/* The packed columns of Events, in field order (writer.c has their field
 * numbers and worst-case bytes an event). */
enum { COL_KS, COL_SW_AT, COL_SW_TID, COL_ADDR, COL_LOC, COL_VALUE, NCOLS };
#define COL_SLACK 16 /* for put_varint_wide's wide stores */

#define KIND_ABSENT 0xffffu  /* kind_index: not in this chunk's table yet */
#define KIND_VALUE 0x8000u   /* kind_index: the event carries a value */
#define KS_COUNT 8192        /* kind | size << 5 */
/* The key of the per-chunk table: kind | size << 5 | rmw << 13 (only a
 * WRITE has an rmw class, so at most KS_TABLE_MAX distinct keys). */
#define KEY_COUNT (KS_COUNT * CB_RMW_COUNT)
#define KS_TABLE_MAX (KS_COUNT + (CB_RMW_COUNT - 1) * 256)

typedef struct {
   uint64_t addr;
   uint32_t gen;
} loc_slot;

struct cb_writer {
   int fd;
   int failed;               /* a write failed: refuse everything after */
   uint64_t first_index;     /* index of the first event of this chunk */
   uint32_t max_loc;         /* highest location id defined */
   /* The chunk in progress, already in its final form: each column holds
    * the varint bytes of its packed field, with room for a whole chunk's
    * worst case, so appending needs no check. */
   size_t n;                 /* events */
   uint8_t *col_base[NCOLS];
   uint8_t *col_end[NCOLS];
   size_t last_switch;       /* offset of the last switch in the chunk */
   uint32_t prev_loc;
   uint32_t cur_tid;         /* 0 at the start of a chunk */
   /* key -> index into ks_table | KIND_VALUE, or KIND_ABSENT; the entries
    * of the table are reset at each chunk. */
   uint16_t kind_index[KEY_COUNT];
   uint32_t ks_table[KS_TABLE_MAX];
   size_t nks;
   /* Last address per location; slots of an older generation count as 0. */
   uint32_t gen;
   loc_slot *loc;
   size_t loc_cap;
   /* Locations and symbols defined since the last chunk. */
   Cbtools__Location **locs;
   size_t nlocs, cap_locs;
   Cbtools__Symbol **syms;
   size_t nsyms, cap_syms;
   Cbtools__Variable **vars;
   size_t nvars, cap_vars;
   /* Chunk assembly: protobuf-c's parts, and the hand-written small bytes
    * (tags, lengths, the kind table). */
   uint8_t *head_buf, *tail_buf;
   size_t head_cap, tail_cap;
   uint8_t small[KS_TABLE_MAX * 3 + 256]; /* tags, table, rmw column */
};

#endif /* CB_WRITER_PRIV_H */
