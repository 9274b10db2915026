/* replay_unit: unit tests of cbreplay's parts that need no tool: status
 * lines, the plan file (tail variants, run-out steps), finding and listing
 * schedules, refusing foreign schedules, the verdict rules, the reproduce
 * command, the compact and the older form of schedule files.  Prints TAP.  Run with a scratch folder
 * as its only argument.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay.h"

static int n_tests, n_failed;

static void ok(int cond, const char *what)
{
   n_tests++;
   if (!cond)
      n_failed++;
   printf("%sok %d - %s\n", cond ? "" : "not ", n_tests, what);
}

static void test_status(void)
{
   cbr_status st;
   cbr_status_init(&st);
   ok(st.pattern == -1 && !st.released, "status starts unknown");
   ok(cbr_status_line(&st, "prefix-done") && st.prefix_done && st.progress,
      "prefix-done is progress");
   ok(cbr_status_line(&st, "tail-done") && st.tail_done, "tail-done");
   ok(cbr_status_line(&st, "released") && st.released, "released");
   ok(!cbr_status_line(&st, "releasedX") && !cbr_status_line(&st, "hello 1"),
      "unknown lines are ignored");
   ok(cbr_status_line(&st, "pattern 1") && st.pattern == 1, "pattern 1");
   ok(!cbr_status_line(&st, "pattern x") && st.pattern == 1,
      "bad pattern line ignored");
   ok(!st.infeasible, "not infeasible yet");
   ok(cbr_status_line(&st, "infeasible thread T9 never started") &&
         st.infeasible && strcmp(st.reason, "thread T9 never started") == 0,
      "infeasible with its reason");
   cbr_status_line(&st, "infeasible later");
   ok(strcmp(st.reason, "thread T9 never started") == 0,
      "first reason is kept");
   cbr_status_init(&st);
   ok(cbr_status_line(&st, "diverged 2 17") && !st.infeasible &&
         st.diverged && st.diverged_tid == 2 && st.diverged_index == 17,
      "diverged is noted, not a verdict (the tool goes on)");
   cbr_status_line(&st, "diverged 3 1");
   ok(st.diverged_tid == 2, "first divergence is kept");
   cbr_status_init(&st);
   ok(cbr_status_line(&st, "infeasible") && st.infeasible &&
         st.reason[0] != 0, "infeasible without a reason still has one");
   cbr_status_init(&st);
   ok(cbr_status_line(&st, "step 7 9") && st.step == 7 && st.nsteps == 9 &&
         st.progress, "step K N is progress and says how far");
   ok(!cbr_status_line(&st, "step x"), "bad step line ignored");
   ok(cbr_status_line(&st, "run-out-exited 2") &&
         cbr_status_line(&st, "run-out-blocked 3") && st.run_outs == 2,
      "run-out endings counted");
   ok(!st.end && cbr_status_line(&st, "end exit 3") &&
         st.end == CBR_END_EXIT && st.end_exit == 3, "end exit N");
   ok(cbr_status_line(&st, "end signal") && st.end == CBR_END_SIGNAL,
      "end signal");
   ok(!cbr_status_line(&st, "end what"), "bad end line ignored");

   /* A deadlock: the tool's "blocked" lines, then "end deadlock". */
   cbr_status_init(&st);
   ok(cbr_status_line(&st, "blocked 2 1 0x601040 dl.c:28 3 dl.c:38 0x0 b") &&
         st.nblocked == 1 && st.blocked[0].tid == 2 &&
         st.blocked[0].kind == CB_WAIT_LOCK &&
         st.blocked[0].object == 0x601040 && st.blocked[0].holder == 3 &&
         !strcmp(st.blocked[0].where, "dl.c:28") &&
         !strcmp(st.blocked[0].holder_where, "dl.c:38") &&
         !strcmp(st.blocked[0].name, "b"),
      "blocked: thread, kind, object, where, holder, where it took it, name");
   ok(!cbr_status_line(&st, "blocked 2 1 zz") && st.nblocked == 1,
      "a bad blocked line is ignored");
   for (int i = 0; i < 20; i++) {
      char line[96];
      snprintf(line, sizeof line, "blocked %d 7 0x10 b.c:3 0 ? 0x200000003 bar", 4 + i);
      cbr_status_line(&st, line);
   }
   ok(st.nblocked == 21 && st.blocked[CBR_MAX_BLOCKED - 1].value ==
                              0x200000003ull,
      "blocked: the first ones kept, every one counted");
   /* A stalled plan says its waiting threads, then the deadlock says them
    * all: one line per thread, the latest. */
   ok(cbr_status_line(&st, "blocked 2 1 0x601040 dl.c:30 3 dl.c:38 0x0 b") &&
         st.nblocked == 21 && !strcmp(st.blocked[0].where, "dl.c:30"),
      "blocked: a thread said again keeps one line, the latest");
   ok(cbr_status_line(&st, "end deadlock") && st.end == CBR_END_DEADLOCK,
      "end deadlock");
   char text[256];
   ok(!strcmp(cbr_blocked_text(&st.blocked[0], text, sizeof text),
              "T2 waits for lock b at dl.c:30, held by T3 (taken at dl.c:38)"),
      "a blocked line in words");
   ok(!strcmp(cbr_blocked_text(&st.blocked[1], text, sizeof text),
              "T4 waits at barrier bar at b.c:3, where 2 of 3 threads arrived"),
      "a barrier in words");
}

static cb_schedule *sample(void)
{
   static cb_schedule s;
   static uint64_t prefix[2] = {5, 0};
   static cb_sched_step t1, t2;
   static cb_sched_step *tail[2] = {&t1, &t2};
   static cb_sched_event e1, f;
   s = (cb_schedule){0};
   t1 = (cb_sched_step){0};
   t2 = (cb_sched_step){0};
   e1 = (cb_sched_event){0};
   f = (cb_sched_event){0};
   t1.has_tid = t1.has_count = t2.has_tid = t2.has_count = 1;
   t1.tid = 2; t1.count = 3; t2.tid = 1; t2.count = 4;
   e1.has_tid = e1.has_index = 1; e1.tid = 1; e1.index = 6;
   f.has_tid = f.has_index = 1; f.tid = 2; f.index = 2;
   s.has_id = 1; s.id = 7;
   s.has_counted_mask = 1; s.counted_mask = CB_COUNTED_MASK;
   s.has_program_digest = 1; s.program_digest = 0x1234;
   s.program = "prog";
   s.n_prefix = 2; s.prefix = prefix;
   s.n_tail = 2; s.tail = tail;
   s.e1 = &e1; s.f = &f; s.e2 = NULL;
   return &s;
}

/* Variant 1 of the sample: (2, run out), (1, 4), (2, 5): T2's later step
 * is run out too. */
static void add_variant(cb_schedule *s)
{
   static cb_sched_variant v;
   static cb_sched_step a, b, c;
   static cb_sched_step *steps[3] = {&a, &b, &c};
   static cb_sched_variant *vs[1] = {&v};
   v = (cb_sched_variant){0};
   a = (cb_sched_step){0};
   b = (cb_sched_step){0};
   c = (cb_sched_step){0};
   a.has_tid = a.has_run_out = 1; a.tid = 2; a.run_out = 1;
   b.has_tid = b.has_count = 1; b.tid = 1; b.count = 4;
   c.has_tid = c.has_count = 1; c.tid = 2; c.count = 5;
   v.name = "T2 to its end";
   v.n_tail = 3; v.tail = steps;
   s->n_variants = 1; s->variants = vs;
   s->tail_name = "release after e2";
}

static int read_words(const char *path, uint64_t *w, size_t max)
{
   FILE *f = fopen(path, "rb");
   size_t n = f ? fread(w, 8, max, f) : 0;
   if (f)
      fclose(f);
   return (int)n;
}

static void test_variants(const char *dir)
{
   char path[PATH_MAX];
   cb_error err;
   cb_schedule *s = sample();
   cb_sched_step *const *tail;
   size_t ntail;
   const char *name;
   ok(cb_schedule_nvariants(s) == 1 &&
         cb_schedule_variant(s, 0, &tail, &ntail, &name) == 0 && ntail == 2 &&
         !*name && cb_schedule_variant(s, 1, &tail, &ntail, &name) != 0,
      "a schedule without variants has one: its tail");
   add_variant(s);
   ok(cb_schedule_nvariants(s) == 2 &&
         cb_schedule_variant(s, 0, &tail, &ntail, &name) == 0 &&
         !strcmp(name, "release after e2") &&
         cb_schedule_variant(s, 1, &tail, &ntail, &name) == 0 && ntail == 3 &&
         !strcmp(name, "T2 to its end"),
      "variant 0 is the tail, variant 1 the first of variants");
   snprintf(path, sizeof path, "%s/plan1", dir);
   ok(cbr_write_plan(path, s, 1, 100, &err) == 0, "plan of variant 1 written");
   uint64_t w[64];
   int n = read_words(path, w, 64);
   static const uint64_t want[] = {
      CB_PLAN_MAGIC, CB_WIRE_VERSION, CB_COUNTED_MASK, 2, 5, 0,
      3, 2, CB_STEP_RUN_OUT, 1, 4, 2, CB_STEP_RUN_OUT,
      1, 6, 2, 2, 0, 0, 100, 0, 0, 0, 0};
   ok(n == (int)(sizeof want / sizeof *want) &&
         memcmp(w, want, sizeof want) == 0,
      "plan: run-out steps as ~0, and a thread's steps after its run-out too");
   ok(cbr_write_plan(path, s, 2, 100, &err) != 0 &&
         strstr(err.msg, "no tail variant 2"), "no variant 2: refused");

   /* Round trip through a file, and the loader's checks of every variant. */
   cbr_schedule cs;
   snprintf(path, sizeof path, "%s/s8.pb", dir);
   ok(cb_schedule_write(path, (void *)s, &err) == 0 &&
         cbr_load_schedule(path, 0x1234, 0, 0, &cs, &err) == 0 &&
         cb_schedule_nvariants(cs.s) == 2 &&
         cs.s->variants[0]->tail[0]->run_out &&
         !strcmp(cs.s->tail_name, "release after e2"),
      "variants and run_out survive the file");
   if (cs.s)
      cbr_free_schedule(&cs);
   s->variants[0]->tail[1]->tid = 0;
   cb_schedule_write(path, (void *)s, &err);
   ok(cbr_load_schedule(path, 0x1234, 0, 0, &cs, &err) != 0 &&
         strstr(err.msg, "step 2 of tail variant 1 names thread 0"),
      "a bad thread in a variant is refused");
   s->variants[0]->tail[1]->tid = 1;
   s->n_variants = 0;
   s->tail_name = NULL;
}

static void test_plan(const char *dir)
{
   char path[PATH_MAX];
   cb_error err;
   snprintf(path, sizeof path, "%s/plan", dir);
   ok(cbr_write_plan(path, sample(), 0, 1500, &err) == 0, "plan written");
   uint64_t w[64];
   FILE *f = fopen(path, "rb");
   size_t n = f ? fread(w, 8, 64, f) : 0;
   if (f)
      fclose(f);
   static const uint64_t want[] = {
      CB_PLAN_MAGIC, CB_WIRE_VERSION, CB_COUNTED_MASK,
      2, 5, 0,            /* nthreads, prefix */
      2, 2, 3, 1, 4,      /* ntail, (2,3), (1,4) */
      1, 6, 2, 2, 0, 0,   /* e1, f, e2 (absent: 0 0) */
      1500,
      0, 0, 0, 0};        /* no thread paths, expected events, waits, hunt */
   ok(n == sizeof want / sizeof *want, "plan has the right number of words");
   ok(n == sizeof want / sizeof *want && memcmp(w, want, sizeof want) == 0,
      "plan words: magic, version, mask, prefix, tail, pattern, stall");

   /* Thread paths, and the events expected at a step's end and at e1. */
   cb_schedule *s = sample();
   static uint32_t par[2] = {0, 1}, idx[2] = {0, 1};
   s->n_thread_parent = s->n_thread_index = 2;
   s->thread_parent = par; s->thread_index = idx;
   static cb_sched_event x;
   static cb_sched_location xl;
   x = (cb_sched_event){0};
   xl = (cb_sched_location){0};
   x.has_tid = x.has_index = x.has_kind = x.has_address = 1;
   x.tid = 2; x.index = 2; x.kind = CB_EV_WRITE; x.address = 0x601040;
   x.has_address_stable = x.address_stable = 1;
   xl.has_address = 1; xl.address = 0x401234;
   x.location = &xl;
   s->tail[0]->expect = &x;
   s->e1->has_kind = 1; s->e1->kind = CB_EV_READ;
   ok(cbr_write_plan(path, s, 0, 1500, &err) == 0, "plan with paths written");
   f = fopen(path, "rb");
   n = f ? fread(w, 8, 64, f) : 0;
   if (f)
      fclose(f);
   static const uint64_t want2[] = {
      2, 0, 0, 1, 1,      /* npaths, (0,0) main, (1,1) T2 */
      2,                  /* nexpect */
      2, 2, CB_EV_WRITE | (CB_EXPECT_ADDR | CB_EXPECT_CODE) << 8, 0x401234, 0x601040,
      1, 6, CB_EV_READ, 0, 0,
      0, 0};              /* no waits, no hunt */
   size_t at = 18;
   ok(n == at + sizeof want2 / sizeof *want2 &&
         memcmp(w + at, want2, sizeof want2) == 0,
      "plan: thread paths, then the expected events (step end, then e1)");

   /* The prefix's waits come last, as the schedule holds them. */
   static uint64_t order[8] = {1, 4, 2, 1, 2, 0, 1, 3};
   s->prefix_order = order;
   s->n_prefix_order = 8;
   ok(cbr_write_plan(path, s, 0, 1500, &err) == 0, "plan with waits written");
   f = fopen(path, "rb");
   n = f ? fread(w, 8, 64, f) : 0;
   if (f)
      fclose(f);
   at += sizeof want2 / sizeof *want2 - 2;
   ok(n == at + 10 && w[at] == 2 && memcmp(w + at + 1, order, sizeof order) == 0 &&
         w[at + 9] == 0,
      "plan: the prefix's waits, then no hunt (count, then (tid, index, target, count))");

   /* The hunt: the variant after the schedule's own, with no prefix
    * counts, no tail, no pattern slots, expectations or waits; then its
    * words from e1 (read at 0x401234 of a stable 0x601040) and f. */
   static cb_sched_event h1, hf;
   static cb_sched_location hl;
   h1 = *s->e1;
   h1.has_kind = h1.has_address = h1.has_address_stable = h1.address_stable = 1;
   h1.kind = CB_EV_READ; h1.address = 0x601040;
   hl = (cb_sched_location){0};
   hl.has_address = 1; hl.address = 0x401234;
   h1.location = &hl;
   hf = h1; hf.kind = CB_EV_WRITE; hf.location = NULL;
   cb_sched_event *old1 = s->e1, *oldf = s->f;
   s->e1 = &h1; s->f = &hf;
   s->pattern = "RWW";
   ok(cbr_hunt_index(s) == 1 && !cbr_is_hunt(s, 0) && cbr_is_hunt(s, 1),
      "the hunt is the variant after the schedule's one tail");
   ok(cbr_write_plan(path, s, 1, 1500, &err) == 0, "hunt plan written");
   f = fopen(path, "rb");
   n = f ? fread(w, 8, 64, f) : 0;
   if (f)
      fclose(f);
   static const uint64_t hunt[] = {
      CB_PLAN_MAGIC, CB_WIRE_VERSION, CB_COUNTED_MASK, 2, 0, 0, 0,
      0, 0, 0, 0, 0, 0, 1500, 2, 0, 0, 1, 1, 0, 0,
      8, CB_HUNT_AFTER, CB_EV_READ, 0x401234, 0x601040, 1, CB_EV_WRITE, 500, 4};
   ok(n == sizeof hunt / sizeof *hunt && memcmp(w, hunt, sizeof hunt) == 0,
      "hunt plan: no counts, then mode, e1's kind, code, address, stable, f's kind, limits");
   s->pattern = "ORD";
   ok(cbr_write_plan(path, s, 1, 1500, &err) == 0 && read_words(path, w, 64) == (int)n &&
         w[22] == CB_HUNT_BEFORE, "an order violation's hunt holds before the access");
   s->pattern = "DLK";
   ok(cbr_hunt_index(s) < 0, "a lock-order inversion has no hunt");
   s->e1 = old1; s->f = oldf;
   s->pattern = NULL;
   s->prefix_order = NULL;
   s->n_prefix_order = 0;
   s->tail[0]->expect = NULL;
   s->e1->has_kind = 0;
   s->n_thread_parent = s->n_thread_index = 0;
}

static long file_size(const char *path)
{
   struct stat st;
   return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static int same_words(const char *a, const char *b)
{
   uint64_t wa[128], wb[128];
   int na = read_words(a, wa, 128), nb = read_words(b, wb, 128);
   return na > 0 && na == nb && memcmp(wa, wb, (size_t)na * 8) == 0;
}

/* The sample with one event expected at three steps: shared (one object,
 * kept once in the file) or as three equal copies. */
static void expect_thrice(cb_schedule *s, int shared)
{
   static cb_sched_event x[3];
   static cb_sched_location l1, l2;
   l1 = (cb_sched_location){0};
   l1.has_id = l1.has_address = l1.has_line = 1;
   l1.id = 4; l1.address = 0x401234; l1.line = 30;
   l1.object = "/a/long/path/to/the/program/under/test"; l1.function = "park";
   l1.file = "garage.c";
   l2 = l1;
   l2.id = 5; l2.address = 0x401240; l2.line = 31;
   for (int k = 0; k < 3; k++) {
      x[k] = (cb_sched_event){0};
      x[k].has_tid = x[k].has_index = x[k].has_kind = x[k].has_address = 1;
      x[k].tid = 2; x[k].index = 2; x[k].kind = CB_EV_WRITE; x[k].address = 0x601040;
      x[k].location = &l2;
   }
   s->e1->location = &l1;
   s->f->location = &l2;
   s->tail[0]->expect = &x[0];
   s->variants[0]->tail[1]->expect = &x[shared ? 0 : 1];
   s->variants[0]->tail[2]->expect = &x[shared ? 0 : 2];
}

/* Newer schedule files keep each location and expected event once; read
 * back, they are the schedule written: the plans made from the schedule in
 * memory and from the file read back are equal word for word.  A file of
 * the older, full form (the fuzz corpus keeps some) still reads. */
static void test_compact_form(const char *dir)
{
   cb_schedule *s = sample();
   add_variant(s);
   char shared[PATH_MAX], copies[PATH_MAX], p1[PATH_MAX], p2[PATH_MAX];
   snprintf(shared, sizeof shared, "%s/shared.pb", dir);
   snprintf(copies, sizeof copies, "%s/copies.pb", dir);
   cb_error err;
   expect_thrice(s, 0);
   int w = cb_schedule_write(copies, s, &err) == 0;
   expect_thrice(s, 1);
   w &= cb_schedule_write(shared, s, &err) == 0;
   ok(w && file_size(shared) < file_size(copies) - 20,
      "an event named again is not written again");
   cb_schedule *b = NULL;
   int rd = cb_schedule_read(shared, &b, &err) == 0;
   ok(rd && b->variants[0]->tail[2]->expect && b->f->location->file &&
         !strcmp(b->variants[0]->tail[2]->expect->location->object,
                 "/a/long/path/to/the/program/under/test") &&
         !strcmp(b->f->location->function, "park") && b->f->location->line == 31,
      "read back, every event has its location and every step its event");
   int same = rd;
   for (size_t v = 0; rd && v < 2; v++) {
      snprintf(p1, sizeof p1, "%s/plan-mem", dir);
      snprintf(p2, sizeof p2, "%s/plan-file", dir);
      same &= cbr_write_plan(p1, s, v, 100, &err) == 0 &&
              cbr_write_plan(p2, b, v, 100, &err) == 0 && same_words(p1, p2);
   }
   ok(same, "the schedule in memory and the file read back give the same plans");
   if (b)
      cb_schedule_free(b);
   cb_schedule *old = NULL;
   const char *top = getenv("TOP");
   char oldp[PATH_MAX];
   snprintf(oldp, sizeof oldp, "%s/tests/fuzz/corpus/schedule/rww-s1.pb",
            top ? top : ".");
   ok(cb_schedule_read(oldp, &old, &err) == 0 && old->e1 && old->n_tail > 0,
      "a schedule file of the older, full form still reads");
   if (old)
      cb_schedule_free(old);
   s->e1->location = s->f->location = NULL;
   s->tail[0]->expect = NULL;
   s->variants[0]->tail[1]->expect = s->variants[0]->tail[2]->expect = NULL;
   s->n_variants = 0;
   s->tail_name = NULL;
}

static void touch(const char *dir, const char *name)
{
   char p[PATH_MAX];
   snprintf(p, sizeof p, "%s/%s", dir, name);
   FILE *f = fopen(p, "w");
   if (f)
      fclose(f);
}

static void test_find(const char *dir)
{
   char sd[PATH_MAX], path[PATH_MAX], buf[PATH_MAX + 64];
   cb_error err;
   cbr_options o;
   memset(&o, 0, sizeof o);
   snprintf(sd, sizeof sd, "%s/scheds", dir);
   mkdir(sd, 0755);
   touch(sd, "s10.pb");
   touch(sd, "s2.pb");
   touch(sd, "s1.pb");
   touch(sd, "notes.txt");
   touch(sd, "sx.pb");
   touch(sd, "s3.pb.tmp.12");

   ok(strcmp(cbr_schedules_dir(&o, buf, sizeof buf), "trace.pb.schedules") == 0,
      "default folder is ./trace.pb.schedules");
   o.trace = "/x/t.pb";
   ok(strcmp(cbr_schedules_dir(&o, buf, sizeof buf), "/x/t.pb.schedules") == 0,
      "--trace T gives T.schedules");
   o.schedules = sd;
   ok(strcmp(cbr_schedules_dir(&o, buf, sizeof buf), sd) == 0,
      "--schedules wins");

   ok(cbr_find_schedule(&o, "s2", path, sizeof path, &err) == 0 &&
         strstr(path, "/scheds/s2.pb") && path[0] == '/',
      "id s2 found in the folder, absolute");
   ok(cbr_find_schedule(&o, "10", path, sizeof path, &err) == 0 &&
         strstr(path, "/scheds/s10.pb"), "bare number 10 found");
   ok(cbr_find_schedule(&o, "s4", path, sizeof path, &err) != 0 &&
         strstr(err.msg, "s4.pb"), "missing id names the file it looked for");
   snprintf(buf, sizeof buf, "%s/s1.pb", sd);
   ok(cbr_find_schedule(&o, buf, path, sizeof path, &err) == 0,
      "a path is used as is");
   ok(cbr_find_schedule(&o, "/no/such/file.pb", path, sizeof path, &err) != 0 &&
         strstr(err.msg, "no schedule file"), "missing path refused");
   o.schedules = "/no/such/dir";
   ok(cbr_find_schedule(&o, "s1", path, sizeof path, &err) != 0 &&
         strstr(err.msg, "no schedule folder"), "missing folder explained");

   char **paths;
   size_t n;
   ok(cbr_list_schedules(sd, &paths, &n, &err) == 0 && n == 3,
      "folder lists only sN.pb files");
   if (n == 3) {
      ok(strstr(paths[0], "/s1.pb") && strstr(paths[1], "/s2.pb") &&
            strstr(paths[2], "/s10.pb"), "listed in numeric order");
      for (size_t i = 0; i < n; i++)
         free(paths[i]);
      free(paths);
   } else {
      ok(0, "listed in numeric order");
   }
   snprintf(buf, sizeof buf, "%s/empty", dir);
   mkdir(buf, 0755);
   ok(cbr_list_schedules(buf, &paths, &n, &err) == 0 && n == 0,
      "empty folder: no schedules, no error");
   free(paths);
   ok(cbr_list_schedules("/no/such/dir", &paths, &n, &err) != 0 &&
         strstr(err.msg, "cannot open schedule folder"), "missing folder refused");
}

static void test_validate(const char *dir)
{
   char path[PATH_MAX];
   cb_error err;
   cbr_schedule cs;
   cb_schedule *s = sample();
   snprintf(path, sizeof path, "%s/s7.pb", dir);
   ok(cb_schedule_write(path, (void *)s, &err) == 0, "schedule written");

   ok(cbr_load_schedule(path, 0x1234, 0, 0, &cs, &err) == 0 &&
         strcmp(cs.name, "s7") == 0 && cs.s->n_tail == 2,
      "good schedule loads, named s7");
   cbr_free_schedule(&cs);
   ok(cbr_load_schedule(path, 0x9999, 0, 0, &cs, &err) != 0 &&
         strstr(err.msg, "schedule s7 was predicted for another program"),
      "other program refused");
   s->has_trace_id = 1;
   s->trace_id = 42;
   cb_schedule_write(path, (void *)s, &err);
   ok(cbr_load_schedule(path, 0x1234, 1, 43, &cs, &err) != 0 &&
         strstr(err.msg, "another trace"), "other trace refused");
   ok(cbr_load_schedule(path, 0x1234, 1, 42, &cs, &err) == 0,
      "same trace accepted");
   cbr_free_schedule(&cs);
   s->counted_mask = 0x6;
   cb_schedule_write(path, (void *)s, &err);
   ok(cbr_load_schedule(path, 0x1234, 0, 0, &cs, &err) != 0 &&
         strstr(err.msg, "mask"), "other counting refused");
   s->counted_mask = CB_COUNTED_MASK;
   s->tail[0]->tid = 0;
   cb_schedule_write(path, (void *)s, &err);
   ok(cbr_load_schedule(path, 0x1234, 0, 0, &cs, &err) != 0 &&
         strstr(err.msg, "thread 0"), "tail step with thread 0 refused");
   s->tail[0]->tid = 2;

   FILE *f = fopen(path, "r+b");
   if (f) {
      fseek(f, 9, SEEK_SET);
      fputc(0x55, f);
      fclose(f);
   }
   ok(cbr_load_schedule(path, 0x1234, 0, 0, &cs, &err) != 0 &&
         strstr(err.msg, "cannot read schedule"), "corrupt schedule refused");
   ok(cbr_load_schedule("/no/such.pb", 0x1234, 0, 0, &cs, &err) != 0,
      "missing schedule refused");
}

static void test_reproduce(void)
{
   char *argv[] = {"/bin/prog", "it's", "plain", NULL};
   cbr_options o;
   memset(&o, 0, sizeof o);
   o.timeout_s = CBR_DEFAULT_TIMEOUT_S;
   o.stall_ms = CBR_DEFAULT_STALL_MS;
   o.prog_argv = argv;
   o.prog_argc = 3;
   o.check = "grep -q 200";
   cbr_schedule cs;
   memset(&cs, 0, sizeof cs);
   snprintf(cs.path, sizeof cs.path, "/d/s3.pb");
   cs.s = sample();
   cbr_result r;
   memset(&r, 0, sizeof r);
   cbr_report rep = {&o, "/bin/prog", &cs, &r, 1};
   char buf[1024];
   cbr_reproduce_command(&rep, 0, buf, sizeof buf);
   ok(strcmp(buf, "cbreplay --schedule /d/s3.pb --check 'grep -q 200' -- "
                  "/bin/prog 'it'\\''s' plain") == 0,
      "reproduce command is shell-quoted");
   if (n_failed)
      printf("#   got: %s\n", buf);
   add_variant(cs.s);
   r.variant = 1;
   cbr_reproduce_command(&rep, 0, buf, sizeof buf);
   ok(strstr(buf, "--schedule /d/s3.pb --variant 1 --check") != NULL,
      "reproduce command names the variant when there are several");
   cs.s->n_variants = 0;
}

/* judge.c: the first rule that applies; cure: the schedule is a cure. */
static int judge_cure;
static enum cbr_verdict judged(int killed, int wstatus, int end, int end_exit,
                               int infeasible, int pattern, int check_code,
                               int recorded_exit)
{
   cbr_options o;
   memset(&o, 0, sizeof o);
   o.check = check_code >= 0 ? "true" : NULL;
   cbr_ending e = {.killed = killed, .wstatus = wstatus,
                   .recorded_exit = recorded_exit, .cure = judge_cure};
   cbr_result r;
   memset(&r, 0, sizeof r);
   cbr_status_init(&r.status);
   r.status.end = end;
   r.status.end_exit = end_exit;
   r.status.infeasible = infeasible;
   r.status.released = infeasible; /* the tool releases all when it gives up */
   r.status.pattern = pattern;
   r.check_code = check_code;
   cbr_judge(&o, &e, &r);
   return r.verdict;
}

#define EXITED(n) ((n) << 8)

/* A cure (cbpredict --cures) is judged the other way round. */
static void test_judge_cure(void)
{
   judge_cure = 1;
   ok(judged(0, EXITED(0), CBR_END_EXIT, 0, 0, 1, -1, 0) == CBR_CURED,
      "cure: exit 0 with its order forced the other way round: cured");
   ok(judged(0, EXITED(0), CBR_END_EXIT, 0, 0, 0, -1, 0) == CBR_INFEASIBLE,
      "cure: exit 0 without its order: infeasible, it tested nothing");
   ok(judged(0, EXITED(1), CBR_END_EXIT, 1, 0, 1, -1, 0) == CBR_PASSED,
      "cure: exit 1 as recorded: passed (not cured)");
   ok(judged(1, 0, 0, 0, 1, 1, -1, 0) == CBR_PASSED,
      "cure: hung: not cured, no bug of its own");
   ok(judged(0, SIGKILL, 0, 0, 0, 1, -1, 0) == CBR_ERROR,
      "cure: the tool died: error still");
   judge_cure = 0;
   ok(cbr_verdict_is_bug(CBR_CURED) && cbr_verdict_exit(CBR_CURED) == 1 &&
         !strcmp(cbr_verdict_name(CBR_CURED), "cured"),
      "cured: a finding, exit 1, named");
   cbr_result r;
   char buf[64];
   memset(&r, 0, sizeof r);
   r.verdict = CBR_PASSED;
   r.cure = 1;
   r.exit_code = 1;
   ok(!strcmp(cbr_verdict_text(&r, buf, sizeof buf), "not cured (exit 1)"),
      "a cure that failed as recorded: not cured");
}

static void test_judge(void)
{
   ok(judged(0, EXITED(0), CBR_END_EXIT, 0, 0, 1, -1, -1) == CBR_PASSED,
      "exit 0, tool ended: passed");
   ok(judged(0, EXITED(134), 0, 0, 0, 1, -1, -1) == CBR_ERROR,
      "no end line from the tool: error, whatever the exit");
   ok(judged(0, SIGKILL, 0, 0, 0, 1, -1, -1) == CBR_ERROR,
      "Valgrind killed (SIGKILL) before the tool's end: error");
   ok(judged(0, EXITED(1), CBR_END_EXIT, 0, 0, 1, -1, -1) == CBR_ERROR,
      "the program exited 0 but Valgrind 1: error");
   ok(judged(0, SIGABRT, CBR_END_SIGNAL, 0, 1, 0, -1, -1) == CBR_FAILED,
      "abort after an infeasible turn: failed, not infeasible");
   ok(judged(0, EXITED(1), CBR_END_EXIT, 1, 1, 0, -1, -1) == CBR_FAILED,
      "exit 1 after an infeasible turn: failed");
   ok(judged(0, EXITED(3), CBR_END_EXIT, 3, 0, 1, -1, 3) == CBR_PASSED,
      "the recorded run's own exit code is no failure");
   ok(judged(0, EXITED(3), CBR_END_EXIT, 3, 0, 1, -1, 4) == CBR_FAILED,
      "another non-zero exit code is");
   ok(judged(0, EXITED(0), CBR_END_EXIT, 0, 1, 0, 1, -1) == CBR_FAILED,
      "--check failed after an infeasible turn: failed");
   ok(judged(1, 0, 0, 0, 1, 0, -1, -1) == CBR_HUNG,
      "killed after --timeout: hung, even after an infeasible turn");
   ok(judged(1, 0, 0, 0, 0, 0, -1, -1) == CBR_INFEASIBLE,
      "killed while the plan still held threads back: infeasible, not a bug");
   ok(judged(0, EXITED(0), CBR_END_EXIT, 0, 1, 0, 0, -1) == CBR_INFEASIBLE,
      "passed without the violation after an infeasible turn: infeasible");
   ok(judged(0, EXITED(0), CBR_END_EXIT, 0, 1, 1, -1, -1) == CBR_PASSED,
      "passed with the violation, then infeasible: passed (it was tested)");
   ok(judged(0, EXITED(CB_DEADLOCK_EXIT), CBR_END_DEADLOCK, 0, 1, 0, -1,
             CB_DEADLOCK_EXIT) == CBR_DEADLOCK,
      "the tool ended a deadlock: deadlock, even after an infeasible turn, "
      "whatever the recorded run's exit");
   ok(judged(0, SIGKILL, CBR_END_DEADLOCK, 0, 0, 0, -1, -1) == CBR_ERROR,
      "Valgrind killed after the tool ended a deadlock: error");
   ok(judged(0, EXITED(0), CBR_END_DEADLOCK, 0, 0, 0, -1, -1) == CBR_ERROR,
      "Valgrind exited otherwise than the tool does after a deadlock: error");
   {
      cbr_ending de = {.wstatus = EXITED(CB_DEADLOCK_EXIT),
                       .recorded_exit = CB_DEADLOCK_EXIT};
      cbr_status dst;
      cbr_status_init(&dst);
      dst.end = CBR_END_DEADLOCK;
      ok(!cbr_exit_normal(&de, &dst),
         "a deadlock is no exit of the program's own: --check does not run");
   }
   ok(cbr_verdict_exit(CBR_DEADLOCK) == 6 &&
         !strcmp(cbr_verdict_name(CBR_DEADLOCK), "deadlock") &&
         cbr_verdict_is_bug(CBR_DEADLOCK) && !cbr_verdict_is_bug(CBR_ERROR),
      "deadlock: exit 6, named, a bug");

   cbr_result r;
   char buf[128];
   cbr_options o;
   memset(&o, 0, sizeof o);
   cbr_ending e = {.wstatus = EXITED(1), .recorded_exit = -1};
   memset(&r, 0, sizeof r);
   cbr_status_init(&r.status);
   ok(cbr_status_line(&r.status, "exec") && r.status.execd,
      "exec: the program replaced itself");
   cbr_judge(&o, &e, &r);
   ok(r.verdict == CBR_FAILED && r.exit_code == 1,
      "no end after an exec: the exec'd program's exit 1 is a failure");

   memset(&r, 0, sizeof r);
   cbr_status_init(&r.status);
   r.nsteps = 9;
   ok(!strcmp(cbr_how_far(&r, buf, sizeof buf),
              "before the schedule's prefix was done"), "how far: nowhere");
   r.status.prefix_done = 1;
   r.status.step = 7;
   ok(!strcmp(cbr_how_far(&r, buf, sizeof buf),
              "after following the schedule to step 7 of 9"),
      "how far: step 7 of 9");
   r.status.tail_done = 1;
   ok(!strcmp(cbr_how_far(&r, buf, sizeof buf),
              "after following the whole schedule"), "how far: all of it");
}

int main(int argc, char **argv)
{
   if (argc != 2) {
      fprintf(stderr, "usage: replay_unit SCRATCH-DIR\n");
      return 2;
   }
   test_status();
   test_plan(argv[1]);
   test_variants(argv[1]);
   test_compact_form(argv[1]);
   test_judge();
   test_judge_cure();
   test_find(argv[1]);
   test_validate(argv[1]);
   test_reproduce();
   printf("1..%d\n", n_tests);
   return n_failed ? 1 : 0;
}
