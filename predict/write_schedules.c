/* write_schedules.c: cbpredict's schedule files, s1.pb, s2.pb, ... in rank
 * order, each ordering once and none that --seen holds.
 *
 * With two jobs, a second thread does the file system's part (a temporary
 * file created, written, closed and renamed: 20-25 us of system time a
 * file) while this one builds the next files' bytes.  The files go out in
 * order, and after the first that cannot be written none is: the folder
 * is what the single-threaded loop leaves.  This thread may by then have
 * numbered a few more candidates; the journal undoes that, so that the
 * report says what the single-threaded loop would.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict.h"

/* Files for the writer: a ring of QCAP.  q[head .. head + n) are queued or
 * being written; the other slots hold files written, whose path and bytes
 * this thread frees when it reuses the slot: the writer never calls malloc
 * or free, which would contend for the one arena (util.c).  Each side
 * wakes the other only at the edges (the ring no longer empty, half
 * empty again): a wake-up per file was three futex calls a file. */
#define QCAP 64
typedef struct { uint32_t id; char *path; uint8_t *buf; size_t len; } job;
typedef struct {
   pthread_mutex_t mu;
   pthread_cond_t more, room;
   job q[QCAP];
   size_t head, n;
   int done;            /* no more jobs */
   uint32_t failed;     /* the first id that could not be written, 0 none */
   cb_error err;        /* its error */
   int threaded;
   pthread_t th;
} writer;

static void *writer_loop(void *arg) {
   writer *w = arg;
   pthread_mutex_lock(&w->mu);
   for (;;) {
      while (!w->n && !w->done) pthread_cond_wait(&w->more, &w->mu);
      if (!w->n) break;
      job j = w->q[w->head];
      int skip = w->failed != 0; /* after a failure, as the loop stops */
      pthread_mutex_unlock(&w->mu);
      cb_error err;
      int bad = !skip && cb_schedule_put(j.path, j.buf, j.len, &err);
      pthread_mutex_lock(&w->mu);
      if (bad && !w->failed) { w->failed = j.id; w->err = err; }
      w->head = (w->head + 1) % QCAP;
      if (--w->n == QCAP / 2) pthread_cond_signal(&w->room);
   }
   pthread_mutex_unlock(&w->mu);
   return NULL;
}

static void writer_start(writer *w, unsigned jobs) {
   memset(w, 0, sizeof *w);
   pthread_mutex_init(&w->mu, NULL);
   pthread_cond_init(&w->more, NULL);
   pthread_cond_init(&w->room, NULL);
   w->threaded = jobs > 1 && pthread_create(&w->th, NULL, writer_loop, w) == 0;
}

/* Hands j over (path and buf with it); whether a file failed already. */
static int writer_add(writer *w, job j) {
   if (!w->threaded) {
      cb_error err;
      if (cb_schedule_put(j.path, j.buf, j.len, &err)) { w->failed = j.id; w->err = err; }
      free(j.path); free(j.buf);
      return w->failed != 0;
   }
   pthread_mutex_lock(&w->mu);
   while (w->n == QCAP) pthread_cond_wait(&w->room, &w->mu);
   job *slot = &w->q[(w->head + w->n) % QCAP];
   pthread_mutex_unlock(&w->mu);
   free(slot->path); free(slot->buf); /* written (or skipped) already */
   *slot = j;
   pthread_mutex_lock(&w->mu);
   if (++w->n == 1) pthread_cond_signal(&w->more);
   int failed = w->failed != 0;
   pthread_mutex_unlock(&w->mu);
   return failed;
}

/* Waits for every file; the first id that failed (0: none), its error. */
static uint32_t writer_finish(writer *w, cb_error *err) {
   if (w->threaded) {
      pthread_mutex_lock(&w->mu);
      w->done = 1;
      pthread_cond_signal(&w->more);
      pthread_mutex_unlock(&w->mu);
      pthread_join(w->th, NULL);
      for (size_t k = 0; k < QCAP; k++) { free(w->q[k].path); free(w->q[k].buf); }
   }
   pthread_mutex_destroy(&w->mu);
   pthread_cond_destroy(&w->more);
   pthread_cond_destroy(&w->room);
   if (w->failed) *err = w->err;
   return w->failed;
}

int cbp_digest_cmp(const void *a, const void *b) {
   uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
   return x < y ? -1 : x > y;
}

/* Whether the sorted --seen digests hold c's aim (cb_site_digest: its
 * pattern, e1's, f's and e2's file:line) twice: cbtest forced two
 * schedules at those lines, from two traces, and neither failed. */
static int aimed_twice(const cb_trace *t, const cbp_candidate *c, const uint64_t *seen,
                       size_t n) {
   uint64_t ev[3] = {c->e1, c->f, c->e2};
   const char *file[3];
   uint32_t line[3];
   for (int k = 0; k < 3; k++) {
      const cb_event *e = ev[k] < t->nevents ? &t->events[ev[k]] : NULL;
      const cb_location *l = e && e->loc < t->nlocs ? &t->locs[e->loc] : &t->locs[0];
      file[k] = l->file;
      line[k] = l->line;
   }
   uint64_t d = cb_site_digest(cbp_pattern_name[c->pattern], file, line);
   size_t lo = 0, hi = n;
   while (lo < hi) { /* the first >= d */
      size_t m = lo + (hi - lo) / 2;
      if (seen[m] < d) lo = m + 1; else hi = m;
   }
   return lo + 1 < n && seen[lo] == d && seen[lo + 1] == d;
}

/* The map of written schedules by ordering digest (ctx: the digests;
 * payload k is s(k+1)'s); a digest is its own hash. */
static int digest_eq(const void *ctx, uint32_t i, const void *key) {
   return ((const uint64_t *)ctx)[i] == *(const uint64_t *)key;
}
static uint64_t digest_hash(const void *ctx, uint32_t i) {
   return ((const uint64_t *)ctx)[i];
}

/* What the loop did to candidate i (the journal), to undo it. */
enum { J_SEEN = 1, J_SAME, J_FILE };

typedef struct {
   const cb_trace *t;
   cbp_analysis *a;
   const uint64_t *seen; size_t nseen;
   uint64_t *digests;  /* digests[k]: s(k+1)'s */
   size_t *at;         /* at[k]: s(k+1)'s candidate */
   uint8_t *jr;        /* per candidate: J_* */
   cbp_map byd;
} loop;

/* Candidate i: skipped (0), numbered cd->id with its file's bytes in *j
 * (1), or numbered and not encoded (-1: the error in *err, or j->path
 * NULL when out of memory for it). */
static int one(loop *L, size_t i, const char *dir, uint64_t written, job *j, cb_error *err) {
   cbp_result *r = &L->a->r;
   cbp_candidate *cd = &r->c[i];
   if (!cd->built || cd->dropped) return 0;
   if (L->a->run_failed && !cd->shown && !L->a->cures)
      return 0; /* rank_failed.c; cures.c */
   uint64_t d = cbp_candidate_digest(&L->a->x, cd);
   if (L->nseen && (bsearch(&d, L->seen, L->nseen, sizeof *L->seen, cbp_digest_cmp) ||
                    aimed_twice(L->t, cd, L->seen, L->nseen))) {
      r->seen_before++; /* an exploration round's --max is for new ones */
      L->jr[i] = J_SEEN;
      return 0;
   }
   uint32_t *slot = cbp_map_probe(&L->byd, d, digest_eq, L->digests, &d);
   if (*slot) {
      r->same_order++; cd->same_as = *slot;
      L->jr[i] = J_SAME;
      return 0;
   }
   L->digests[written] = d;
   *slot = (uint32_t)(written + 1);
   cbp_map_added(&L->byd, digest_hash, L->digests);
   cd->id = (uint32_t)(written + 1);
   L->at[written] = i;
   L->jr[i] = J_FILE;
   *j = (job){cd->id, NULL, NULL, 0};
   if (asprintf(&j->path, "%s/s%u.pb", dir, cd->id) < 0) {
      j->path = NULL;
      return -1;
   }
   if (cbp_schedule_encode(L->t, L->a, cd, &j->buf, &j->len, err)) return -1;
   return 1;
}

/* Candidates [from, to) as if the loop had never reached them. */
static void undo(cbp_result *r, const uint8_t *jr, size_t from, size_t to) {
   for (size_t i = from; i < to; i++) {
      if (jr[i] == J_SEEN) r->seen_before--;
      if (jr[i] == J_SAME) { r->same_order--; r->c[i].same_as = 0; }
      if (jr[i] == J_FILE) r->c[i].id = 0;
   }
}

int cbp_write_schedules(const cb_trace *t, cbp_analysis *a, const char *dir, size_t limit,
                        const uint64_t *seen, size_t nseen, unsigned jobs, uint64_t *written) {
   cbp_result *r = &a->r;
   loop L = {t, a, seen, nseen, cbp_xcalloc(r->n + 1, sizeof(uint64_t)),
             cbp_xcalloc(r->n + 1, sizeof(size_t)), cbp_xcalloc(r->n + 1, 1), {0}};
   cbp_map_init(&L.byd, 256);
   writer w;
   writer_start(&w, jobs);
   int rc = 0, bad = 0;
   cb_error err;
   size_t i = 0;
   for (; i < r->n && *written < limit; i++) {
      job j;
      int k = one(&L, i, dir, *written, &j, &err);
      if (k < 0) { /* as the single-threaded loop: stop there */
         bad = j.path != NULL; /* no message when out of memory for a name */
         free(j.path);
         rc = 1;
         break;
      }
      if (k == 0) continue;
      (*written)++;
      if (writer_add(&w, j)) break; /* a file failed: stop numbering */
   }
   cb_error perr;
   uint32_t f = writer_finish(&w, &perr);
   if (f) { /* the first file that failed, before any failure here */
      fprintf(stderr, "cbpredict: cannot write s%u.pb in %s: %s\n", f, dir, perr.msg);
      undo(r, L.jr, L.at[f - 1], r->n); /* jr is 0 where the loop never came */
      *written = f - 1;
      rc = 1;
   } else if (bad) {
      fprintf(stderr, "cbpredict: cannot write s%u.pb in %s: %s\n", r->c[i].id, dir, err.msg);
      r->c[i].id = 0;
   }
   free(L.digests); free(L.at); free(L.jr);
   cbp_map_free(&L.byd);
   return rc;
}
