/* schedule_io.c: schedule files: magic "CBSCHED\x01" and one frame holding
 * a Schedule message (the same framing as traces, frame.c; schedule_pb.c
 * turns it into a cb_schedule and back), in its compact form
 * (schedule_compact.c), and the one reading of a schedule's tail variants.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schedule_pb.h"
#include "trace_internal.h"

int cb_schedule_encode(const cb_schedule *sched, uint8_t **buf, size_t *len,
                       cb_error *err)
{
   Cbtools__Schedule msg, *s = &msg;
   cb_sched_allocs *a = cb_schedule_to_pb(sched, s);
   if (!a)
      return cb_fail(err, "out of memory");
   int packed = cb_schedule_pack(s, buf, len, err);
   cb_sched_allocs_free(a);
   return packed < 0 ? -1 : 0;
}

int cb_schedule_put(const char *path, const uint8_t *buf, size_t len,
                    cb_error *err)
{
   /* Written beside the target and renamed, so that a reader (a parallel
    * replay) never sees half a schedule; under an unpredictable name, so
    * that a link planted in a shared folder is never written through. */
   char tmp[4096];
   int fd = cb_temp_beside(path, tmp, sizeof tmp, err);
   if (fd < 0)
      return -1;
   int r = cb_frame_write(fd, cb_sched_magic, CB_MAGIC_LEN, buf, len, err);
   if (close(fd) < 0 && r == 0)
      r = cb_fail(err, "close: %s", strerror(errno));
   if (r < 0) {
      unlink(tmp);
      return -1;
   }
   return cb_rename_into_place(tmp, path, err);
}

int cb_schedule_write(const char *path, const cb_schedule *sched,
                      cb_error *err)
{
   size_t len;
   uint8_t *buf;
   if (cb_schedule_encode(sched, &buf, &len, err) < 0)
      return -1;
   int r = cb_schedule_put(path, buf, len, err);
   free(buf);
   return r;
}

int cb_schedule_read_mem(const void *data, size_t len, cb_schedule **s,
                         cb_error *err)
{
   *s = NULL;
   cb_frame_reader r;
   const uint8_t *pl;
   size_t plen;
   cb_error why;
   if (cb_frame_begin(&r, data, len, cb_sched_magic, "cbtools schedule",
                      err) < 0)
      return -1;
   int k = cb_frame_next(&r, &pl, &plen, &why);
   if (k <= 0)
      return cb_fail(err, "damaged schedule: %s",
                     k == 0 ? "nothing after the magic" : why.msg);
   if (r.pos != r.len)
      return cb_fail(err, "damaged schedule: data after the schedule");
   Cbtools__Schedule *p = cbtools__schedule__unpack(NULL, plen, pl);
   if (!p)
      return cb_fail(err, "damaged schedule: cannot decode it");
   if (cb_schedule_expand(p, plen, err) < 0) {
      cbtools__schedule__free_unpacked(p, NULL);
      return -1;
   }
   *s = cb_schedule_from_pb(p);
   if (!*s) {
      cbtools__schedule__free_unpacked(p, NULL);
      return cb_fail(err, "out of memory");
   }
   return 0;
}

int cb_is_schedule_file(const char *path)
{
   unsigned char head[CB_MAGIC_LEN];
   int fd = open(path, O_RDONLY | O_CLOEXEC);
   if (fd < 0)
      return 0;
   ssize_t n = read(fd, head, sizeof head);
   close(fd);
   return n == (ssize_t)sizeof head && !memcmp(head, cb_sched_magic, sizeof head);
}

int cb_schedule_read(const char *path, cb_schedule **s, cb_error *err)
{
   *s = NULL;
   cb_blob b;
   if (cb_blob_load(path, &b, err) < 0)
      return -1;
   int r = cb_schedule_read_mem(b.data, b.len, s, err);
   cb_blob_free(&b);
   return r;
}

size_t cb_schedule_nvariants(const cb_schedule *s)
{
   return 1 + s->n_variants;
}

int cb_schedule_variant(const cb_schedule *s, size_t k,
                        cb_sched_step *const **tail, size_t *ntail,
                        const char **name)
{
   if (k == 0) {
      *tail = s->tail;
      *ntail = s->n_tail;
      *name = s->tail_name ? s->tail_name : "";
      return 0;
   }
   if (k > s->n_variants || !s->variants[k - 1])
      return -1;
   const cb_sched_variant *v = s->variants[k - 1];
   *tail = v->tail;
   *ntail = v->n_tail;
   *name = v->name ? v->name : "";
   return 0;
}
