/* digest.c: FNV-1a 64 of a program file, so a schedule can refuse to run
 * against a program other than the one its trace was recorded from.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "trace_internal.h"

int cb_file_digest(const char *path, uint64_t *digest, cb_error *err)
{
   *digest = 0;
   int fd = open(path, O_RDONLY | O_CLOEXEC);
   if (fd < 0)
      return cb_fail(err, "%s", strerror(errno));
   uint64_t h = 0xcbf29ce484222325ull;
   unsigned char buf[1 << 16];
   for (;;) {
      ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR)
         continue;
      if (n < 0) {
         int e = errno;
         close(fd);
         return cb_fail(err, "%s", strerror(e));
      }
      if (n == 0)
         break;
      for (ssize_t i = 0; i < n; i++) {
         h ^= buf[i];
         h *= 0x100000001b3ull;
      }
   }
   close(fd);
   *digest = h;
   return 0;
}
