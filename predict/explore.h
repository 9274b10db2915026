/* explore.h: cbpredict --delays, schedules that delay threads at points of
 * the recorded run rather than force a predicted violation (explore.c), and
 * their part of the report (explore_report.c).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CB_PREDICT_EXPLORE_H
#define CB_PREDICT_EXPLORE_H

#include <stdio.h>

#include "predict.h"

/* ---- Exploration: delay schedules (explore.c, explore_report.c) ----------
 * cbpredict --delays N: schedules that follow the recorded run to a delay
 * point (before a conflicting access or a synchronisation call), hold that
 * thread, run a chain of up to N-1 more threads each to its own point, then
 * every other thread out; for when prediction finds nothing that fails. */
#define CBP_EXPLORE_DEFAULT_MAX 100 /* schedules written without --max */
#define CBP_EXPLORE_MAX_DELAYS 7
#define CBP_EXPLORE_SHOWN 4         /* chain threads a row names */
typedef struct {
   unsigned delays;                 /* up to this many per schedule, >= 1 */
   uint64_t seed;
   size_t max;                      /* schedules to write at most */
   const uint64_t *seen;            /* orderings not to write again */
   size_t nseen;                    /* (cb_ordering_digest) */
} cbp_explore_options;
typedef struct {
   uint32_t id;                     /* sN */
   unsigned delays;
   uint64_t at[3], index[3];        /* first, second, last point: trace and
                                       counted index */
   uint32_t tids[CBP_EXPLORE_SHOWN];/* the chain's threads, in order */
   unsigned ntids;
} cbp_explore_row;
typedef struct cbp_explore_result {
   unsigned delays;
   uint64_t seed;
   size_t points;                   /* delay points in the trace */
   size_t written;
   size_t by_depth[CBP_EXPLORE_MAX_DELAYS + 1]; /* written, per delays */
   size_t duplicates;               /* chains drawn again */
   size_t seen;                     /* orderings in --seen */
   size_t unfollowable;             /* replay could not follow them */
   cbp_explore_row *rows;
   size_t nrows, caprows;
} cbp_explore_result;
/* Writes DIR/sK.pb for K = first_id, ...; fills res (free with
 * cbp_explore_free).  -1 with err when a file cannot be written. */
int cbp_explore_write(const cb_trace *t, cbp_analysis *a,
                      const cbp_explore_options *o, const char *dir,
                      uint32_t first_id, cbp_explore_result *res, cb_error *err);
void cbp_explore_free(cbp_explore_result *res);
/* Report hooks (report.c): the widest variable name of the rows, the
 * table rows, the summary line, and ,"explore":{...} for --json. */
int cbp_explore_name_width(const cb_trace *t, const cbp_explore_result *r);
void cbp_explore_rows(FILE *out, const cb_trace *t, const cbp_explore_result *r,
                      int vw);
void cbp_explore_summary(FILE *out, const cbp_explore_result *r);
void cbp_explore_json(FILE *out, const cb_trace *t, const cbp_explore_result *r,
                      const char *dir);

#endif /* CB_PREDICT_EXPLORE_H */
