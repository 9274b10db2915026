/* trace_unit.c: unit tests of the trace library (TAP).  Built twice, plain
 * and under ASan+UBSan; tests/t/10-trace-unit.t runs both.
 *
 * Usage: trace_unit SCRATCH-DIR
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cbtrace.h"
#include "trace.pb-c.h"
#include "trace_internal.h" /* cb_crc32, to frame a chunk by hand */

/* A cb_event from its six trace fields, in cb_wire.h's order (flags 0). */
#define EV(k, s, t, l, a, v) \
   {.kind = (k), .size = (s), .tid = (t), .loc = (l), .addr = (a), .value = (v)}

static int n_test, n_failed;
static const char *dir;

static int ok(int cond, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   printf("%s %d - ", cond ? "ok" : "not ok", ++n_test);
   vprintf(fmt, ap);
   printf("\n");
   va_end(ap);
   if (!cond)
      n_failed++;
   fflush(stdout);
   return cond;
}

static char *path_of(const char *name)
{
   static char buf[8][4096];
   static int k;
   char *b = buf[k++ % 8];
   snprintf(b, 4096, "%s/%s", dir, name);
   return b;
}

static uint8_t *slurp(const char *path, size_t *len)
{
   FILE *f = fopen(path, "rb");
   if (!f)
      return NULL;
   fseek(f, 0, SEEK_END);
   long n = ftell(f);
   fseek(f, 0, SEEK_SET);
   uint8_t *b = malloc(n ? (size_t)n : 1);
   if (fread(b, 1, (size_t)n, f) != (size_t)n) {
      free(b);
      fclose(f);
      return NULL;
   }
   fclose(f);
   *len = (size_t)n;
   return b;
}

static void spit(const char *path, const void *data, size_t len)
{
   FILE *f = fopen(path, "wb");
   if (!f || fwrite(data, 1, len, f) != len) {
      perror(path);
      exit(99);
   }
   fclose(f);
}

static const char *hargv[] = {"./prog", "-x", "arg with spaces", NULL};
static cb_header test_header(void)
{
   cb_header h = {0};
   h.program = "./prog";
   h.argc = 3;
   h.argv = hargv;
   h.tool_version = "cbtools test";
   h.instrumented = "everything";
   h.trace_id = 0x0123456789abcdefull;
   h.program_digest = 0xfedcba9876543210ull;
   h.start_time_unix = 1700000000;
   return h;
}

/* A deterministic event stream exercising every kind, big addresses and
 * values, and many threads. */
static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
   rng ^= rng << 13;
   rng ^= rng >> 7;
   rng ^= rng << 17;
   return rng;
}

static cb_event make_event(size_t i, uint32_t nlocs)
{
   cb_event e = {0};
   e.kind = (uint8_t)(1 + i % (CB_EV_KIND_COUNT - 1));
   e.tid = (uint32_t)(1 + (next_rand() % 300));
   if (i % 1000 == 7)
      e.tid = 70000; /* beyond 16 bits */
   e.loc = (uint32_t)(next_rand() % (nlocs + 1));
   uint64_t r = next_rand();
   e.addr = (i % 5 == 0) ? r : 0x404000 + (r % 4096);
   if (i % 97 == 0)
      e.addr = UINT64_MAX - (r % 3);
   e.size = (uint8_t)(next_rand() % 256);
   if (e.kind == CB_EV_READ || e.kind == CB_EV_WRITE)
      e.size = (uint8_t)((1u << (next_rand() % 6)) |
                         ((i & 1) ? CB_SIZE_SAME_INSN : 0));
   if (cb_event_carries_value(e.kind, e.size))
      e.value = (i % 3 == 0) ? UINT64_MAX - (r % 5) : r % 1000;
   /* A locked instruction's store now and then (every class). */
   if (e.kind == CB_EV_WRITE && i % 7 < 3)
      e.rmw = (uint8_t)(1 + i % 7);
   return e;
}

static int same_event(const cb_event *a, const cb_event *b)
{
   return a->kind == b->kind && a->size == b->size && a->tid == b->tid &&
          a->loc == b->loc && a->addr == b->addr && a->value == b->value &&
          a->rmw == b->rmw;
}

static void test_round_trip(void)
{
   const char *p = path_of("rt.pb");
   cb_error err;
   cb_header h = test_header();
   cb_writer *w = cb_writer_open(p, &h, &err);
   ok(w != NULL, "writer opens");
   if (!w)
      return;
   const uint32_t nlocs = 500;
   for (uint32_t id = 1; id <= nlocs; id++) {
      char fn[32], file[32];
      snprintf(fn, sizeof fn, "fn%u", id);
      snprintf(file, sizeof file, "dir/file%u.c", id % 7);
      cb_location l = {0x400000 + id * 16, "/bin/prog", fn, file, id * 3, ""};
      if (id == 9)
         l = (cb_location){0xffffffffff600000ull, "", "", "", 0, ""};
      cb_writer_location(w, id, &l, &err);
   }
   cb_symbol s1 = {0x404040, 8, "counter"}, s2 = {0x404000, 64, "table"};
   cb_writer_symbol(w, &s1, &err);
   cb_writer_symbol(w, &s2, &err);
   size_t n = 3 * CB_CHUNK_EVENTS + 17;
   cb_event *evs = malloc(n * sizeof *evs);
   int fails = 0;
   for (size_t i = 0; i < n; i++) {
      evs[i] = make_event(i, nlocs);
      fails += cb_writer_event(w, &evs[i], &err) < 0;
   }
   ok(fails == 0, "writes %zu events", n);
   cb_footer f = {.present = 1, .exit_status = 3, .tool_ended = 1};
   ok(cb_writer_close(w, &f, &err) == 0, "writer closes");
   struct stat st;
   stat(p, &st);
   printf("# random events: %.2f bytes/event\n", (double)st.st_size / (double)n);

   cb_trace t;
   int r = cb_trace_read(p, &t, &err);
   ok(r == 0, "reads back (%s)", r ? err.msg : "");
   if (r)
      return;
   ok(!t.truncated, "whole trace is not truncated (%s)", t.truncation);
   ok(t.nevents == n, "event count %zu", t.nevents);
   size_t bad = SIZE_MAX;
   for (size_t i = 0; i < n && i < t.nevents; i++)
      if (!same_event(&evs[i], &t.events[i])) {
         bad = i;
         break;
      }
   ok(bad == SIZE_MAX, "every event, kind and field survives (first diff %zu)",
      bad);
   /* The in-memory fields start clear whatever malloc left there (10 runs
    * this with MALLOC_PERTURB_ set, as meson test does). */
   size_t dirty = 0;
   for (size_t i = 0; i < t.nevents; i++)
      dirty += t.events[i].flags != 0 || t.events[i].was != 0;
   ok(dirty == 0, "events read have no in-memory flags set (%zu do)", dirty);
   ok(t.nthreads == 70000, "nthreads is the highest tid (%u)", t.nthreads);
   ok(t.nlocs == nlocs + 1 && strcmp(t.locs[42].function, "fn42") == 0 &&
          strcmp(t.locs[42].file, "dir/file0.c") == 0 &&
          t.locs[42].line == 126 && t.locs[42].address == 0x400000 + 42 * 16 &&
          strcmp(t.locs[42].object, "/bin/prog") == 0,
      "locations survive");
   ok(t.locs[9].address == 0xffffffffff600000ull && t.locs[9].file[0] == 0 &&
          t.locs[0].file && t.locs[0].function && t.locs[0].object,
      "unknown fields are empty strings, never NULL");
   ok(t.nsyms == 2 && t.syms[0].address == 0x404000 &&
          strcmp(t.syms[1].name, "counter") == 0 && t.syms[0].size == 64,
      "symbols survive, sorted by address");
   ok(strcmp(t.header.program, "./prog") == 0 && t.header.argc == 3 &&
          strcmp(t.header.argv[2], "arg with spaces") == 0 &&
          t.header.argv[3] == NULL &&
          strcmp(t.header.tool_version, "cbtools test") == 0 &&
          strcmp(t.header.instrumented, "everything") == 0 &&
          t.header.trace_id == h.trace_id &&
          t.header.program_digest == h.program_digest &&
          t.header.start_time_unix == h.start_time_unix &&
          t.header.format_version == 1,
      "header survives");
   ok(t.footer.present && t.footer.event_count == n &&
          t.footer.exit_status == 3 && t.footer.tool_ended,
      "footer survives");
   cb_trace_free(&t);
   free(evs);
}

/* A realistic shape: threads incrementing shared counters in loops. */
static void test_compact(void)
{
   const char *p = path_of("compact.pb");
   cb_error err;
   cb_header h = test_header();
   cb_writer *w = cb_writer_open(p, &h, &err);
   for (uint32_t id = 1; id <= 20; id++) {
      cb_location l = {0x401100 + id * 4, "/t/prog", "worker", "prog.c", id, ""};
      cb_writer_location(w, id, &l, &err);
   }
   size_t n = 0;
   uint64_t counter = 0;
   for (int round = 0; round < 20000; round++) {
      uint32_t tid = (uint32_t)(1 + (round / 50) % 4);
      cb_event evs[] = {
          EV(CB_EV_LOCK, CB_LOCK_MUTEX, tid, 3, 0x4040a0, 0),
          EV(CB_EV_READ, 4, tid, 4, 0x404060, counter),
          EV(CB_EV_WRITE, 4 | CB_SIZE_SAME_INSN, tid, 4, 0x404060, counter + 1),
          EV(CB_EV_READ, 8, tid, 5, 0x4a52a0 + (round % 16) * 8, 0x4a5000),
          EV(CB_EV_WRITE, 4, tid, 6, 0x4a52a0 + (round % 16) * 8 + 4,
           (uint64_t)round),
          EV(CB_EV_UNLOCK, CB_LOCK_MUTEX, tid, 7, 0x4040a0, 0),
      };
      counter++;
      for (size_t k = 0; k < sizeof evs / sizeof *evs; k++, n++)
         cb_writer_event(w, &evs[k], &err);
   }
   cb_footer f = {.present = 1, .tool_ended = 1};
   cb_writer_close(w, &f, &err);
   struct stat st;
   stat(p, &st);
   double bpe = (double)st.st_size / (double)n;
   ok(bpe <= 8.0, "a lock/counter workload takes %.2f bytes/event (<= 8)", bpe);
}

static void write_all_events(cb_writer *w, const cb_event *evs, size_t n)
{
   cb_error err;
   for (size_t i = 0; i < n; i++)
      cb_writer_event(w, &evs[i], &err);
}

static void test_streaming(void)
{
   const char *p = path_of("stream.pb");
   cb_error err;
   cb_header h = test_header();
   cb_writer *w = cb_writer_open(p, &h, &err);
   cb_location l = {0x401000, "prog", "main", "prog.c", 5, ""};
   cb_writer_location(w, 1, &l, &err);
   size_t n = 2 * CB_CHUNK_EVENTS + 5;
   cb_event *evs = malloc(n * sizeof *evs);
   for (size_t i = 0; i < n; i++)
      evs[i] = make_event(i, 1);
   write_all_events(w, evs, n);
   /* Not closed: as if the writer had crashed now. */
   cb_trace t;
   int r = cb_trace_read(p, &t, &err);
   ok(r == 0 && t.truncated && t.nevents == 2 * CB_CHUNK_EVENTS,
      "an unclosed trace shows its whole chunks (%zu events, truncated: %s)",
      r == 0 ? t.nevents : 0, r == 0 ? t.truncation : err.msg);
   int same = r == 0;
   for (size_t i = 0; same && i < t.nevents; i++)
      same = same_event(&evs[i], &t.events[i]);
   ok(same, "and they are the events written");
   if (r == 0)
      cb_trace_free(&t);
   cb_writer_flush(w, &err);
   r = cb_trace_read(p, &t, &err);
   ok(r == 0 && t.truncated && t.nevents == n, "a flush makes the rest visible");
   if (r == 0)
      cb_trace_free(&t);
   cb_writer_close(w, NULL, &err);
   free(evs);
}

/* A small trace of several chunks; returns its bytes and the offsets at
 * which each frame ends, with the events read so far at that point. */
#define SMALL_CHUNKS 5
#define SMALL_PER 7
static uint8_t *small_trace(size_t *len, cb_event *evs, size_t *ends,
                            size_t *nev_at_end, size_t *nframes)
{
   const char *p = path_of("small.pb");
   cb_error err;
   cb_header h = test_header();
   cb_writer *w = cb_writer_open(p, &h, &err);
   size_t k = 0;
   for (int c = 0; c < SMALL_CHUNKS; c++) {
      cb_location l = {0x401000 + (uint64_t)c, "prog", "f", "a.c", (uint32_t)c, ""};
      cb_writer_location(w, (uint32_t)c + 1, &l, &err);
      for (int i = 0; i < SMALL_PER; i++, k++) {
         evs[k] = make_event(k, (uint32_t)c + 1);
         cb_writer_event(w, &evs[k], &err);
      }
      cb_writer_flush(w, &err);
   }
   cb_footer f = {.present = 1, .tool_ended = 1};
   cb_writer_close(w, &f, &err);
   uint8_t *b = slurp(p, len);
   /* Walk the frames: magic, then u32 length, u32 crc, payload. */
   size_t pos = 8, fi = 0;
   while (pos + 8 <= *len) {
      uint32_t fl = (uint32_t)b[pos] | (uint32_t)b[pos + 1] << 8 |
                    (uint32_t)b[pos + 2] << 16 | (uint32_t)b[pos + 3] << 24;
      pos += 8 + fl;
      ends[fi] = pos;
      /* frame 0: header; frames 1..SMALL_CHUNKS: events; then the footer. */
      nev_at_end[fi] = fi == 0 ? 0 : fi <= SMALL_CHUNKS ? fi * SMALL_PER
                                                        : SMALL_CHUNKS * SMALL_PER;
      fi++;
   }
   *nframes = fi;
   return b;
}

static int is_prefix(const cb_trace *t, const cb_event *evs)
{
   for (size_t i = 0; i < t->nevents; i++)
      if (!same_event(&t->events[i], &evs[i]))
         return 0;
   return 1;
}

static void test_truncation(void)
{
   size_t len, ends[16], nev[16], nframes;
   cb_event evs[SMALL_CHUNKS * SMALL_PER];
   uint8_t *b = small_trace(&len, evs, ends, nev, &nframes);
   ok(nframes == SMALL_CHUNKS + 2 && ends[nframes - 1] == len,
      "small trace has %d frames", SMALL_CHUNKS + 2);
   int bad = 0;
   size_t first_bad = 0;
   for (size_t cut = 0; cut < len; cut++) {
      uint8_t *copy = malloc(cut ? cut : 1); /* exact size: ASan sees overreads */
      memcpy(copy, b, cut);
      cb_trace t;
      cb_error err;
      int r = cb_trace_read_mem(copy, cut, &t, &err);
      int good;
      if (cut < ends[0]) {
         good = r == -1;
      } else {
         size_t whole = 0;
         for (size_t f = 0; f < nframes; f++)
            if (ends[f] <= cut)
               whole = nev[f];
         good = r == 0 && t.truncated && t.nevents == whole && is_prefix(&t, evs);
      }
      if (r == 0)
         cb_trace_free(&t);
      free(copy);
      if (!good && !bad++)
         first_bad = cut;
   }
   ok(bad == 0, "cut at every byte of %zu: an error before the header is whole, "
                "else truncated with exactly the whole chunks (first bad: %zu)",
      len, first_bad);

   /* Flip each byte: never taken for whole, never crashes. */
   bad = 0;
   for (size_t at = 0; at < len; at++) {
      uint8_t *copy = malloc(len);
      memcpy(copy, b, len);
      copy[at] ^= 0x5a;
      cb_trace t;
      cb_error err;
      int r = cb_trace_read_mem(copy, len, &t, &err);
      int good;
      if (at < ends[0]) {
         good = r == -1;
      } else {
         size_t whole = 0;
         for (size_t f = 0; f < nframes; f++)
            if (ends[f] <= at)
               whole = nev[f];
         good = r == 0 && t.truncated && t.nevents == whole && is_prefix(&t, evs);
      }
      if (r == 0)
         cb_trace_free(&t);
      free(copy);
      if (!good && !bad++)
         first_bad = at;
   }
   ok(bad == 0, "a flipped byte anywhere is caught: the chunks before it "
                "survive (first bad: %zu)",
      first_bad);
   /* The untouched file is whole. */
   cb_trace t;
   cb_error err;
   int r = cb_trace_read_mem(b, len, &t, &err);
   ok(r == 0 && !t.truncated && t.nevents == SMALL_CHUNKS * SMALL_PER,
      "the small trace itself is whole");
   if (r == 0)
      cb_trace_free(&t);
   free(b);
}

static void test_bad_files(void)
{
   cb_trace t;
   cb_error err;
   int r = cb_trace_read(path_of("does-not-exist.pb"), &t, &err);
   ok(r == -1 && strstr(err.msg, "No such file"), "missing file: %s", err.msg);
   spit(path_of("empty.pb"), "", 0);
   r = cb_trace_read(path_of("empty.pb"), &t, &err);
   ok(r == -1 && strstr(err.msg, "empty"), "empty file: %s", err.msg);
   spit(path_of("text.pb"), "hello, world\n", 13);
   r = cb_trace_read(path_of("text.pb"), &t, &err);
   ok(r == -1 && strstr(err.msg, "not a cbtools trace"), "text file: %s",
      err.msg);
   r = cb_trace_read("/bin/sh", &t, &err);
   ok(r == -1 && strstr(err.msg, "not a cbtools trace"), "ELF file: %s", err.msg);
   r = cb_trace_read(dir, &t, &err);
   ok(r == -1, "a directory: %s", err.msg);
   spit(path_of("magic-only.pb"), "CBTRACE\x01", 8);
   r = cb_trace_read(path_of("magic-only.pb"), &t, &err);
   ok(r == -1 && strstr(err.msg, "header"), "magic only: %s", err.msg);
   /* Magic plus a frame whose payload is not a Chunk with a header. */
   uint8_t junk[8 + 8 + 3] = "CBTRACE\x01";
   r = cb_trace_read_mem(junk, sizeof junk, &t, &err);
   ok(r == -1 && strstr(err.msg, "header"), "garbage header frame: %s", err.msg);

   cb_header h = test_header();
   cb_writer *w = cb_writer_open(path_of("hdr.pb"), &h, &err);
   cb_writer_close(w, NULL, &err);
   r = cb_trace_read(path_of("hdr.pb"), &t, &err);
   ok(r == 0 && t.truncated && t.nevents == 0 && !t.footer.present,
      "header-only trace: readable, no events, truncated (%s)",
      r == 0 ? t.truncation : err.msg);
   if (r == 0)
      cb_trace_free(&t);
   w = cb_writer_open(path_of("hdrf.pb"), &h, &err);
   cb_footer f = {.present = 1, .tool_ended = 1};
   cb_writer_close(w, &f, &err);
   r = cb_trace_read(path_of("hdrf.pb"), &t, &err);
   ok(r == 0 && !t.truncated && t.nevents == 0 && t.footer.present,
      "header and footer, no events: whole");
   if (r == 0)
      cb_trace_free(&t);
   /* A killed program: footer present, tool never ended. */
   w = cb_writer_open(path_of("killed.pb"), &h, &err);
   cb_footer fk = {.present = 1, .exit_signal = 9};
   cb_writer_close(w, &fk, &err);
   r = cb_trace_read(path_of("killed.pb"), &t, &err);
   ok(r == 0 && t.truncated && strstr(t.truncation, "signal 9"),
      "program killed before the tool ended: truncated (%s)",
      r == 0 ? t.truncation : err.msg);
   if (r == 0)
      cb_trace_free(&t);
   ok(cb_writer_open("/nonexistent-dir/x.pb", &h, &err) == NULL &&
          strstr(err.msg, "No such file"),
      "writer to an impossible path fails: %s", err.msg);
   /* Writer refuses bad events instead of writing an unreadable trace. */
   w = cb_writer_open(path_of("refuse.pb"), &h, &err);
   cb_event e0 = EV(CB_EV_READ, 4, 0, 0, 1, 1);
   cb_event e1 = EV(CB_EV_KIND_COUNT, 4, 1, 0, 1, 1);
   cb_event e2 = EV(CB_EV_READ, 4, 1, 5, 1, 1);
   ok(cb_writer_event(w, &e0, &err) < 0 && cb_writer_event(w, &e1, &err) < 0 &&
          cb_writer_event(w, &e2, &err) < 0,
      "writer refuses tid 0, unknown kinds, undefined locations");
   cb_writer_close(w, NULL, &err);
   /* Events at the unknown location in a trace that defines none. */
   w = cb_writer_open(path_of("noloc.pb"), &h, &err);
   cb_event e3 = EV(CB_EV_WRITE, 4, 1, 0, 0x404040, 3);
   cb_writer_event(w, &e3, &err);
   cb_writer_close(w, &f, &err);
   r = cb_trace_read(path_of("noloc.pb"), &t, &err);
   ok(r == 0 && !t.truncated && t.nevents == 1 && t.nlocs == 1 &&
          same_event(&t.events[0], &e3),
      "a trace without locations reads (%s)", r ? err.msg : t.truncation);
   if (r == 0)
      cb_trace_free(&t);
}

static void test_schedule(void)
{
   cb_schedule s = {0};
   s.has_id = 1;
   s.id = 17;
   s.has_trace_id = 1;
   s.trace_id = 0xabcdef0123456789ull;
   s.program = "./prog";
   s.pattern = "RWR";
   uint64_t prefix[3] = {5, 0, 1ull << 40};
   s.prefix = prefix;
   s.n_prefix = 3;
   cb_sched_step st = {0}, *tail[1] = {&st};
   st.has_tid = st.has_count = 1;
   st.tid = 2;
   st.count = 3;
   s.tail = tail;
   s.n_tail = 1;
   cb_sched_event e1 = {0};
   cb_sched_location l = {0};
   l.file = "rwr.c";
   l.has_line = 1;
   l.line = 12;
   e1.location = &l;
   e1.has_tid = 1;
   e1.tid = 1;
   s.e1 = &e1;
   /* Every other kind of field once: a variant whose step is run out and
    * one that expects an event, thread paths, how it was recorded. */
   cb_sched_event ex = {.has_kind = 1, .kind = CB_EV_WRITE, .has_value = 1,
                        .value = 7, .variable_name = "balance",
                        .has_address_stable = 1, .address_stable = 1};
   cb_sched_step v1 = {.has_tid = 1, .tid = 1, .has_run_out = 1,
                       .run_out = 1},
                 v2 = {.has_tid = 1, .tid = 2, .has_count = 1, .count = 4,
                       .expect = &ex};
   cb_sched_step *vt[2] = {&v1, &v2};
   cb_sched_variant var = {.name = "T1 alone", .n_tail = 2, .tail = vt};
   cb_sched_variant *vars[1] = {&var};
   s.variants = vars;
   s.n_variants = 1;
   s.tail_name = "release after e2";
   uint32_t par[2] = {0, 1}, idx[2] = {0, 1};
   s.thread_parent = par;
   s.n_thread_parent = 2;
   s.thread_index = idx;
   s.n_thread_index = 2;
   s.instrument = "main";
   s.has_recorded_exit = 1;
   s.recorded_exit = 3;
   cb_error err;
   const char *p = path_of("s17.pb");
   ok(cb_schedule_write(p, &s, &err) == 0, "schedule written");
   cb_schedule *r = NULL;
   int rc = cb_schedule_read(p, &r, &err);
   ok(rc == 0 && r && r->id == 17 && r->trace_id == s.trace_id &&
          strcmp(r->pattern, "RWR") == 0 && r->n_prefix == 3 &&
          r->prefix[2] == 1ull << 40 && r->n_tail == 1 &&
          r->tail[0]->count == 3 && r->e1 && r->e1->location &&
          strcmp(r->e1->location->file, "rwr.c") == 0 &&
          r->e1->location->line == 12 && !r->f && !r->e2 &&
          !r->tail[0]->expect && !r->has_counted_mask,
      "schedule round trip");
   const cb_sched_variant *rv = rc == 0 && r->n_variants == 1
                                    ? r->variants[0] : NULL;
   const cb_sched_event *rx = rv && rv->n_tail == 2 ? rv->tail[1]->expect
                                                    : NULL;
   ok(rv && strcmp(rv->name, "T1 alone") == 0 && rv->tail[0]->run_out &&
          !rv->tail[0]->has_count && rv->tail[1]->count == 4 && rx &&
          rx->kind == CB_EV_WRITE && rx->has_value && rx->value == 7 &&
          strcmp(rx->variable_name, "balance") == 0 && rx->address_stable &&
          !rx->location && strcmp(r->tail_name, "release after e2") == 0 &&
          r->n_thread_parent == 2 && r->thread_parent[1] == 1 &&
          r->n_thread_index == 2 && r->thread_index[1] == 1 &&
          strcmp(r->instrument, "main") == 0 && r->has_recorded_exit &&
          r->recorded_exit == 3,
      "schedule round trip: variants, expected events, thread paths, how "
      "it was recorded");
   if (r)
      cb_schedule_free(r);

   /* The prefix's waits: written counted from the prefix's ends when all
    * lie inside it (Schedule.prefix_waits), as they are when one does
    * not; read back the same either way. */
   uint64_t waits[8] = {1, 3, 3, (1ull << 40) - 2, 3, (1ull << 40) - 3, 1, 4};
   s.prefix_order = waits;
   s.n_prefix_order = 8;
   const char *pw = path_of("swaits.pb");
   rc = cb_schedule_write(pw, &s, &err) == 0 ? cb_schedule_read(pw, &r, &err) : -1;
   ok(rc == 0 && r->n_prefix_order == 8 &&
          !memcmp(r->prefix_order, waits, sizeof waits),
      "prefix waits round trip (relative in the file)");
   long rel_size = rc == 0 ? (long)r->n_prefix_order : 0;
   if (rc == 0)
      cb_schedule_free(r);
   size_t wlen;
   uint8_t *wb = slurp(pw, &wlen);
   free(wb);
   uint64_t outside[12] = {1, 3, 3, (1ull << 40) - 2, 3, (1ull << 40) - 3, 1, 4,
                          2, 0, 1, 1};
   s.prefix_order = outside;
   s.n_prefix_order = 12;
   rc = cb_schedule_write(pw, &s, &err) == 0 ? cb_schedule_read(pw, &r, &err) : -1;
   ok(rc == 0 && r->n_prefix_order == 12 &&
          !memcmp(r->prefix_order, outside, sizeof outside),
      "a wait outside the prefix: all kept as they are");
   if (rc == 0)
      cb_schedule_free(r);
   size_t alen;
   uint8_t *ab = slurp(pw, &alen);
   free(ab);
   ok(rel_size == 8 && wlen + 8 < alen,
      "counted from the prefix's ends the waits are smaller (%zu bytes "
      "against %zu with one more wait)", wlen, alen);
   s.prefix_order = NULL;
   s.n_prefix_order = 0;
   cb_trace t;
   rc = cb_trace_read(p, &t, &err);
   ok(rc == -1 && strstr(err.msg, "schedule"),
      "a schedule given to the trace reader: %s", err.msg);
   rc = cb_schedule_read(path_of("small.pb"), &r, &err);
   ok(rc == -1 && strstr(err.msg, "trace"),
      "a trace given to the schedule reader: %s", err.msg);
   size_t len;
   uint8_t *b = slurp(p, &len);
   int caught = 1;
   for (size_t at = 0; at < len; at++) {
      b[at] ^= 1;
      spit(path_of("sbad.pb"), b, len);
      b[at] ^= 1;
      r = NULL;
      if (cb_schedule_read(path_of("sbad.pb"), &r, &err) == 0) {
         caught = 0;
         cb_schedule_free(r);
      }
   }
   for (size_t cut = 0; cut < len; cut++) {
      spit(path_of("sbad.pb"), b, cut);
      r = NULL;
      if (cb_schedule_read(path_of("sbad.pb"), &r, &err) == 0) {
         caught = 0;
         cb_schedule_free(r);
      }
   }
   ok(caught, "every flipped bit and every cut of a schedule is refused");
   free(b);
}

/* The events into t, then cb_trace_finish. */
static void add_events(cb_trace *t, const cb_event *evs, size_t n)
{
   cb_error err;
   for (size_t i = 0; i < n; i++)
      cb_trace_add_event(t, &evs[i], &err);
   cb_trace_finish(t);
}

static void test_names(void)
{
   cb_trace t = {0};
   cb_error err;
   cb_location l1 = {0x401136, "/t/rww", "deposit", "rww.c", 14, ""};
   cb_location l2 = {0x401200, "/t/rww", "main", "rww.c", 30, ""};
   cb_location l3 = {0x7f0000001000, "/lib/libfoo.so", "", "", 0, ""};
   cb_trace_set_location(&t, 1, &l1, &err);
   cb_trace_set_location(&t, 2, &l2, &err);
   cb_trace_set_location(&t, 3, &l3, &err);
   cb_symbol s = {0x404040, 16, "counter"};
   cb_trace_add_symbol(&t, &s, &err);
   cb_event evs[] = {
       EV(CB_EV_WRITE, 4, 2, 1, 0x404040, 7),
       EV(CB_EV_READ, 4 | CB_SIZE_SAME_INSN, 2, 1, 0x404048, 1),
       EV(CB_EV_ALLOC, 0, 1, 2, 0x4a52a0, 32),
       EV(CB_EV_WRITE, 8, 1, 3, 0x4a52a8, 5),
       EV(CB_EV_FREE, 0, 1, 2, 0x4a52a0, 0),
       EV(CB_EV_ALLOC, 0, 1, 1, 0x4a52a0, 16),
       EV(CB_EV_LOCK, CB_LOCK_WR, 1, 0, 0x404050, 1),
       EV(CB_EV_COND_WAIT, 0, 3, 2, 0x404060, 0x404040),
       EV(CB_EV_COND_SIGNAL, 1, 3, 2, 0x404060, 0),
       EV(CB_EV_THREAD_CREATE, 0, 1, 2, 0, 2),
       EV(CB_EV_THREAD_START, 0, 2, 0, 0, 1),
       EV(CB_EV_BLOCK_BEGIN, 0, 2, 1, 0x401130, 0),
       EV(CB_EV_BARRIER_ENTER, 0, 2, 0, 0x999000, 4),
       EV(CB_EV_READ, 32, 2, 0, 0x999000, 0),
   };
   add_events(&t, evs, sizeof evs / sizeof *evs);
   const char *want[] = {
       "0 T2 write counter size 4 = 7 @ rww.c:14 in deposit",
       "1 T2 read counter+8 size 4 = 1 @ rww.c:14 in deposit",
       "2 T1 alloc heap block of 32 bytes from rww.c:30 size 32 @ rww.c:30 in main",
       "3 T1 write heap block of 32 bytes from rww.c:30, offset 8 size 8 = 5 @ libfoo.so@0x7f0000001000",
       "4 T1 free heap block of 32 bytes from rww.c:30 @ rww.c:30 in main",
       "5 T1 alloc heap block of 16 bytes from rww.c:14 size 16 @ rww.c:14 in deposit",
       "6 T1 lock 0x404050 wr try",
       "7 T3 wait 0x404060 counter @ rww.c:30 in main",
       "8 T3 broadcast 0x404060 @ rww.c:30 in main",
       "9 T1 create T2 @ rww.c:30 in main",
       "10 T2 start from T1",
       "11 T2 begin deposit @ rww.c:14 in deposit",
       "12 T2 barrier-enter 0x999000 count 4",
       "13 T2 read 0x999000 size 32",
   };
   char *buf = NULL;
   size_t blen = 0;
   for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
      FILE *m = open_memstream(&buf, &blen);
      cb_event_print(m, &t, i);
      fclose(m);
      size_t wl = strlen(want[i]);
      int good = blen == wl + 1 && strncmp(buf, want[i], wl) == 0;
      ok(good, "dump line: %s", want[i]);
      if (!good)
         printf("#   got: %s", buf);
      free(buf);
      buf = NULL;
   }
   /* counter is 16 bytes: 0x404050 just past it is not counter+16. */
   char v[200];
   ok(strcmp(cb_variable_str(&t, 0x40404f, v, sizeof v), "counter+15") == 0 &&
          strcmp(cb_variable_str(&t, 0x404050, v, sizeof v), "0x404050") == 0,
      "a symbol covers its bytes and no more (%s)", v);
   {
      cb_trace ts = {0};
      cb_symbol st = {0x405000, 16, "l.0"}, dotted = {0x405100, 8, "a.b.1"},
                vers = {0x405200, 8, "stderr@GLIBC_2.2.5"};
      cb_trace_add_symbol(&ts, &st, &err);
      cb_trace_add_symbol(&ts, &dotted, &err);
      cb_trace_add_symbol(&ts, &vers, &err);
      cb_trace_finish(&ts);
      char v2[200], v3[200], v4[200];
      ok(strcmp(cb_variable_str(&ts, 0x405000, v, sizeof v), "l") == 0 &&
             strcmp(cb_variable_str(&ts, 0x405008, v2, sizeof v2), "l+8") == 0 &&
             strcmp(cb_variable_str(&ts, 0x405100, v3, sizeof v3), "a.b.1") == 0 &&
             strcmp(cb_variable_str(&ts, 0x405200, v4, sizeof v4),
                    "stderr@GLIBC_2.2.5") == 0,
         "a function's static is named as the source spells it (%s, %s; "
         "others unchanged: %s, %s)", v, v2, v3, v4);
      cb_trace_free(&ts);
   }
   /* Event 3 is in libfoo.so, which has no lines: its user location is
    * T1's nearest earlier event with one (the alloc at rww.c:30); event 0
    * has a line of its own; T2's event 1 has a line too. */
   ok(cb_user_loc(&t, 3) == 2 && cb_user_loc(&t, 0) == 0 &&
          cb_user_loc(&t, 1) == 0 && cb_user_loc(&t, 999) == 0,
      "an event in a library without lines: the caller's line (loc %u)",
      cb_user_loc(&t, 3));
   ok(strcmp(cb_variable_str(&t, 0x4a52a4, v, sizeof v),
             "heap block of 16 bytes from rww.c:14, offset 4") == 0,
      "a reused heap address names the last block by default (%s)", v);
   ok(cb_event_kind_from_name("barrier-leave") == CB_EV_BARRIER_LEAVE &&
          cb_event_kind_from_name("broadcast") == CB_EV_COND_SIGNAL &&
          cb_event_kind_from_name("bogus") == -1 &&
          strcmp(cb_event_kind_name(CB_EV_ATOMIC_END), "atomic-end") == 0 &&
          strcmp(cb_event_kind_name(200), "?") == 0,
      "kind names both ways");
   ok(strcmp(cb_pattern_kind_word("RWR", "f", "read"), "update") == 0 &&
          strcmp(cb_pattern_kind_word("WWW", "f", "read"), "update") == 0 &&
          strcmp(cb_pattern_kind_word("RWW", "e2", "read"), "update") == 0 &&
          strcmp(cb_pattern_kind_word("WWR", "e1", "read"), "update") == 0 &&
          strcmp(cb_pattern_kind_word("RWR", "e1", "read"), "read") == 0 &&
          strcmp(cb_pattern_kind_word("RWW", "e1", "read"), "read") == 0 &&
          strcmp(cb_pattern_kind_word("RRW", "f", "read"), "read") == 0 &&
          strcmp(cb_pattern_kind_word("ORD", "f", "read"), "read") == 0 &&
          strcmp(cb_pattern_kind_word("RWR", "x", "read"), "read") == 0 &&
          strcmp(cb_pattern_kind_word(NULL, "f", "read"), "read") == 0 &&
          strcmp(cb_pattern_kind_word("RWR", "f", "write"), "write") == 0,
      "an f the pattern counts as a write but that reads (a read-modify-write) is an update");
   /* The built trace writes and reads back whole. */
   const char *p = path_of("built.pb");
   t.header.program = cb_trace_strdup(&t, "prog");
   ok(cb_trace_write(p, &t, &err) == 0, "cb_trace_write");
   cb_trace u;
   int r = cb_trace_read(p, &u, &err);
   int same = r == 0 && !u.truncated && u.nevents == t.nevents && u.nsyms == 1 &&
              u.nlocs == 4;
   for (size_t i = 0; same && i < t.nevents; i++)
      same = same_event(&t.events[i], &u.events[i]);
   ok(same, "a built trace survives a write and a read");
   if (r == 0)
      cb_trace_free(&u);
   cb_trace_free(&t);
}

/* Chunks in the plain form (kind_size values, addresses as deltas from the
 * previous event), without the denser additions, still read. */
static void test_plain_form(void)
{
   uint8_t *file = malloc(1 << 16);
   size_t len = 0;
   memcpy(file, "CBTRACE\x01", 8);
   len = 8;
   for (int part = 0; part < 3; part++) {
      Cbtools__Chunk c = CBTOOLS__CHUNK__INIT;
      Cbtools__Header h = CBTOOLS__HEADER__INIT;
      Cbtools__Events ev = CBTOOLS__EVENTS__INIT;
      Cbtools__Footer f = CBTOOLS__FOOTER__INIT;
      uint32_t ks[3] = {CB_EV_READ | 4 << 5, CB_EV_WRITE | 8 << 5,
                        CB_EV_LOCK | 0 << 5};
      uint32_t sw_at[2] = {0, 2}, sw_tid[2] = {1, 2};
      int64_t ad[3] = {0x404040, 8, -0x404048 + 0x5000};
      int32_t ld[3] = {0, 0, 0};
      uint64_t val[3] = {7, UINT64_MAX, 1};
      if (part == 0) {
         h.has_format_version = 1;
         h.format_version = 1;
         c.header = &h;
      } else if (part == 1) {
         ev.has_first_index = 1;
         ev.n_kind_size = ev.n_addr_delta = ev.n_loc_delta = 3;
         ev.kind_size = ks;
         ev.addr_delta = ad;
         ev.loc_delta = ld;
         ev.n_value = 3;
         ev.value = val;
         ev.n_switch_at = ev.n_switch_tid = 2;
         ev.switch_at = sw_at;
         ev.switch_tid = sw_tid;
         c.events = &ev;
      } else {
         f.has_event_count = f.has_tool_ended = 1;
         f.event_count = 3;
         f.tool_ended = 1;
         c.footer = &f;
      }
      size_t n = protobuf_c_message_get_packed_size(&c.base);
      protobuf_c_message_pack(&c.base, file + len + 8);
      uint32_t crc = cb_crc32(file + len + 8, n);
      for (int b = 0; b < 4; b++) {
         file[len + b] = (uint8_t)(n >> (8 * b));
         file[len + 4 + b] = (uint8_t)(crc >> (8 * b));
      }
      len += 8 + n;
   }
   cb_trace t;
   cb_error err;
   int r = cb_trace_read_mem(file, len, &t, &err);
   ok(r == 0 && !t.truncated && t.nevents == 3 && t.events[0].addr == 0x404040 &&
          t.events[1].addr == 0x404048 && t.events[1].value == UINT64_MAX &&
          t.events[2].addr == 0x5000 && t.events[2].tid == 2 &&
          t.events[2].kind == CB_EV_LOCK && t.events[1].tid == 1 &&
          t.events[0].value == 7,
      "a chunk in the plain column form reads (%s)",
      r ? err.msg : t.truncation);
   if (r == 0)
      cb_trace_free(&t);
   free(file);
}

static void test_digest(void)
{
   spit(path_of("d1"), "a", 1);
   uint64_t d = 1;
   cb_error err;
   ok(cb_file_digest(path_of("d1"), &d, &err) == 0 &&
          d == 0xaf63dc4c8601ec8cull,
      "FNV-1a 64 of \"a\"");
   ok(cb_file_digest(path_of("none"), &d, &err) == -1 && d == 0,
      "digest of a missing file fails");
}

/* Appends one framed chunk, packed by protobuf-c, to file at *len. */
static void append_frame(uint8_t *file, size_t *len, const Cbtools__Chunk *c)
{
   size_t n = protobuf_c_message_get_packed_size(&c->base);
   protobuf_c_message_pack(&c->base, file + *len + 8);
   uint32_t crc = cb_crc32(file + *len + 8, n);
   for (int b = 0; b < 4; b++) {
      file[*len + b] = (uint8_t)(n >> (8 * b));
      file[*len + 4 + b] = (uint8_t)(crc >> (8 * b));
   }
   *len += 8 + n;
}

/* The reader decodes Events by hand; every check it makes must still be
 * made, and Events in a shape cbtools does not write (legal protobuf: a
 * message in two pieces) must still read, through protobuf-c. */
static void test_reader_checks(void)
{
   enum { GOOD, SPLIT, BAD_INDEX, BAD_KIND, BAD_LOC, FEW_VALUES, MANY_VALUES,
          NO_THREAD, BAD_SWITCH, SHORT_COLUMN, WRONG_FIRST, NCASES };
   static const char *const expect[NCASES] = {
       "", "", "bad kind index", "bad kind or size", "undefined location",
       "value", "values for", "no thread", "bad thread switch",
       "different lengths", "events start at"};
   int fails = 0;
   char failed[1024] = "";
   for (int k = 0; k < NCASES; k++) {
      uint8_t *file = malloc(1 << 16);
      size_t len = 8;
      memcpy(file, "CBTRACE\x01", 8);
      Cbtools__Chunk c = CBTOOLS__CHUNK__INIT;
      Cbtools__Header h = CBTOOLS__HEADER__INIT;
      Cbtools__Location loc = CBTOOLS__LOCATION__INIT;
      Cbtools__Location *locs[1] = {&loc};
      h.has_format_version = 1;
      h.format_version = 1;
      loc.has_id = 1;
      loc.id = 1;
      c.header = &h;
      c.locations = locs;
      c.n_locations = 1;
      append_frame(file, &len, &c);
      uint32_t table[2] = {CB_EV_READ | 4 << 5, CB_EV_ALLOC};
      uint32_t ks[3] = {0, 1, 0};
      uint32_t sw_at[2] = {0, 2}, sw_tid[2] = {1, 2};
      int64_t ad[3] = {0x404040, 64, 8};
      int32_t ld[3] = {1, -1, 1};
      uint64_t val[3] = {7, 4096, 9};
      Cbtools__Events ev = CBTOOLS__EVENTS__INIT;
      ev.has_first_index = 1;
      ev.n_kind_size = ev.n_addr_delta = ev.n_loc_delta = 3;
      ev.kind_size = ks;
      ev.addr_delta = ad;
      ev.loc_delta = ld;
      ev.n_value = 3;
      ev.value = val;
      ev.n_kind_size_table = 2;
      ev.kind_size_table = table;
      ev.has_addr_by_location = ev.addr_by_location = 1;
      ev.n_switch_at = ev.n_switch_tid = 2;
      ev.switch_at = sw_at;
      ev.switch_tid = sw_tid;
      switch (k) {
      case BAD_INDEX: ks[2] = 2; break;
      case BAD_KIND: table[1] = 0; break;
      case BAD_LOC: ld[2] = 5; break;
      case FEW_VALUES: ev.n_value = 2; break;
      case MANY_VALUES: table[1] = CB_EV_FREE; break;
      case NO_THREAD: sw_at[0] = 1; break;
      case BAD_SWITCH: sw_at[1] = 3; break;
      case SHORT_COLUMN: ev.n_loc_delta = 2; break;
      case WRONG_FIRST: ev.first_index = 5; break;
      default: break;
      }
      Cbtools__Chunk e = CBTOOLS__CHUNK__INIT;
      Cbtools__Footer f = CBTOOLS__FOOTER__INIT;
      f.has_event_count = f.has_tool_ended = 1;
      f.event_count = 3;
      f.tool_ended = 1;
      if (k == SPLIT) {
         /* The Events message in two pieces, columns in each. */
         Cbtools__Events a = ev, b = CBTOOLS__EVENTS__INIT;
         a.n_value = 0;
         a.n_switch_at = a.n_switch_tid = 0;
         b.n_value = 3;
         b.value = val;
         b.n_switch_at = b.n_switch_tid = 2;
         b.switch_at = sw_at;
         b.switch_tid = sw_tid;
         Cbtools__Chunk pa = CBTOOLS__CHUNK__INIT, pb = CBTOOLS__CHUNK__INIT;
         pa.events = &a;
         pb.events = &b;
         pb.footer = &f;
         size_t before = len;
         uint8_t tmp[4096];
         size_t la = protobuf_c_message_pack(&pa.base, tmp);
         size_t lb = protobuf_c_message_pack(&pb.base, tmp + la);
         memcpy(file + len + 8, tmp, la + lb);
         uint32_t crc = cb_crc32(tmp, la + lb);
         for (int i = 0; i < 4; i++) {
            file[before + i] = (uint8_t)((la + lb) >> (8 * i));
            file[before + 4 + i] = (uint8_t)(crc >> (8 * i));
         }
         len += 8 + la + lb;
      } else {
         e.events = &ev;
         e.footer = &f;
         append_frame(file, &len, &e);
      }
      cb_trace t;
      cb_error err;
      int r = cb_trace_read_mem(file, len, &t, &err);
      int good;
      if (k == GOOD || k == SPLIT)
         good = r == 0 && !t.truncated && t.nevents == 3 &&
                t.events[0].addr == 0x404040 && t.events[1].addr == 64 &&
                t.events[1].kind == CB_EV_ALLOC && t.events[1].value == 4096 &&
                t.events[2].addr == 0x404048 && t.events[2].tid == 2 &&
                t.events[2].value == 9 && t.events[0].tid == 1 &&
                t.events[1].loc == 0 && t.events[2].loc == 1 &&
                t.nthreads == 2;
      else
         good = r == 0 && t.truncated && t.nevents == 0 &&
                strstr(t.truncation, expect[k]) != NULL;
      if (!good) {
         fails++;
         snprintf(failed + strlen(failed), sizeof failed - strlen(failed),
                  " case %d (%.60s)", k, r ? err.msg : t.truncation);
      }
      if (r == 0)
         cb_trace_free(&t);
      free(file);
   }
   ok(fails == 0, "the reader takes good chunks, whole or in pieces, and "
                  "refuses each kind of bad one%s", failed);
}

/* Hostile sizes: a location id far past the locations the file defines
 * is refused before it sizes anything; a first chunk without a header is
 * refused without a leak (the ASan build's leak check says so at exit). */
static void test_hostile_sizes(void)
{
   uint8_t file[4096];
   size_t len = 8;
   memcpy(file, "CBTRACE\x01", 8);
   Cbtools__Chunk c = CBTOOLS__CHUNK__INIT, l = CBTOOLS__CHUNK__INIT;
   Cbtools__Header h = CBTOOLS__HEADER__INIT;
   Cbtools__Location loc = CBTOOLS__LOCATION__INIT;
   Cbtools__Location *locs[1] = {&loc};
   h.has_format_version = 1;
   h.format_version = 1;
   c.header = &h;
   append_frame(file, &len, &c);
   loc.has_id = 1;
   loc.id = (1u << 26) - 1;
   l.locations = locs;
   l.n_locations = 1;
   append_frame(file, &len, &l);
   cb_trace t;
   cb_error err;
   int r = cb_trace_read_mem(file, len, &t, &err);
   ok(r == 0 && t.truncated && t.nlocs <= 1 &&
          strstr(t.truncation, "defines only 1") != NULL,
      "a location id of 2^26-1 in a %zu-byte trace is damage, not a size "
      "(%.80s)", len, r ? err.msg : t.truncation);
   if (r == 0)
      cb_trace_free(&t);

   Cbtools__Chunk f = CBTOOLS__CHUNK__INIT;
   Cbtools__Footer foot = CBTOOLS__FOOTER__INIT;
   f.footer = &foot;
   len = 8;
   append_frame(file, &len, &f);
   r = cb_trace_read_mem(file, len, &t, &err);
   ok(r < 0 && strstr(err.msg, "first chunk has no header"),
      "a first chunk without a header is refused (%s)", r ? err.msg : "read");
}

/* CRC-32: the known check value, and the carry-less-multiply path (long
 * pieces) agrees with the portable tables at every length, offset and
 * starting value, whole or in pieces. */
static void test_crc(void)
{
   ok(cb_crc32("123456789", 9) == 0xCBF43926u, "CRC-32 of \"123456789\"");
   ok(cb_crc32("", 0) == 0, "CRC-32 of nothing");
   size_t n = 1 << 16;
   uint8_t *b = malloc(n + 64);
   for (size_t i = 0; i < n + 64; i++)
      b[i] = (uint8_t)next_rand();
   int bad = 0;
   for (int k = 0; k < 3000; k++) {
      size_t off = next_rand() % 64;
      size_t len = k < 2000 ? next_rand() % 600 : next_rand() % n;
      uint32_t seed = (uint32_t)next_rand();
      bad += cb_crc32_update(seed, b + off, len) !=
             cb_crc32_portable(seed, b + off, len);
      size_t cut = len ? next_rand() % len : 0;
      bad += cb_crc32_update(cb_crc32_update(0, b + off, cut), b + off + cut,
                             len - cut) != cb_crc32(b + off, len);
   }
   ok(bad == 0, "fast and portable CRC-32 agree, whole and in pieces (%d "
                "differ)", bad);
   free(b);
}

/* The writer encodes the Events columns by hand.  protobuf-c's generated
 * code is the judge: every frame must unpack, re-pack to the very same
 * bytes, and its columns, decoded here straight from trace.proto's
 * definitions, must give back the events written. */
static void test_hand_encoding(void)
{
   const char *p = path_of("hand.pb");
   cb_error err;
   cb_header h = test_header();
   cb_writer *w = cb_writer_open(p, &h, &err);
   const uint32_t nlocs = 300;
   for (uint32_t id = 1; id <= nlocs; id++) {
      cb_location l = {0x400000 + id, "o", "f", "a.c", id, ""};
      cb_writer_location(w, id, &l, &err);
   }
   cb_symbol s = {0x404040, 8, "counter"};
   cb_writer_symbol(w, &s, &err);
   /* Over 128 distinct kind|size pairs (two-byte kind indexes), huge
    * address jumps and values, every thread id shape. */
   size_t n = 2 * CB_CHUNK_EVENTS + 1234;
   cb_event *evs = malloc(n * sizeof *evs);
   for (size_t i = 0; i < n; i++) {
      evs[i] = make_event(i, nlocs);
      if (i % 3 == 0 && evs[i].kind != CB_EV_READ &&
          evs[i].kind != CB_EV_WRITE)
         evs[i].size = (uint8_t)(i / 3);
      cb_writer_event(w, &evs[i], &err);
      if (i == 1000) /* a location defined mid-chunk */
         cb_writer_location(w, nlocs + 1, &(cb_location){1, "", "", "", 0, ""},
                            &err);
   }
   cb_footer f = {.present = 1, .tool_ended = 1};
   cb_writer_close(w, &f, &err);

   size_t len;
   uint8_t *file = slurp(p, &len);
   cb_frame_reader r;
   const uint8_t *pl;
   size_t plen;
   int frames = 0, same_bytes = 1, decoded = 1, saw_wide_kind = 0, saw_rmw = 0;
   size_t next = 0;
   uint64_t *last = calloc(nlocs + 2, sizeof *last);
   uint32_t *last_gen = calloc(nlocs + 2, sizeof *last_gen);
   cb_frame_begin(&r, file, len, cb_trace_magic, "trace", &err);
   while (cb_frame_next(&r, &pl, &plen, &err) == 1) {
      frames++;
      Cbtools__Chunk *c = cbtools__chunk__unpack(NULL, plen, pl);
      if (!c) {
         same_bytes = decoded = 0;
         break;
      }
      uint8_t *again = malloc(plen + 1);
      size_t alen = protobuf_c_message_pack(&c->base, again);
      same_bytes &= alen == plen && memcmp(again, pl, plen) == 0;
      free(again);
      const Cbtools__Events *ev = c->events;
      if (ev) {
         size_t m = ev->n_kind_size;
         decoded &= ev->has_first_index && ev->first_index == next &&
                    ev->n_addr_delta == m && ev->n_loc_delta == m &&
                    ev->addr_by_location && ev->n_kind_size_table > 0;
         saw_wide_kind |= ev->n_kind_size_table > 128;
         size_t sw = 0, next_sw = 0, vi = 0;
         uint32_t tid = 0, loc = 0;
         for (size_t i = 0; i < m && decoded && next + i < n; i++) {
            if (i == next_sw && sw < ev->n_switch_at) {
               tid = ev->switch_tid[sw++];
               next_sw = sw < ev->n_switch_at ? i + ev->switch_at[sw] : m;
            }
            uint32_t ks = ev->kind_size_table[ev->kind_size[i]];
            loc += (uint32_t)ev->loc_delta[i];
            uint64_t prev = last_gen[loc] == (uint32_t)frames ? last[loc] : 0;
            uint64_t addr = prev + (uint64_t)ev->addr_delta[i];
            last[loc] = addr;
            last_gen[loc] = (uint32_t)frames;
            const cb_event *e = &evs[next + i];
            uint64_t value = 0;
            if (cb_event_carries_value(ks & 31, ks >> 5))
               value = vi < ev->n_value ? ev->value[vi++] : ~e->value;
            uint32_t rmw = ev->n_kind_size_rmw ? ev->kind_size_rmw[ev->kind_size[i]] : 0;
            decoded &= (ks & 31) == e->kind && (ks >> 5) == e->size &&
                       tid == e->tid && loc == e->loc && addr == e->addr &&
                       value == e->value && rmw == e->rmw;
            saw_rmw |= rmw != 0;
         }
         decoded &= vi == ev->n_value;
         next += m;
      }
      cbtools__chunk__free_unpacked(c, NULL);
   }
   ok(frames == 4, "header, two full chunks, the rest with the footer (%d)",
      frames);
   ok(same_bytes, "protobuf-c re-packs every chunk to the same bytes");
   ok(decoded && next == n, "protobuf-c's columns give back every event "
                            "(%zu of %zu)", next, n);
   ok(saw_wide_kind, "a chunk with over 128 kind|size pairs was among them");
   ok(saw_rmw, "locked instructions' stores keep their class (kind_size_rmw)");
   free(last);
   free(last_gen);
   free(file);
   free(evs);
}

/* The raw tool stream straight into the writer: runs of events, stopping
 * at what is not one; events without a thread are dropped, undefined
 * locations become location 0, a read-modify-write class is kept on a
 * WRITE and dropped elsewhere or when it is none. */
static void test_wire_events(void)
{
   const char *p = path_of("wire.pb");
   cb_error err;
   cb_header h = test_header();
   cb_writer *w = cb_writer_open(p, &h, &err);
   cb_writer_location(w, 1, &(cb_location){0x401000, "o", "f", "a.c", 3, ""},
                      &err);
   size_t n = CB_CHUNK_EVENTS + 100;
   unsigned char *raw = calloc(n, sizeof(cb_wire_event));
   cb_event *want = malloc(n * sizeof *want);
   size_t nwant = 0, nbad = 0;
   for (size_t i = 0; i < n; i++) {
      cb_wire_event e = {.kind = (unsigned char)(1 + i % 18),
                         .size = (unsigned char)(i % 9),
                         .tid = (unsigned)(1 + i / 5000 + (i & 1) * 70000),
                         .loc = (unsigned)(i % 3),
                         .rmw = (unsigned char)(i % 5),
                         .addr = 0x404000 + i * 8, .value = i * 1000003};
      if (i == 77)
         e.tid = 0;
      if (i == 78)
         e.loc = 9;
      if (i == n - 10)
         e.kind = CB_WIRE_LOCDEF;
      memcpy(raw + i * sizeof e, &e, sizeof e);
      cb_event c = {.kind = e.kind, .size = e.size, .tid = e.tid,
                    .loc = e.loc > 1 ? 0 : e.loc,
                    .rmw = e.kind == CB_EV_WRITE && e.rmw < CB_RMW_COUNT ? e.rmw : 0,
                    .addr = e.addr,
                    .value = cb_event_carries_value(e.kind, e.size) ? e.value : 0};
      if (e.tid && i < n - 10) {
         want[nwant++] = c;
         nbad += e.loc > 1;
      }
   }
   cb_wire_counts counts = {0, 0, 0};
   long took = cb_writer_wire_events(w, raw, n, &counts, &err);
   ok(took == (long)n - 10, "stops before the first record that is not an "
                            "event (%ld)", took);
   ok(counts.events == nwant && counts.dropped == 1 && counts.bad_loc == nbad,
      "counts: %llu events, %llu dropped, %llu undefined locations",
      (unsigned long long)counts.events, (unsigned long long)counts.dropped,
      (unsigned long long)counts.bad_loc);
   cb_writer_close(w, &(cb_footer){.present = 1, .tool_ended = 1}, &err);
   cb_trace t;
   int r = cb_trace_read(p, &t, &err);
   int same = r == 0 && t.nevents == nwant;
   for (size_t i = 0; same && i < nwant; i++)
      same = same_event(&t.events[i], &want[i]);
   ok(same, "and the trace holds exactly the events taken (%s)",
      r ? err.msg : t.truncation);
   if (r == 0)
      cb_trace_free(&t);
   free(raw);
   free(want);
}

/* A deadlocked run's footer (trace.proto Blocked): kept, read back, said
 * in words; and how each ending reads as the recorded exit status. */
static void test_deadlock_footer(void)
{
   cb_error err;
   cb_header h = test_header();
   cb_writer *w = cb_writer_open(path_of("dl.pb"), &h, &err);
   ok(w != NULL, "deadlock: writer opens");
   if (!w)
      return;
   cb_location l1 = {0x401000, "/bin/dl", "forward", "dl.c", 28, ""};
   cb_location l2 = {0x401100, "/bin/dl", "backward", "dl.c", 38, ""};
   cb_location l3 = {0x401200, "/bin/dl", "main", "dl.c", 63, ""};
   cb_writer_location(w, 1, &l1, &err);
   cb_writer_location(w, 2, &l2, &err);
   cb_writer_location(w, 3, &l3, &err);
   cb_symbol sb = {0x601040, 40, "b"}, sc = {0x601080, 48, "ready"};
   cb_writer_symbol(w, &sb, &err);
   cb_writer_symbol(w, &sc, &err);
   cb_event e = {.kind = CB_EV_LOCK, .size = CB_LOCK_MUTEX, .tid = 3, .loc = 2, .addr = 0x601040};
   cb_writer_event(w, &e, &err);
   cb_blocked b[4] = {
      {1, CB_WAIT_JOIN, 3, 0, 2, 0, 0},
      {2, CB_WAIT_LOCK, 1, 0x601040, 3, 2, 0},
      {3, CB_WAIT_COND, 2, 0x601080, 0, 0, 0x601000},
      {4, CB_WAIT_BARRIER, 99, 0x601080, 0, 0, 2ull << 32 | 3}};
   cb_footer f = {.present = 1, .event_count = 1, .tool_ended = 1,
                  .blocked = b, .nblocked = 4};
   ok(cb_writer_close(w, &f, &err) == 0, "deadlock: the footer is written");
   cb_trace t;
   int r = cb_trace_read(path_of("dl.pb"), &t, &err);
   ok(r == 0 && !t.truncated && t.footer.nblocked == 4 &&
         t.footer.blocked[1].tid == 2 && t.footer.blocked[1].kind ==
         CB_WAIT_LOCK && t.footer.blocked[1].object == 0x601040 &&
         t.footer.blocked[1].holder == 3 && t.footer.blocked[1].holder_loc == 2 &&
         t.footer.blocked[2].value == 0x601000,
      "deadlock: read back whole, field by field");
   if (r != 0)
      return;
   ok(t.footer.blocked[3].loc == 0,
      "deadlock: a location the trace does not define reads as unknown");
   ok(cb_trace_exit_status(&t) == -1, "deadlock: no exit status of its own");
   char buf[1024];
   ok(!strcmp(cb_blocked_str(&t, &t.footer.blocked[1], buf, sizeof buf),
              "T2 waits for lock b at dl.c:28, held by T3 (taken at dl.c:38)"),
      "deadlock: a lock in words: %s", buf);
   ok(!strcmp(cb_deadlock_str(&t, buf, sizeof buf),
              "T1 waits to join T2 at dl.c:63; T2 waits for lock b at dl.c:28, "
              "held by T3 (taken at dl.c:38); T3 waits for condition ready at "
              "dl.c:38, with no signal on its way; T4 waits at barrier ready "
              "at ?, where 2 of 3 threads arrived"),
      "deadlock: every thread in one line: %s", buf);
   cb_deadlock_str(&t, buf, 40);
   ok(strlen(buf) < 40, "deadlock: the line is cut to fit");
   cb_trace_free(&t);
   cb_blocked_words ww = {2, CB_WAIT_RDLOCK, "rw", "x.c:5", 3, "x.c:9", 0, 0};
   ok(!strcmp(cb_blocked_describe(&ww, buf, sizeof buf),
              "T2 waits for rwlock rw (to read) at x.c:5, held by T3 (taken "
              "at x.c:9)"),
      "deadlock: an rwlock in words");
   ok(!strcmp(cb_wait_kind_name(CB_WAIT_SEM), "sem") &&
         !strcmp(cb_wait_kind_name(0), "?") &&
         !strcmp(cb_wait_kind_name(CB_WAIT_KIND_COUNT), "?"),
      "wait kinds named");

   cb_trace x;
   memset(&x, 0, sizeof x);
   x.footer = (cb_footer){.present = 1, .exit_status = 3, .tool_ended = 1};
   ok(cb_trace_exit_status(&x) == 3, "an exit: its status");
   x.footer.exit_signal = 9;
   ok(cb_trace_exit_status(&x) == -1, "a signal: no exit status");
   x.footer.present = 0;
   x.footer.exit_signal = 0;
   ok(cb_trace_exit_status(&x) == -1, "a trace cut short: none");
}

/* cb_source_line: the line quoted only from a regular source file that is
 * not newer than the program; made safe to print.  And a schedule's
 * locations keep their source folder through the compact form (the second
 * location with the same folder leaves it out and reads it back). */
static void test_source_lines(void)
{
   char line[64], big[600];
   memset(big, 'x', sizeof big - 1);
   big[sizeof big - 1] = 0;
   FILE *f = fopen(path_of("src.c"), "w");
   fprintf(f, "int a;\n   \tlong b = t->count;  \nbad\033[2Jline\n%s\nlast", big);
   fclose(f);
   ok(cb_source_line(&dir, 1, "src.c", 2, NULL, line, sizeof line) &&
          strcmp(line, "long b = t->count;") == 0,
      "source line 2 quoted, trimmed: '%s'", line);
   ok(cb_source_line(NULL, 0, path_of("src.c"), 3, "", line, sizeof line) &&
          strcmp(line, "bad?[2Jline") == 0,
      "an escape sequence is not printed as is: '%s'", line);
   ok(cb_source_line(&dir, 1, "src.c", 4, NULL, line, sizeof line) &&
          strlen(line) == sizeof line - 1 &&
          strcmp(line + sizeof line - 4, "...") == 0,
      "a long line is cut with ...");
   ok(cb_source_line(&dir, 1, "src.c", 5, NULL, line, sizeof line) &&
          strcmp(line, "last") == 0 &&
          !cb_source_line(&dir, 1, "src.c", 6, NULL, line, sizeof line) &&
          !cb_source_line(&dir, 1, "src.c", 0, NULL, line, sizeof line) &&
          !cb_source_line(&dir, 1, "nosuch.c", 1, NULL, line, sizeof line),
      "the last line without a newline; no line 6, no line 0, no file");
   const char *dirs[3] = {NULL, "/nonexistent", dir};
   ok(cb_source_line(dirs, 3, "src.c", 1, NULL, line, sizeof line) &&
          strcmp(line, "int a;") == 0,
      "the folders are tried in turn");
   ok(mkfifo(path_of("fifo.c"), 0600) == 0 &&
          !cb_source_line(&dir, 1, "fifo.c", 1, NULL, line, sizeof line),
      "a FIFO is not read (and does not block)");
   /* A program older than its source: the line may not be the one that
    * ran. */
   spit(path_of("prog"), (const uint8_t *)"x", 1);
   struct timespec old[2] = {{1000000, 0}, {1000000, 0}};
   utimensat(AT_FDCWD, path_of("prog"), old, 0);
   ok(!cb_source_line(&dir, 1, "src.c", 2, path_of("prog"), line, sizeof line),
      "a source newer than the program is not quoted");
   utimensat(AT_FDCWD, path_of("src.c"), old, 0);
   ok(cb_source_line(&dir, 1, "src.c", 2, path_of("prog"), line, sizeof line),
      "a source as old as the program is quoted");

   cb_schedule s = {0};
   s.has_id = 1;
   s.id = 3;
   s.program = "./prog";
   s.pattern = "RWR";
   cb_sched_location l1 = {.has_id = 1, .id = 1, .object = "/t/prog",
                           .file = "a.c", .has_line = 1, .line = 4,
                           .dir = "/src/lib"},
                     l2 = l1, l3 = l1;
   l2.id = 2;
   l2.line = 9;
   l3.id = 3;
   l3.dir = NULL;
   cb_sched_event e1 = {.has_tid = 1, .tid = 1, .location = &l1},
                  ef = {.has_tid = 1, .tid = 2, .location = &l2},
                  e2 = {.has_tid = 1, .tid = 1, .location = &l3};
   s.e1 = &e1;
   s.f = &ef;
   s.e2 = &e2;
   cb_error err;
   cb_schedule *r = NULL;
   ok(cb_schedule_write(path_of("sdir.pb"), &s, &err) == 0 &&
          cb_schedule_read(path_of("sdir.pb"), &r, &err) == 0 && r->e1 &&
          r->f && r->e2 && r->e1->location->dir && r->f->location->dir &&
          strcmp(r->e1->location->dir, "/src/lib") == 0 &&
          strcmp(r->f->location->dir, "/src/lib") == 0 &&
          r->f->location->line == 9 && !r->e2->location->dir,
      "a schedule's source folders survive the compact form");
   if (r)
      cb_schedule_free(r);
}

/* cb_source_expr: the one field every line with a pointer expression
 * reaches, as the source writes it; no name when two fields would do, or
 * when it is only in comments or strings.  cb_access_name puts it before
 * a heap block's name, read from the events' source lines. */
static void test_source_expr(void)
{
   static const struct {
      const char *lines[3];
      const char *want; /* NULL: no name */
   } cases[] = {
       {{"t->magic = 0x5eed;",
         "if (t->magic != 0x5eed || t->count != N || t->primes[5] != 13) {",
         "t->magic = 0x5eed;"}, "t->magic"},
       {{"--s->refs;", "if (--s->refs == 0)", NULL}, "s->refs"},
       {{"e->next = nbk[e->key % nb];", "for (; e; e = p->next)", NULL},
        "e->next"},
       {{"tab.buckets[key % tab.nbuckets] = e;",
         "memset(t->buckets, 0, t->n * sizeof *t->buckets);", NULL},
        "t->buckets"},
       {{"int j = p->jobs[p->head];", "p->jobs = NULL;", NULL}, "p->jobs"},
       {{"(*hits)++;", "return *hits;", "x = 2 * hits + q->other;"}, NULL},
       {{"(*hits)++;", "return *hits;", "free(cfg);"}, "*hits"},
       {{"buf[len++] = c;", "n = strlen(buf); // buf[0] x->y", NULL},
        "buf[len++]"},
       {{"it->next = l->head;", "for (it = l->head; it; it = it->next)", NULL},
        NULL},
       {{"puts(\"p->x\"); /* q->y */ r->z = 1;", "r->z++;", NULL}, "r->z"},
       {{"a = b * c;", "update(p);", NULL}, NULL},
       {{"p -> stats . count += 2;", "if (p->stats.count)", NULL},
        "p->stats.count"},
       {{"strncpy(names[idx], s, sizeof names[idx]);", "n = strlen(names[0]);",
         NULL}, "names[0]"},
   };
   for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
      char out[128] = "";
      int got = cb_source_expr(cases[i].lines, 3, out, sizeof out);
      int good = cases[i].want ? got && strcmp(out, cases[i].want) == 0 : !got;
      ok(good, "source expression %zu: %s (got %s)", i,
         cases[i].want ? cases[i].want : "none", got ? out : "none");
   }
   {
      const char *a[2] = {"strncpy(names[2], \"bob\", sizeof names[2]);",
                          "n = strlen(names[2]) + grid[1][2];"};
      const char *b[2] = {"x = st.items[k] + p->y;", "st.items[k] = 0;"};
      char o1[64] = "", o2[64] = "", o3[64] = "";
      const char *two[2] = {"if (c->slots[k]) c->st->hits++;",
                            "hits = c->slots[0] + c->st->hits;"};
      char o4[64] = "", o5[64] = "";
      ok(cb_source_expr_in(two, 2, "c->st = calloc(1, sizeof *c->st);", o4,
                           sizeof o4) &&
             strcmp(o4, "c->st->hits") == 0 &&
             !cb_source_expr_in(two, 2, "free(c);", o5, sizeof o5) &&
             !cb_source_expr(two, 2, o5, sizeof o5),
         "two fields on every line: the one reached through what the block "
         "was stored in (%s); without it, none", o4);
      ok(cb_source_expr_of(a, 2, "names", o1, sizeof o1) &&
             strcmp(o1, "names[2]") == 0 &&
             cb_source_expr_of(b, 2, "st.items", o2, sizeof o2) &&
             strcmp(o2, "st.items[k]") == 0 &&
             !cb_source_expr_of(b, 2, "names", o3, sizeof o3),
         "a variable's element by its source (%s, %s)", o1, o2);
   }
   FILE *f = fopen(path_of("heap.c"), "w");
   fprintf(f, "struct s *p = malloc(16);\np->count++;\nif (p->count > 1)\n");
   fclose(f);
   cb_trace t = {0};
   cb_error err;
   cb_location l1 = {0x401000, "", "main", "heap.c", 1, dir};
   cb_location l2 = {0x401010, "", "work", "heap.c", 2, dir};
   cb_location l3 = {0x401020, "", "check", "heap.c", 3, dir};
   cb_trace_set_location(&t, 1, &l1, &err);
   cb_trace_set_location(&t, 2, &l2, &err);
   cb_trace_set_location(&t, 3, &l3, &err);
   cb_event evs[] = {
       EV(CB_EV_ALLOC, 0, 1, 1, 0x4a0000, 16),
       EV(CB_EV_WRITE, 4, 2, 2, 0x4a0008, 1),
       EV(CB_EV_READ, 4, 3, 3, 0x4a0008, 1),
   };
   add_events(&t, evs, sizeof evs / sizeof *evs);
   char v[300];
   const size_t ev[2] = {1, 2};
   ok(strcmp(cb_access_name(&t, 0x4a0008, 1, ev, 2, v, sizeof v),
             "p->count (heap block of 16 bytes from heap.c:1, offset 8)") == 0,
      "a heap field is named by its source (%s)", v);
   const size_t none[1] = {0};
   ok(strcmp(cb_access_name(&t, 0x4a0008, 1, none, 1, v, sizeof v),
             "heap block of 16 bytes from heap.c:1, offset 8") == 0,
      "no name from a line without one (%s)", v);
   cb_trace_free(&t);
   /* A member of a variable the debug information does not describe (a
    * function's static struct: the tool records its symbol, unsized),
    * named by the expression rooted at the variable's own name; at the
    * symbol's own address, by its name alone (a pointer read as itself,
    * or a struct's first member: the two cannot be told apart). */
   f = fopen(path_of("first.c"), "w");
   fprintf(f, "st.b++;\nptr = items;\nq->b++;\n");
   fclose(f);
   cb_trace u = {0};
   cb_location m1 = {0x401000, "", "get", "first.c", 1, dir};
   cb_location m2 = {0x401010, "", "get", "first.c", 2, dir};
   cb_location m3 = {0x401020, "", "get", "first.c", 3, dir};
   cb_trace_set_location(&u, 1, &m1, &err);
   cb_trace_set_location(&u, 2, &m2, &err);
   cb_trace_set_location(&u, 3, &m3, &err);
   cb_symbol sb = {0x4b0000, 0, "st.0"}, si = {0x4c0000, 0, "items"};
   cb_trace_add_symbol(&u, &sb, &err);
   cb_trace_add_symbol(&u, &si, &err);
   cb_event fev[] = {
       EV(CB_EV_WRITE, 4, 1, 1, 0x4b0004, 1),
       EV(CB_EV_READ, 8, 1, 2, 0x4c0000, 1),
       EV(CB_EV_WRITE, 4, 1, 3, 0x4b0004, 1),
   };
   add_events(&u, fev, sizeof fev / sizeof *fev);
   const size_t e0[1] = {0}, e1[1] = {1}, e2[1] = {2};
   ok(strcmp(cb_access_name(&u, 0x4b0004, 0, e0, 1, v, sizeof v), "st.b (st+4)") == 0,
      "a static struct's member by its source (%s)", v);
   ok(strcmp(cb_access_name(&u, 0x4b0004, 2, e2, 1, v, sizeof v), "st+4") == 0,
      "not by a member reached through another pointer (%s)", v);
   ok(strcmp(cb_access_name(&u, 0x4c0000, 1, e1, 1, v, sizeof v), "items") == 0,
      "a variable at its own address by its name alone (%s)", v);
   cb_trace_free(&u);
   /* An unsized symbol (a condition the tool named) ends where the debug
    * information names another variable: an element of the array after
    * it that the tool did not describe is no member of the condition. */
   cb_trace w = {0};
   cb_symbol sc = {0x10c120, 0, "wheel_cond"};
   cb_trace_add_symbol(&w, &sc, &err);
   cb_variable vc = {0x10c120, 0, "wheel_cond", "w.c", 21, 0};
   cb_variable vt = {0x10c160, 0, "timers[0].expires", "w.c", 72, 0};
   cb_trace_add_variable(&w, &vc, &err);
   cb_trace_add_variable(&w, &vt, &err);
   cb_trace_finish(&w);
   ok(strcmp(cb_variable_str_at(&w, 0x10c560, 0, v, sizeof v), "wheel_cond+1088") != 0,
      "an address past the next variable is not the unsized symbol's (%s)", v);
   ok(strcmp(cb_variable_str_at(&w, 0x10c128, 0, v, sizeof v), "wheel_cond+8") == 0,
      "one before it still is (%s)", v);
   cb_trace_free(&w);
}

int main(int argc, char **argv)
{
   if (argc != 2) {
      fprintf(stderr, "usage: trace_unit SCRATCH-DIR\n");
      return 2;
   }
   dir = argv[1];
   test_round_trip();
   test_compact();
   test_streaming();
   test_truncation();
   test_bad_files();
   test_schedule();
   test_names();
   test_plain_form();
   test_digest();
   test_crc();
   test_hand_encoding();
   test_wire_events();
   test_reader_checks();
   test_hostile_sizes();
   test_deadlock_footer();
   test_source_lines();
   test_source_expr();
   printf("1..%d\n", n_test);
   return n_failed ? 1 : 0;
}
