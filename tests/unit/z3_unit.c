/* z3_unit.c: TAP tests of the Z3 feasibility check (predict/z3_check.h).
 *
 * Traces are written in a text form close to cb_trace_from_text's (which
 * this test does not need, so it runs without the trace library), plus two
 * test-only marks: `<name>` labels an event (e1, f, e2) and `!` flags a
 * memory access as part of its predecessor's instruction
 * (CB_SIZE_SAME_INSN).  Every SAT answer is replayed by a small simulator
 * (check_order) that checks what the order promises: program order, locks,
 * recorded read values, the instruction rule, e1 < f < e2.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "z3_check.h"

/* ---- TAP ------------------------------------------------------------------ */
static int ntests, nfailed;

static int ok(int cond, const char *fmt, ...)
{
   va_list ap;
   ntests++;
   printf("%sok %d - ", cond ? "" : "not ", ntests);
   va_start(ap, fmt);
   vprintf(fmt, ap);
   va_end(ap);
   printf("\n");
   if (!cond)
      nfailed++;
   return cond;
}

static void diag(const char *fmt, ...)
{
   va_list ap;
   printf("# ");
   va_start(ap, fmt);
   vprintf(fmt, ap);
   va_end(ap);
   printf("\n");
}

/* ---- Text traces ------------------------------------------------------------ */
#define MAXNAMES 64
typedef struct {
   cb_trace t;
   size_t cap;
   char *names[MAXNAMES];
   size_t nnames;
   char *labels[16];
   size_t label_at[16];
   size_t nlabels;
} ttrace;

static uint64_t name_addr(ttrace *tt, const char *name)
{
   for (size_t i = 0; i < tt->nnames; i++)
      if (!strcmp(tt->names[i], name))
         return 0x10000 + 0x100 * (uint64_t)i;
   if (tt->nnames == MAXNAMES) {
      fprintf(stderr, "too many names\n");
      exit(2);
   }
   tt->names[tt->nnames] = strdup(name);
   return 0x10000 + 0x100 * (uint64_t)tt->nnames++;
}

static void add_event(ttrace *tt, const cb_event *e)
{
   if (tt->t.nevents == tt->cap) {
      tt->cap = tt->cap ? tt->cap * 2 : 64;
      tt->t.events = realloc(tt->t.events, tt->cap * sizeof(cb_event));
      if (!tt->t.events)
         exit(2);
   }
   tt->t.events[tt->t.nevents++] = *e;
   if (e->tid > tt->t.nthreads)
      tt->t.nthreads = e->tid;
}

static void parse(ttrace *tt, const char *text)
{
   memset(tt, 0, sizeof *tt);
   char *copy = strdup(text), *save = NULL;
   for (char *line = strtok_r(copy, "\n", &save); line;
        line = strtok_r(NULL, "\n", &save)) {
      char *hash = strchr(line, '#');
      if (hash)
         *hash = 0;
      char *tok[8], *s2 = NULL;
      int nt = 0;
      for (char *w = strtok_r(line, " \t", &s2); w && nt < 8;
           w = strtok_r(NULL, " \t", &s2))
         tok[nt++] = w;
      if (nt == 0)
         continue;
      cb_event e = {0};
      if (nt < 2 || tok[0][0] != 'T') {
         fprintf(stderr, "bad line: %s\n", line);
         exit(2);
      }
      e.tid = (uint32_t)atoi(tok[0] + 1);
      const char *k = tok[1];
      int argi = 2;
      if (!strcmp(k, "read") || !strcmp(k, "write")) {
         e.kind = k[0] == 'r' ? CB_EV_READ : CB_EV_WRITE;
         e.addr = name_addr(tt, tok[argi++]);
         e.size = 4;
      } else if (!strcmp(k, "lock") || !strcmp(k, "unlock") ||
                 !strcmp(k, "rdlock") || !strcmp(k, "wrlock")) {
         e.kind = !strcmp(k, "unlock") ? CB_EV_UNLOCK : CB_EV_LOCK;
         e.size = !strcmp(k, "rdlock") ? CB_LOCK_RD
                  : !strcmp(k, "wrlock") ? CB_LOCK_WR : CB_LOCK_MUTEX;
         e.addr = name_addr(tt, tok[argi++]);
         if (e.kind == CB_EV_UNLOCK) /* in the mode it was taken */
            for (size_t j = tt->t.nevents; j-- > 0;)
               if (tt->t.events[j].kind == CB_EV_LOCK &&
                   tt->t.events[j].tid == e.tid &&
                   tt->t.events[j].addr == e.addr) {
                  e.size = tt->t.events[j].size;
                  break;
               }
      } else if (!strcmp(k, "wait")) {
         e.kind = CB_EV_COND_WAIT;
         e.addr = name_addr(tt, tok[argi++]);
         e.value = name_addr(tt, tok[argi++]);
      } else if (!strcmp(k, "signal") || !strcmp(k, "broadcast")) {
         e.kind = CB_EV_COND_SIGNAL;
         e.size = k[0] == 'b';
         e.addr = name_addr(tt, tok[argi++]);
      } else if (!strcmp(k, "barrier-enter") || !strcmp(k, "barrier-leave")) {
         e.kind = k[8] == 'e' ? CB_EV_BARRIER_ENTER : CB_EV_BARRIER_LEAVE;
         e.addr = name_addr(tt, tok[argi++]);
         e.value = strtoull(tok[argi++], NULL, 0);
      } else if (!strcmp(k, "create") || !strcmp(k, "join") ||
                 !strcmp(k, "start")) {
         e.kind = k[0] == 'c' ? CB_EV_THREAD_CREATE
                  : k[0] == 'j' ? CB_EV_THREAD_JOIN : CB_EV_THREAD_START;
         e.value = strtoull(tok[argi++] + 1, NULL, 10);
      } else if (!strcmp(k, "exit")) {
         e.kind = CB_EV_THREAD_EXIT;
      } else if (!strcmp(k, "begin") || !strcmp(k, "end")) {
         e.kind = k[0] == 'b' ? CB_EV_BLOCK_BEGIN : CB_EV_BLOCK_END;
         e.addr = name_addr(tt, tok[argi++]);
      } else {
         fprintf(stderr, "bad kind: %s\n", k);
         exit(2);
      }
      for (; argi < nt; argi++) {
         if (tok[argi][0] == '=')
            e.value = strtoull(tok[argi] + 1, NULL, 0);
         else if (!strcmp(tok[argi], "!"))
            e.size |= CB_SIZE_SAME_INSN;
         else if (tok[argi][0] == '<') {
            char *end = strchr(tok[argi], '>');
            if (end)
               *end = 0;
            tt->labels[tt->nlabels] = strdup(tok[argi] + 1);
            tt->label_at[tt->nlabels++] = tt->t.nevents;
         }
      }
      add_event(tt, &e);
   }
   free(copy);
}

static size_t at(const ttrace *tt, const char *label)
{
   for (size_t i = 0; i < tt->nlabels; i++)
      if (!strcmp(tt->labels[i], label))
         return tt->label_at[i];
   fprintf(stderr, "no label %s\n", label);
   exit(2);
}

static void tt_free(ttrace *tt)
{
   free(tt->t.events);
   for (size_t i = 0; i < tt->nnames; i++)
      free(tt->names[i]);
   for (size_t i = 0; i < tt->nlabels; i++)
      free(tt->labels[i]);
}

/* ---- The checker of SAT orders ---------------------------------------------- */

/* Memory and lock owners of the simulated run, by address. */
enum { MEM = 4096 };
static uint64_t mem_addr[MEM], mem_val[MEM];
static uint16_t lock_owner[MEM], lock_readers[MEM];
static size_t nmem;

static size_t slot(uint64_t a)
{
   size_t s = 0;
   while (s < nmem && mem_addr[s] != a)
      s++;
   if (s == nmem) {
      if (nmem == MEM) {
         fprintf(stderr, "too many addresses\n");
         exit(2);
      }
      mem_addr[nmem] = a;
      mem_val[nmem] = ~0ull; /* unknown: the first read tells */
      lock_owner[nmem] = lock_readers[nmem] = 0;
      nmem++;
   }
   return s;
}

/* Replays `order` after the recorded prefix [0, wb): returns NULL when it
 * is a valid schedule for the query, else why not.  Reads are checked
 * against their recorded values, except f, e2 and (unless strict) the
 * accesses to the pattern's variable. */
static const char *check_order(const cb_trace *t, const cb_z3_query *q,
                               const cb_z3_result *r)
{
   static char msg[200];
   enum { TH = 64 };
   size_t next[TH];
   const cb_event *ev = t->events;
   uint64_t x = ev[q->e1].addr;

   nmem = 0;
   for (size_t i = 0; i < r->window_begin; i++) {
      const cb_event *e = &ev[i];
      if (e->kind == CB_EV_WRITE)
         mem_val[slot(e->addr)] = e->value;
      else if (e->kind == CB_EV_LOCK && e->size == CB_LOCK_RD)
         lock_readers[slot(e->addr)]++;
      else if (e->kind == CB_EV_LOCK)
         lock_owner[slot(e->addr)] = e->tid;
      else if (e->kind == CB_EV_UNLOCK && e->size == CB_LOCK_RD)
         lock_readers[slot(e->addr)]--;
      else if (e->kind == CB_EV_UNLOCK)
         lock_owner[slot(e->addr)] = 0;
      else if (e->kind == CB_EV_READ && mem_val[slot(e->addr)] == ~0ull)
         mem_val[slot(e->addr)] = e->value; /* initial value, first seen */
   }
   for (size_t k = 0; k < TH; k++)
      next[k] = r->window_begin;
   size_t p1 = SIZE_MAX, pf = SIZE_MAX, p2 = SIZE_MAX;
   for (size_t k = 0; k < r->norder; k++) {
      size_t i = r->order[k];
      const cb_event *e = &ev[i];
      /* the thread's next counted event */
      size_t j = next[e->tid];
      while (j < t->nevents &&
             (ev[j].tid != e->tid || !CB_IS_COUNTED(ev[j].kind)))
         j++;
      if (j != i) {
         snprintf(msg, sizeof msg, "order[%zu] = %zu, but T%u's next is %zu",
                  k, i, e->tid, j);
         return msg;
      }
      next[e->tid] = i + 1;
      if ((e->kind == CB_EV_READ || e->kind == CB_EV_WRITE) &&
          (e->size & CB_SIZE_SAME_INSN) && k > 0 &&
          ev[r->order[k - 1]].tid != e->tid) {
         snprintf(msg, sizeof msg, "event %zu split from its instruction", i);
         return msg;
      }
      size_t s = slot(e->addr);
      switch (e->kind) {
      case CB_EV_READ:
         if (i != q->f && i != q->e2 && (q->strict || e->addr != x) &&
             mem_val[s] != ~0ull && mem_val[s] != e->value) {
            snprintf(msg, sizeof msg, "read %zu sees %llu, recorded %llu", i,
                     (unsigned long long)mem_val[s],
                     (unsigned long long)e->value);
            return msg;
         }
         if (mem_val[s] == ~0ull)
            mem_val[s] = e->value;
         break;
      case CB_EV_WRITE:
         mem_val[s] = e->value;
         break;
      case CB_EV_LOCK:
         /* readers share: lock_readers counts them, lock_owner is a writer */
         if ((lock_owner[s] && lock_owner[s] != e->tid) ||
             (e->size != CB_LOCK_RD && lock_readers[s])) {
            snprintf(msg, sizeof msg, "lock %zu taken while T%u holds it", i,
                     lock_owner[s]);
            return msg;
         }
         if (e->size == CB_LOCK_RD)
            lock_readers[s]++;
         else
            lock_owner[s] = e->tid;
         break;
      case CB_EV_UNLOCK:
         if (e->size == CB_LOCK_RD && lock_readers[s])
            lock_readers[s]--;
         else
            lock_owner[s] = 0;
         break;
      default:
         break;
      }
      if (i == q->e1) p1 = k;
      if (i == q->f) pf = k;
      if (i == q->e2) p2 = k;
   }
   if (!(p1 < pf && pf < p2)) {
      snprintf(msg, sizeof msg, "not e1 < f < e2 (%zu %zu %zu)", p1, pf, p2);
      return msg;
   }
   if (p2 != r->norder - 1)
      return "order does not end with e2";
   return NULL;
}

/* ---- One query on a text trace ----------------------------------------------- */

static cb_z3 *Z;

static cb_z3_verdict query(const char *text, int strict, const char *name,
                           cb_z3_verdict want)
{
   ttrace tt;
   parse(&tt, text);
   cb_z3_query q = {.e1 = at(&tt, "e1"),
                    .f = at(&tt, "f"),
                    .e2 = at(&tt, "e2"),
                    .window_begin = 0,
                    .strict = strict};
   cb_z3_result r;
   cb_z3_verdict v = cb_z3_check(Z, &tt.t, &q, &r);
   ok(v == want, "%s: %s (got %s%s%s)", name, cb_z3_verdict_name(want),
      cb_z3_verdict_name(v), r.why[0] ? ": " : "", r.why);
   if (v == CB_Z3_SAT) {
      const char *bad = check_order(&tt.t, &q, &r);
      ok(!bad, "%s: the order is a valid schedule%s%s", name, bad ? ": " : "",
         bad ? bad : "");
   }
   tt_free(&tt);
   return v;
}

/* ---- The cases ---------------------------------------------------------------- */

static void test_lost_update(void)
{
   /* T2 overwrites between T1's load and store. */
   const char *plain =
      "T1 read c =0 <e1>\n"
      "T1 write c =1 <e2>\n"
      "T2 write c =5 <f>\n";
   query(plain, 1, "RWW, blind write", CB_Z3_SAT);

   /* counter++ in both threads, T1's recorded first: T2's load read T1's
    * store.  Only the violation's own load changes value. */
   const char *inc =
      "T1 read c =0 <e1>\n"
      "T1 write c =1 <e2>\n"
      "T2 read c =1\n"
      "T2 write c =2 <f>\n";
   query(inc, 0, "RWW, counter++ recorded T1 first", CB_Z3_SAT);
   query(inc, 1, "RWW, counter++ recorded T1 first, strict", CB_Z3_UNSAT);

   const char *inc2 =
      "T2 read c =0\n"
      "T2 write c =1 <f>\n"
      "T1 read c =1 <e1>\n"
      "T1 write c =2 <e2>\n";
   query(inc2, 0, "RWW, counter++ recorded T2 first", CB_Z3_SAT);

   /* The returned order, exactly. */
   ttrace tt;
   parse(&tt, plain);
   cb_z3_query q = {.e1 = 0, .f = 2, .e2 = 1, .window_begin = 0, .strict = 1};
   cb_z3_result r;
   if (cb_z3_check(Z, &tt.t, &q, &r) == CB_Z3_SAT)
      ok(r.norder == 3 && r.order[0] == 0 && r.order[1] == 2 &&
            r.order[2] == 1,
         "RWW: order is e1 f e2 (%zu events)", r.norder);
   else
      ok(0, "RWW: order is e1 f e2 (not sat)");
   tt_free(&tt);
}

static void test_flag(void)
{
   /* T2 writes only after it saw the flag T1 sets after e2. */
   const char *flag =
      "T1 read x =0 <e1>\n"
      "T1 write x =1 <e2>\n"
      "T1 write flag =1\n"
      "T2 read flag =1\n"
      "T2 write x =5 <f>\n";
   query(flag, 0, "flag set after e2 orders f after it", CB_Z3_UNSAT);
   query(flag, 1, "flag set after e2 orders f after it, strict", CB_Z3_UNSAT);
   /* Control: the same reading the flag's initial value. */
   const char *noflag =
      "T2 read flag =0\n"
      "T1 read x =0 <e1>\n"
      "T1 write x =1 <e2>\n"
      "T1 write flag =1\n"
      "T2 write x =5 <f>\n";
   query(noflag, 0, "control: flag not yet set", CB_Z3_SAT);
   /* A flag set before e1 is no obstacle either. */
   const char *early =
      "T1 write flag =1\n"
      "T1 read x =0 <e1>\n"
      "T1 write x =1 <e2>\n"
      "T2 read flag =1\n"
      "T2 write x =5 <f>\n";
   query(early, 1, "control: flag set before e1", CB_Z3_SAT);
   /* Spin: T2 read the flag twice, 0 then 1 (written after e2). */
   const char *spin =
      "T2 read flag =0\n"
      "T1 read x =0 <e1>\n"
      "T1 write x =1 <e2>\n"
      "T1 write flag =1\n"
      "T2 read flag =1\n"
      "T2 write x =5 <f>\n";
   query(spin, 0, "spin on a flag set after e2", CB_Z3_UNSAT);
}

static void test_locks(void)
{
   const char *one =
      "T1 lock m\n"
      "T1 read x =0 <e1>\n"
      "T1 write x =1 <e2>\n"
      "T1 unlock m\n"
      "T2 lock m\n"
      "T2 write x =5 <f>\n"
      "T2 unlock m\n";
   query(one, 0, "one critical section around e1..e2 and f", CB_Z3_UNSAT);
   /* Control: e1 and e2 in two sections; f's section is released after the
    * cut, so T2 must be extended to its unlock. */
   const char *two =
      "T1 lock m\n"
      "T1 read x =0 <e1>\n"
      "T1 unlock m\n"
      "T1 lock m\n"
      "T1 write x =1 <e2>\n"
      "T1 unlock m\n"
      "T2 lock m\n"
      "T2 write x =5 <f>\n"
      "T2 unlock m\n";
   query(two, 0, "two critical sections: f fits between", CB_Z3_SAT);
   /* WRW with f a read inside T2's section. */
   const char *wrw =
      "T1 lock m\n"
      "T1 write x =1 <e1>\n"
      "T1 unlock m\n"
      "T1 lock m\n"
      "T1 write x =2 <e2>\n"
      "T1 unlock m\n"
      "T2 lock m\n"
      "T2 read x =2 <f>\n"
      "T2 unlock m\n";
   /* T1's second section needs T2 to unlock after its read f, whose value
    * is not the recorded one: what T2 does next is not proved. */
   query(wrw, 0, "WRW between two sections, f's thread must go on", CB_Z3_UNKNOWN);
   const char *wrw_free =
      "T1 lock m\n"
      "T1 write x =1 <e1>\n"
      "T1 unlock m\n"
      "T1 lock m\n"
      "T1 write x =2 <e2>\n"
      "T1 unlock m\n"
      "T2 lock m\n"
      "T2 unlock m\n"
      "T2 read x =2 <f>\n"
      "T2 write y =1\n";
   query(wrw_free, 0, "WRW, f outside the sections: f's thread stops at f", CB_Z3_SAT);
   /* Different locks do not exclude. */
   const char *diff =
      "T1 lock m\n"
      "T1 read x =0 <e1>\n"
      "T1 write x =1 <e2>\n"
      "T1 unlock m\n"
      "T2 lock n\n"
      "T2 write x =5 <f>\n"
      "T2 unlock n\n";
   query(diff, 0, "control: different locks", CB_Z3_SAT);
   /* Read locks share. */
   const char *rd2 =
      "T1 rdlock m\n"
      "T1 read x =0 <e1>\n"
      "T1 read x =0 <e2>\n"
      "T1 unlock m\n"
      "T2 rdlock m\n"
      "T2 write x =5 <f>\n"
      "T2 unlock m\n";
   query(rd2, 0, "read locks do not exclude each other", CB_Z3_SAT);
}

static void test_threads(void)
{
   const char *create =
      "T1 read x =0 <e1>\n"
      "T1 write x =1 <e2>\n"
      "T1 create T2\n"
      "T2 start T1\n"
      "T2 write x =5 <f>\n";
   query(create, 0, "f in a thread created after e2", CB_Z3_UNSAT);
   const char *created_early =
      "T1 create T2\n"
      "T1 read x =0 <e1>\n"
      "T1 write x =1 <e2>\n"
      "T2 start T1\n"
      "T2 write x =5 <f>\n";
   query(created_early, 0, "control: created before e1", CB_Z3_SAT);
   const char *join =
      "T1 create T2\n"
      "T2 start T1\n"
      "T2 write x =5 <f>\n"
      "T2 exit\n"
      "T1 join T2\n"
      "T1 read x =5 <e1>\n"
      "T1 write x =6 <e2>\n";
   query(join, 0, "f before a join that precedes e1", CB_Z3_UNSAT);
   const char *join_late =
      "T1 create T2\n"
      "T2 start T1\n"
      "T2 write x =5 <f>\n"
      "T2 exit\n"
      "T1 read x =5 <e1>\n"
      "T1 write x =6 <e2>\n"
      "T1 join T2\n";
   query(join_late, 0, "control: join after e2", CB_Z3_SAT);
}

static void test_cond(void)
{
   /* T1 waits for T2's signal, which T2 sends after f. */
   const char *handoff =
      "T1 lock m\n"
      "T1 unlock m\n"
      "T2 write x =5 <f>\n"
      "T2 lock m\n"
      "T2 signal c\n"
      "T2 unlock m\n"
      "T1 wait c m\n"
      "T1 lock m\n"
      "T1 unlock m\n"
      "T1 read x =5 <e1>\n"
      "T1 write x =6 <e2>\n";
   query(handoff, 0, "condition-variable hand-off", CB_Z3_UNSAT);
   /* Control: a wait that timed out (no signal in between). */
   const char *timed =
      "T1 lock m\n"
      "T1 unlock m\n"
      "T2 write x =5 <f>\n"
      "T1 wait c m\n"
      "T1 lock m\n"
      "T1 unlock m\n"
      "T1 read x =5 <e1>\n"
      "T1 write x =6 <e2>\n";
   query(timed, 0, "control: a wait with no signal", CB_Z3_SAT);
   /* The signal that woke T1 came after T1 began waiting (its unlock after
    * f), and T2 reads z only once T1 woke: e1, after the signal, cannot
    * run before f (z3w_wait; happens-before alone would allow it). */
   const char *woken =
      "T1 lock m\n"
      "T1 write y =1 <f>\n"
      "T1 unlock m\n"
      "T2 lock m\n"
      "T2 signal c\n"
      "T2 unlock m\n"
      "T2 read y =1 <e1>\n"
      "T1 wait c m\n"
      "T1 write z =1\n"
      "T2 read z =1\n"
      "T2 read y =1 <e2>\n";
   query(woken, 0, "a signal wakes only a wait begun before it", CB_Z3_UNSAT);
}

static void test_barrier(void)
{
   const char *bar =
      "T2 write x =5 <f>\n"
      "T2 barrier-enter b 2\n"
      "T1 barrier-enter b 2\n"
      "T1 barrier-leave b 2\n"
      "T2 barrier-leave b 2\n"
      "T1 read x =5 <e1>\n"
      "T1 write x =6 <e2>\n";
   query(bar, 0, "f before a barrier that e1 follows", CB_Z3_UNSAT);
   const char *bar_ok =
      "T1 read x =0 <e1>\n"
      "T1 barrier-enter b 2\n"
      "T2 barrier-enter b 2\n"
      "T2 barrier-leave b 2\n"
      "T1 barrier-leave b 2\n"
      "T2 write x =5 <f>\n"
      "T1 write x =6 <e2>\n";
   query(bar_ok, 0, "control: e1 and e2 around the barrier", CB_Z3_SAT);
}

static void test_same_insn(void)
{
   const char *rmw =
      "T1 read c =0 <e1>\n"
      "T1 write c =1 ! <e2>\n"
      "T2 write c =5 <f>\n";
   query(rmw, 0, "load and store of one instruction cannot be split",
         CB_Z3_UNSAT);
   /* T2's own RMW is one step: the order keeps its two halves together. */
   const char *rmw2 =
      "T1 read c =0 <e1>\n"
      "T1 write c =1 <e2>\n"
      "T2 read c =1\n"
      "T2 write c =2 ! <f>\n";
   query(rmw2, 0, "an RMW as f stays whole", CB_Z3_SAT);
}

/* The compact form: prefix counts before the window, then runs. */
static void test_schedule_form(void)
{
   ttrace tt;
   parse(&tt,
         "T1 lock m\n"          /* 0 */
         "T1 unlock m\n"        /* 1 */
         "T2 begin g\n"         /* 2: not counted */
         "T2 read y =0\n"       /* 3 */
         "T1 read c =0 <e1>\n"  /* 4 */
         "T1 write c =1 <e2>\n" /* 5 */
         "T2 read c =1\n"       /* 6 */
         "T2 write c =2 ! <f>\n"); /* 7 */
   cb_z3 *z = cb_z3_new(10000, 3);
   cb_z3_query q = {.e1 = at(&tt, "e1"),
                    .f = at(&tt, "f"),
                    .e2 = at(&tt, "e2"),
                    .window_begin = 0,
                    .strict = 0};
   cb_z3_result r;
   cb_z3_verdict v = cb_z3_check(z, &tt.t, &q, &r);
   uint64_t prefix[2];
   cb_z3_step tail[8];
   size_t n = v == CB_Z3_SAT ? cb_z3_to_schedule(&tt.t, &r, prefix, 2, tail)
                             : 0;
   ok(v == CB_Z3_SAT && r.window_begin == 4 && prefix[0] == 2 &&
         prefix[1] == 1,
      "window of 3 events starts at %zu: prefix T1 %llu, T2 %llu", r.window_begin,
      (unsigned long long)prefix[0], (unsigned long long)prefix[1]);
   ok(n == 3 && tail[0].tid == 1 && tail[0].count == 1 && tail[1].tid == 2 &&
         tail[1].count == 2 && tail[2].tid == 1 && tail[2].count == 1,
      "tail: T1 1, T2 2 (the RMW whole), T1 1 (%zu steps)", n);
   cb_z3_free(z);
   tt_free(&tt);
}

static void test_bad_queries(void)
{
   ttrace tt;
   parse(&tt, "T1 read x =0\nT1 write x =1\nT2 write x =5\n");
   cb_z3_result r;
   cb_z3_query q1 = {.e1 = 0, .f = 2, .e2 = 9, .window_begin = 0, .strict = 0};
   ok(cb_z3_check(Z, &tt.t, &q1, &r) == CB_Z3_UNKNOWN && r.why[0],
      "index out of range: unknown (%s)", r.why);
   cb_z3_query q2 = {.e1 = 0, .f = 1, .e2 = 2, .window_begin = 0, .strict = 0};
   ok(cb_z3_check(Z, &tt.t, &q2, &r) == CB_Z3_UNKNOWN && r.why[0],
      "e2 in another thread: unknown (%s)", r.why);
   cb_z3_query q3 = {.e1 = 0, .f = 2, .e2 = 1, .window_begin = 1, .strict = 0};
   ok(cb_z3_check(Z, &tt.t, &q3, &r) == CB_Z3_UNKNOWN && r.why[0],
      "window after e1: unknown (%s)", r.why);
   ok(cb_z3_check(Z, &tt.t, NULL, &r) == CB_Z3_UNKNOWN, "no query: unknown");
   tt_free(&tt);
}

/* An order violation: can f run before e1 = e2 (a)? */
static void test_order(void)
{
   const char *free_f =
      "T1 write x =1 <a>\n"
      "T2 read x =1 <f>\n";
   const char *flagged =
      "T1 write x =1 <a>\n"
      "T1 write flag =1\n"
      "T2 read flag =1\n"
      "T2 read x =1 <f>\n";
   const char *texts[2] = {free_f, flagged};
   cb_z3_verdict want[2] = {CB_Z3_SAT, CB_Z3_UNSAT};
   const char *names[2] = {"order violation: f's own value is free",
                           "order violation: a flag set after a orders f after it"};
   for (int i = 0; i < 2; i++) {
      ttrace tt;
      parse(&tt, texts[i]);
      cb_z3_query q = {.e1 = at(&tt, "a"), .f = at(&tt, "f"), .e2 = at(&tt, "a"),
                       .kind = CB_Z3_ORDER};
      cb_z3_result r;
      cb_z3_verdict v = cb_z3_check(Z, &tt.t, &q, &r);
      ok(v == want[i], "%s: %s (got %s%s%s)", names[i], cb_z3_verdict_name(want[i]),
         cb_z3_verdict_name(v), r.why[0] ? ": " : "", r.why);
      if (v == CB_Z3_SAT)
         ok(r.norder >= 2 && r.order[r.norder - 1] == q.e2 && r.order[r.norder - 2] == q.f,
            "%s: the order runs f, then a, last", names[i]);
      tt_free(&tt);
   }
}

/* The order of a deadlock query holds both first locks, neither request. */
static const char *check_deadlock(const cb_trace *t, const cb_z3_query *q,
                                  const cb_z3_result *r)
{
   uint32_t owner[MEM] = {0};
   int held1 = 0, held2 = 0;
   nmem = 0;
   for (size_t k = 0; k < r->norder; k++) {
      const cb_event *e = &t->events[r->order[k]];
      if (r->order[k] == q->e2 || r->order[k] == q->g)
         return "a request ran";
      size_t sl = slot(e->addr);
      if (e->kind == CB_EV_LOCK) {
         if (owner[sl] && owner[sl] != e->tid)
            return "a lock taken while held";
         owner[sl] = e->tid;
      } else if (e->kind == CB_EV_UNLOCK) {
         owner[sl] = 0;
      }
      held1 |= r->order[k] == q->e1;
      held2 |= r->order[k] == q->f;
   }
   if (!held1 || !held2)
      return "a first lock never taken";
   if (owner[slot(t->events[q->e1].addr)] != t->events[q->e1].tid ||
       owner[slot(t->events[q->f].addr)] != t->events[q->f].tid)
      return "a first lock released";
   return NULL;
}

static void deadlock(const char *text, const char *name, cb_z3_verdict want)
{
   ttrace tt;
   parse(&tt, text);
   cb_z3_query q = {.e1 = at(&tt, "e1"), .f = at(&tt, "f"), .e2 = at(&tt, "e2"),
                    .g = at(&tt, "g"), .kind = CB_Z3_DEADLOCK};
   cb_z3_result r;
   cb_z3_verdict v = cb_z3_check(Z, &tt.t, &q, &r);
   ok(v == want, "%s: %s (got %s%s%s)", name, cb_z3_verdict_name(want),
      cb_z3_verdict_name(v), r.why[0] ? ": " : "", r.why);
   if (v == CB_Z3_SAT) {
      const char *bad = check_deadlock(&tt.t, &q, &r);
      ok(!bad, "%s: the order holds both first locks%s%s", name, bad ? ": " : "",
         bad ? bad : "");
   }
   tt_free(&tt);
}

/* T1 takes a then b, T2 b then a (recorded one after the other). */
static void test_deadlock(void)
{
   deadlock("T1 lock a <e1>\nT1 lock b <e2>\nT1 unlock b\nT1 unlock a\n"
            "T2 lock b <f>\nT2 lock a <g>\nT2 unlock a\nT2 unlock b\n",
            "deadlock: a then b against b then a", CB_Z3_SAT);
   deadlock("T1 lock a <e1>\nT1 lock b <e2>\nT1 unlock b\nT1 unlock a\n"
            "T1 write done =1\nT2 read done =1\n"
            "T2 lock b <f>\nT2 lock a <g>\nT2 unlock a\nT2 unlock b\n",
            "deadlock: T2 starts only once T1 is done", CB_Z3_UNSAT);
   deadlock("T1 lock m\nT1 lock a <e1>\nT1 lock b <e2>\nT1 unlock b\nT1 unlock a\n"
            "T1 unlock m\nT2 lock m\nT2 lock b <f>\nT2 lock a <g>\nT2 unlock a\n"
            "T2 unlock b\nT2 unlock m\n",
            "deadlock: a gate lock around both", CB_Z3_UNSAT);
}

/* UNSAT drops a candidate only as a proof: a window that does not reach
 * back to the trace's start takes the events before it as done, so its
 * UNSAT is no proof, and the answer is unknown. */
static void test_incomplete(void)
{
   const char *flag =
      "T2 write y =1\n"
      "T2 write y =2\n"
      "T1 read x =0 <e1>\n"
      "T1 write x =1 <e2>\n"
      "T1 write flag =1\n"
      "T2 read flag =1\n"
      "T2 write x =5 <f>\n";
   ttrace tt;
   parse(&tt, flag);
   cb_z3_query q = {.e1 = at(&tt, "e1"), .f = at(&tt, "f"), .e2 = at(&tt, "e2")};
   cb_z3_result r;
   ok(cb_z3_check(Z, &tt.t, &q, &r) == CB_Z3_UNSAT, "whole trace: unsat (%s)", r.why);
   cb_z3 *small = cb_z3_new(10000, 4);
   cb_z3_verdict v = cb_z3_check(small, &tt.t, &q, &r);
   ok(v == CB_Z3_UNKNOWN && r.window_begin > 0 && strstr(r.why, "not a proof"),
      "a window from event %zu: %s, not unsat (%s)", r.window_begin,
      cb_z3_verdict_name(v), r.why);
   q.window_begin = 1;
   v = cb_z3_check(Z, &tt.t, &q, &r);
   ok(v == CB_Z3_UNKNOWN && strstr(r.why, "not a proof"),
      "a query from event 1: %s (%s)", cb_z3_verdict_name(v), r.why);
   cb_z3_free(small);
   tt_free(&tt);
}

/* A window that must reach from e1 to a far f is asked only up to four
 * times the limit (Z3_WINDOW_SLACK): wider ones made Z3 grow without
 * bound, deaf to its time limit. */
static void test_wide_window(void)
{
   char text[4096] = "T1 read c =0 <e1>\nT1 write c =1 <e2>\n";
   for (int i = 0; i < 30; i++)
      strcat(text, "T2 write y =1\n");
   strcat(text, "T2 write c =2 <f>\n");
   ttrace tt;
   parse(&tt, text);
   cb_z3_query q = {.e1 = at(&tt, "e1"), .f = at(&tt, "f"), .e2 = at(&tt, "e2")};
   cb_z3_result r;
   cb_z3 *small = cb_z3_new(10000, 5);
   cb_z3_verdict v = cb_z3_check(small, &tt.t, &q, &r);
   ok(v == CB_Z3_UNKNOWN && strstr(r.why, "not asked") && r.solver_ms == 0,
      "limit 5, a %zu-event window: %s, not asked (%s)", r.window_events,
      cb_z3_verdict_name(v), r.why);
   cb_z3 *wider = cb_z3_new(10000, 9);
   v = cb_z3_check(wider, &tt.t, &q, &r);
   ok(v == CB_Z3_SAT, "limit 9, the same %zu-event window: %s (%s)", r.window_events,
      cb_z3_verdict_name(v), r.why);
   cb_z3_free(wider);
   cb_z3_free(small);
   tt_free(&tt);
}

/* ---- Generated traces ---------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static unsigned rnd(unsigned n)
{
   rng_state ^= rng_state << 13;
   rng_state ^= rng_state >> 7;
   rng_state ^= rng_state << 17;
   return (unsigned)(rng_state % n);
}

/* A random but consistent run: nthreads threads doing reads, writes of
 * small values (so values repeat), and lock sections on a few locks. */
static void gen_trace(ttrace *tt, unsigned nthreads, size_t nevents,
                      unsigned nvars, unsigned nlocks)
{
   memset(tt, 0, sizeof *tt);
   uint64_t val[16] = {0};
   unsigned owner[8] = {0};
   unsigned held[16] = {0}; /* per thread: lock index + 1 */
   while (tt->t.nevents < nevents) {
      unsigned th = 1 + rnd(nthreads);
      cb_event e = {0};
      e.tid = (uint32_t)th;
      unsigned a = rnd(10);
      if (a < 4) {
         unsigned v = rnd(nvars);
         e.kind = CB_EV_READ;
         e.size = 4;
         e.addr = 0x1000 + 8 * v;
         e.value = val[v];
      } else if (a < 7) {
         unsigned v = rnd(nvars);
         e.kind = CB_EV_WRITE;
         e.size = 4;
         e.addr = 0x1000 + 8 * v;
         e.value = val[v] = rnd(3);
      } else if (a < 9 && !held[th]) {
         unsigned l = rnd(nlocks);
         if (owner[l])
            continue;
         owner[l] = th;
         held[th] = l + 1;
         e.kind = CB_EV_LOCK;
         e.addr = 0x9000 + 8 * l;
      } else if (held[th]) {
         unsigned l = held[th] - 1;
         owner[l] = 0;
         held[th] = 0;
         e.kind = CB_EV_UNLOCK;
         e.addr = 0x9000 + 8 * l;
      } else
         continue;
      add_event(tt, &e);
   }
}

/* Every SAT answer on random candidates is a valid schedule. */
static void test_random(void)
{
   int strict_mode[2] = {1, 0};
   for (int m = 0; m < 2; m++) {
      unsigned nsat = 0, nunsat = 0, nunk = 0, nbad = 0, nq = 0;
      cb_z3_stats st0, st1;
      cb_z3_get_stats(Z, &st0);
      const char *first_bad = NULL;
      for (int round = 0; round < 20; round++) {
         ttrace tt;
         gen_trace(&tt, 3, 120, 3, 2);
         const cb_event *ev = tt.t.events;
         for (int c = 0; c < 10; c++) {
            size_t e1 = rnd((unsigned)tt.t.nevents), e2, f;
            if (ev[e1].kind != CB_EV_READ && ev[e1].kind != CB_EV_WRITE)
               continue;
            for (e2 = e1 + 1; e2 < tt.t.nevents; e2++)
               if (ev[e2].tid == ev[e1].tid && ev[e2].addr == ev[e1].addr &&
                   (ev[e2].kind == CB_EV_READ || ev[e2].kind == CB_EV_WRITE))
                  break;
            if (e2 >= tt.t.nevents)
               continue;
            size_t tries = 0;
            do
               f = rnd((unsigned)tt.t.nevents);
            while ((ev[f].tid == ev[e1].tid || ev[f].addr != ev[e1].addr ||
                    (ev[f].kind != CB_EV_READ && ev[f].kind != CB_EV_WRITE)) &&
                   ++tries < 1000);
            if (tries >= 1000)
               continue;
            cb_z3_query q = {.e1 = e1,
                             .f = f,
                             .e2 = e2,
                             .window_begin = 0,
                             .strict = strict_mode[m]};
            cb_z3_result r;
            nq++;
            switch (cb_z3_check(Z, &tt.t, &q, &r)) {
            case CB_Z3_SAT: {
               nsat++;
               const char *bad = check_order(&tt.t, &q, &r);
               if (bad) {
                  nbad++;
                  if (!first_bad)
                     first_bad = strdup(bad);
               }
               break;
            }
            case CB_Z3_UNSAT: nunsat++; break;
            default: nunk++; break;
            }
         }
         tt_free(&tt);
      }
      cb_z3_get_stats(Z, &st1);
      diag("random %s: %u queries, %u sat, %u unsat, %u unknown, "
           "%.2f ms and %.0f events per query",
           m ? "relaxed" : "strict", nq, nsat, nunsat, nunk,
           nq ? (st1.solver_ms - st0.solver_ms) / nq : 0.0,
           nq ? (double)(st1.window_events - st0.window_events) / nq : 0.0);
      ok(nbad == 0, "random traces (%s): every sat order is valid (%u bad%s%s)",
         m ? "relaxed" : "strict", nbad, first_bad ? ": " : "",
         first_bad ? first_bad : "");
      ok(nsat > 0 && nunsat > 0, "random traces (%s): both verdicts occur",
         m ? "relaxed" : "strict");
   }
}

/* A big window under a 1 ms limit: any verdict, no crash; and the window
 * limit moves window_begin. */
static void test_limits(void)
{
   ttrace tt;
   gen_trace(&tt, 4, 20000, 4, 2);
   const cb_event *ev = tt.t.events;
   /* A candidate near the end. */
   size_t e1 = SIZE_MAX, e2 = SIZE_MAX, f = SIZE_MAX;
   for (size_t i = tt.t.nevents - 1; i > 0 && f == SIZE_MAX; i--) {
      if (ev[i].kind != CB_EV_WRITE)
         continue;
      if (e2 == SIZE_MAX) {
         e2 = i;
         continue;
      }
      if (e1 == SIZE_MAX && ev[i].tid == ev[e2].tid &&
          ev[i].addr == ev[e2].addr) {
         e1 = i;
         continue;
      }
      if (e1 != SIZE_MAX && ev[i].tid != ev[e2].tid &&
          ev[i].addr == ev[e2].addr)
         f = i;
   }
   if (f == SIZE_MAX) {
      ok(0, "generated a candidate");
      tt_free(&tt);
      return;
   }
   cb_z3 *tight = cb_z3_new(1, 0);
   cb_z3_query q = {.e1 = e1, .f = f, .e2 = e2, .window_begin = 0, .strict = 0};
   cb_z3_result r;
   cb_z3_verdict v = cb_z3_check(tight, &tt.t, &q, &r);
   ok(1, "1 ms on a %zu-event window: %s%s%s, no crash", r.window_events,
      cb_z3_verdict_name(v), r.why[0] ? ": " : "", r.why);
   if (v == CB_Z3_SAT)
      ok(!check_order(&tt.t, &q, &r), "1 ms: a sat order is still valid");
   cb_z3_free(tight);

   cb_z3 *small = cb_z3_new(10000, 200);
   v = cb_z3_check(small, &tt.t, &q, &r);
   ok(r.window_events <= 200 + 8 && r.window_begin > 0,
      "window limit 200: %zu events from %zu (%s)", r.window_events,
      r.window_begin, cb_z3_verdict_name(v));
   if (v == CB_Z3_SAT) {
      const char *bad = check_order(&tt.t, &q, &r);
      ok(!bad, "limited window: the order is valid%s%s", bad ? ": " : "",
         bad ? bad : "");
   }
   cb_z3_stats st;
   cb_z3_get_stats(small, &st);
   ok(st.queries == 1 && st.sat + st.unsat + st.unknown == 1,
      "stats count the query");
   cb_z3_free(small);
   tt_free(&tt);
}

int main(void)
{
   setvbuf(stdout, NULL, _IOLBF, 0);
   Z = cb_z3_new(10000, 0);
   if (!Z) {
      printf("1..0 # SKIP cannot start Z3\n");
      return 0;
   }
   test_lost_update();
   test_flag();
   test_locks();
   test_threads();
   test_cond();
   test_barrier();
   test_same_insn();
   test_schedule_form();
   test_bad_queries();
   test_order();
   test_deadlock();
   test_incomplete();
   test_wide_window();
   test_random();
   test_limits();
   cb_z3_stats st;
   cb_z3_get_stats(Z, &st);
   diag("%lu queries: %lu sat, %lu unsat, %lu unknown, %.2f ms per query",
        st.queries, st.sat, st.unsat, st.unknown,
        st.queries ? st.solver_ms / st.queries : 0.0);
   cb_z3_free(Z);
   printf("1..%d\n", ntests);
   return nfailed != 0;
}
