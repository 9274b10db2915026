/* ordering.c: what a schedule forces, as one 64-bit digest.
 *
 * A schedule forces its prefix (per-thread counts) and then each tail
 * variant in turn.  Two schedules force the same orderings when these are
 * the same once written the way replay follows them (reschedule/plan.c,
 * vgtool/cb_replay.c): a thread past the prefix list runs 0 events; a
 * step of 0 events is skipped; a thread's steps after one that ran it out
 * are run out too; two steps of one thread in a row are one step.  The
 * digest is of that normal form, so `cbpredict --delays` never writes one
 * ordering twice and `cbtest --explore` never forces one twice, whichever
 * trace or round predicted it.  And a trace's recorded order as steps
 * (cb_recorded_order), the form schedules force an interleaving in.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_internal.h"

static void mix(uint64_t *h, uint64_t w)
{
   for (int i = 0; i < 8; i++) {
      *h ^= (w >> (8 * i)) & 0xff;
      *h *= 0x100000001b3ull;
   }
}

/* The steps of one variant, normalised.  ran_out has room for every tid
 * the steps name (cleared here). */
static void mix_tail(uint64_t *h, const cb_order_step *st, size_t n,
                     unsigned char *ran_out, size_t nflags)
{
   memset(ran_out, 0, nflags);
   uint32_t cur = 0;       /* the pending step's thread, 0: none */
   uint64_t count = 0;     /* its events, CB_ORDER_RUN_OUT: run out */
   for (size_t i = 0; i <= n; i++) {
      uint32_t tid = i < n ? st[i].tid : 0;
      uint64_t c = i < n ? st[i].count : 0;
      if (i < n) {
         if (ran_out[tid] || c == CB_ORDER_RUN_OUT) {
            ran_out[tid] = 1;
            c = CB_ORDER_RUN_OUT;
         } else if (c == 0) {
            continue;
         }
         if (tid == cur) { /* the same thread again: one longer step */
            count = c == CB_ORDER_RUN_OUT || count == CB_ORDER_RUN_OUT
                       ? CB_ORDER_RUN_OUT : count + c;
            continue;
         }
      }
      if (cur) {
         mix(h, cur);
         mix(h, count);
      }
      cur = tid;
      count = c;
   }
   mix(h, 0); /* end of the variant */
}

uint64_t cb_ordering_digest(const uint64_t *prefix, size_t nprefix,
                            const cb_order_step *const *tails,
                            const size_t *ntails, size_t nvariants)
{
   uint64_t h = 0xcbf29ce484222325ull;
   while (nprefix > 0 && prefix[nprefix - 1] == 0)
      nprefix--;
   mix(&h, nprefix);
   for (size_t i = 0; i < nprefix; i++)
      mix(&h, prefix[i]);
   uint32_t hi = 0;
   for (size_t k = 0; k < nvariants; k++)
      for (size_t i = 0; i < ntails[k]; i++)
         if (tails[k][i].tid > hi)
            hi = tails[k][i].tid;
   unsigned char small[256], *ran_out = small;
   if (hi >= sizeof small && !(ran_out = calloc((size_t)hi + 1, 1)))
      abort(); /* out of memory: nothing useful to report */
   for (size_t k = 0; k < nvariants; k++)
      mix_tail(&h, tails[k], ntails[k], ran_out, (size_t)hi + 1);
   if (ran_out != small)
      free(ran_out);
   return h;
}

uint64_t cb_site_digest(const char *pattern, const char *const file[3],
                        const uint32_t line[3])
{
   /* A different seed than the orderings' (the two share --seen files). */
   uint64_t h = 0x5173d16e57ull;
   for (const char *p = pattern ? pattern : ""; *p; p++)
      mix(&h, (unsigned char)*p);
   for (int k = 0; k < 3; k++) {
      mix(&h, 0);
      for (const char *p = file[k] ? file[k] : ""; *p; p++)
         mix(&h, (unsigned char)*p);
      mix(&h, line[k]);
   }
   return h;
}

uint64_t cb_schedule_site_digest(const cb_schedule *s)
{
   const cb_sched_event *ev[3] = {s->e1, s->f, s->e2};
   const char *file[3];
   uint32_t line[3];
   for (int k = 0; k < 3; k++) {
      const cb_sched_location *l = ev[k] ? ev[k]->location : NULL;
      file[k] = l && l->file ? l->file : "";
      line[k] = l && l->has_line ? l->line : 0;
   }
   return cb_site_digest(s->pattern, file, line);
}

uint64_t cb_schedule_digest(const cb_schedule *s)
{
   size_t nv = cb_schedule_nvariants(s), total = 0;
   for (size_t k = 0; k < nv; k++) {
      cb_sched_step *const *tail;
      size_t n;
      const char *name;
      if (cb_schedule_variant(s, k, &tail, &n, &name) == 0)
         total += n;
   }
   cb_order_step *all = calloc(total + 1, sizeof *all);
   const cb_order_step **tails = calloc(nv, sizeof *tails);
   size_t *ntails = calloc(nv, sizeof *ntails);
   if (!all || !tails || !ntails)
      abort();
   size_t at = 0;
   for (size_t k = 0; k < nv; k++) {
      cb_sched_step *const *tail;
      size_t n = 0;
      const char *name;
      tails[k] = all + at;
      if (cb_schedule_variant(s, k, &tail, &n, &name) != 0)
         n = 0;
      for (size_t i = 0; i < n; i++, at++) {
         all[at].tid = tail[i] ? tail[i]->tid : 0;
         all[at].count = tail[i] && tail[i]->has_run_out && tail[i]->run_out
                            ? CB_ORDER_RUN_OUT
                            : tail[i] ? tail[i]->count : 0;
      }
      ntails[k] = n;
   }
   uint64_t h = cb_ordering_digest(s->prefix, s->n_prefix, tails, ntails, nv);
   free(all);
   free(tails);
   free(ntails);
   return h;
}

int cb_ordering_read(const char *path, uint64_t **out, size_t *n, cb_error *err)
{
   *out = NULL;
   *n = 0;
   FILE *f = fopen(path, "r");
   if (!f)
      return cb_fail(err, "%s: %s", path, strerror(errno));
   char line[256];
   size_t cap = 0, lineno = 0;
   int rc = 0;
   while (fgets(line, sizeof line, f)) {
      lineno++;
      char *p = line + strspn(line, " \t");
      if (*p == '#' || *p == '\n' || !*p)
         continue;
      char *end;
      errno = 0;
      unsigned long long v = strtoull(p, &end, 16);
      end += strspn(end, " \t\r\n");
      if (errno || end == p || *end) {
         rc = cb_fail(err, "%s: line %zu: not a digest (16 hex digits)", path,
                      lineno);
         break;
      }
      if (*n == cap) {
         cap = cap ? 2 * cap : 64;
         uint64_t *more = realloc(*out, cap * sizeof *more);
         if (!more) {
            rc = cb_fail(err, "out of memory");
            break;
         }
         *out = more;
      }
      (*out)[(*n)++] = v;
   }
   fclose(f);
   if (rc) {
      free(*out);
      *out = NULL;
      *n = 0;
   }
   return rc;
}

/* cbtrace.h says what; every switch of a trace falls between two counted
 * events or at an uncounted one, so the steps replay its interleaving. */
long cb_recorded_order(const cb_trace *tr, size_t end, size_t n, uint64_t *ran,
                       cb_order_step **out)
{
   cb_order_step *st = NULL;
   size_t ns = 0, cap = 0;
   for (size_t i = 0; i < end && i < tr->nevents; i++) {
      const cb_event *e = &tr->events[i];
      if (e->kind >= CB_EV_KIND_COUNT || !CB_IS_COUNTED(e->kind) ||
          e->tid == 0 || e->tid > n)
         continue;
      ran[e->tid - 1]++;
      if (ns && st[ns - 1].tid == e->tid) {
         st[ns - 1].count++;
         continue;
      }
      if (ns == cap) {
         cap = cap ? 2 * cap : 16;
         cb_order_step *more = realloc(st, cap * sizeof *more);
         if (!more) {
            free(st);
            return -1;
         }
         st = more;
      }
      st[ns++] = (cb_order_step){e->tid, 1};
   }
   *out = st;
   return (long)ns;
}
