/* cbtest_suite.c: the tests file.  One test command a line, split into words
 * the way a simple shell would (see cbt_split_words in cbtest.h), so that a
 * line can be pasted from a terminal and back.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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

int cbt_read_suite(const char *path, cbt_command **cmds, size_t *n,
                   char *why, size_t whylen)
{
   *cmds = NULL;
   *n = 0;
   FILE *f = fopen(path, "r");
   if (!f) {
      snprintf(why, whylen, "cannot read tests file %s: %s", path,
               strerror(errno));
      return -1;
   }
   char *line = NULL;
   size_t cap = 0;
   int lineno = 0;
   cbt_command *list = NULL;
   size_t count = 0;
   ssize_t got;
   while ((got = getline(&line, &cap, f)) >= 0) {
      lineno++;
      if ((size_t)got != strlen(line)) {
         snprintf(why, whylen, "%s:%d: a NUL byte: not a tests file", path,
                  lineno);
         goto fail;
      }
      char **words;
      const char *bad;
      int nw = cbt_split_words(line, &words, &bad);
      if (nw < 0) {
         snprintf(why, whylen, "%s:%d: %s", path, lineno, bad);
         goto fail;
      }
      if (nw == 0) {
         cbt_free_words(words);
         continue;
      }
      cbt_command *more = realloc(list, (count + 1) * sizeof *list);
      if (!more) {
         cbt_free_words(words);
         snprintf(why, whylen, "out of memory");
         goto fail;
      }
      list = more;
      list[count].argv = words;
      list[count].argc = nw;
      list[count].line = lineno;
      count++;
   }
   if (ferror(f)) {
      snprintf(why, whylen, "cannot read tests file %s: %s", path,
               strerror(errno));
      goto fail;
   }
   free(line);
   fclose(f);
   *cmds = list;
   *n = count;
   return 0;
fail:
   for (size_t i = 0; i < count; i++)
      cbt_free_words(list[i].argv);
   free(list);
   free(line);
   fclose(f);
   return -1;
}


int cbt_fmt(char *buf, size_t len, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   int n = vsnprintf(buf, len, fmt, ap);
   va_end(ap);
   return (n < 0 || (size_t)n >= len) ? -1 : 0;
}
