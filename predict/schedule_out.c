/* schedule_out.c: one candidate as a proto Schedule file (sN.pb), written
 * through the trace library.  Copyright (C) 2026 cbtools developers.
 * GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "launch.h"
#include "predict.h"
#include "trace.pb-c.h"

static void fill_event(const cb_trace *t, uint64_t tidx, uint64_t cidx,
                       Cbtools__PatternEvent *pe, Cbtools__Location *loc) {
   const cb_event *e = &t->events[tidx];
   cbtools__pattern_event__init(pe);
   cbtools__location__init(loc);
   pe->has_tid = 1; pe->tid = e->tid;
   pe->has_index = 1; pe->index = cidx;
   pe->has_trace_index = 1; pe->trace_index = tidx;
   pe->has_kind = 1; pe->kind = e->kind;
   pe->has_address = 1; pe->address = e->addr;
   if (cb_event_carries_value(e->kind, e->size)) { pe->has_value = 1; pe->value = e->value; }
   if (e->loc < t->nlocs) {
      const cb_location *l = &t->locs[e->loc];
      loc->has_id = 1; loc->id = e->loc;
      loc->has_address = 1; loc->address = l->address;
      loc->object = (char *)l->object;
      loc->function = (char *)l->function;
      loc->file = (char *)l->file;
      loc->has_line = 1; loc->line = l->line;
   }
   pe->location = loc;
}

/* Tail steps as the schedule message holds them; a run-out step
 * (CBP_RUN_OUT) is marked run_out with no count. */
static Cbtools__TailStep **tail_steps(const cbp_step *tail, uint32_t n) {
   Cbtools__TailStep **sp = cbp_xcalloc(n ? n : 1, sizeof *sp);
   for (uint32_t i = 0; i < n; i++) {
      Cbtools__TailStep *st = cbp_xcalloc(1, sizeof *st);
      cbtools__tail_step__init(st);
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

static void free_steps(Cbtools__TailStep **sp, size_t n) {
   for (size_t i = 0; i < n; i++) free(sp[i]);
   free(sp);
}

int cbp_schedule_write(const cb_trace *t, const cbp_escape *x,
                       const cbp_candidate *c, const char *path, cb_error *err) {
   Cbtools__Schedule s;
   cbtools__schedule__init(&s);
   s.has_id = 1; s.id = c->id;
   s.has_trace_id = 1; s.trace_id = t->header.trace_id;
   s.has_program_digest = 1; s.program_digest = t->header.program_digest;
   s.program = (char *)(t->header.program ? t->header.program : "");
   s.has_counted_mask = 1; s.counted_mask = CB_COUNTED_MASK;
   s.n_prefix = x->nthreads;
   s.prefix = c->prefix;
   s.n_tail = c->ntail; s.tail = tail_steps(c->tail, c->ntail);
   /* The alternates (synthesis.c): replay forces them in order when the
    * runs before them pass. */
   Cbtools__Variant var[CBP_NALT], *vp[CBP_NALT];
   size_t nv = 0;
   for (int k = 0; k < CBP_NALT; k++) {
      if (!c->nalt[k]) continue;
      cbtools__variant__init(&var[nv]);
      var[nv].name = (char *)cbp_alt_name[k];
      var[nv].n_tail = c->nalt[k];
      var[nv].tail = tail_steps(c->alt[k], c->nalt[k]);
      vp[nv] = &var[nv];
      nv++;
   }
   if (nv) {
      s.n_variants = nv; s.variants = vp;
      s.tail_name = (char *)cbp_main_tail_name;
   }
   s.pattern = (char *)cbp_pattern_name[c->pattern];
   s.has_variable = 1; s.variable = c->addr;
   char name[256];
   s.variable_name = (char *)cb_variable_str_at(t, c->addr, c->e1, name, sizeof name);
   Cbtools__PatternEvent pe[3];
   Cbtools__Location loc[3];
   fill_event(t, c->e1, c->ce1, &pe[0], &loc[0]);
   fill_event(t, c->f, c->cf, &pe[1], &loc[1]);
   fill_event(t, c->e2, c->ce2, &pe[2], &loc[2]);
   s.e1 = &pe[0]; s.f = &pe[1]; s.e2 = &pe[2];
   s.has_cut_index = 1; s.cut_index = c->e;
   s.z3 = (char *)(c->z3 ? c->z3 : "");
   /* How the run was recorded travels with the schedule: replay forces it
    * with the same instrumentation (else every count differs) and judges
    * the program's exit against the recorded run's own. */
   char instr[64];
   s.instrument = (char *)cb_instrument_option(t->header.instrumented, instr,
                                               sizeof instr);
   if (t->footer.present && !t->footer.exit_signal) {
      s.has_recorded_exit = 1;
      s.recorded_exit = t->footer.exit_status;
   }
   int rc = cb_schedule_write(path, &s, err);
   free_steps(s.tail, s.n_tail);
   for (size_t k = 0; k < nv; k++) free_steps(var[k].tail, var[k].n_tail);
   return rc;
}
