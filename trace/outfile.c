/* outfile.c: creating output files in folders others may write to.  A
 * file is first created under a name nobody can guess (48 random bits,
 * O_EXCL: never through a link someone planted), then renamed to its real
 * name; rename replaces whatever is there, a symbolic link included, and
 * never writes through it.  The schedule writer, the trace writer and cbtest's
 * reports all create their files here.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cbtrace.h"

int cb_temp_beside(const char *path, char *tmp, size_t len, cb_error *err)
{
   /* Like mkstemp, but created with the mode of any file the user creates
    * (0644 less the umask, applied by open itself): mkstemp's 0600 cost a
    * fchmod and two umask calls per file, a fifth of writing a schedule. */
   for (int tries = 0; tries < 64; tries++) {
      uint64_t r;
      if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
         return cb_fail(err, "getrandom: %s", strerror(errno));
      if ((size_t)snprintf(tmp, len, "%s.%012llx", path,
                           (unsigned long long)(r & 0xffffffffffffull)) >= len)
         return cb_fail(err, "path too long");
      int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    0644);
      if (fd >= 0)
         return fd;
      if (errno != EEXIST)
         return cb_fail(err, "%s", strerror(errno));
   }
   return cb_fail(err, "no free temporary name beside it");
}

int cb_is_temp_name(const char *name)
{
   const char *base = strrchr(name, '/');
   base = base ? base + 1 : name;
   size_t n = strlen(base);
   return n > 13 && base[n - 13] == '.' &&
          strspn(base + n - 12, "0123456789abcdef") == 12;
}

int cb_rename_into_place(const char *tmp, const char *path, cb_error *err)
{
   if (rename(tmp, path) == 0)
      return 0;
   int e = errno;
   unlink(tmp);
   return cb_fail(err, "%s", strerror(e));
}
