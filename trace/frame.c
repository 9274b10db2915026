/* frame.c: the framing shared by traces and schedule files: 8 bytes of
 * magic, then frames of u32 LE length, u32 LE CRC-32 (IEEE) and payload.
 * One writer and one reader, so the two file kinds cannot drift apart.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "trace_internal.h"

const unsigned char cb_trace_magic[CB_MAGIC_LEN] = "CBTRACE\x01";
const unsigned char cb_sched_magic[CB_MAGIC_LEN] = "CBSCHED\x01";

/* CRC-32 (IEEE, reflected 0xEDB88320).  Every chunk written or read goes
 * through it, so it must cost well under a nanosecond per byte: on x86-64
 * with PCLMULQDQ it folds 64 bytes at a time by carry-less multiplication
 * (Intel, "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ",
 * the same constants as zlib/Chromium and Linux's crc32-pclmul); elsewhere,
 * and for the short ends, slicing-by-8 tables.  No zlib dependency. */
static uint32_t crc_table[8][256];

static void crc_init(void)
{
   for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++)
         c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      crc_table[0][i] = c;
   }
   for (uint32_t i = 0; i < 256; i++)
      for (int s = 1; s < 8; s++)
         crc_table[s][i] = (crc_table[s - 1][i] >> 8) ^
                           crc_table[0][crc_table[s - 1][i] & 0xff];
}

/* c is the running register (already inverted). */
static uint32_t crc_tables(uint32_t c, const uint8_t *p, size_t len)
{
   while (len >= 8) {
      uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
                         (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
      uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 |
                    (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
      c = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
          crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
          crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
          crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
      p += 8;
      len -= 8;
   }
   while (len--)
      c = crc_table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
   return c;
}

#if defined(__x86_64__)
#include <immintrin.h>

static int crc_use_clmul;

/* len >= 64 and a multiple of 16; c is the running register. */
__attribute__((target("pclmul,sse4.1"))) static uint32_t
crc_clmul(uint32_t c, const uint8_t *buf, size_t len)
{
   const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596ll, 0x0154442bd4ll);
   const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009ell, 0x01751997d0ll);
   const __m128i k5k0 = _mm_set_epi64x(0, 0x0163cd6124ll);
   const __m128i poly = _mm_set_epi64x(0x01f7011641ll, 0x01db710641ll);
   __m128i x0, x1, x2, x3, x4, x5, x6, x7, x8;

   x1 = _mm_loadu_si128((const __m128i *)(buf + 0x00));
   x2 = _mm_loadu_si128((const __m128i *)(buf + 0x10));
   x3 = _mm_loadu_si128((const __m128i *)(buf + 0x20));
   x4 = _mm_loadu_si128((const __m128i *)(buf + 0x30));
   x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)c));
   x0 = k1k2;
   buf += 64;
   len -= 64;
   /* Four lanes of 128 bits, each folded 512 bits forward. */
   while (len >= 64) {
      x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
      x6 = _mm_clmulepi64_si128(x2, x0, 0x00);
      x7 = _mm_clmulepi64_si128(x3, x0, 0x00);
      x8 = _mm_clmulepi64_si128(x4, x0, 0x00);
      x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
      x2 = _mm_clmulepi64_si128(x2, x0, 0x11);
      x3 = _mm_clmulepi64_si128(x3, x0, 0x11);
      x4 = _mm_clmulepi64_si128(x4, x0, 0x11);
      x1 = _mm_xor_si128(_mm_xor_si128(x1, x5),
                         _mm_loadu_si128((const __m128i *)(buf + 0x00)));
      x2 = _mm_xor_si128(_mm_xor_si128(x2, x6),
                         _mm_loadu_si128((const __m128i *)(buf + 0x10)));
      x3 = _mm_xor_si128(_mm_xor_si128(x3, x7),
                         _mm_loadu_si128((const __m128i *)(buf + 0x20)));
      x4 = _mm_xor_si128(_mm_xor_si128(x4, x8),
                         _mm_loadu_si128((const __m128i *)(buf + 0x30)));
      buf += 64;
      len -= 64;
   }
   /* The four lanes into one. */
   x0 = k3k4;
   x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
   x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
   x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
   x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
   x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
   x1 = _mm_xor_si128(_mm_xor_si128(x1, x3), x5);
   x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
   x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
   x1 = _mm_xor_si128(_mm_xor_si128(x1, x4), x5);
   while (len >= 16) {
      x2 = _mm_loadu_si128((const __m128i *)buf);
      x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
      x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
      x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
      buf += 16;
      len -= 16;
   }
   /* 128 bits to 64, then Barrett reduction to 32. */
   x2 = _mm_clmulepi64_si128(x1, x0, 0x10);
   x3 = _mm_setr_epi32(~0, 0, ~0, 0);
   x1 = _mm_srli_si128(x1, 8);
   x1 = _mm_xor_si128(x1, x2);
   x0 = k5k0;
   x2 = _mm_srli_si128(x1, 4);
   x1 = _mm_and_si128(x1, x3);
   x1 = _mm_clmulepi64_si128(x1, x0, 0x00);
   x1 = _mm_xor_si128(x1, x2);
   x0 = poly;
   x2 = _mm_and_si128(x1, x3);
   x2 = _mm_clmulepi64_si128(x2, x0, 0x10);
   x2 = _mm_and_si128(x2, x3);
   x2 = _mm_clmulepi64_si128(x2, x0, 0x00);
   x1 = _mm_xor_si128(x1, x2);
   return (uint32_t)_mm_extract_epi32(x1, 1);
}
#endif

static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_setup(void)
{
   crc_init();
#if defined(__x86_64__)
   __builtin_cpu_init();
   crc_use_clmul = __builtin_cpu_supports("pclmul") &&
                   __builtin_cpu_supports("sse4.1");
#endif
}

uint32_t cb_crc32_update(uint32_t crc, const void *data, size_t len)
{
   pthread_once(&crc_once, crc_setup);
   const uint8_t *p = data;
   uint32_t c = ~crc;
#if defined(__x86_64__)
   if (crc_use_clmul && len >= 64) {
      size_t body = len & ~(size_t)15;
      c = crc_clmul(c, p, body);
      p += body;
      len -= body;
   }
#endif
   return ~crc_tables(c, p, len);
}

uint32_t cb_crc32_portable(uint32_t crc, const void *data, size_t len)
{
   pthread_once(&crc_once, crc_setup);
   return ~crc_tables(~crc, data, len);
}

uint32_t cb_crc32(const void *data, size_t len)
{
   return cb_crc32_update(0, data, len);
}

int cb_write_all(int fd, const void *data, size_t len, cb_error *err)
{
   const char *p = data;
   while (len > 0) {
      ssize_t n = write(fd, p, len);
      if (n < 0) {
         if (errno == EINTR)
            continue;
         return cb_fail(err, "write: %s", strerror(errno));
      }
      p += n;
      len -= (size_t)n;
   }
   return 0;
}

static void put_u32(uint8_t *p, uint32_t v)
{
   p[0] = (uint8_t)v;
   p[1] = (uint8_t)(v >> 8);
   p[2] = (uint8_t)(v >> 16);
   p[3] = (uint8_t)(v >> 24);
}

static uint32_t get_u32(const uint8_t *p)
{
   return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
          (uint32_t)p[3] << 24;
}

/* The frame of parts, after lead (lead_len bytes, none if 0) in the same
 * writev. */
static int frame_writev(int fd, const void *lead, size_t lead_len,
                        const struct iovec *parts, int nparts, cb_error *err)
{
   if (nparts < 0 || nparts > CB_FRAME_MAX_PARTS)
      return cb_fail(err, "a frame of %d parts", nparts);
   size_t len = 0;
   uint32_t crc = 0;
   for (int i = 0; i < nparts; i++) {
      len += parts[i].iov_len;
      crc = cb_crc32_update(crc, parts[i].iov_base, parts[i].iov_len);
   }
   if (len > CB_FRAME_MAX)
      return cb_fail(err, "chunk of %zu bytes is too large", len);
   uint8_t head[8];
   put_u32(head, (uint32_t)len);
   put_u32(head + 4, crc);
   struct iovec iov[CB_FRAME_MAX_PARTS + 2];
   int nl = lead_len > 0;
   iov[0].iov_base = (void *)lead;
   iov[0].iov_len = lead_len;
   iov[nl].iov_base = head;
   iov[nl].iov_len = 8;
   memcpy(iov + nl + 1, parts, (size_t)nparts * sizeof *parts);
   /* Usually one writev does it all; a short write (a full disk, a
    * signal) is finished piece by piece. */
   struct iovec *v = iov;
   int nv = nparts + 1 + nl;
   while (nv > 0) {
      ssize_t n = writev(fd, v, nv);
      if (n < 0) {
         if (errno == EINTR)
            continue;
         return cb_fail(err, "write: %s", strerror(errno));
      }
      size_t done = (size_t)n;
      while (nv > 0 && done >= v->iov_len) {
         done -= v->iov_len;
         v++;
         nv--;
      }
      if (nv > 0) {
         v->iov_base = (uint8_t *)v->iov_base + done;
         v->iov_len -= done;
      }
   }
   return 0;
}

int cb_frame_writev(int fd, const struct iovec *parts, int nparts,
                    cb_error *err)
{
   return frame_writev(fd, NULL, 0, parts, nparts, err);
}

int cb_frame_write(int fd, const void *lead, size_t lead_len,
                   const void *payload, size_t len, cb_error *err)
{
   struct iovec part = {(void *)payload, len};
   return frame_writev(fd, lead, lead_len, &part, 1, err);
}

int cb_frame_begin(cb_frame_reader *r, const void *data, size_t len,
                   const unsigned char magic[CB_MAGIC_LEN], const char *what,
                   cb_error *err)
{
   r->data = data;
   r->len = len;
   r->pos = CB_MAGIC_LEN;
   r->n = 0;
   if (len == 0)
      return cb_fail(err, "empty file");
   if (len < CB_MAGIC_LEN || memcmp(data, magic, CB_MAGIC_LEN) != 0) {
      /* Name the other cbtools format when it is one, a common mix-up. */
      const unsigned char *other =
          magic == cb_trace_magic ? cb_sched_magic : cb_trace_magic;
      if (len >= CB_MAGIC_LEN && memcmp(data, other, CB_MAGIC_LEN) == 0)
         return cb_fail(err, "not a %s (it is a cbtools %s)", what,
                        other == cb_sched_magic ? "schedule" : "trace");
      if (len < CB_MAGIC_LEN && memcmp(data, magic, len) == 0)
         return cb_fail(err, "not a %s (cut short inside the magic)", what);
      return cb_fail(err, "not a %s (wrong magic)", what);
   }
   return 0;
}

int cb_frame_next(cb_frame_reader *r, const uint8_t **payload, size_t *plen,
                  cb_error *why)
{
   size_t left = r->len - r->pos;
   if (left == 0)
      return 0;
   unsigned no = r->n + 1;
   if (left < 8)
      return cb_fail(why, "chunk %u at byte %zu: cut short in its frame header",
                     no, r->pos);
   const uint8_t *p = r->data + r->pos;
   uint32_t len = get_u32(p), crc = get_u32(p + 4);
   if (len > CB_FRAME_MAX)
      return cb_fail(why, "chunk %u at byte %zu: impossible length %u", no,
                     r->pos, len);
   if (len > left - 8)
      return cb_fail(why,
                     "chunk %u at byte %zu: cut short (%zu of %u bytes)", no,
                     r->pos, left - 8, len);
   if (cb_crc32(p + 8, len) != crc)
      return cb_fail(why, "chunk %u at byte %zu: CRC mismatch (corrupt)", no,
                     r->pos);
   *payload = p + 8;
   *plen = len;
   r->pos += 8 + (size_t)len;
   r->n = no;
   return 1;
}
