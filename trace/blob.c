/* blob.c: a whole trace or schedule file in memory, for the readers.  A
 * regular file is mapped.  Anything else that can be read (a pipe, a
 * socket, a character device such as /dev/zero) is read only as far as it
 * looks like a cbtools file: its magic, then whole frames of a possible
 * length with a good CRC, up to CB_STREAM_MAX bytes in all.  Reading stops
 * at the first bad frame (the frame reader would stop there anyway; what
 * was read ahead past it is kept for it to report), so `cbtrace dump
 * /dev/zero` ends at once ("wrong magic") instead of reading until memory
 * runs out.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_internal.h"

typedef struct {
   uint8_t *buf;
   size_t len, cap;
   int eof;
} stream;

/* Reads until s->len >= want or the end (reading ahead as far as the
 * buffer goes: a stream of tiny frames must not cost a call each); -1 with
 * err on a read error or when want is past the bound. */
static int fill(int fd, stream *s, size_t want, cb_error *err)
{
   if (want > CB_STREAM_MAX)
      return cb_fail(err, "more than %u MiB from a pipe or device: save it "
                          "to a file first", (unsigned)(CB_STREAM_MAX >> 20));
   while (s->len < want && !s->eof) {
      /* Grown as bytes arrive, not by the length a frame claims: a pipe
       * that announces 256 MiB and sends 10 bytes costs 64 KiB. */
      if (s->len == s->cap) {
         size_t nc = s->cap ? s->cap * 2 : 1 << 16;
         uint8_t *nb = realloc(s->buf, nc);
         if (!nb)
            return cb_fail(err, "out of memory");
         s->buf = nb;
         s->cap = nc;
      }
      ssize_t n = read(fd, s->buf + s->len, s->cap - s->len);
      if (n < 0 && errno == EINTR)
         continue;
      if (n < 0)
         return cb_fail(err, "%s", strerror(errno));
      if (n == 0)
         s->eof = 1;
      s->len += (size_t)n;
   }
   return 0;
}

static uint32_t le32(const uint8_t *p)
{
   return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
          (uint32_t)p[3] << 24;
}

/* The magic, then frame after frame while each is whole, of a possible
 * length and with a good CRC. */
static int read_framed(int fd, stream *s, cb_error *err)
{
   if (fill(fd, s, CB_MAGIC_LEN, err) < 0)
      return -1;
   if (s->len < CB_MAGIC_LEN ||
       (memcmp(s->buf, cb_trace_magic, CB_MAGIC_LEN) != 0 &&
        memcmp(s->buf, cb_sched_magic, CB_MAGIC_LEN) != 0))
      return 0;
   size_t at = CB_MAGIC_LEN; /* the next frame */
   for (;;) {
      if (fill(fd, s, at + 8, err) < 0)
         return -1;
      if (s->len < at + 8)
         return 0;
      uint32_t len = le32(s->buf + at);
      if (len > CB_FRAME_MAX)
         return 0;
      if (fill(fd, s, at + 8 + (size_t)len, err) < 0)
         return -1;
      if (s->len < at + 8 + (size_t)len ||
          cb_crc32(s->buf + at + 8, len) != le32(s->buf + at + 4))
         return 0;
      at += 8 + (size_t)len;
   }
}

int cb_blob_load(const char *path, cb_blob *b, cb_error *err)
{
   memset(b, 0, sizeof *b);
   int fd = open(path, O_RDONLY | O_CLOEXEC);
   if (fd < 0)
      return cb_fail(err, "%s", strerror(errno));
   struct stat st;
   if (fstat(fd, &st) < 0) {
      int e = errno;
      close(fd);
      return cb_fail(err, "%s", strerror(e));
   }
   if (S_ISDIR(st.st_mode)) {
      close(fd);
      return cb_fail(err, "is a directory");
   }
   if (S_ISREG(st.st_mode)) {
      if (st.st_size == 0) {
         close(fd);
         return 0;
      }
      void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (m != MAP_FAILED) {
         close(fd);
         b->data = m;
         b->len = (size_t)st.st_size;
         b->mapped = 1;
         return 0;
      }
   }
   /* A pipe, a device, or a file that cannot be mapped. */
   stream s = {NULL, 0, 0, 0};
   int r = read_framed(fd, &s, err);
   close(fd);
   if (r < 0) {
      free(s.buf);
      return -1;
   }
   b->data = s.buf;
   b->len = s.len;
   return 0;
}

void cb_blob_free(cb_blob *b)
{
   if (b->mapped)
      munmap((void *)b->data, b->len);
   else
      free((void *)b->data);
   memset(b, 0, sizeof *b);
}
