/* rank.h: the order cbpredict numbers its schedules in: new paths first
 * (fresh.c), then, after a failing run, the shapes it showed
 * (rank_failed.c), then the likeliest (rank.c), with the candidates whose
 * forced reads see nothing new last among equals (rank_seen.c).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#ifndef CB_PREDICT_RANK_H
#define CB_PREDICT_RANK_H

#include "predict.h"

/* ---- New paths first (fresh.c) -------------------------------------------
 * Marks each of r's candidates whose e1, f or e2 is on a source line that
 * base has no event at (cbp_candidate.fresh) and moves them before the
 * others, the shortest stretch of trace from the pattern's first event to
 * its last first.  Returns how many are fresh. */
size_t cbp_prefer_fresh(const cb_trace *t, const cb_trace *base, cbp_result *r);
/* A location's source line as a key (its file name's hash and its line),
 * the same from run to run; 0 when the file or line is unknown. */
uint64_t cbp_line_key(const cb_location *l);

/* ---- Schedule order (rank.c) ----------------------------------------------
 * Stably sorts r's candidates so that built schedules whose forced order
 * changes no read's writer but the pattern's own come first. */
void cbp_rank(const cb_trace *t, const cbp_escape *x, cbp_result *r);
/* A location's code site: its source line (an inlined helper's
 * instructions share one), or the location itself when the line is
 * unknown. */
uint32_t cbp_loc_site(const cb_trace *t, uint32_t loc);
/* Every location's code site, [0, t->nlocs] (malloc'd): a line's key
 * hashes its file name, so a pass over the events looks it up here. */
uint32_t *cbp_loc_sites(const cb_trace *t);
/* Event i's code site, from that table. */
static inline uint32_t cbp_site_at(const cb_trace *t, const uint32_t *sites, uint64_t i) {
   uint32_t loc = t->events[i].loc;
   return loc < t->nlocs ? sites[loc] : loc;
}
/* Per candidate of r (malloc'd, r->n flags): 1 when the read its forced
 * order moves would see a value its thread already read from that
 * variable at that line in the recording (rank_seen.c). */
uint8_t *cbp_rank_seen(const cb_trace *t, const cbp_escape *x, const cbp_result *r);
/* When the recorded run failed: per candidate of r (malloc'd, r->n flags),
 * 1 when its pattern, variable and three code sites happened in that run
 * (rank_failed.c), and in *nshown how many; NULL (and 0) when the run
 * passed, deadlocked or was cut short. */
uint8_t *cbp_rank_failed(const cb_trace *t, const cbp_escape *x, const cbp_result *r,
                         size_t *nshown);

#endif /* CB_PREDICT_RANK_H */
