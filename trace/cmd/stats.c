/* stats.c: `cbtrace stats`: the monitoring columns of PENELOPE's Table 1
 * (threads, entities, locks, events, context switches) and a little more,
 * as plain `key: value` lines for people and scripts.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cbtrace_cmd.h"

static const char help[] =
    "usage: cbtrace stats trace.pb\n"
    "Prints `key: value` lines:\n"
    "  events, threads, entities (shared variables: addresses read or written\n"
    "  by two or more threads), variables (distinct addresses read or\n"
    "  written), locks (distinct lock objects), lock words (words the\n"
    "  program locks by hand: taken by an atomic exchange from 0, released\n"
    "  by its holder's store of 0; cbpredict takes them for locks), lock\n"
    "  semaphores (semaphores used as locks: one token, each wait followed by\n"
    "  its own thread's post), context\n"
    "  switches (changes of thread between consecutive events), trace\n"
    "  bytes, bytes per event,\n"
    "  truncated (no, or the reason), deadlocked (no, or what each thread\n"
    "  waited for when the tool ended the run), and `kind NAME: N` for every\n"
    "  kind.\n"
    "Exit: 0 whole trace; 3 truncated (counted as far as whole); 2 bad usage\n"
    "or unreadable trace.\n";

/* Address -> first thread, or SHARED once a second thread touched it. */
#define SHARED 0xffffffffu
typedef struct {
   uint64_t *keys;
   uint32_t *tids; /* 0: empty slot */
   size_t cap, n;
} addr_set;

static size_t slot_of(uint64_t k, size_t cap)
{
   k ^= k >> 33;
   k *= 0xff51afd7ed558ccdull;
   k ^= k >> 33;
   return (size_t)k & (cap - 1);
}

static int set_grow(addr_set *s)
{
   size_t nc = s->cap ? s->cap * 2 : 1024;
   uint64_t *nk = calloc(nc, sizeof *nk);
   uint32_t *nt = calloc(nc, sizeof *nt);
   if (!nk || !nt) {
      free(nk);
      free(nt);
      return -1;
   }
   for (size_t i = 0; i < s->cap; i++)
      if (s->tids[i]) {
         size_t j = slot_of(s->keys[i], nc);
         while (nt[j])
            j = (j + 1) & (nc - 1);
         nk[j] = s->keys[i];
         nt[j] = s->tids[i];
      }
   free(s->keys);
   free(s->tids);
   s->keys = nk;
   s->tids = nt;
   s->cap = nc;
   return 0;
}

/* Notes that tid touched k; -1 when out of memory. */
static int set_touch(addr_set *s, uint64_t k, uint32_t tid)
{
   if ((s->n + 1) * 2 > s->cap && set_grow(s) < 0)
      return -1;
   size_t j = slot_of(k, s->cap);
   while (s->tids[j] && s->keys[j] != k)
      j = (j + 1) & (s->cap - 1);
   if (!s->tids[j]) {
      s->keys[j] = k;
      s->tids[j] = tid;
      s->n++;
   } else if (s->tids[j] != tid) {
      s->tids[j] = SHARED;
   }
   return 0;
}

/* The trace named on the command line: 0 (*path set), 1 after --help, or
 * CBTRACE_EXIT_USAGE after saying why. */
static int stats_args(int argc, char **argv, const char **path)
{
   for (int i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
         fputs(help, stdout);
         return 1;
      } else if (argv[i][0] == '-' && argv[i][1]) {
         cbt_error("stats", "unknown option '%s' (try cbtrace stats --help)",
                   argv[i]);
         return CBTRACE_EXIT_USAGE;
      } else if (*path) {
         cbt_error("stats", "one trace at a time (try cbtrace stats --help)");
         return CBTRACE_EXIT_USAGE;
      } else {
         *path = argv[i];
      }
   }
   if (!*path) {
      cbt_error("stats", "no trace given (try cbtrace stats --help)");
      return CBTRACE_EXIT_USAGE;
   }
   return 0;
}

int cmd_stats(int argc, char **argv)
{
   const char *path = NULL;
   int args = stats_args(argc, argv, &path);
   if (args)
      return args == 1 ? CBTRACE_EXIT_OK : args;
   cb_trace t;
   if (cbt_read_trace("stats", path, &t) < 0)
      return CBTRACE_EXIT_USAGE;
   addr_set vars = {0}, locks = {0};
   uint64_t per_kind[CB_EV_KIND_COUNT] = {0}, switches = 0;
   uint64_t per_call[CB_CALL_COUNT + 1] = {0}; /* last: unknown codes */
   int oom = 0;
   for (size_t i = 0; i < t.nevents; i++) {
      const cb_event *e = &t.events[i];
      per_kind[e->kind < CB_EV_KIND_COUNT ? e->kind : 0]++;
      if (i > 0 && e->tid != t.events[i - 1].tid)
         switches++;
      if (e->kind == CB_EV_READ || e->kind == CB_EV_WRITE)
         oom |= set_touch(&vars, e->addr, e->tid) < 0;
      else if (e->kind == CB_EV_LOCK)
         oom |= set_touch(&locks, e->addr, e->tid) < 0;
      else if (e->kind == CB_EV_UNHANDLED)
         per_call[e->size < CB_CALL_COUNT && e->size ? e->size : CB_CALL_COUNT]++;
   }
   if (oom) {
      cbt_error("stats", "%s: out of memory", path);
      cb_trace_free(&t);
      return CBTRACE_EXIT_USAGE;
   }
   /* After the counts above, which are of the trace as recorded. */
   cb_hand_locks hand = cb_hand_locks_mark(&t);
   size_t shared = 0;
   for (size_t i = 0; i < vars.cap; i++)
      shared += vars.tids[i] == SHARED;
   struct stat st;
   uint64_t bytes = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
   printf("program: %s\n", t.header.program);
   printf("events: %zu\n", t.nevents);
   printf("threads: %u\n", t.nthreads);
   printf("entities: %zu\n", shared);
   printf("variables: %zu\n", vars.n);
   printf("locks: %zu\n", locks.n);
   /* Words the program locks by hand (an atomic exchange from 0): cbpredict
    * takes them for locks, not data (trace/spinlocks.c). */
   printf("lock words: %ld\n", hand.words);
   printf("lock semaphores: %ld\n", hand.sems);
   printf("context switches: %" PRIu64 "\n", switches);
   printf("trace bytes: %" PRIu64 "\n", bytes);
   if (t.nevents)
      printf("bytes per event: %.2f\n", (double)bytes / (double)t.nevents);
   else
      printf("bytes per event: 0\n");
   printf("locations: %zu\n", t.nlocs ? t.nlocs - 1 : 0);
   printf("truncated: %s\n", t.truncated ? t.truncation : "no");
   if (t.footer.nblocked) {
      static char line[16384];
      printf("deadlocked: %s\n", cb_deadlock_str(&t, line, sizeof line));
   } else {
      printf("deadlocked: no\n");
   }
   for (unsigned k = 1; k < CB_EV_KIND_COUNT; k++)
      printf("kind %s: %" PRIu64 "\n", cb_event_kind_name(k), per_kind[k]);
   /* Synchronising calls the tool saw but does not model: a prediction
    * blind to them may miss bugs, so say which. */
   printf("unhandled calls: %" PRIu64 "\n", per_kind[CB_EV_UNHANDLED]);
   for (unsigned c = 1; c <= CB_CALL_COUNT; c++)
      if (per_call[c])
         printf("unhandled %s: %" PRIu64 "\n",
                c < CB_CALL_COUNT ? cb_call_name(c) : "?", per_call[c]);
   free(vars.keys);
   free(vars.tids);
   free(locks.keys);
   free(locks.tids);
   int rc = t.truncated ? CBTRACE_EXIT_TRUNCATED : CBTRACE_EXIT_OK;
   cb_trace_free(&t);
   return rc;
}
