/* source.c: the text of one source line, for reports that quote the line an
 * event ran at (cb_source_line, cbtrace.h).
 *
 * The debug information gives a file and the folder it was compiled from
 * (trace.proto Location.dir); callers add folders of their own to look in
 * (cbtest: --source-dir, the test's folder, the program's).  A report
 * quotes the line only when it can
 * trust it: the file is a regular file (not a FIFO that would block, not a
 * device), and it is not newer than the program it was built into (an
 * edited source would show another line than the one that ran).  The text
 * is made safe to print: a hostile source cannot send escape sequences to
 * the user's terminal.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cbtrace.h"

/* Past this many lines the file is not a source we quote from. */
#define MAX_LINE_NO 1000000u

/* dir/file; file alone when absolute or dir is ""; 0 when too long. */
static int source_path(const char *dir, const char *file, char *path,
                       size_t n)
{
   int len;
   if (file[0] == '/' || !*dir)
      len = snprintf(path, n, "%s", file);
   else
      len = snprintf(path, n, "%s/%s", dir, file);
   return len > 0 && (size_t)len < n;
}

/* The line's text, blanks around it trimmed, control characters (and
 * bytes of a broken escape) shown as '?', at most n - 1 bytes with "..."
 * when cut. */
static void clean_line(const char *raw, char *out, size_t n)
{
   while (*raw == ' ' || *raw == '\t')
      raw++;
   size_t len = strcspn(raw, "\r\n");
   while (len > 0 && (raw[len - 1] == ' ' || raw[len - 1] == '\t'))
      len--;
   size_t k = 0;
   for (size_t i = 0; i < len && k + 1 < n; i++) {
      unsigned char c = (unsigned char)raw[i];
      out[k++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
   }
   out[k] = 0;
   if (k < len && n > 4)
      memcpy(out + n - 4, "...", 4);
}

/* Reads line `line` (1-based) of the open regular file fd. */
static int nth_line(int fd, uint32_t line, char *out, size_t n)
{
   FILE *f = fdopen(fd, "r");
   if (!f) {
      close(fd);
      return 0;
   }
   char buf[512];
   uint32_t at = 1;
   int found = 0, mid = 0; /* mid: inside a line longer than buf */
   while (fgets(buf, sizeof buf, f)) {
      int whole = strchr(buf, '\n') != NULL;
      if (at == line && !mid) {
         clean_line(buf, out, n);
         found = 1;
         break;
      }
      if (whole && ++at > MAX_LINE_NO)
         break;
      mid = !whole;
   }
   fclose(f);
   return found && out[0];
}

/* The line from the first of dirs that holds the file: 1 quoted, 0 not
 * there (try the next folder), -1 there but not to be quoted. */
static int line_in(const char *dir, const char *file, uint32_t line,
                   const char *object, char *out, size_t n)
{
   char path[PATH_MAX];
   struct stat src, obj;
   if (!source_path(dir, file, path, sizeof path))
      return 0;
   int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
   if (fd < 0)
      return 0;
   if (fstat(fd, &src) != 0 || !S_ISREG(src.st_mode) ||
       (object && *object && stat(object, &obj) == 0 &&
        src.st_mtime > obj.st_mtime)) {
      close(fd);
      return -1;
   }
   return nth_line(fd, line, out, n) ? 1 : -1;
}

int cb_source_line(const char *const *dirs, size_t ndirs, const char *file,
                   uint32_t line, const char *object, char *out, size_t n)
{
   if (n < 8 || !file || !*file || line == 0 || line > MAX_LINE_NO)
      return 0;
   if (file[0] == '/')
      return line_in("", file, line, object, out, n) > 0;
   for (size_t i = 0; i < ndirs; i++) {
      int got = dirs[i] ? line_in(dirs[i], file, line, object, out, n) : 0;
      if (got != 0)
         return got > 0;
   }
   return 0;
}
