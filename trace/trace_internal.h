/* trace_internal.h: what the files of the trace library share and nobody
 * else needs: the framing, the file loader, the string arena behind
 * cb_trace.arena_, and which events carry a value.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CB_TRACE_INTERNAL_H
#define CB_TRACE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cbtrace.h"

#define CB_TRACE_FORMAT_VERSION 1u
#define CB_TOOLS_VERSION "0.1"

/* ---- frame.c: magic, then frames of u32 length, u32 CRC-32, payload ---- */
#define CB_MAGIC_LEN 8
extern const unsigned char cb_trace_magic[CB_MAGIC_LEN]; /* "CBTRACE\x01" */
extern const unsigned char cb_sched_magic[CB_MAGIC_LEN]; /* "CBSCHED\x01" */
/* A frame longer than this is taken for damage, not for data. */
#define CB_FRAME_MAX (256u << 20)

/* A candidate of the hand-made lock finders (spinlocks.c, semlocks.c),
 * in a table keyed by its address (locktab.c). */
typedef struct {
   uint64_t addr;
   uint32_t holder; /* the thread inside; 0: free */
   uint32_t taken;  /* acquisitions seen */
   uint8_t bad;     /* not a lock */
   uint8_t used;    /* slot in use */
} cb_lockcand;
typedef struct {
   cb_lockcand *c;
   size_t mask, n;
} cb_locktab;
/* addr's candidate; added when absent and add (NULL and *oom = 1 on no
 * memory); NULL when absent and !add. */
cb_lockcand *cb_locktab_find(cb_locktab *tab, uint64_t addr, int add, int *oom);
void cb_locktab_free(cb_locktab *tab);

uint32_t cb_crc32(const void *data, size_t len);
/* The same over pieces: crc = cb_crc32_update(crc, piece, len) from 0. */
uint32_t cb_crc32_update(uint32_t crc, const void *data, size_t len);
/* The same without the carry-less multiply, for tests of the fast path. */
uint32_t cb_crc32_portable(uint32_t crc, const void *data, size_t len);
int cb_write_all(int fd, const void *data, size_t len, cb_error *err);
/* Schedules in their compact form (schedule_compact.c): packs s keeping
 * each location and expected event once (*buf malloc'd), and fills a read
 * schedule's references back in (file_len bounds what it may copy). */
struct Cbtools__Schedule;
int cb_schedule_pack(const struct Cbtools__Schedule *s, uint8_t **buf,
                     size_t *len, cb_error *err);
int cb_schedule_expand(struct Cbtools__Schedule *s, size_t file_len,
                       cb_error *err);
/* Writes header and payload with one writev, so a reader of a file being
 * written sees either nothing of the frame or (usually) all of it; after
 * lead (lead_len bytes: a new file's magic, one system call for a small
 * file; 0: none) in the same writev. */
int cb_frame_write(int fd, const void *lead, size_t lead_len,
                   const void *payload, size_t len, cb_error *err);
/* The same with the payload in pieces (no copy to join them). */
#define CB_FRAME_MAX_PARTS 32
struct iovec;
int cb_frame_writev(int fd, const struct iovec *parts, int nparts,
                    cb_error *err);

typedef struct {
   const uint8_t *data;
   size_t len;
   size_t pos;   /* offset of the next frame */
   unsigned n;   /* frames returned so far */
} cb_frame_reader;

/* Checks the magic; 0 or -1 with the reason ("not a cbtools trace", ...). */
int cb_frame_begin(cb_frame_reader *r, const void *data, size_t len,
                   const unsigned char magic[CB_MAGIC_LEN], const char *what,
                   cb_error *err);
/* 1: a whole frame with a good CRC; 0: clean end of data; -1: damaged
 * (cut short or bad CRC), reason in *why. */
int cb_frame_next(cb_frame_reader *r, const uint8_t **payload, size_t *plen,
                  cb_error *why);

/* A whole file in memory (blob.c): mapped when it is a regular file; from
 * a pipe or device only its magic and whole good frames, at most
 * CB_STREAM_MAX bytes. */
#define CB_STREAM_MAX ((size_t)256 << 20)
typedef struct {
   const uint8_t *data;
   size_t len;
   int mapped;
} cb_blob;
int cb_blob_load(const char *path, cb_blob *b, cb_error *err);
void cb_blob_free(cb_blob *b);

/* ---- build.c: the private part of a cb_trace ----------------------------- */
typedef struct cb_alloc_span cb_alloc_span;
typedef struct {
   struct cb_arena_block *blocks;
   size_t cap_events, cap_locs, cap_syms, cap_vars;
   /* Allocation index for cb_variable_str, built on first use. */
   cb_alloc_span *allocs;
   size_t nallocs;
   size_t allocs_for_nevents; /* nevents when it was built; SIZE_MAX: never */
   /* Each location's source line (cb_location_source): NULL not read yet,
    * "" none; nsrcs is nlocs when they were counted. */
   const char **srcs;
   size_t nsrcs;
} cb_trace_priv;

cb_trace_priv *cb_trace_priv_get(cb_trace *t, cb_error *err);
/* Copies n bytes into t's arena. */
void *cb_trace_alloc(cb_trace *t, size_t n, cb_error *err);

/* ---- which events carry a value (trace.proto, Events.value) ------------ */
static inline int cb_event_has_value(unsigned kind, unsigned size)
{
   switch (kind) {
   case CB_EV_READ:
   case CB_EV_WRITE:
      return CB_SIZE_BYTES(size) <= 8;
   case CB_EV_LOCK:
   case CB_EV_UNLOCK:
   case CB_EV_COND_WAIT:
   case CB_EV_BARRIER_ENTER:
   case CB_EV_BARRIER_LEAVE:
   case CB_EV_THREAD_CREATE:
   case CB_EV_THREAD_START:
   case CB_EV_THREAD_JOIN:
   case CB_EV_ALLOC:
   case CB_EV_SEM_POST:
   case CB_EV_SEM_WAIT:
   case CB_EV_UNHANDLED:
      return 1;
   default:
      return 0;
   }
}

static inline uint64_t cb_zigzag64(int64_t v)
{
   return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

/* ---- write_events.c: the tool's raw records (cb_wire.h) straight into a
 * writer, for `cbtrace record` (one call per run of records, not per
 * event). */
typedef struct {
   uint64_t events;  /* written */
   uint64_t dropped; /* without a thread id: not written */
   uint64_t bad_loc; /* named an undefined location: written with location 0 */
} cb_wire_counts;
/* Takes consecutive 32-byte event records (cb_wire_event) from recs, up to
 * nrec, and stops before the first whose kind is not an event kind (a
 * LOCDEF, SYMDEF, END, HELLO or garbage: the caller's business).  Returns
 * how many records it took (counts added to *counts), or -1 when writing a
 * chunk failed (err; the writer then refuses everything). */
long cb_writer_wire_events(cb_writer *w, const unsigned char *recs,
                           size_t nrec, cb_wire_counts *counts, cb_error *err);

#endif /* CB_TRACE_INTERNAL_H */
