/* cbtest_lastline.c: the last line a job wrote that matters: why a
 * record, predict or replay job failed (its stderr's last line, Valgrind's
 * own lines skipped), and what a failed forced run's program said (its
 * last line on stderr, or, when it exited non-zero, on stdout, which
 * cbreplay's output holds before its table).  One reader for both: the
 * file's tail only, so a chatty program's megabytes are never read.  And
 * whether two failing runs said the same words (cbt_same_said).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cbtest.h"

/* Bytes of a file's end looked at. */
#define TAIL_BYTES 16384
/* Lines looked back past indented ones for the line they detail
 * ("onceflag: 4 handlers registered, expected 2" and its list). */
#define DETAIL_LINES 16

/* Valgrind's own lines ("==PID== ", "--PID-- ", "**PID** "): how a crash
 * happened, not what the program said. */
static int valgrind_line(const char *l)
{
   static const char marks[] = "=-*";
   for (const char *m = marks; *m; m++)
      if (l[0] == *m && l[1] == *m) {
         size_t d = strspn(l + 2, "0123456789");
         if (d && l[2 + d] == *m && l[3 + d] == *m)
            return 1;
      }
   return 0;
}

/* The last TAIL_BYTES of path into buf (NUL-terminated), starting at a
 * whole line; its length, 0 when the file cannot be read. */
static size_t read_tail(const char *path, char *buf, size_t cap)
{
   FILE *f = fopen(path, "r");
   if (!f)
      return 0;
   long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : 0;
   long from = size > (long)cap - 1 ? size - (long)cap + 1 : 0;
   fseek(f, from, SEEK_SET);
   size_t n = fread(buf, 1, cap - 1, f);
   fclose(f);
   buf[n] = 0;
   if (from > 0) { /* the first line is cut: drop it */
      char *nl = memchr(buf, '\n', n);
      size_t skip = nl ? (size_t)(nl + 1 - buf) : n;
      memmove(buf, buf + skip, n - skip + 1);
      n -= skip;
   }
   return n;
}

/* The last line of text[0..n) that is not empty, not Valgrind's, nor
 * (CBT_LL_PROGRAM) cbreplay's; with CBT_LL_PROGRAM, an indented line's
 * unindented head a few lines up instead.  Into buf, unprintable bytes
 * as '?'; 0 when none.  text is cut into lines in place. */
static int pick_line(char *text, size_t n, unsigned flags, char *buf, size_t len)
{
   const char *pick = NULL;
   int back = 0;
   for (size_t end = n;; ) {
      size_t s = end;
      while (s > 0 && text[s - 1] != '\n')
         s--;
      text[end] = 0; /* the line is text[s..end) */
      char *line = text + s;
      size_t l = strcspn(line, "\r");
      line[l] = 0;
      int skip = strspn(line, " \t") == l || valgrind_line(line) ||
                 ((flags & CBT_LL_PROGRAM) && !strncmp(line, "cbreplay: ", 10));
      if (!skip) {
         if (!pick)
            pick = line;
         if (!(flags & CBT_LL_PROGRAM) || (line[0] != ' ' && line[0] != '\t')) {
            pick = line;
            break;
         }
         if (++back > DETAIL_LINES)
            break;
      }
      if (s == 0)
         break;
      end = s - 1; /* its newline */
   }
   if (!pick)
      return 0;
   size_t k = 0;
   for (; k + 1 < len && pick[k]; k++)
      buf[k] = (unsigned char)pick[k] < 0x20 || pick[k] == 0x7f ? '?' : pick[k];
   buf[k] = 0;
   return 1;
}

int cbt_last_line(const char *path, unsigned flags, char *buf, size_t len)
{
   char tail[TAIL_BYTES];
   if (!len)
      return 0;
   buf[0] = 0;
   size_t n = read_tail(path, tail, sizeof tail);
   return n && pick_line(tail, n, flags, buf, len);
}

/* cbreplay's output: the program's stdout, then its table, whose first
 * line starts so (reschedule/report.c). */
#define TABLE_HEAD "schedule  pattern  variable"

int cbt_said(const cbt_run *r, char *buf, size_t len)
{
   char tail[TAIL_BYTES];
   if (!len)
      return 0;
   buf[0] = 0;
   if (r->verdict != CBT_FAILED)
      return 0;
   if (r->err_path[0] && cbt_last_line(r->err_path, CBT_LL_PROGRAM, buf, len))
      return 1;
   /* A program that exits non-zero often says why on its stdout.  Not one
    * killed by a signal: its last line on stdout is its progress. */
   size_t n = r->out_path[0] ? read_tail(r->out_path, tail, sizeof tail) : 0;
   char *head = NULL;
   for (char *p = tail; n && (p = strstr(p, TABLE_HEAD)); p++)
      if (p == tail || p[-1] == '\n')
         head = p;
   if (!head || !strstr(head, " failed (exit "))
      return 0;
   return pick_line(tail, (size_t)(head - tail), CBT_LL_PROGRAM, buf, len);
}

int cbt_same_said(const char *a, const char *b)
{
   for (;;) {
      int da = isdigit((unsigned char)*a), db = isdigit((unsigned char)*b);
      if (da != db)
         return 0;
      if (da) { /* a number matches any number */
         while (isdigit((unsigned char)*a)) a++;
         while (isdigit((unsigned char)*b)) b++;
         continue;
      }
      if (*a != *b)
         return 0;
      if (!*a)
         return 1;
      a++;
      b++;
   }
}
