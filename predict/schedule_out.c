/* schedule_out.c: one candidate as a proto Schedule file (sN.pb), written
 * through the trace library.  Copyright (C) 2026 cbtools developers.
 * GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

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
   Cbtools__TailStep *steps = cbp_xcalloc(c->ntail, sizeof *steps);
   Cbtools__TailStep **sp = cbp_xcalloc(c->ntail, sizeof *sp);
   for (uint32_t i = 0; i < c->ntail; i++) {
      cbtools__tail_step__init(&steps[i]);
      steps[i].has_tid = 1; steps[i].tid = c->tail[i].tid;
      steps[i].has_count = 1; steps[i].count = c->tail[i].count;
      sp[i] = &steps[i];
   }
   s.n_tail = c->ntail; s.tail = sp;
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
   int rc = cb_schedule_write(path, &s, err);
   free(steps); free(sp);
   return rc;
}
