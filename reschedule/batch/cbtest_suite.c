/* cbtest_suite.c: the tests file.  One test command a line, split into words
 * the way a simple shell would (see cbt_split_words in cbtest.h), so that a
 * line can be pasted from a terminal and back.  The file is read whole, with
 * bounds (cbtest.h: CBT_SUITE_MAX_*): anything larger, or a device, is not a
 * tests file, and must never cost all memory or hang cbtest.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cbtest.h"

/* A growing string and a growing list of words. */
typedef struct {
   char *s;
   size_t n, cap;
} strbuf;

static int sb_put(strbuf *b, char c)
{
   if (b->n + 2 > b->cap) {
      size_t cap = b->cap ? b->cap * 2 : 64;
      char *s = realloc(b->s, cap);
      if (!s)
         return -1;
      b->s = s;
      b->cap = cap;
   }
   b->s[b->n++] = c;
   b->s[b->n] = 0;
   return 0;
}

void cbt_free_words(char **words)
{
   if (!words)
      return;
   for (char **w = words; *w; w++)
      free(*w);
   free(words);
}

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

int cbt_split_words(const char *line, char ***out, const char **why)
{
   char **words = calloc(1, sizeof *words);
   size_t n = 0;
   const char *p = line;
   *out = NULL;
   *why = "out of memory";
   if (!words)
      return -1;
   for (;;) {
      while (is_blank(*p))
         p++;
      if (!*p || *p == '#')
         break;
      strbuf w = {0};
      /* An empty quoted word ('' or "") is still a word. */
      if (sb_put(&w, 0) != 0)
         goto oom;
      w.n = 0;
      while (*p && !is_blank(*p)) {
         int rc = 0;
         if (*p == '\'') {
            const char *q = strchr(p + 1, '\'');
            if (!q) {
               free(w.s);
               cbt_free_words(words);
               *why = "unterminated single quote";
               return -1;
            }
            for (p++; p < q && rc == 0; p++)
               rc = sb_put(&w, *p);
            p = q + 1;
         } else if (*p == '"') {
            for (p++; *p && *p != '"' && rc == 0; p++) {
               if (*p == '\\' && p[1] && strchr("\"\\$`", p[1]))
                  p++;
               rc = sb_put(&w, *p);
            }
            if (*p != '"') {
               free(w.s);
               cbt_free_words(words);
               *why = "unterminated double quote";
               return -1;
            }
            p++;
         } else if (*p == '\\' && p[1]) {
            rc = sb_put(&w, p[1]);
            p += 2;
         } else {
            rc = sb_put(&w, *p++);
         }
         if (rc != 0) {
            free(w.s);
            goto oom;
         }
      }
      char **more = realloc(words, (n + 2) * sizeof *words);
      if (!more) {
         free(w.s);
         goto oom;
      }
      words = more;
      words[n++] = w.s;
      words[n] = NULL;
   }
   *out = words;
   *why = NULL;
   return (int)n;
oom:
   cbt_free_words(words);
   *why = "out of memory";
   return -1;
}

/* The kind of a file that is not a tests file, in words. */
static const char *file_kind(mode_t m)
{
   if (S_ISDIR(m)) return "a directory";
   if (S_ISCHR(m)) return "a character device";
   if (S_ISBLK(m)) return "a block device";
   if (S_ISSOCK(m)) return "a socket";
   return "not a regular file";
}

/* The whole tests file, NUL-terminated, read with a bound: a regular file
 * or a pipe (`--tests <(gen)`) only, so that /dev/zero, a terminal or a
 * disk is refused before a byte is read, and no more than
 * CBT_SUITE_MAX_BYTES, so that an endless pipe cannot exhaust memory.
 * Opened O_NONBLOCK: a FIFO nobody writes to reads as empty instead of
 * hanging in open().  -1 with why. */
static int read_bounded(const char *path, char **out, size_t *len, char *why,
                        size_t whylen)
{
   int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
   struct stat st;
   if (fd < 0 || fstat(fd, &st) != 0) {
      snprintf(why, whylen, "cannot read tests file %s: %s", path,
               strerror(errno));
      if (fd >= 0)
         close(fd);
      return -1;
   }
   char *buf = NULL;
   size_t n = 0;
   if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
      snprintf(why, whylen, "cannot read tests file %s: %s, not a regular "
               "file or a pipe", path, file_kind(st.st_mode));
      goto fail;
   }
   if (S_ISREG(st.st_mode) && st.st_size > CBT_SUITE_MAX_BYTES)
      goto too_big;
   int fl = fcntl(fd, F_GETFL);
   /* Room for the whole of a regular file, and one byte more to see it
    * did not grow; a pipe's buffer grows as it comes. */
   size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 65536;
   if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0 ||
       !(buf = malloc(cap + 1)))
      goto cannot;
   while (n <= CBT_SUITE_MAX_BYTES) {
      if (n == cap) {
         cap = cap * 2 > CBT_SUITE_MAX_BYTES ? CBT_SUITE_MAX_BYTES + 1
                                             : cap * 2;
         char *more = realloc(buf, cap + 1);
         if (!more)
            goto cannot;
         buf = more;
      }
      ssize_t got = read(fd, buf + n, cap - n);
      if (got < 0 && errno == EINTR)
         continue;
      if (got < 0)
         goto cannot;
      if (got == 0)
         break;
      n += (size_t)got;
   }
   if (n > CBT_SUITE_MAX_BYTES)
      goto too_big;
   close(fd);
   buf[n] = 0;
   *out = buf;
   *len = n;
   return 0;
cannot:
   snprintf(why, whylen, "cannot read tests file %s: %s", path,
            strerror(errno));
   goto fail;
too_big:
   snprintf(why, whylen, "cannot read tests file %s: larger than %d bytes, "
            "not a tests file", path, CBT_SUITE_MAX_BYTES);
fail:
   free(buf);
   close(fd);
   return -1;
}

/* One line of the file (NUL-terminated in place) into the list. */
static int add_line(const char *path, int lineno, char *line, size_t len,
                    cbt_command **list, size_t *count, char *why,
                    size_t whylen)
{
   if (memchr(line, 0, len)) {
      snprintf(why, whylen, "%s:%d: a NUL byte: not a tests file", path,
               lineno);
      return -1;
   }
   if (len > CBT_SUITE_MAX_LINE) {
      snprintf(why, whylen, "%s:%d: a line longer than %d bytes: not a "
               "tests file", path, lineno, CBT_SUITE_MAX_LINE);
      return -1;
   }
   line[len] = 0;
   char **words;
   const char *bad;
   int nw = cbt_split_words(line, &words, &bad);
   if (nw < 0) {
      snprintf(why, whylen, "%s:%d: %s", path, lineno, bad);
      return -1;
   }
   if (nw == 0) {
      cbt_free_words(words);
      return 0;
   }
   if (*count == CBT_SUITE_MAX_TESTS) {
      cbt_free_words(words);
      snprintf(why, whylen, "%s:%d: more than %d tests: split the suite "
               "(cbtest --merge makes one report of several runs)", path,
               lineno, CBT_SUITE_MAX_TESTS);
      return -1;
   }
   cbt_command *more = realloc(*list, (*count + 1) * sizeof **list);
   if (!more) {
      cbt_free_words(words);
      snprintf(why, whylen, "out of memory");
      return -1;
   }
   *list = more;
   more[*count] = (cbt_command){.argv = words, .argc = nw, .line = lineno};
   ++*count;
   return 0;
}

int cbt_read_suite(const char *path, cbt_command **cmds, size_t *n,
                   char *why, size_t whylen)
{
   *cmds = NULL;
   *n = 0;
   char *buf;
   size_t len;
   if (read_bounded(path, &buf, &len, why, whylen) != 0)
      return -1;
   cbt_command *list = NULL;
   size_t count = 0;
   int lineno = 0;
   for (size_t at = 0; at < len;) {
      char *line = buf + at, *nl = memchr(line, '\n', len - at);
      size_t linelen = nl ? (size_t)(nl - line) : len - at;
      at += linelen + 1;
      if (add_line(path, ++lineno, line, linelen, &list, &count, why,
                   whylen) != 0) {
         for (size_t i = 0; i < count; i++)
            cbt_free_words(list[i].argv);
         free(list);
         free(buf);
         return -1;
      }
   }
   free(buf);
   *cmds = list;
   *n = count;
   return 0;
}

int cbt_fmt(char *buf, size_t len, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   int n = vsnprintf(buf, len, fmt, ap);
   va_end(ap);
   return (n < 0 || (size_t)n >= len) ? -1 : 0;
}
