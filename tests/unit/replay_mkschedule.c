/* replay_mkschedule: writes a schedule file from its command line, so that
 * tests (and the replay benchmark) can make schedules by hand: foreign ones,
 * infeasible ones, long alternating ones.
 *
 *   replay_mkschedule -o FILE [--id N] [--program PROG | --digest HEX]
 *       [--trace-id HEX] [--mask HEX] [--prefix N,N,...]
 *       [--tail T:N,T:N,...] [--tail-repeat K] [--tail-name NAME]
 *       [--variant T:N,T:N,... [--variant-name NAME]]...
 *       [--pattern RWW] [--variable NAME] [--address HEX]
 *       [--e1 T:INDEX:KIND[:FILE:LINE[:FUNCTION[:VALUE]]]] [--f ...] [--e2 ...]
 *       [--paths P:I,P:I,...] [--order W:I:U:C,...] [--code HEX]
 *
 * --prefix gives the counted events of threads 1, 2, ... before the tail;
 * --tail the steps (thread, count), repeated K times with --tail-repeat.
 * A step T:out is a run-out step (TailStep.run_out).  Each --variant adds
 * an alternate tail (Schedule.variants: variant 1, 2, ...), named by the
 * --variant-name after it; --tail-name names variant 0, the tail.
 * A counted step T:N@KIND expects its last event to be of KIND (the
 * step's expect, at the counted index the prefix and earlier steps give).
 * --paths gives each thread's stable path, threads 1, 2, ...: its
 * creator and the creator's count of creates (0:0 for main).  With
 * --address, e1, f and e2 are accesses of that address, named --variable.
 * --order gives the prefix's waits (Schedule.prefix_order): thread W's
 * counted event I waits until thread U has run C counted events.
 * --code gives e1's instruction address (a schedule with it, and with e1
 * and f memory accesses, has a hunt: reschedule/hunt.c).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cbtrace.h"

static void die(const char *msg, const char *arg)
{
   fprintf(stderr, "replay_mkschedule: %s%s%s\n", msg, arg ? ": " : "",
           arg ? arg : "");
   exit(2);
}

static uint64_t num(const char *s, int base)
{
   char *end;
   unsigned long long v = strtoull(s, &end, base);
   if (end == s || *end)
      die("bad number", s);
   return v;
}

static cb_sched_event *pattern_event(char *spec)
{
   cb_sched_event *e = calloc(1, sizeof *e);
   cb_sched_location *l = calloc(1, sizeof *l);
   char *field[7] = {0};
   int n = 0;
   for (char *p = strtok(spec, ":"); p && n < 7; p = strtok(NULL, ":"))
      field[n++] = p;
   if (n < 3)
      die("want T:INDEX:KIND[:FILE:LINE[:FUNCTION[:VALUE]]]", spec);
   e->has_tid = e->has_index = e->has_kind = 1;
   e->tid = (uint32_t)num(field[0], 10);
   e->index = num(field[1], 10);
   int kind = cb_event_kind_from_name(field[2]);
   if (kind < 0)
      die("unknown event kind", field[2]);
   e->kind = (uint32_t)kind;
   if (n >= 5) {
      l->file = field[3];
      l->has_line = 1;
      l->line = (uint32_t)num(field[4], 10);
   }
   if (n >= 6)
      l->function = field[5];
   if (n >= 7) {
      e->has_value = 1;
      e->value = num(field[6], 10);
   }
   e->location = l;
   return e;
}

/* "T:N,T:out,..." -> steps; *n gets how many. */
static cb_sched_step *parse_steps(const char *spec, size_t *n)
{
   size_t cap = strlen(spec) + 1;
   cb_sched_step *steps = calloc(cap, sizeof *steps);
   char *copy = strdup(spec);
   char *save = NULL;
   *n = 0;
   for (char *p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
      char *colon = strchr(p, ':');
      if (!colon)
         die("tail step wants T:N or T:out", p);
      *colon = 0;
      cb_sched_step *t = &steps[(*n)++];
      char *at = strchr(colon + 1, '@');
      if (at) {
         *at = 0;
         int kind = cb_event_kind_from_name(at + 1);
         if (kind < 0)
            die("unknown event kind", at + 1);
         t->expect = calloc(1, sizeof *t->expect);
         t->expect->has_kind = 1;
         t->expect->kind = (uint32_t)kind;
      }
      t->has_tid = 1;
      t->tid = (uint32_t)num(p, 10);
      if (strcmp(colon + 1, "out") == 0) {
         t->has_run_out = t->run_out = 1;
      } else {
         t->has_count = 1;
         t->count = num(colon + 1, 10);
      }
   }
   return steps;
}

/* The counted index of each expecting step's last event: the thread's
 * prefix plus its earlier steps. */
static void index_expects(const cb_schedule *s, cb_sched_step **tail,
                          size_t n)
{
   for (size_t i = 0; i < n; i++) {
      cb_sched_step *t = tail[i];
      uint64_t end = t->tid >= 1 && t->tid <= s->n_prefix ? s->prefix[t->tid - 1] : 0;
      for (size_t k = 0; k <= i; k++)
         if (tail[k]->tid == t->tid)
            end += tail[k]->count;
      if (t->expect && end > 0) {
         t->expect->has_tid = t->expect->has_index = 1;
         t->expect->tid = t->tid;
         t->expect->index = end - 1;
      }
   }
}

static void add_variant(cb_schedule *s, const char *spec)
{
   cb_sched_variant *v = calloc(1, sizeof *v);
   size_t n;
   cb_sched_step *steps = parse_steps(spec, &n);
   v->n_tail = n;
   v->tail = calloc(n ? n : 1, sizeof *v->tail);
   for (size_t i = 0; i < n; i++)
      v->tail[i] = &steps[i];
   s->variants = realloc(s->variants, (s->n_variants + 1) * sizeof *s->variants);
   s->variants[s->n_variants++] = v;
}

int main(int argc, char **argv)
{
   static const struct option longopts[] = {
      {"id", 1, NULL, 'i'},        {"program", 1, NULL, 'p'},
      {"digest", 1, NULL, 'd'},    {"trace-id", 1, NULL, 't'},
      {"mask", 1, NULL, 'm'},      {"prefix", 1, NULL, 'P'},
      {"tail", 1, NULL, 'T'},      {"tail-repeat", 1, NULL, 'R'},
      {"pattern", 1, NULL, 'n'},   {"variable", 1, NULL, 'v'},
      {"address", 1, NULL, 'a'},   {"e1", 1, NULL, '1'},
      {"f", 1, NULL, 'f'},         {"e2", 1, NULL, '2'},
      {"tail-name", 1, NULL, 'N'}, {"variant", 1, NULL, 'V'},
      {"variant-name", 1, NULL, 'W'}, {"paths", 1, NULL, 'H'},
      {"order", 1, NULL, 'O'},     {"code", 1, NULL, 'c'},
      {NULL, 0, NULL, 0}};
   uint64_t code = 0;
   cb_schedule s = {0};
   const char *out = NULL, *tail = NULL;
   uint64_t repeat = 1;
   cb_error err;
   s.has_counted_mask = 1;
   s.counted_mask = CB_COUNTED_MASK;
   s.has_id = 1;
   s.id = 1;
   s.has_program_digest = 1;

   int c;
   while ((c = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
      switch (c) {
      case 'o': out = optarg; break;
      case 'i': s.id = (uint32_t)num(optarg, 10); break;
      case 'p':
         s.program = optarg;
         if (cb_file_digest(optarg, &s.program_digest, &err) != 0)
            die(err.msg, optarg);
         break;
      case 'd': s.program_digest = num(optarg, 16); break;
      case 't': s.has_trace_id = 1; s.trace_id = num(optarg, 16); break;
      case 'm': s.counted_mask = (uint32_t)num(optarg, 16); break;
      case 'P': {
         s.prefix = calloc(strlen(optarg) + 1, sizeof *s.prefix);
         for (char *p = strtok(optarg, ","); p; p = strtok(NULL, ","))
            s.prefix[s.n_prefix++] = num(p, 10);
         break;
      }
      case 'T': tail = optarg; break;
      case 'R': repeat = num(optarg, 10); break;
      case 'n': s.pattern = optarg; break;
      case 'v': s.variable_name = optarg; break;
      case 'a': s.has_variable = 1; s.variable = num(optarg, 16); break;
      case '1': s.e1 = pattern_event(optarg); break;
      case 'c': code = num(optarg, 16); break;
      case 'f': s.f = pattern_event(optarg); break;
      case '2': s.e2 = pattern_event(optarg); break;
      case 'N': s.tail_name = optarg; break;
      case 'H': {
         size_t cap = strlen(optarg) + 1;
         s.thread_parent = calloc(cap, sizeof *s.thread_parent);
         s.thread_index = calloc(cap, sizeof *s.thread_index);
         for (char *p = strtok(optarg, ","); p; p = strtok(NULL, ",")) {
            char *colon = strchr(p, ':');
            if (!colon)
               die("--paths wants P:I,...", p);
            *colon = 0;
            s.thread_parent[s.n_thread_parent++] = (uint32_t)num(p, 10);
            s.thread_index[s.n_thread_index++] = (uint32_t)num(colon + 1, 10);
         }
         break;
      }
      case 'O': {
         s.prefix_order = calloc(2 * strlen(optarg) + 4, sizeof *s.prefix_order);
         for (char *p = strtok(optarg, ",:"); p; p = strtok(NULL, ",:"))
            s.prefix_order[s.n_prefix_order++] = num(p, 10);
         break;
      }
      case 'V': add_variant(&s, optarg); break;
      case 'W':
         if (!s.n_variants)
            die("--variant-name names the --variant before it", optarg);
         s.variants[s.n_variants - 1]->name = optarg;
         break;
      default: die("bad usage (see the comment at the top)", NULL);
      }
   }
   if (!out || optind != argc)
      die("usage: replay_mkschedule -o FILE [options]", NULL);
   if (code) {
      if (!s.e1)
         die("--code is e1's: give --e1", NULL);
      s.e1->location->has_address = 1;
      s.e1->location->address = code;
   }
   if (s.has_variable) { /* e1, f and e2 access the variable, named */
      cb_sched_event *pat[3] = {s.e1, s.f, s.e2};
      for (int k = 0; k < 3; k++)
         if (pat[k]) {
            pat[k]->has_address = 1;
            pat[k]->address = s.variable;
            pat[k]->variable_name = s.variable_name;
         }
   }

   if (tail) {
      /* Parse the steps once, then repeat them. */
      size_t nsteps;
      cb_sched_step *steps = parse_steps(tail, &nsteps);
      s.n_tail = nsteps * repeat;
      s.tail = calloc(s.n_tail ? s.n_tail : 1, sizeof *s.tail);
      for (size_t i = 0; i < s.n_tail; i++)
         s.tail[i] = &steps[i % nsteps];
      if (repeat == 1)
         index_expects(&s, s.tail, s.n_tail);
   }
   for (size_t k = 0; k < s.n_variants; k++)
      index_expects(&s, s.variants[k]->tail, s.variants[k]->n_tail);
   if (cb_schedule_write(out, (void *)&s, &err) != 0)
      die(err.msg, out);
   return 0;
}
