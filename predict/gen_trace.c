/* cb-gen-trace: writes a synthetic trace for benchmarks and stress tests:
 * N events, T threads, V variables, K locks, through the trace library.
 * Each thread runs transactions (a function activation holding a lock and
 * touching a few variables, a few of them unprotected); threads switch at
 * transaction boundaries so the trace stays lock-valid.
 *   usage: cb-gen-trace [-n EVENTS] [-t THREADS] [-v VARS] [-k LOCKS]
 *                       [-s SEED] -o TRACE
 *          cb-gen-trace --from-text FILE -o TRACE   (text form, cbtrace.h)
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cbtrace.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

static cb_writer *w;
static cb_error err;
static uint64_t written;

static void ev(uint8_t kind, uint8_t size, uint32_t tid, uint32_t loc, uint64_t addr,
               uint64_t value) {
   cb_event e = {.kind = kind, .size = size, .tid = tid, .loc = loc, .addr = addr, .value = value};
   if (cb_writer_event(w, &e, &err)) {
      fprintf(stderr, "cb-gen-trace: cannot write: %s\n", err.msg);
      exit(1);
   }
   written++;
}

enum { NFUN = 16, NLINE = 8 };

/* --from-text IN -o OUT: a text-form trace (trace/text_form.c) written as
 * a trace file. */
static int from_text(const char *in_path, const char *out) {
   FILE *in = fopen(in_path, "r");
   if (!in) { perror(in_path); return 2; }
   /* The whole file, however large (a text trace of 70,000 threads). */
   size_t len = 0, cap = 1 << 20, got;
   char *text = malloc(cap);
   while (text && (got = fread(text + len, 1, cap - len - 1, in)) > 0) {
      len += got;
      if (cap - len - 1 == 0) text = realloc(text, cap *= 2);
   }
   fclose(in);
   if (!text) { fputs("cb-gen-trace: out of memory\n", stderr); return 2; }
   text[len] = 0;
   cb_trace t;
   memset(&t, 0, sizeof t);
   int bad = cb_trace_from_text(text, &t, &err) || cb_trace_write(out, &t, &err);
   free(text);
   if (bad) {
      fprintf(stderr, "cb-gen-trace: %s: %s\n", in_path, err.msg);
      return 2;
   }
   cb_trace_free(&t);
   return 0;
}

/* The code locations (16 functions x 8 lines: 1..128; 129 is main) and
 * the variables' names; non-zero on a write error. */
static int write_definitions(uint64_t vars) {
   char fn[32];
   for (uint32_t id = 1; id <= NFUN * NLINE + 1; id++) {
      snprintf(fn, sizeof fn, id > NFUN * NLINE ? "main" : "work%u", (id - 1) / NLINE);
      cb_location l = {0x401000 + id * 8, "synthetic", fn, "synthetic.c", 100 + id, ""};
      if (cb_writer_location(w, id, &l, &err)) { fprintf(stderr, "cb-gen-trace: %s\n", err.msg); return 1; }
   }
   const uint64_t var0 = 0x600000;
   for (uint64_t v = 0; v < vars; v++) {
      char name[32];
      snprintf(name, sizeof name, "g%llu", (unsigned long long)v);
      cb_symbol s = {var0 + 8 * v, 8, name};
      cb_writer_symbol(w, &s, &err);
   }
   return 0;
}

/* The events: threads 2.. created by main, then transactions of random
 * threads on their functions' variables until n events, then the joins. */
static void write_events(uint64_t n, uint64_t threads, uint64_t vars, uint64_t locks) {
   const uint64_t var0 = 0x600000, lock0 = 0x700000, fn0 = 0x401000;
   uint32_t mainloc = NFUN * NLINE + 1;
   ev(CB_EV_THREAD_START, 0, 1, 0, 0, 0);
   ev(CB_EV_BLOCK_BEGIN, 0, 1, mainloc, fn0, 0);
   for (uint32_t t = 2; t <= threads; t++) {
      ev(CB_EV_THREAD_CREATE, 0, 1, mainloc, 0, t);
      ev(CB_EV_THREAD_START, 0, t, 0, 0, 1);
      ev(CB_EV_BLOCK_BEGIN, 0, t, 0, fn0 + 8, 0);
   }
   uint64_t body = n > 64 + 6 * threads ? n - 6 * threads : 64;
   uint64_t *val = calloc(vars, sizeof *val);
   /* Variable v is guarded by lock v % locks; function f works on the
    * group of variables g(f) = f, f + NFUN, f + 2 NFUN, ... with fixed access
    * sites, as real code does.  One function (work0) forgets its lock one
    * time in 8: those are the races to predict. */
   while (written < body) {
      uint32_t t = (uint32_t)(2 + rnd() % (threads - 1));
      int txns = 1 + (int)(rnd() % 4);
      for (int k = 0; k < txns && written < body; k++) {
         uint32_t f = (uint32_t)(rnd() % NFUN);
         uint32_t base = f * NLINE + 1;
         uint64_t group = vars / NFUN ? vars / NFUN : 1;
         uint64_t v0 = f + NFUN * (rnd() % group);
         if (v0 >= vars) v0 = f % vars;
         uint64_t l = lock0 + 64 * (v0 % locks);
         int locked = f != 0 || (rnd() % 8) != 0; /* only work0 is buggy */
         ev(CB_EV_BLOCK_BEGIN, 0, t, base, fn0 + 64 * (f + 1), 0);
         if (locked) ev(CB_EV_LOCK, CB_LOCK_MUTEX, t, base + 1, l, 0);
         int na = 2 + (int)(rnd() % 6);
         for (int a = 0; a < na; a++) {
            uint32_t site = (uint32_t)(rnd() % (NLINE - 3));
            int write = site == 0 || site == 3;
            uint32_t loc = base + 2 + site;
            uint64_t v = v0;
            if (write) ev(CB_EV_WRITE, 8, t, loc, var0 + 8 * v, ++val[v]);
            else ev(CB_EV_READ, 8, t, loc, var0 + 8 * v, val[v]);
         }
         if (locked) ev(CB_EV_UNLOCK, CB_LOCK_MUTEX, t, base + NLINE - 1, l, 0);
         ev(CB_EV_BLOCK_END, 0, t, 0, fn0 + 64 * (f + 1), 0);
      }
   }
   for (uint32_t t = 2; t <= threads; t++) {
      ev(CB_EV_BLOCK_END, 0, t, 0, fn0 + 8, 0);
      ev(CB_EV_THREAD_EXIT, 0, t, 0, 0, 0);
      ev(CB_EV_THREAD_JOIN, 0, 1, mainloc, 0, t);
   }
   ev(CB_EV_BLOCK_END, 0, 1, 0, fn0, 0);
   ev(CB_EV_THREAD_EXIT, 0, 1, 0, 0, 0);
   free(val);
}

int main(int argc, char **argv) {
   uint64_t n = 1000000, threads = 8, vars = 300, locks = 100;
   const char *out = NULL;
   int c;
   if (argc == 5 && !strcmp(argv[1], "--from-text") && !strcmp(argv[3], "-o"))
      return from_text(argv[2], argv[4]);
   while ((c = getopt(argc, argv, "n:t:v:k:s:o:h")) != -1) {
      switch (c) {
      case 'n': n = strtoull(optarg, NULL, 0); break;
      case 't': threads = strtoull(optarg, NULL, 0); break;
      case 'v': vars = strtoull(optarg, NULL, 0); break;
      case 'k': locks = strtoull(optarg, NULL, 0); break;
      case 's': rng = strtoull(optarg, NULL, 0) | 1; break;
      case 'o': out = optarg; break;
      case 'h':
         puts("usage: cb-gen-trace [-n EVENTS] [-t THREADS] [-v VARS] [-k LOCKS] "
              "[-s SEED] -o TRACE");
         return 0;
      default: return 2;
      }
   }
   if (!out || threads < 2 || threads > 1000000 || !vars || !locks) {
      fputs("cb-gen-trace: usage: cb-gen-trace [-n N] [-t 2..1000] [-v V] [-k K] -o TRACE\n", stderr);
      return 2;
   }
   cb_header h;
   memset(&h, 0, sizeof h);
   h.format_version = 1; h.program = "synthetic"; h.tool_version = "cb-gen-trace";
   h.instrumented = "synthetic"; h.trace_id = rng;
   w = cb_writer_open(out, &h, &err);
   if (!w) { fprintf(stderr, "cb-gen-trace: cannot create %s: %s\n", out, err.msg); return 1; }
   if (write_definitions(vars)) return 1;
   write_events(n, threads, vars, locks);
   cb_footer ft = {.present = 1, .event_count = written, .tool_ended = 1};
   if (cb_writer_close(w, &ft, &err)) { fprintf(stderr, "cb-gen-trace: %s\n", err.msg); return 1; }
   return 0;
}
