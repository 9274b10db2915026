/* cbtest_compose: a schedule predicted from a forced run's trace, made to
 * reach its cut as that run did (reschedule/batch/cbtest_compose.c), on a
 * text-form trace (TAP).
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cbtest.h"
#include "cbtest_explore.h"

static int ntest, nfail;
static void ok(int cond, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   printf("%sok %d - ", cond ? "" : "not ", ++ntest);
   vprintf(fmt, ap);
   printf("\n");
   va_end(ap);
   if (!cond)
      nfail++;
}

/* T2 takes its busy path at "read s" because T3 holds L, which the trace
 * cannot show (a failed trylock is no event): a cut with T3 at 0 and T2
 * past it cannot be reached freely. */
static const char *const forced =
   "T1 start T1\nT1 create T2\nT2 start T1\nT1 create T3\nT3 start T1\n"
   "T2 read q @a.c:1\nT2 write q @a.c:2\nT3 lock L\nT3 write w @a.c:5\n"
   "T2 read s @a.c:3\nT2 write s @a.c:4\nT3 unlock L\nT3 read s @a.c:6\n"
   "T2 exit\nT3 exit\nT1 join T2\nT1 join T3\nT1 exit\n";

/* Thread tid's counted event k: its trace index. */
static uint64_t at(const cb_trace *t, uint32_t tid, uint64_t k)
{
   uint64_t n = 0;
   for (size_t i = 0; i < t->nevents; i++)
      if (t->events[i].tid == tid && CB_IS_COUNTED(t->events[i].kind) &&
          n++ == k)
         return i;
   return UINT64_MAX;
}

typedef struct {
   cb_schedule s;
   uint64_t prefix[3];
   cb_sched_step st[3], *sp[3];
   cb_sched_event pe[3];
   cbt_composed own; /* what cbt_compose made */
} child;

/* prefix (2, 0, 0); tail T2 3 (through e1 = T2#2), T3 3 (f = T3#2),
 * T2 1 (e2 = T2#3). */
static void make_child(child *c, const cb_trace *t, int with_index)
{
   memset(c, 0, sizeof *c);
   c->prefix[0] = 2;
   c->s.n_prefix = 3;
   c->s.prefix = c->prefix;
   const uint32_t tid[3] = {2, 3, 2};
   const uint64_t count[3] = {3, 3, 1}, idx[3] = {2, 2, 3};
   for (int i = 0; i < 3; i++) {
      c->st[i].has_tid = c->st[i].has_count = 1;
      c->st[i].tid = tid[i];
      c->st[i].count = count[i];
      c->sp[i] = &c->st[i];
      c->pe[i].has_tid = c->pe[i].has_index = 1;
      c->pe[i].tid = tid[i];
      c->pe[i].index = idx[i];
      c->pe[i].has_trace_index = with_index;
      c->pe[i].trace_index = at(t, tid[i], idx[i]);
   }
   c->s.n_tail = 3;
   c->s.tail = c->sp;
   c->s.e1 = &c->pe[0];
   c->s.f = &c->pe[1];
   c->s.e2 = &c->pe[2];
}

static int steps_are(const cb_schedule *s, const char *want)
{
   char got[256] = "";
   for (size_t i = 0; i < s->n_tail; i++) {
      char one[32];
      snprintf(one, sizeof one, "%sT%u:%llu", i ? " " : "", s->tail[i]->tid,
               (unsigned long long)s->tail[i]->count);
      strncat(got, one, sizeof got - strlen(got) - 1);
   }
   if (strcmp(got, want))
      printf("# got %s\n# want %s\n", got, want);
   return !strcmp(got, want);
}

int main(void)
{
   cb_trace t;
   cb_error err;
   if (cb_trace_from_text(forced, &t, &err)) {
      printf("Bail out! text form: %s\n", err.msg);
      return 1;
   }
   child c;
   make_child(&c, &t, 1);
   uint64_t before = cb_schedule_digest(&c.s);
   ok(cbt_compose(&c.s, &t, 100, &c.own) == 1,
      "a child of a forced run's trace is composed");
   ok(c.prefix[0] == 0 && c.prefix[1] == 0 && c.prefix[2] == 0,
      "no free prefix left");
   ok(steps_are(&c.s, "T1:2 T2:2 T3:2 T2:1 T3:1 T2:1"),
      "the recorded order up to e1 (T3 takes L before T2's busy path), then the "
      "tail less what ran early");
   ok(cb_schedule_digest(&c.s) != before, "the composed ordering has its own digest");
   ok(c.s.tail[3] == c.sp[0] && c.s.tail[5] == c.sp[2],
      "the child's own steps are kept (it owns them), only new ones are made");
   cbt_composed_free(&c.own);

   make_child(&c, &t, 1);
   c.s.n_variants = 1;
   cb_sched_step vst = {.has_tid = 1, .tid = 2, .has_run_out = 1, .run_out = 1};
   cb_sched_step *vsp[1] = {&vst};
   cb_sched_variant var = {.n_tail = 1, .tail = vsp}, *vp = &var;
   c.s.variants = &vp;
   ok(cbt_compose(&c.s, &t, 100, &c.own) == 1 &&
         steps_are(&c.s, "T1:2 T2:2 T3:2 T2:1 T3:1 T2:1") && var.n_tail == 4 &&
         var.tail[0] == c.s.tail[0] && var.tail[3] == &vst,
      "every tail variant gets the same steps before its own");
   cbt_composed_free(&c.own);

   make_child(&c, &t, 1);
   ok(cbt_compose(&c.s, &t, 2, &c.own) == 0 && steps_are(&c.s, "T2:3 T3:3 T2:1"),
      "more switches than allowed: left as it is");
   cbt_composed_free(&c.own);
   make_child(&c, &t, 0);
   ok(cbt_compose(&c.s, &t, 100, &c.own) == 0 && c.prefix[0] == 2,
      "pattern events without trace positions: left as it is");
   cbt_composed_free(&c.own);
   cb_trace_free(&t);
   printf("1..%d\n", ntest);
   return nfail != 0;
}
