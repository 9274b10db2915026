/* report.c: the table of predicted violations and its JSON form.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdio.h>
#include <string.h>

#include "predict.h"
#include "explore.h"

static const char *loc(const cb_trace *t, uint64_t tidx, char *buf, size_t n) {
   return cb_location_str(t, t->events[tidx].loc, buf, n);
}

/* e2's location id: a request no event holds for deadlock_again.c's. */
static uint32_t e2_loc(const cb_trace *t, const cbp_candidate *c) {
   const cb_blocked *b = cbp_blocked_e2(t, c);
   return b ? b->loc : t->events[c->e2].loc;
}

const char *cbp_candidate_name(const cb_trace *t, const cbp_candidate *c,
                               char *buf, size_t len) {
   const size_t ev[3] = {c->e1, c->f, c->e2};
   cb_access_name(t, c->addr, c->e1, ev, 3, buf, len);
   if (c->var2) { /* two_vars.c: "x and y" */
      char y[256];
      size_t n = strlen(buf);
      cb_access_name(t, c->addr2, c->e2, ev + 2, 1, y, sizeof y);
      snprintf(buf + n, len - n, " and %s", y);
   }
   return buf;
}

static const char *blocks_name(enum cbp_blocks b) {
   return b == CBP_BLOCKS_MARKUP ? "markup" : "functions";
}

/* The --z3 line: what the lockset pass found and what Z3 made of it. */
static void z3_line(FILE *out, const cbp_result *r, const cbp_report_info *info) {
   const cbp_z3_summary *z = info->z3;
   fprintf(out, "cbpredict: z3: %llu candidates from the lockset pass, %llu asked "
                "(of every kind), %llu dropped as impossible, %llu undecided "
                "(kept), %llu proven possible; %llu schedules kept (%llu in the "
                "model's order); %.1f ms per query (limit %u ms, window %zu events)\n",
           (unsigned long long)z->candidates, (unsigned long long)z->asked,
           (unsigned long long)z->dropped, (unsigned long long)z->undecided,
           (unsigned long long)z->sat, (unsigned long long)info->written,
           (unsigned long long)z->model_orders,
           z->asked ? z->solver_ms / (double)z->asked : 0.0, z->timeout_ms, z->window);
   (void)r;
}

/* Synchronising calls the tool saw but does not model (a raw futex, a
 * cancel, a fork): the prediction is blind to the order they impose. */
/* How the recorded run failed: "exit 1", "signal 11". */
static const char *failed_words(const cb_trace *t, char *buf, size_t n) {
   if (t->footer.exit_signal) snprintf(buf, n, "signal %d", t->footer.exit_signal);
   else snprintf(buf, n, "exit %d", t->footer.exit_status);
   return buf;
}

static void unhandled_line(FILE *out, const cb_trace *t) {
   uint64_t per[CB_CALL_COUNT + 1] = {0}, n = 0;
   for (size_t i = 0; i < t->nevents; i++)
      if (t->events[i].kind == CB_EV_UNHANDLED) {
         unsigned c = t->events[i].size;
         per[c <= CB_CALL_COUNT ? c : CB_CALL_COUNT]++;
         n++;
      }
   if (!n) return;
   fprintf(out, "cbpredict: the program made %llu synchronising call%s the tool does not "
                "model (", (unsigned long long)n, n == 1 ? "" : "s");
   const char *sep = "";
   for (unsigned c = 1; c <= CB_CALL_COUNT; c++)
      if (per[c]) {
         fprintf(out, "%s%s: %llu", sep, c < CB_CALL_COUNT ? cb_call_name(c) : "other",
                 (unsigned long long)per[c]);
         sep = ", ";
      }
   fprintf(out, "); orders they impose are not seen\n");
}

/* The table: a row per schedule written (and per =sN, a violation another
 * schedule forces), then exploration's rows. */
static void table_rows(FILE *out, const cb_trace *t, const cbp_result *r,
                       const cbp_report_info *info) {
   /* The variable column as wide as its longest name (a heap block's
    * is long), so that the columns stay aligned. */
   int vw = 24;
   char v[256], a[256], b[256], d[256], id[16], th[96];
   for (size_t i = 0; i < r->n; i++)
      if (r->c[i].id) {
         int l = (int)strlen(cbp_candidate_name(t, &r->c[i], v, sizeof v));
         if (l > vw) vw = l;
      }
   if (info->explore && cbp_explore_name_width(t, info->explore) > vw)
      vw = cbp_explore_name_width(t, info->explore);
   fprintf(out, "%-5s %-7s %-*s %-22s %-22s %-22s %s\n", "id", "pattern",
           vw, "variable", "e1", "f", "e2", "threads");
   for (size_t i = 0; i < r->n; i++) {
      const cbp_candidate *c = &r->c[i];
      if (!c->id && !c->same_as) continue; /* =sN: sN forces it */
      snprintf(id, sizeof id, "%ss%u", c->id ? "" : "=", c->id ? c->id : c->same_as);
      int w = snprintf(th, sizeof th, "T%u/T%u", c->t1, c->t2);
      for (uint32_t k = 0; k < c->nmore && w > 0 && (size_t)w < sizeof th; k++)
         w += snprintf(th + w, sizeof th - (size_t)w, "/T%u", c->more[k].tid);
      fprintf(out, "%-5s %-7s %-*s %-22s %-22s %-22s %s\n", id,
              cbp_pattern_name[c->pattern], vw,
              cbp_candidate_name(t, c, v, sizeof v),
              loc(t, c->e1, a, sizeof a), loc(t, c->f, b, sizeof b),
              cb_location_str(t, e2_loc(t, c), d, sizeof d), th);
   }
   if (info->explore) cbp_explore_rows(out, t, info->explore, vw);
}

void cbp_report_table(FILE *out, const cb_trace *t, const cbp_escape *x,
                      const cbp_result *r, const cbp_report_info *info) {
   (void)x;
   char words[32];
   if (info->written) table_rows(out, t, r, info);
   if (info->note) fprintf(out, "%s\n", info->note);
   fprintf(out,
           "cbpredict: %zu events, %u threads, %u shared variables, %u locks, "
           "%llu transactions (%s); %llu cut-points, %llu lock-order inversions, "
           "%llu order violations, %zu violations, %llu schedules written to %s; %.2f s\n",
           t->nevents, x->active_threads, x->nshared, r->nlocks,
           (unsigned long long)r->transactions, blocks_name(r->blocks),
           (unsigned long long)r->cutpoints, (unsigned long long)r->deadlocks,
           (unsigned long long)r->orders, r->n,
           (unsigned long long)info->written, info->dir, info->seconds);
   if (info->explore) cbp_explore_summary(out, info->explore);
   if (info->lock_words > 0)
      fprintf(out, "cbpredict: %ld of the locks %s the program's own: a word taken by an "
                   "atomic exchange from 0 and released by its holder's store of 0\n",
              info->lock_words, info->lock_words == 1 ? "is" : "are");
   if (info->lock_sems > 0)
      fprintf(out, "cbpredict: %ld of the locks %s a semaphore used as a lock: one token, "
                   "each wait followed by its own thread's post\n",
              info->lock_sems, info->lock_sems == 1 ? "is" : "are");
   unhandled_line(out, t);
   if (r->cycles_capped)
      fprintf(out, "cbpredict: the lock-order graph is too large to search every cycle "
                   "of three or more threads: %llu searches were cut short\n",
              (unsigned long long)r->cycles_capped);
   if (r->cycles_long)
      fprintf(out, "cbpredict: lock-order cycles of more than %d threads were not searched: "
                   "%llu %s of %d nested acquisitions went on, a longer cycle may "
                   "close there\n", CBP_MAX_CYCLE, (unsigned long long)r->cycles_long,
              r->cycles_long == 1 ? "chain" : "chains", CBP_MAX_CYCLE);
   if (r->symmetric)
      fprintf(out, "cbpredict: %llu more thread pairs at the same three code sites "
                   "were not kept (threads running the same code: two pairs per site)\n",
              (unsigned long long)r->symmetric);
   if (info->cures && t->footer.nblocked)
      fprintf(out, "cbpredict: the recorded run deadlocked: its threads that wait for a "
                   "condition another thread signalled before their wait began are "
                   "written forced to wait first (--cures; a forced run that passes "
                   "names the lost wake-up), a cycle of threads that wait for each "
                   "other's locks as the recorded run itself (pattern DLK: forced, it "
                   "deadlocks again)\n");
   else if (info->cures)
      fprintf(out, "cbpredict: the recorded run failed (%s) and none of the violations "
                   "happened in it: its orders of two threads are written forced the "
                   "other way round (--cures); a forced run that passes names the "
                   "failure's cause\n", failed_words(t, words, sizeof words));
   else if (r->shown_failed || info->run_failed)
      fprintf(out, "cbpredict: the recorded run failed (%s); %llu of the violations "
                   "happened in it, at the same lines: %s\n",
              failed_words(t, words, sizeof words), (unsigned long long)r->shown_failed,
              info->run_failed ? "only their schedules are written (--recorded-failed)"
                               : "they come first");
   if (r->seen_before)
      fprintf(out, "cbpredict: %llu schedules were forced before, or their lines twice "
                   "(--seen): not written\n",
              (unsigned long long)r->seen_before);
   if (r->same_order)
      fprintf(out, "cbpredict: %llu more schedules would force the orderings of an "
                   "earlier one: not written\n", (unsigned long long)r->same_order);
   if (r->dropped_vc || r->dropped_insn || r->dropped_synth || r->dropped_filter)
      fprintf(out, "cbpredict: dropped: %llu ordered by create/join/barrier/signal, "
                   "%llu needing a cut inside one instruction, %llu without a "
                   "schedule replay can follow, %llu by the check\n",
              (unsigned long long)r->dropped_vc, (unsigned long long)r->dropped_insn,
              (unsigned long long)r->dropped_synth, (unsigned long long)r->dropped_filter);
   if (info->z3) z3_line(out, r, info);
}


/* loc: the event's location id (e2's may be a request no event holds). */
static void jevent(FILE *out, const cb_trace *t, const char *name, uint64_t tidx,
                   uint64_t cidx, uint32_t loc_id) {
   const cb_event *e = &t->events[tidx];
   char b[256];
   fprintf(out, "\"%s\":{\"tid\":%u,\"index\":%llu,\"trace_index\":%llu,\"kind\":",
           name, e->tid, (unsigned long long)cidx, (unsigned long long)tidx);
   cb_json_write_string(out, cb_event_kind_name(e->kind));
   fputs(",\"location\":", out);
   cb_json_write_string(out, cb_location_str(t, loc_id, b, sizeof b));
   fputs(",\"function\":", out);
   cb_json_write_string(out, loc_id < t->nlocs ? t->locs[loc_id].function : "");
   fputc('}', out);
}

void cbp_report_json(FILE *out, const cb_trace *t, const cbp_escape *x,
                     const cbp_result *r, const cbp_report_info *info) {
   fputs("{\"trace\":", out);
   cb_json_write_string(out, info->trace_path);
   fputs(",\"schedules_dir\":", out);
   cb_json_write_string(out, info->dir);
   fprintf(out, ",\"events\":%zu,\"threads\":%u,\"shared_variables\":%u,\"locks\":%u,"
                "\"transactions\":%llu,\"blocks\":\"%s\",\"cut_points\":%llu,\"deadlocks\":%llu,"
                "\"order_violations\":%llu,\"deadlock_cycles_not_searched\":%llu,\"root_splits\":%llu,\"symmetric_not_kept\":%llu,"
                "\"violations_found\":%zu,\"schedules\":%llu,"
                "\"dropped\":{\"ordered\":%llu,\"same_instruction\":%llu,"
                "\"no_schedule\":%llu,\"check\":%llu},\"seconds\":%.3f",
           t->nevents, x->active_threads, x->nshared, r->nlocks,
           (unsigned long long)r->transactions, blocks_name(r->blocks),
           (unsigned long long)r->cutpoints, (unsigned long long)r->deadlocks,
           (unsigned long long)r->orders, (unsigned long long)r->cycles_long,
           (unsigned long long)r->root_splits,
           (unsigned long long)r->symmetric, r->n,
           (unsigned long long)info->written,
           (unsigned long long)r->dropped_vc, (unsigned long long)r->dropped_insn,
           (unsigned long long)r->dropped_synth, (unsigned long long)r->dropped_filter,
           info->seconds);
   fprintf(out, ",\"lock_words\":%ld,\"lock_semaphores\":%ld", info->lock_words,
           info->lock_sems);
   if (r->shown_failed)
      fprintf(out, ",\"shown_in_failed_run\":%llu", (unsigned long long)r->shown_failed);
   if (info->cures) fputs(",\"cures\":true", out);
   if (info->note) { fputs(",\"note\":", out); cb_json_write_string(out, info->note); }
   if (info->z3) {
      const cbp_z3_summary *z = info->z3;
      fprintf(out, ",\"z3\":{\"candidates\":%llu,\"asked\":%llu,\"dropped\":%llu,"
                   "\"undecided\":%llu,\"sat\":%llu,\"kept\":%llu,\"model_orders\":%llu,"
                   "\"model_rejected\":%llu,\"solver_ms\":%.3f,\"ms_per_query\":%.3f,"
                   "\"timeout_ms\":%u,\"window\":%zu}",
              (unsigned long long)z->candidates, (unsigned long long)z->asked,
              (unsigned long long)z->dropped, (unsigned long long)z->undecided,
              (unsigned long long)z->sat, (unsigned long long)info->written,
              (unsigned long long)z->model_orders, (unsigned long long)z->model_rejected,
              z->solver_ms, z->asked ? z->solver_ms / (double)z->asked : 0.0,
              z->timeout_ms, z->window);
   }
   fputs(",\"violations\":[", out);
   int first = 1;
   for (size_t i = 0; i < r->n; i++) {
      const cbp_candidate *c = &r->c[i];
      if (!c->id) continue;
      char v[256], path[4096];
      if (!first) fputc(',', out);
      first = 0;
      fprintf(out, "{\"id\":\"s%u\",\"schedule\":", c->id);
      snprintf(path, sizeof path, "%s/s%u.pb", info->dir, c->id);
      cb_json_write_string(out, path);
      fprintf(out, ",\"pattern\":\"%s\",\"variable\":", cbp_pattern_name[c->pattern]);
      cb_json_write_string(out, cbp_candidate_name(t, c, v, sizeof v));
      fprintf(out, ",\"address\":%llu,\"threads\":[%u,%u],",
              (unsigned long long)c->addr, c->t1, c->t2);
      jevent(out, t, "e1", c->e1, c->ce1, t->events[c->e1].loc); fputc(',', out);
      jevent(out, t, "f", c->f, c->cf, t->events[c->f].loc); fputc(',', out);
      jevent(out, t, "e2", c->e2, c->ce2, e2_loc(t, c));
      fputs(",\"z3\":", out);
      cb_json_write_string(out, c->z3 ? c->z3 : "");
      fprintf(out, ",\"z3_order\":%s", c->z3_order ? "true" : "false");
      fprintf(out, ",\"cut_index\":%llu,\"prefix\":[", (unsigned long long)c->e);
      for (uint32_t j = 0; j < x->nthreads; j++)
         fprintf(out, "%s%llu", j ? "," : "", (unsigned long long)c->prefix[j]);
      fputs("],\"tail\":[", out);
      for (uint32_t j = 0; j < c->ntail; j++)
         fprintf(out, "%s[%u,%llu]", j ? "," : "", c->tail[j].tid,
                 (unsigned long long)c->tail[j].count);
      fputs("]}", out);
   }
   fputc(']', out);
   if (info->explore) cbp_explore_json(out, t, info->explore, info->dir);
   fputs("}\n", out);
}
