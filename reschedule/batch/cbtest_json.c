/* cbtest_json.c: the one JSON writer of cbtest; report.json and report.sarif
 * both go through it, so escaping is done right in one place, and both are
 * written to their files by cbt_json_write_file.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "cbtest.h"
#include "cbtrace.h"

void cbt_json_init(cbt_json *j, FILE *out)
{
   memset(j, 0, sizeof *j);
   j->out = out;
}

static void indent(cbt_json *j)
{
   fputc('\n', j->out);
   for (int i = 0; i < j->depth; i++)
      fputs("  ", j->out);
}

/* Comma, newline, indentation and "key": before a value. */
static void member(cbt_json *j, const char *key)
{
   if (j->depth > 0) {
      if (j->count[j->depth]++ > 0)
         fputc(',', j->out);
      indent(j);
   }
   if (key && j->depth > 0) {
      fputc('"', j->out);
      cb_json_write_escaped(j->out, key);
      fputs("\": ", j->out);
   }
}

static void open_level(cbt_json *j, const char *key, char c)
{
   member(j, key);
   fputc(c, j->out);
   if (j->depth + 1 >= CBT_JSON_MAX_DEPTH) {
      j->overflow = 1;
      return;
   }
   j->depth++;
   j->count[j->depth] = 0;
   j->closer[j->depth] = c == '{' ? '}' : ']';
}

void cbt_json_object(cbt_json *j, const char *key) { open_level(j, key, '{'); }
void cbt_json_array(cbt_json *j, const char *key) { open_level(j, key, '['); }

void cbt_json_end(cbt_json *j)
{
   if (j->depth <= 0) {
      j->overflow = 1;
      return;
   }
   int had = j->count[j->depth];
   char c = j->closer[j->depth];
   j->depth--;
   if (had)
      indent(j);
   fputc(c, j->out);
}

void cbt_json_string(cbt_json *j, const char *key, const char *s)
{
   member(j, key);
   if (!s) {
      fputs("null", j->out);
      return;
   }
   fputc('"', j->out);
   cb_json_write_escaped(j->out, s);
   fputc('"', j->out);
}

void cbt_json_int(cbt_json *j, const char *key, long long v)
{
   member(j, key);
   fprintf(j->out, "%lld", v);
}

void cbt_json_uint(cbt_json *j, const char *key, unsigned long long v)
{
   member(j, key);
   fprintf(j->out, "%llu", v);
}

void cbt_json_double(cbt_json *j, const char *key, double v)
{
   member(j, key);
   if (!isfinite(v))
      fputs("null", j->out); /* JSON has no NaN or infinity */
   else
      fprintf(j->out, "%.3f", v);
}

void cbt_json_bool(cbt_json *j, const char *key, int v)
{
   member(j, key);
   fputs(v ? "true" : "false", j->out);
}

int cbt_json_finish(cbt_json *j)
{
   fputc('\n', j->out);
   return (j->depth == 0 && !j->overflow) ? 0 : -1;
}

/* ---- A whole document to a file ------------------------------------------------ */

typedef struct {
   cbt_json_writer_fn fn;
   const cbt_suite *s;
   int bad; /* unbalanced JSON: a bug of cbtest */
} json_job;

static void write_json_doc(FILE *f, const void *arg)
{
   json_job *jj = (json_job *)arg;
   cbt_json j;
   cbt_json_init(&j, f);
   jj->fn(&j, jj->s);
   jj->bad = cbt_json_finish(&j);
}

/* Through a temporary name (cbt_write_atomic), so that a reader never sees
 * half a report; a document that came out unbalanced is removed. */
int cbt_json_write_file(const char *path, cbt_json_writer_fn fn,
                        const cbt_suite *s, char *why, size_t whylen)
{
   json_job jj = {.fn = fn, .s = s};
   if (cbt_write_atomic(path, write_json_doc, &jj, why, whylen) != 0)
      return -1;
   if (jj.bad) {
      snprintf(why, whylen, "internal error: unbalanced JSON in %s", path);
      unlink(path);
      return -1;
   }
   return 0;
}
