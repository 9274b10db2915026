/* cbtest_explore.h: what cbtest's exploration shares with the other parts
 * (cbtest_explore.c: the rounds, their budget and dedup; cbtest_compose.c:
 * a schedule predicted from a forced run's trace, made to reach its cut as
 * that run did).  The rest of cbtest's parts: cbtest.h.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CB_CBTEST_EXPLORE_H
#define CB_CBTEST_EXPLORE_H

#include "cbtest.h"
#include "cbtrace.h"

/* ---- Exploration (cbtest_explore.c) ---------------------------------------------
 * With --explore, a test whose predicted schedules confirm no bug goes on in
 * rounds: cbpredict --delays on its trace, then on the traces of forced runs
 * that passed (cbreplay --record), forcing each new schedule, never one
 * ordering twice, until a bug is confirmed or --max-runs forced runs (by
 * default the predicted ones and CBT_DEFAULT_EXPLORE_RUNS more) are spent. */
#define CBT_DEFAULT_DELAYS 2
#define CBT_DEFAULT_EXPLORE_RUNS 40
/* With --max-runs N and exploration, the predicted schedules get at most
 * N less this share of it (N / 4), so that exploration is not left without
 * a run when prediction wrote more schedules than N (cbt_predicted_cap). */
#define CBT_EXPLORE_SHARE 4
size_t cbt_predicted_cap(const cbt_options *o);
/* From test_finished: 1 when the test goes on exploring (its next round's
 * prediction is ready to start: state CBT_T_RECORDED), 0 when it is done. */
int cbt_explore_continue(cbt_suite *s, size_t ti);
/* The arguments of a round's cbpredict after argv[0] (at most 16 words,
 * pointing into the test's exploration), and where its output goes. */
size_t cbt_explore_predict_args(const cbt_suite *s, const cbt_test *t,
                                char **argv, char *out, char *err, size_t len);
/* After a round's cbpredict ended (ok: exit 0): its new schedules become
 * runs of the test.  Returns how many (0: the round gave nothing new). */
size_t cbt_explore_adopt(cbt_suite *s, size_t ti, int ok, const char *why);
/* Where forced run ri of t is recorded (cbreplay --record), or NULL when
 * it is not (before exploration). */
const char *cbt_explore_record_path(const cbt_test *t, size_t ri, char *buf,
                                    size_t len);
/* The second recording (cbtest_explore.c): whether t's next recording is
 * it; the arguments of its cbtrace record after "record" (at most 4 words)
 * and where its output goes; and, when it ended, its exit code. */
int cbt_explore_recording(const cbt_test *t);
size_t cbt_explore_record_args(const cbt_test *t, char **argv, char *out,
                               char *err, size_t len);
void cbt_explore_recorded(cbt_test *t, int code, int timed_out);
void cbt_explore_summary(FILE *out, const cbt_test *t);
void cbt_explore_json(cbt_json *j, const cbt_test *t);
void cbt_explore_free(cbt_test *t);
/* cbtest_compose.c: child, predicted from tr (the trace of a forced run),
 * made to reach its cut as that run did: no free prefix, but tr's recorded
 * order up to the cut's last event as counted steps before every tail
 * variant.  1 when changed, 0 when left as it is (more than max_steps
 * switches, a pattern event would run early, out of memory).  What it made
 * (the new steps, every variant's new list) is *own's: the child points
 * into it until cbt_composed_free. */
#define CBT_COMPOSE_MAX_STEPS 20000
typedef struct {
   cb_sched_step *steps;  /* the forced run's order, shared by the variants */
   cb_sched_step **lists; /* every variant's new tail, one after another */
} cbt_composed;
int cbt_compose(cb_schedule *child, const cb_trace *tr, size_t max_steps,
                cbt_composed *own);
void cbt_composed_free(cbt_composed *own);

#endif /* CB_CBTEST_EXPLORE_H */
