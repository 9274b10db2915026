/* z3_window_reads.c: the reads of a window that must keep their recorded
 * values (z3w_read), and what that leaves unproved.
 *
 * A read is constrained when two threads touch its address in the window
 * and someone writes there (else program order gives it its value), or
 * when its recorded writer lies past its thread's end of window.  Its
 * sources are the window's writes of its value (its own thread's last
 * write before it only), at most Z3W_MAX_SOURCES of them (fewer would make
 * an UNSAT answer no proof: z3w_window.incomplete), and the value at
 * window_begin.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "z3_window_int.h"

#include <stdlib.h>

/* Keeps the Z3W_MAX_SOURCES positions of v whose events are nearest
 * trace index `near` in the trace, the recorded writer (index + 1 = rec)
 * first. */
static void keep_nearest(const z3w_window *w, size_t *v, size_t *n, size_t near,
                         size_t rec)
{
   for (size_t k = 0; k < Z3W_MAX_SOURCES; k++) {
      size_t best = k;
      for (size_t j = k + 1; j < *n; j++) {
         size_t ij = w->ev[v[j]].idx, ib = w->ev[v[best]].idx;
         size_t dj = ij < near ? near - ij : ij - near;
         size_t db = ib < near ? near - ib : ib - near;
         if (ij + 1 == rec || (ib + 1 != rec && dj < db))
            best = j;
      }
      size_t tmp = v[k];
      v[k] = v[best];
      v[best] = tmp;
   }
   *n = Z3W_MAX_SOURCES;
}

/* Where the f thread's stretch of plain accesses before f begins: after
 * its last synchronisation (cb_z3_query.strict). */
static size_t f_stretch(const z3w_window *w, const z3w_scratch *s)
{
   const cb_event *ev = s->t->events;
   size_t f = s->q->f;
   for (size_t i = f; i-- > w->wb;)
      if (ev[i].tid == ev[f].tid && cbp_hb_anchor(ev[i].kind) &&
          ev[i].kind != CB_EV_READ && ev[i].kind != CB_EV_WRITE)
         return i + 1;
   return w->wb;
}

/* The violation's own values: f's and e2's, and (unless strict) the
 * pattern's loads of its variable.  Free, not constrained. */
static int violation_read(const z3w_window *w, const z3w_scratch *s, size_t rp,
                          size_t stretch)
{
   const cb_event *ev = s->t->events, *re = &ev[w->ev[rp].idx];
   const z3w_query *q = s->q;
   if (w->kind == Z3W_DEADLOCK)
      return 0;
   if (rp == w->pf || rp == w->pe2)
      return 1;
   if (q->strict || (re->addr != ev[q->e1].addr && re->addr != ev[q->f].addr &&
                     re->addr != ev[q->e2].addr))
      return 0;
   size_t ri = w->ev[rp].idx;
   return (re->tid == ev[q->e1].tid && ri >= q->e1 && ri < q->e2) ||
          (re->tid == ev[q->f].tid && ri >= stretch && ri < q->f);
}

/* The sources of read rp (position k of r->reads) into src; the own
 * thread's last write before it, or none.  -1: out of memory. */
static int sources(const z3w_window *w, const z3w_scratch *s, const addr_rec *r,
                   size_t rp, posvec *src, size_t *own)
{
   const cb_event *ev = s->t->events, *re = &ev[w->ev[rp].idx];
   uint64_t m = z3w_value_mask(CB_SIZE_BYTES(re->size)), want = re->value & m;
   uint32_t rt = w->ev[rp].tid;
   *own = Z3W_NONE;
   for (size_t j = 0; j < r->writes.n; j++) {
      size_t wp = r->writes.v[j];
      if (w->ev[wp].tid == rt && w->ev[wp].idx < w->ev[rp].idx)
         *own = wp;
   }
   src->n = 0;
   for (size_t j = 0; j < r->writes.n; j++) {
      size_t wp = r->writes.v[j];
      const cb_event *we = &ev[w->ev[wp].idx];
      if (w->ev[wp].tid == rt && wp != *own)
         continue;
      if (!z3w_carries_value(we) || (we->value & m) != want ||
          CB_SIZE_BYTES(we->size) < CB_SIZE_BYTES(re->size))
         continue;
      if (z3w_pv_push(src, wp) < 0)
         return -1;
   }
   return 0;
}

/* A read whose value nothing in the window gives: if its recorded writer
 * lies past its thread's end, the read cannot run before e2 either. */
static int unsourced(z3w_window *w, z3w_scratch *s, size_t rp, size_t wi,
                     int outside)
{
   const cb_event *ev = s->t->events, *re = &ev[w->ev[rp].idx];
   uint64_t m = z3w_value_mask(CB_SIZE_BYTES(re->size));
   if (!outside || !z3w_carries_value(&ev[wi - 1]) ||
       (ev[wi - 1].value & m) != (re->value & m))
      return 0; /* written by what the trace does not show: left free */
   if (GROW(w->late, w->nlate, s->caplate) < 0)
      return -1;
   w->late[w->nlate++] = rp;
   return 0;
}

/* One read of r (its k-th in the window); -1: out of memory. */
static int one_read(z3w_window *w, z3w_scratch *s, addr_rec *r, size_t k,
                    const size_t *writes, posvec *src, size_t stretch)
{
   size_t rp = r->reads.v[k];
   const cb_event *re = &s->t->events[w->ev[rp].idx];
   if (!z3w_carries_value(re) || violation_read(w, s, rp, stretch))
      return 0; /* wide reads: no value; the violation's own */
   size_t wi = r->read_writer.v[k];
   int outside = wi && wi - 1 >= w->wb && !z3w_in(s, wi - 1);
   if ((!r->multi || r->writes.n == 0) && !outside)
      return 0; /* program order alone gives it its value */
   size_t own;
   if (sources(w, s, r, rp, src, &own) < 0)
      return -1;
   /* Any subset of the sources keeps SAT answers sound; a cut one may
    * make an UNSAT answer wrong. */
   if (src->n > Z3W_MAX_SOURCES) {
      keep_nearest(w, src->v, &src->n, w->ev[rp].idx, wi);
      z3w_assume(w, "a read's possible writers were cut to the nearest few");
   }
   uint64_t m = z3w_value_mask(CB_SIZE_BYTES(re->size));
   int init_known = r->has_write_before_wb || r->start_known;
   uint64_t init = r->has_write_before_wb ? r->last_write_val : r->start_val;
   int init_ok = own == Z3W_NONE && init_known && (init & m) == (re->value & m);
   if (src->n == 0 && !init_ok)
      return unsourced(w, s, rp, wi, outside);
   if (GROW(w->reads, w->nreads, s->capreads) < 0)
      return -1;
   z3w_read *zr = &w->reads[w->nreads++];
   zr->read = rp;
   zr->src = z3w_list_copy(w, src->v, src->n);
   zr->nsrc = src->n;
   zr->init_ok = init_ok;
   zr->writes = writes;
   zr->nwrites = r->writes.n;
   return zr->src ? 0 : -1;
}

int z3w_reads(z3w_window *w, z3w_scratch *s)
{
   size_t stretch = f_stretch(w, s);
   posvec src = {0};
   for (size_t a = 0; a < s->mem.nrec; a++) {
      addr_rec *r = &s->mem.rec[a];
      if (r->reads.n == 0)
         continue;
      const size_t *writes = z3w_list_copy(w, r->writes.v, r->writes.n);
      if (!writes)
         goto oom;
      for (size_t k = 0; k < r->reads.n; k++)
         if (one_read(w, s, r, k, writes, &src, stretch) < 0)
            goto oom;
   }
   free(src.v);
   return 0;
oom:
   free(src.v);
   return -1;
}
