/* schedule_out.c: one candidate as a proto Schedule file (sN.pb), written
 * through the trace library.  Besides prefix and tails it names what replay
 * checks: each thread's stable path (thread_parent, thread_index), and the
 * event each counted tail step ends with, found by counting from the
 * pattern's events of the same thread (a tail runs T1 and T2 near the cut).
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "launch.h"
#include "predict.h"

/* How far from a pattern event a step's end is looked for. */
#define EXPECT_SCAN (1u << 22)

/* Whether addr lies in a global the trace names: such an address is the
 * same in every run.  The tool records symbols without their size, so a
 * symbol covers what cb_symbol_at says: taken as one byte, a global
 * array's later elements were not stable, and replay could not see a
 * forced run's e2 touch bufs[0] where the recorded one touched bufs[1]
 * (blind trial 15's bufpool: "violation: yes" on another buffer). */
static int addr_is_global(const cb_trace *t, uint64_t addr) {
   return cb_symbol_at(t, addr) != NULL;
}

/* Location id lid, as the user's code called it for the event at tidx. */
static void fill_location(const cb_trace *t, uint32_t lid, uint64_t tidx,
                          cb_sched_location *loc) {
   if (lid >= t->nlocs) return;
   const cb_location *l = &t->locs[lid];
   loc->has_id = 1; loc->id = lid;
   loc->has_address = 1; loc->address = l->address;
   loc->object = (char *)l->object;
   loc->function = (char *)l->function;
   loc->file = (char *)l->file;
   loc->dir = l->dir && *l->dir ? (char *)l->dir : NULL;
   loc->has_line = 1; loc->line = l->line;
   /* In a library without debug information, the line of the user's
    * code that called into it (replay checks the code address, not
    * this). */
   uint32_t user = cb_user_loc(t, tidx);
   if (user) {
      loc->file = (char *)t->locs[user].file;
      loc->line = t->locs[user].line;
      loc->dir = t->locs[user].dir && *t->locs[user].dir
                    ? (char *)t->locs[user].dir : NULL;
   }
}

/* name: room for the event's object in words (PatternEvent.variable_name). */
static void fill_event(const cb_trace *t, uint64_t tidx, uint64_t cidx,
                       cb_sched_event *pe, cb_sched_location *loc,
                       char name[256]) {
   const cb_event *e = &t->events[tidx];
   *pe = (cb_sched_event){0};
   *loc = (cb_sched_location){0};
   pe->has_tid = 1; pe->tid = e->tid;
   pe->has_index = 1; pe->index = cidx;
   pe->has_trace_index = 1; pe->trace_index = tidx;
   /* A hand-made lock's LOCK or UNLOCK is the store (or the semaphore
    * call) replay will see. */
   pe->has_kind = 1; pe->kind = e->was ? e->was : e->kind;
   pe->has_address = 1; pe->address = e->addr;
   pe->variable_name = (char *)cb_variable_str_at(t, e->addr, tidx, name, 256);
   if (cb_event_carries_value(e->kind, e->size) && !e->was) {
      pe->has_value = 1;
      pe->value = e->value;
   }
   fill_location(t, e->loc, tidx, loc);
   pe->location = loc;
   pe->has_address_stable = 1; pe->address_stable = addr_is_global(t, e->addr) != 0;
}

/* e2 of a DLK of deadlock_again.c: the request T1 blocked in, b, one
 * past its recorded events. */
static void fill_request(const cb_trace *t, const cbp_candidate *c, const cb_blocked *b,
                         cb_sched_event *pe, cb_sched_location *loc, char name[256]) {
   fill_event(t, c->e2, c->ce2, pe, loc, name);
   pe->has_trace_index = 0;
   pe->kind = CB_EV_LOCK;
   pe->address = b->object;
   pe->variable_name = (char *)cb_variable_str_at(t, b->object, c->e2, name, 256);
   pe->has_value = 0;
   *loc = (cb_sched_location){0};
   fill_location(t, b->loc, c->e2, loc);
   pe->address_stable = addr_is_global(t, b->object) != 0;
}
/* The trace index of thread tid's counted event `want`, counting from
 * anchor (trace index at, counted index ac, an event of tid); NONE when it
 * is not within EXPECT_SCAN events. */
static uint64_t counted_at(const cb_trace *t, uint32_t tid, uint64_t want,
                           uint64_t at, uint64_t ac) {
   uint64_t steps = 0;
   while (ac != want && steps++ < EXPECT_SCAN) {
      if (want > ac) {
         if (++at >= t->nevents) return UINT64_MAX;
      } else {
         if (at-- == 0) return UINT64_MAX;
      }
      const cb_event *e = &t->events[at];
      if (e->tid != tid || e->kind >= CB_EV_KIND_COUNT || !CB_IS_COUNTED(e->kind)) continue;
      ac += want > ac ? 1 : -1;
   }
   if (ac != want) return UINT64_MAX;
   const cb_event *e = &t->events[at];
   return e->tid == tid && CB_IS_COUNTED(e->kind) ? at : UINT64_MAX;
}

/* Thread tid's counted event `want` located from whichever pattern event of
 * the same thread is nearest. */
static uint64_t locate(const cb_trace *t, const cbp_candidate *c, uint32_t tid,
                       uint64_t want) {
   uint64_t at[4] = {c->e1, c->e, c->e2, c->f}, ac[4] = {c->ce1, c->ce, c->ce2, c->cf};
   uint32_t tt[4] = {c->t1, c->t1, c->t1, c->t2};
   int best = -1;
   uint64_t dist = UINT64_MAX;
   for (int k = 0; k < 4; k++) {
      if (tt[k] != tid || at[k] >= t->nevents || t->events[at[k]].tid != tid) continue;
      uint64_t d = ac[k] > want ? ac[k] - want : want - ac[k];
      if (d < dist) { dist = d; best = k; }
   }
   return best < 0 ? UINT64_MAX : counted_at(t, tid, want, at[best], ac[best]);
}

typedef struct {
   cb_sched_event *pe;
   cb_sched_location *loc;
   char (*var)[256];
   size_t n;
} expects;

/* Each counted step's last event, from the prefix counts on. */
static void expect_steps(const cb_trace *t, const cbp_candidate *c,
                         cb_sched_step **sp, const cbp_step *tail, uint32_t n,
                         uint32_t nthreads, expects *x) {
   uint64_t *end = cbp_xcalloc(n ? n : 1, sizeof *end); /* per step: thread's end */
   for (uint32_t i = 0; i < n; i++) {
      /* After a run-out step its thread's counts are unknown (UINT64_MAX). */
      uint32_t w = tail[i].tid;
      end[i] = UINT64_MAX;
      if (w == 0 || w > nthreads) continue;
      uint64_t e = c->prefix[w - 1];
      for (uint32_t k = i; k-- > 0;)
         if (tail[k].tid == w) { e = end[k]; break; }
      if (tail[i].count == CBP_RUN_OUT || e == UINT64_MAX) continue;
      end[i] = e + tail[i].count;
      if (!tail[i].count) continue;
      /* A step the main tail or an earlier variant ends at the same event
       * shares its PatternEvent: the file keeps it once
       * (trace/schedule_compact.c compares them by address). */
      size_t k = 0;
      while (k < x->n && !(x->pe[k].tid == w && x->pe[k].index == end[i] - 1)) k++;
      if (k == x->n) {
         uint64_t ti = locate(t, c, w, end[i] - 1);
         if (ti == UINT64_MAX) continue;
         fill_event(t, ti, end[i] - 1, &x->pe[x->n], &x->loc[x->n], x->var[x->n]);
         x->n++;
      }
      sp[i]->expect = &x->pe[k];
   }
   free(end);
}

/* Stable thread paths of every thread, computed once per trace. */
static const cb_thread_origin *origins_of(const cb_trace *t) {
   static const cb_trace *for_t;
   static cb_thread_origin *o;
   if (for_t != t) {
      cb_error err;
      free(o);
      o = NULL;
      if (cb_trace_thread_origins(t, &o, &err) != 0) o = NULL;
      for_t = t;
   }
   return o;
}

/* Tail steps as the schedule message holds them; a run-out step
 * (CBP_RUN_OUT) is marked run_out with no count. */
static cb_sched_step **tail_steps(const cbp_step *tail, uint32_t n) {
   cb_sched_step **sp = cbp_xcalloc(n ? n : 1, sizeof *sp);
   for (uint32_t i = 0; i < n; i++) {
      cb_sched_step *st = cbp_xcalloc(1, sizeof *st);
      st->has_tid = 1; st->tid = tail[i].tid;
      if (tail[i].count == CBP_RUN_OUT) {
         st->has_run_out = 1; st->run_out = 1;
      } else {
         st->has_count = 1; st->count = tail[i].count;
      }
      sp[i] = st;
   }
   return sp;
}

static void free_steps(cb_sched_step **sp, size_t n) {
   for (size_t i = 0; i < n; i++) free(sp[i]);
   free(sp);
}

/* Each thread's stable path (Schedule.thread_parent, thread_index), in
 * *par and *idx (the caller frees them), when the trace knows them. */
static void thread_paths(const cb_trace *t, const cbp_escape *x, cb_schedule *s,
                         uint32_t **par, uint32_t **idx) {
   const cb_thread_origin *o = origins_of(t);
   if (!o || x->nthreads > t->nthreads) return;
   *par = cbp_xcalloc(x->nthreads + 1, sizeof **par);
   *idx = cbp_xcalloc(x->nthreads + 1, sizeof **idx);
   for (uint32_t i = 1; i <= x->nthreads; i++) {
      (*par)[i - 1] = o[i].parent;
      (*idx)[i - 1] = o[i].index;
   }
   s->n_thread_parent = s->n_thread_index = x->nthreads;
   s->thread_parent = *par; s->thread_index = *idx;
}

int cbp_schedule_encode(const cb_trace *t, cbp_analysis *a, const cbp_candidate *c,
                        uint8_t **buf, size_t *len, cb_error *err) {
   const cbp_escape *x = &a->x;
   cb_schedule s = {0};
   s.has_id = 1; s.id = c->id;
   s.has_trace_id = 1; s.trace_id = t->header.trace_id;
   s.has_program_digest = 1; s.program_digest = t->header.program_digest;
   s.program = (char *)(t->header.program ? t->header.program : "");
   s.has_counted_mask = 1; s.counted_mask = CB_COUNTED_MASK;
   s.n_prefix = x->nthreads;
   s.prefix = c->prefix;
   if (!a->r.porder) a->r.porder = cbp_porder_new(t, &a->hb, x, &a->v);
   s.n_prefix_order = cbp_porder_for(a->r.porder, c->prefix, &s.prefix_order);
   s.n_tail = c->ntail; s.tail = tail_steps(c->tail, c->ntail);
   size_t nsteps = c->ntail;
   for (int k = 0; k < CBP_NALT; k++) nsteps += c->nalt[k];
   expects ex = {cbp_xcalloc(nsteps + 1, sizeof *ex.pe), cbp_xcalloc(nsteps + 1, sizeof *ex.loc),
                 cbp_xcalloc(nsteps + 1, sizeof *ex.var), 0};
   expect_steps(t, c, s.tail, c->tail, c->ntail, x->nthreads, &ex);
   uint32_t *par = NULL, *idx = NULL;
   thread_paths(t, x, &s, &par, &idx);
   /* The alternates (synthesis.c): replay forces them in order when the
    * runs before them pass. */
   cb_sched_variant var[CBP_NALT], *vp[CBP_NALT];
   size_t nv = 0;
   for (int k = 0; k < CBP_NALT; k++) {
      if (!c->nalt[k]) continue;
      var[nv] = (cb_sched_variant){0};
      var[nv].name = (char *)cb_tail_names[1 + k];
      var[nv].n_tail = c->nalt[k];
      var[nv].tail = tail_steps(c->alt[k], c->nalt[k]);
      expect_steps(t, c, var[nv].tail, c->alt[k], c->nalt[k], x->nthreads, &ex);
      vp[nv] = &var[nv];
      nv++;
   }
   if (nv) {
      s.n_variants = nv; s.variants = vp;
      s.tail_name = (char *)cb_tail_names[0];
   }
   s.pattern = (char *)cbp_pattern_name[c->pattern];
   s.has_variable = 1; s.variable = c->addr;
   char name[256];
   s.variable_name = (char *)cbp_candidate_name(t, c, name, sizeof name);
   cb_sched_event pe[3];
   cb_sched_location loc[3];
   char names[3][256];
   fill_event(t, c->e1, c->ce1, &pe[0], &loc[0], names[0]);
   fill_event(t, c->f, c->cf, &pe[1], &loc[1], names[1]);
   const cb_blocked *req = cbp_blocked_e2(t, c);
   if (req)
      fill_request(t, c, req, &pe[2], &loc[2], names[2]);
   else
      fill_event(t, c->e2, c->ce2, &pe[2], &loc[2], names[2]);
   s.e1 = &pe[0]; s.f = &pe[1]; s.e2 = &pe[2];
   /* The events on the variable itself carry its name as the source
    * lines give it (a heap field's). */
   for (int k = 0; k < 3; k++)
      if (pe[k].address == c->addr && !c->var2) /* two: each its own */
         pe[k].variable_name = s.variable_name;
   s.has_cut_index = 1; s.cut_index = c->e;
   s.z3 = (char *)(c->z3 ? c->z3 : "");
   /* How the run was recorded travels with the schedule: replay forces it
    * with the same instrumentation (else every count differs) and judges
    * the program's exit against the recorded run's own. */
   char instr[64];
   s.instrument = (char *)cb_instrument_option(t->header.instrumented, instr,
                                               sizeof instr);
   if (cb_trace_exit_status(t) >= 0) {
      s.has_recorded_exit = 1;
      s.recorded_exit = a->run_failed ? 0 : cb_trace_exit_status(t);
   }
   s.cure = c->cure;
   int rc = cb_schedule_encode(&s, buf, len, err);
   free(par); free(idx); free(s.prefix_order);
   free(ex.pe); free(ex.loc); free(ex.var);
   free_steps(s.tail, s.n_tail);
   for (size_t k = 0; k < nv; k++) free_steps(var[k].tail, var[k].n_tail);
   return rc;
}

int cbp_schedule_write(const cb_trace *t, cbp_analysis *a,
                       const cbp_candidate *c, const char *path, cb_error *err) {
   uint8_t *buf;
   size_t len;
   if (cbp_schedule_encode(t, a, c, &buf, &len, err)) return -1;
   int rc = cb_schedule_put(path, buf, len, err);
   free(buf);
   return rc;
}

/* The digest of the orderings c's schedule forces (cb_ordering_digest of
 * its prefix, main tail and alternates, as cb_schedule_digest computes it
 * from the file). */
uint64_t cbp_candidate_digest(const cbp_escape *x, const cbp_candidate *c) {
   size_t total = c->ntail, nv = 1;
   for (int k = 0; k < CBP_NALT; k++) total += c->nalt[k];
   cb_order_step *all = cbp_xcalloc(total + 1, sizeof *all);
   const cb_order_step *tails[CBP_NALT + 1];
   size_t ntails[CBP_NALT + 1], at = 0;
   tails[0] = all; ntails[0] = c->ntail;
   for (uint32_t i = 0; i < c->ntail; i++, at++)
      all[at] = (cb_order_step){c->tail[i].tid, c->tail[i].count == CBP_RUN_OUT
                                                   ? CB_ORDER_RUN_OUT : c->tail[i].count};
   for (int k = 0; k < CBP_NALT; k++) {
      if (!c->nalt[k]) continue;
      tails[nv] = all + at; ntails[nv++] = c->nalt[k];
      for (uint32_t i = 0; i < c->nalt[k]; i++, at++)
         all[at] = (cb_order_step){c->alt[k][i].tid, c->alt[k][i].count == CBP_RUN_OUT
                                                        ? CB_ORDER_RUN_OUT : c->alt[k][i].count};
   }
   uint64_t d = cb_ordering_digest(c->prefix, x->nthreads, tails, ntails, nv);
   free(all);
   return d;
}
