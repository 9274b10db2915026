/* cutpoints.c: pass B, PENELOPE section 4.1: the pass over the trace.
 *
 * One pass keeps, per thread, its lock state (lockset plus acquisition
 * history, lockset.c), its vector-clock segment (vclock.c) and its current
 * blocks (transactions.c, cut_blocks.c).  Accesses to shared variables
 * leave bounded witnesses, deduplicated by tables keyed by variable
 * (cut_store.c):
 *   R, W  (f witnesses): per (variable, thread, kind, location, lock state,
 *         clock segment), the last such access;
 *   WW, AA (e witnesses): per (variable, thread, first access kind and
 *         location, second access kind and location, lock state, segment,
 *         epoch), an event e between two accesses e1 .. e2 of one block to
 *         the variable, with the lock state at e.  The pair's kinds pick the
 *         patterns (RR: RWR; RW: RWW; WR: WWR; WW: WRW and WWW).
 * At the end every e witness meets every f witness of its variable: the
 * decision (cut_decide.c).  Work per event is a few table look-ups; per
 * block the pairs of distinct access sites of one variable; nothing pairs
 * events.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "cutpoints.h"

const char *const cbp_pattern_name[CBP_NPAT] = {"RWR", "RWW", "WRW", "WWR", "WWW", "DLK", "ORD",
                                                "explore"};

static void access(pass *p, uint32_t tid, size_t i, const cb_event *e,
                   uint64_t c, cbp_point le_before) {
   thr *h = &p->th[tid];
   uint32_t var = p->x->var_of[i];
   if (!var || !p->x->var_shared[var]) return; /* escape analysis */
   uint32_t seg = p->v->cur_seg[tid];
   int ok = cbp_cut_ok(p->x, i);
   if (ok && !(e->size & CB_SIZE_SAME_INSN)) {
      fwit w = {var, e->loc, h->ls, seg, (uint32_t)tid, e->kind, 1, i, c, le_before};
      cut_add_f(p, &w);
   } else if (ok && e->kind == CB_EV_WRITE && h->prev_tidx != CUT_NONE && c > 0) {
      /* The write half of a read-modify-write instruction (a CAS, a locked
       * add, a split add): f is the whole instruction, from its read half,
       * which replay can stop before and run through in one step; its cut
       * is the one before the read half (a split write has its own). */
      const cb_event *r = &p->t->events[h->prev_tidx];
      if (r->kind == CB_EV_READ && !(r->size & CB_SIZE_SAME_INSN) &&
          p->x->var_of[h->prev_tidx] == var) {
         fwit w = {var, r->loc, h->ls, seg, (uint32_t)tid, CB_EV_WRITE, 2,
                   h->prev_tidx, c - 1, h->prev_le};
         cut_add_f(p, &w);
      }
   }
   cut_class_add(p, tid, &h->fn, var, e, i, c, le_before, ok);
   cut_class_add(p, tid, &h->root, var, e, i, c, le_before, ok);
}

/* The root block (functions mode) is the thread's whole run: the start
 * routine or main, where most threads do their work, with every call and
 * inlined helper in it.  Its log holds every lock-state change of the
 * thread, so a long-running thread's root block is closed and a new one
 * opened every ROOT_LOG_MAX changes (counted in root_splits). */
#define ROOT_LOG_MAX 4096

static void block_events(pass *p, uint32_t tid, size_t i, const cb_event *e,
                         enum cbp_blocks blocks, uint32_t *serial) {
   thr *h = &p->th[tid];
   uint32_t seg = p->v->cur_seg[tid];
   if (blocks == CBP_BLOCKS_FUNCTIONS) {
      if (e->kind == CB_EV_THREAD_EXIT) cut_txn_end(p, tid, &h->root);
      else if (h->root.open && h->root.nlog >= ROOT_LOG_MAX) {
         cut_txn_end(p, tid, &h->root);
         p->r->root_splits++;
         cut_txn_begin(&h->root, h, seg, i);
      } else if (!h->root.open && !h->exited) {
         cut_txn_begin(&h->root, h, seg, i);
      }
      if (e->kind == CB_EV_THREAD_EXIT) h->exited = 1;
   }
   int tx = cbp_txn_event(&h->txn, blocks, e, serial);
   if (tx < 0) cut_txn_end(p, tid, &h->fn);
   if (tx > 0) cut_txn_begin(&h->fn, h, seg, i);
}

/* One counted event of thread tid at trace index i. */
static void counted_event(pass *p, uint32_t tid, size_t i, const cb_event *e) {
   thr *h = &p->th[tid];
   cbp_vclock *v = p->v;
   uint64_t c = h->cidx;
   /* The last empty-lockset cut before this event. */
   if (h->ls == 0 && !cbp_glued(e))
      h->le = (cbp_point){c, i - 1}; /* placed just before this event */
   cbp_point le_before = h->le;
   uint32_t ls0 = h->ls, seg0 = v->cur_seg[tid];
   switch (e->kind) {
   case CB_EV_READ:
   case CB_EV_WRITE:
      access(p, tid, i, e, c, le_before);
      break;
   case CB_EV_LOCK: {
      uint32_t l = cbp_lock_of(p->L, &h->held, e);
      if (cbp_held_acquire(&h->held, l)) h->ls = cbp_locks_acquire(p->L, h->ls, l);
      break;
   }
   case CB_EV_UNLOCK: {
      uint32_t l = cbp_lock_of(p->L, &h->held, e);
      if (cbp_held_release(&h->held, l)) h->ls = cbp_locks_release(p->L, h->ls, l);
      break;
   }
   default:
      break;
   }
   int hb_source = cbp_vc_event(v, e, i, c, ls0 == 0 ? c : le_before.count);
   h->cidx++;
   h->prev_tidx = i;
   h->prev_le = le_before;
   h->epoch += hb_source;
   if (h->ls != ls0 || v->cur_seg[tid] != seg0 || hb_source)
      cut_log_push(h, v->cur_seg[tid], i, c, cbp_cut_ok(p->x, i), le_before);
}

void cbp_cutpoints(const cb_trace *t, const cbp_escape *x, cbp_vclock *v,
                   cbp_locks *L, enum cbp_blocks blocks, cbp_result *r) {
   pass p;
   memset(&p, 0, sizeof p);
   p.t = t; p.x = x; p.v = v; p.L = L; p.r = r;
   r->blocks = blocks;
   uint32_t n = x->nthreads;
   p.th = cbp_xcalloc(n + 1, sizeof *p.th);
   for (uint32_t i = 0; i <= n; i++) {
      cbp_map_init(&p.th[i].fn.cmap, 16);
      cbp_map_init(&p.th[i].root.cmap, 16);
      p.th[i].root.adjacent = 1;
      p.th[i].le = (cbp_point){0, CUT_NONE};
      p.th[i].prev_tidx = CUT_NONE;
   }
   cut_store_init(&p);
   uint32_t serial = 0;
   for (size_t i = 0; i < t->nevents; i++) {
      const cb_event *e = &t->events[i];
      uint32_t tid = e->tid;
      if (tid > n || e->kind >= CB_EV_KIND_COUNT) continue;
      thr *h = &p.th[tid];
      block_events(&p, tid, i, e, blocks, &serial);
      if (CB_IS_COUNTED(e->kind)) {
         counted_event(&p, tid, i, e);
      } else if (cbp_hb_anchor(e->kind)) { /* thread start and exit */
         uint32_t seg0 = v->cur_seg[tid];
         cbp_vc_event(v, e, i, h->cidx, h->ls == 0 ? h->cidx : h->le.count);
         if (v->cur_seg[tid] != seg0)
            cut_log_push(h, v->cur_seg[tid], i, h->cidx, 0, h->le);
      }
   }
   for (uint32_t i = 0; i <= n; i++) { /* cut short: still blocks */
      cut_txn_end(&p, i, &p.th[i].fn);
      cut_txn_end(&p, i, &p.th[i].root);
   }
   cut_store_fw(&p);
   cut_combine(&p);
   r->nlocks = cbp_locks_nlocks(L);
   r->nstates = cbp_locks_nstates(L);
   for (uint32_t i = 0; i <= n; i++) {
      cbp_held_free(&p.th[i].held);
      txnbuf *b[2] = {&p.th[i].fn, &p.th[i].root};
      for (int k = 0; k < 2; k++) {
         free(b[k]->log); free(b[k]->cls); free(b[k]->last); cbp_map_free(&b[k]->cmap);
      }
   }
   free(p.th);
   cut_store_free(&p);
   free(p.tmp);
}

/* In place, a cycle of the permutation at a time (a bit per index done):
 * a sorted copy of every candidate (about 300 bytes each, 50 MB at 10 M
 * events) was fresh memory the kernel zeroed, then copied twice. */
void cbp_result_permute(cbp_result *r, const size_t *at, size_t stride) {
#define AT(i) (*(const size_t *)((const char *)at + (i) * stride))
   uint64_t *done = cbp_xcalloc(r->n / 64 + 1, sizeof *done);
   for (size_t i = 0; i < r->n; i++) {
      if (done[i / 64] >> (i % 64) & 1) continue;
      cbp_candidate first = r->c[i];
      size_t j = i;
      for (;;) { /* place j gets the candidate from AT(j) */
         done[j / 64] |= 1ull << (j % 64);
         size_t k = AT(j);
         if (k == i) break;
         r->c[j] = r->c[k];
         j = k;
      }
      r->c[j] = first;
   }
   free(done);
#undef AT
}

void cbp_candidate_free(cbp_candidate *c) {
   free(c->prefix); free(c->tail); free(c->more);
   for (int k = 0; k < CBP_NALT; k++) free(c->alt[k]);
}

void cbp_result_free(cbp_result *r) {
   cbp_rf_free(r->rf);
   cbp_porder_free(r->porder);
   free(r->wait_locs);
   for (size_t i = 0; i < r->n; i++) cbp_candidate_free(&r->c[i]);
   free(r->c);
   memset(r, 0, sizeof *r);
}
