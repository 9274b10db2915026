/* transactions.c: where the blocks whose atomicity we question begin and
 * end.  functions: a transaction is the outermost function activation below
 * the thread's root activation (the start routine or main; nested calls
 * belong to their caller's block); events directly in the root belong to no
 * transaction.  markup: the outermost CB_ATOMIC_BEGIN..CB_ATOMIC_END region.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include "predict.h"

enum cbp_blocks cbp_blocks_resolve(const cb_trace *t, enum cbp_blocks b) {
   if (b != CBP_BLOCKS_AUTO) return b;
   for (size_t i = 0; i < t->nevents; i++)
      if (t->events[i].kind == CB_EV_ATOMIC_BEGIN) return CBP_BLOCKS_MARKUP;
   return CBP_BLOCKS_FUNCTIONS;
}

int cbp_txn_event(cbp_txn *x, enum cbp_blocks mode, const cb_event *e,
                  uint32_t *next_serial) {
   unsigned begin = mode == CBP_BLOCKS_MARKUP ? CB_EV_ATOMIC_BEGIN : CB_EV_BLOCK_BEGIN;
   unsigned end = mode == CBP_BLOCKS_MARKUP ? CB_EV_ATOMIC_END : CB_EV_BLOCK_END;
   /* Functions: depth 1 is the root activation, a transaction is depth 2. */
   uint32_t txn_depth = mode == CBP_BLOCKS_MARKUP ? 1 : 2;
   if (e->kind == begin) {
      x->depth++;
      if (x->depth == txn_depth) { x->serial = ++*next_serial; return 1; }
      return 0;
   }
   if (e->kind == end) {
      if (x->depth == 0) return 0; /* unpaired end: ignore */
      int ended = x->depth == txn_depth;
      x->depth--;
      if (ended) { x->serial = 0; return -1; }
      return 0;
   }
   if (e->kind == CB_EV_THREAD_EXIT && x->serial) {
      x->depth = 0; x->serial = 0;
      return -1;
   }
   return 0;
}
