/* outfile.c: creating output files in folders others may write to.  A
 * file is first created under a name nobody can guess (mkstemp: O_EXCL, so
 * never through a link someone planted), then renamed to its real name;
 * rename replaces whatever is there, a symbolic link included, and never
 * writes through it.  The schedule writer, the trace writer and cbtest's
 * reports all create their files here.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cbtrace.h"

int cb_temp_beside(const char *path, char *tmp, size_t len, cb_error *err)
{
   if ((size_t)snprintf(tmp, len, "%s.XXXXXX", path) >= len)
      return cb_fail(err, "path too long");
   int fd = mkostemp(tmp, O_CLOEXEC);
   if (fd < 0)
      return cb_fail(err, "%s", strerror(errno));
   /* mkstemp makes it 0600; an output file is as readable as any other
    * file the user creates. */
   mode_t mask = umask(0);
   umask(mask);
   if (fchmod(fd, 0644 & ~mask) < 0) {
      int e = errno;
      close(fd);
      unlink(tmp);
      return cb_fail(err, "%s", strerror(e));
   }
   return fd;
}

int cb_rename_into_place(const char *tmp, const char *path, cb_error *err)
{
   if (rename(tmp, path) == 0)
      return 0;
   int e = errno;
   unlink(tmp);
   return cb_fail(err, "%s", strerror(e));
}
