/* explore_report.c: the delay schedules of `cbpredict --delays` in the
 * table and in --json, beside the predicted violations (report.c calls
 * these).  A row names the first, second and last delay point in the
 * columns e1, f, e2 and the chain's threads in the order they are held.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdio.h>
#include <string.h>

#include "predict.h"
#include "explore.h"

static const char *var_name(const cb_trace *t, const cbp_explore_row *row,
                            char *buf, size_t len) {
   return cb_variable_str_at(t, t->events[row->at[0]].addr, row->at[0], buf, len);
}

int cbp_explore_name_width(const cb_trace *t, const cbp_explore_result *r) {
   int w = 0;
   char v[256];
   for (size_t i = 0; i < r->nrows; i++) {
      int l = (int)strlen(var_name(t, &r->rows[i], v, sizeof v));
      if (l > w) w = l;
   }
   return w;
}

static void threads_of(const cbp_explore_row *row, char *buf, size_t len) {
   int w = 0;
   buf[0] = 0;
   for (unsigned j = 0; j < row->ntids && w >= 0 && (size_t)w < len; j++)
      w += snprintf(buf + w, len - (size_t)w, "%sT%u", j ? "/" : "", row->tids[j]);
   if (row->delays > row->ntids && w >= 0 && (size_t)w < len)
      snprintf(buf + w, len - (size_t)w, "/...");
}

void cbp_explore_rows(FILE *out, const cb_trace *t, const cbp_explore_result *r,
                      int vw) {
   char v[256], l[3][256], id[16], th[64];
   for (size_t i = 0; i < r->nrows; i++) {
      const cbp_explore_row *row = &r->rows[i];
      snprintf(id, sizeof id, "s%u", row->id);
      for (int k = 0; k < 3; k++)
         cb_location_str(t, t->events[row->at[k]].loc, l[k], sizeof l[k]);
      threads_of(row, th, sizeof th);
      fprintf(out, "%-5s %-7s %-*s %-22s %-22s %-22s %s\n", id, cbp_pattern_name[CBP_EXP], vw,
              var_name(t, row, v, sizeof v), l[0], l[1], l[2], th);
   }
}

void cbp_explore_summary(FILE *out, const cbp_explore_result *r) {
   fprintf(out, "cbpredict: explore: %zu delay points (conflicting accesses and "
                "synchronisation calls); %zu schedules of up to %u delays (seed %llu):",
           r->points, r->written, r->delays, (unsigned long long)r->seed);
   for (unsigned d = 1; d <= r->delays && d <= CBP_EXPLORE_MAX_DELAYS; d++)
      fprintf(out, " %zu with %u", r->by_depth[d], d);
   fprintf(out, "; not written: %zu forced before (--seen), %zu drawn twice, %zu that "
                "replay could not follow\n",
           r->seen, r->duplicates, r->unfollowable);
}

static void jpoint(FILE *out, const cb_trace *t, uint64_t tidx, uint64_t cidx) {
   const cb_event *e = &t->events[tidx];
   char b[256];
   fprintf(out, "{\"tid\":%u,\"index\":%llu,\"trace_index\":%llu,\"kind\":", e->tid,
           (unsigned long long)cidx, (unsigned long long)tidx);
   cb_json_write_string(out, cb_event_kind_name(e->kind));
   fputs(",\"location\":", out);
   cb_json_write_string(out, cb_location_str(t, e->loc, b, sizeof b));
   fputc('}', out);
}

void cbp_explore_json(FILE *out, const cb_trace *t, const cbp_explore_result *r,
                      const char *dir) {
   fprintf(out, ",\"explore\":{\"delays\":%u,\"seed\":%llu,\"points\":%zu,"
                "\"schedules\":%zu,\"seen\":%zu,\"duplicates\":%zu,\"unfollowable\":%zu,"
                "\"rows\":[",
           r->delays, (unsigned long long)r->seed, r->points, r->written, r->seen,
           r->duplicates, r->unfollowable);
   char v[256], path[4096];
   for (size_t i = 0; i < r->nrows; i++) {
      const cbp_explore_row *row = &r->rows[i];
      fprintf(out, "%s{\"id\":\"s%u\",\"schedule\":", i ? "," : "", row->id);
      snprintf(path, sizeof path, "%s/s%u.pb", dir, row->id);
      cb_json_write_string(out, path);
      fprintf(out, ",\"pattern\":\"%s\",\"variable\":", cbp_pattern_name[CBP_EXP]);
      cb_json_write_string(out, var_name(t, row, v, sizeof v));
      fprintf(out, ",\"delays\":%u,\"threads\":[", row->delays);
      for (unsigned j = 0; j < row->ntids; j++)
         fprintf(out, "%s%u", j ? "," : "", row->tids[j]);
      fputs("],\"first\":", out);
      jpoint(out, t, row->at[0], row->index[0]);
      fputs(",\"second\":", out);
      jpoint(out, t, row->at[1], row->index[1]);
      fputs(",\"last\":", out);
      jpoint(out, t, row->at[2], row->index[2]);
      fputc('}', out);
   }
   fputs("]}", out);
}
