/* status.c: the tool's status lines (cb_wire.h) as facts about a run.
 *
 *   prefix-done | tail-done | released      scheduling progress
 *   step <k> <n>                            tail step k of n started (the
 *                                           tool says only some of a long
 *                                           tail's steps, and the last one
 *                                           started when it ends)
 *   run-out-exited <tid>                    a run-out step ended: its thread
 *   run-out-blocked <tid>                   exited, or blocked, or ran
 *   run-out-timed-out <tid>                 CB_RUN_OUT_MAX_MS
 *   infeasible <reason>                     the plan could not be followed
 *   diverged <tid> <index>                  thread tid ran counted event
 *                                           index when it was not its turn
 *                                           (the rest of an instruction
 *                                           whose first event ended a turn,
 *                                           or an unexpected path).  The
 *                                           tool goes on following the
 *                                           plan, and a plan that really
 *                                           cannot be followed ends
 *                                           "infeasible" when it stalls, so
 *                                           this is a note, not a verdict
 *   unexpected T I KIND CODE DATA WHERE F   thread T's counted event I was
 *                                           not the one the schedule
 *                                           expects there: the one found
 *                                           (kind number, code and data
 *                                           address, file:line or "?"; F 1
 *                                           while the plan held threads).
 *                                           The run diverged: judged so
 *   pattern <0|1>                           did e1, f, e2 run in that order
 *   hunt-hold T N, hunt-hit T N U           the hunt held thread T (its
 *                                           N-th hold); U's f came
 *   exec                                    the program called execve:
 *                                           the tool's end will not come
 *   blocked T K OBJ WHERE H HWHERE V NAME   a thread of a deadlock: what
 *                                           it waits for (cb_wire.h)
 *   end exit <N> by <T> | end signal [by T] the tool's last line: the
 *   end deadlock                            program exited N (thread T
 *                                           called exit), or ended
 *                                           otherwise (a fatal signal), or
 *                                           deadlocked and the tool ended
 *                                           it; a run without it is one
 *                                           where Valgrind or the tool died
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdio.h>
#include <string.h>

#include "replay.h"

void cbr_status_init(cbr_status *st)
{
   memset(st, 0, sizeof *st);
   st->pattern = -1;
}

static int word_is(const char *line, const char *word, const char **rest)
{
   size_t n = strlen(word);
   if (strncmp(line, word, n) != 0 || (line[n] && line[n] != ' '))
      return 0;
   *rest = line[n] ? line + n + 1 : line + n;
   return 1;
}

/* "unexpected T I KIND CODE DATA WHERE F": the first one is kept. */
static int unexpected_line(cbr_status *st, const char *rest)
{
   unsigned tid, kind;
   unsigned long long index, code, data;
   int used = 0;
   if (sscanf(rest, "%u %llu %u %llx %llx %n", &tid, &index, &kind, &code,
              &data, &used) != 5 || !used)
      return 0;
   if (st->unexpected)
      return 1;
   const char *where = rest + used, *last = strrchr(where, ' ');
   size_t wl = last ? (size_t)(last - where) : strlen(where);
   st->unexpected = 1;
   st->unexp_tid = tid;
   st->unexp_index = index;
   st->unexp_kind = kind;
   st->unexp_code = code;
   st->unexp_data = data;
   st->unexp_forcing = last && last[1] == '1';
   snprintf(st->unexp_where, sizeof st->unexp_where, "%.*s", (int)wl, where);
   return 1;
}

/* "blocked T KIND OBJECT WHERE HOLDER HOLDER_WHERE VALUE NAME": one
 * thread of a deadlock or of a stalled plan.  A thread said again (a plan
 * that stalled, then the deadlock it ran into) keeps one line, the
 * latest. */
static int blocked_line(cbr_status *st, const char *rest)
{
   cbr_blocked b;
   memset(&b, 0, sizeof b);
   if (sscanf(rest, "%u %u %llx %63s %u %63s %llx %63s", &b.tid, &b.kind,
              &b.object, b.where, &b.holder, b.holder_where, &b.value,
              b.name) != 8)
      return 0;
   unsigned kept = st->nblocked < CBR_MAX_BLOCKED ? st->nblocked : CBR_MAX_BLOCKED;
   for (unsigned i = 0; i < kept; i++)
      if (st->blocked[i].tid == b.tid) {
         st->blocked[i] = b;
         return 1;
      }
   if (st->nblocked < CBR_MAX_BLOCKED)
      st->blocked[st->nblocked] = b;
   st->nblocked++;
   return 1;
}

/* "end exit N by T" | "end signal [by T]" | "end deadlock": the tool's
 * last line (older tools: "end exit N"). */
static int end_line(cbr_status *st, const char *rest)
{
   int code;
   unsigned tid;
   if (strcmp(rest, "signal") == 0) {
      st->end = CBR_END_SIGNAL;
   } else if (sscanf(rest, "signal by %u", &tid) == 1) {
      st->end = CBR_END_SIGNAL;
      st->end_tid = tid; /* it raised SIGABRT */
   } else if (strcmp(rest, "deadlock") == 0) {
      st->end = CBR_END_DEADLOCK;
   } else if (sscanf(rest, "exit %d", &code) == 1) {
      st->end = CBR_END_EXIT;
      st->end_exit = code;
      if (sscanf(rest, "exit %d by %u", &code, &tid) == 2)
         st->end_tid = tid;
   } else {
      return 0;
   }
   return 1;
}

/* The facts of the run (pattern, values, divergence): not progress. */
static int fact_line(cbr_status *st, const char *line)
{
   const char *rest;
   if (word_is(line, "diverged", &rest)) {
      unsigned tid;
      unsigned long long index;
      if (sscanf(rest, "%u %llu", &tid, &index) != 2)
         return 0;
      if (!st->diverged) {
         st->diverged = 1;
         st->diverged_tid = tid;
         st->diverged_index = index;
      }
      return 1;
   }
   if (word_is(line, "unexpected", &rest))
      return unexpected_line(st, rest);
   if (word_is(line, "exec", &rest)) {
      st->execd = 1;
      return 1;
   }
   if (word_is(line, "blocked", &rest))
      return blocked_line(st, rest);
   if (word_is(line, "end", &rest))
      return end_line(st, rest);
   if (word_is(line, "value", &rest)) {
      unsigned k;
      unsigned long long v;
      if (sscanf(rest, "%u %llu", &k, &v) != 2 || k > 2)
         return 0;
      st->has_value[k] = 1;
      st->value[k] = v;
      return 1;
   }
   if (word_is(line, "pattern", &rest)) {
      if (strcmp(rest, "1") != 0 && strcmp(rest, "0") != 0)
         return 0;
      st->pattern = rest[0] == '1';
      return 1;
   }
   if (word_is(line, "hunt-hold", &rest))
      return sscanf(rest, "%u %u", &st->hunt_held, &st->hunt_holds) == 2;
   if (word_is(line, "hunt-hit", &rest))
      return sscanf(rest, "%u %u %u", &st->hunt_held, &st->hunt_holds,
                    &st->hunt_f_tid) == 3;
   return 0;
}

int cbr_status_line(cbr_status *st, const char *line)
{
   const char *rest;
   if (word_is(line, "prefix-done", &rest)) {
      st->prefix_done = st->progress = 1;
   } else if (word_is(line, "tail-done", &rest)) {
      st->tail_done = st->progress = 1;
   } else if (word_is(line, "released", &rest)) {
      st->released = st->progress = 1;
   } else if (word_is(line, "infeasible", &rest)) {
      st->infeasible = st->progress = 1;
      /* Keep the first reason: later ones are consequences. */
      if (!st->reason[0])
         snprintf(st->reason, sizeof st->reason, "%s",
                  *rest ? rest : "no reason given");
   } else if (word_is(line, "prefix-order-dropped", &rest)) {
      unsigned long long *w = st->order_wait;
      st->order_dropped = st->progress = 1;
      if (sscanf(rest, "%llu %llu %llu %llu", &w[0], &w[1], &w[2], &w[3]) != 4)
         memset(st->order_wait, 0, sizeof st->order_wait);
   } else if (word_is(line, "step", &rest)) {
      unsigned k, n;
      if (sscanf(rest, "%u %u", &k, &n) != 2)
         return 0;
      st->step = k;
      st->nsteps = n;
      st->progress = 1;
   } else if (!strncmp(line, "hunt-", 5)) {
      /* A hunt's hold began or ended (vgtool/cb_hunt.c): the plan's time,
       * not the program's, so the hang timer starts again. */
      st->progress = 1;
      (void)fact_line(st, line);
   } else if (word_is(line, "run-out-exited", &rest) ||
              word_is(line, "run-out-blocked", &rest) ||
              word_is(line, "run-out-timed-out", &rest)) {
      st->run_outs++;
      st->progress = 1;
   } else {
      return fact_line(st, line);
   }
   return 1;
}
