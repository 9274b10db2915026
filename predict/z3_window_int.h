/* z3_window_int.h: what the window's files share (z3_window.h lists
 * them): the scratch state of one build and its small containers.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef Z3_WINDOW_INT_H
#define Z3_WINDOW_INT_H

#include "predict.h" /* cbp_glued: part of one instruction with the previous event */
#include "z3_window.h"

/* A bump allocator: the window's lists live until z3w_free. */
void *z3w_arena_alloc(void **arena, size_t bytes);
void z3w_arena_free(void *arena);
size_t *z3w_list_copy(z3w_window *w, const size_t *v, size_t n);

typedef struct {
   size_t *v;
   size_t n, cap;
} posvec;
int z3w_pv_push(posvec *p, size_t x);

/* Makes room for one more item of arr (n items, cap room); -1: no memory. */
#define GROW(arr, n, cap)                                                    \
   ((n) < (cap) ? 0 : z3w_grow((void **)&(arr), &(cap), sizeof *(arr)))
int z3w_grow(void **arr, size_t *cap, size_t elem);

/* A data address: its value from the start of the trace, and its accesses
 * in the window. */
typedef struct {
   uint64_t addr;
   uint8_t seen, start_known, has_write_before_wb;
   uint64_t start_val, last_write_val;
   uint32_t tid1;  /* first thread that touched it in the window, 0 = none */
   uint8_t multi;  /* touched by two threads or more in the window */
   posvec reads, writes;
   posvec read_writer; /* per window read: trace index + 1 of the write it
                          read from in the recorded run (0 = none seen) */
   size_t last_write;  /* trace index + 1 of the last write so far */
} addr_rec;

typedef struct {
   size_t *slot; /* index + 1 into rec, 0 = empty */
   size_t nslots;
   addr_rec *rec;
   size_t nrec, caprec;
} addr_map;
/* The address's record, made if absent (NULL: out of memory). */
addr_rec *z3w_map_get(addr_map *m, uint64_t addr);
/* The address's record, or NULL when absent. */
addr_rec *z3w_map_find(const addr_map *m, uint64_t addr);
void z3w_map_free(addr_map *m);

typedef struct {
   uint64_t lock;
   unsigned depth;
   size_t section; /* index into w->sec while in the window */
   uint8_t shared;
} held_lock;

typedef struct {
   size_t end;        /* last trace index of the thread in the window, or NONE */
   size_t last_idx;   /* last event at or before the cut, or NONE */
   long nheld;        /* locks held while scanning to the cut */
   int extend;        /* still extending past the cut */
   held_lock *held;
   size_t nheld_v, capheld;
   size_t last_pos;   /* its last event in the window so far */
} thread_st;

/* Acquires lock (depth 0 -> 1 makes a new held_lock, section NONE). */
int z3w_lock_acquire(thread_st *th, uint64_t lock, uint8_t shared, held_lock **out);
/* The section index that closes (depth 1 -> 0), NONE otherwise. */
size_t z3w_lock_release(thread_st *th, uint64_t lock);

typedef struct {
   const cb_trace *t;
   const z3w_query *q;
   thread_st *th;
   size_t nth;
   addr_map mem;
   size_t maxend;     /* the last trace index of any thread's window */
   size_t capev, capsec, capbefore, caplate, capwaits, capreads;
} z3w_scratch;

/* Whether event i is in the window. */
static inline int z3w_in(const z3w_scratch *s, size_t i) {
   const cb_event *e = &s->t->events[i];
   return e->tid < s->nth && s->th[e->tid].end != Z3W_NONE && i <= s->th[e->tid].end &&
          cbp_hb_anchor(e->kind);
}
static inline int z3w_carries_value(const cb_event *e) {
   unsigned b = CB_SIZE_BYTES(e->size);
   return (e->kind == CB_EV_READ || e->kind == CB_EV_WRITE) && b > 0 && b <= 8;
}
static inline uint64_t z3w_value_mask(unsigned bytes) {
   return bytes >= 8 ? ~(uint64_t)0 : (((uint64_t)1 << (8 * bytes)) - 1);
}
/* Whether thread tid's end of window is the query's (e2's thread; a
 * deadlock's T2, blocked at its request), not the cut's. */
static inline int z3w_stops_for_good(const z3w_window *w, const z3w_scratch *s,
                                     uint32_t tid) {
   const cb_event *ev = s->t->events;
   return tid == ev[s->q->e2].tid || (w->kind == Z3W_DEADLOCK && tid == ev[s->q->f].tid);
}
/* Notes the first reason why an UNSAT answer of this window proves nothing. */
static inline void z3w_assume(z3w_window *w, const char *why) {
   if (!w->incomplete) w->incomplete = why;
}

/* The passes of z3_window_sync.c and z3_window_reads.c; -1: out of memory. */
int z3w_sync(z3w_window *w, z3w_scratch *s);
int z3w_reads(z3w_window *w, z3w_scratch *s);

#endif /* Z3_WINDOW_INT_H */
