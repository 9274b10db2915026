/* cbtest_crash.c: where a forced run crashed, or what its failing thread
 * misread, and which bug that points at.
 *
 * A forced run that kills the program with a signal says where in the
 * program's own code it died: Valgrind's "Process terminating with default
 * action of signal N" and the stack under it, in the run's stderr.  The
 * violation a schedule forced may only have let the crash happen (forcing
 * a harmless race on a scratch variable let a detached thread run after
 * main tore its logger down, and the crash is a NULL logger in log_msg):
 * the bug to show first is the one whose own accesses are where the
 * program died.  So a test whose first confirmed bug crashed away from its
 * pattern forces a few more of its schedules, those with an access in the
 * function that crashed, nearest the crashing line first (cbtest_pipeline.c),
 * and the ranking puts a bug that crashed in its own function before one
 * that crashed elsewhere (cbtest_bugs.c).
 *
 * A run that failed by the program's own check (an exit code, or an
 * abort: a failed assert) points the same way through its misread
 * (reschedule/misread.c): the value the thread that ended the run read
 * otherwise than the recorded run, which cbreplay reports when it
 * recorded a failing run (--pin, which cbtest passes, and --trace).  A
 * schedule aimed at a queue's `next` link let a handler take a request
 * before its deadline was set, and the handler read the deadline 0: the
 * bug to show first is one on the deadline.  So
 * the schedules forced next are those on the misread variable or with an
 * access at its read, and a bug on it ranks before one beside it.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdlib.h>
#include <string.h>

#include "cbtest.h"

static const char *base_of(const char *path)
{
   const char *b = strrchr(path, '/');
   return b ? b + 1 : path;
}

/* Whether file (a frame's, a base name) is one of r's pattern files: the
 * program's own source, as its trace names it. */
static int program_file(const cbt_run *r, const char *file)
{
   const cbt_event *ev[3] = {&r->e1, &r->f, &r->e2};
   for (int k = 0; k < 3; k++)
      if (ev[k]->file[0] && !strcmp(base_of(ev[k]->file), file))
         return 1;
   return 0;
}

/* One frame line, "==PID==    at 0x...: FUNC (FILE:LINE)" or "by", into
 * func, file and line; 0 when it is none. */
static int frame_of(const char *line, char *func, size_t flen, char *file,
                    size_t filelen, unsigned *lno)
{
   const char *p = strstr(line, "   at 0x");
   if (!p)
      p = strstr(line, "   by 0x");
   if (!p || !(p = strstr(p, ": ")))
      return 0;
   p += 2;
   const char *open = strrchr(p, '(');
   const char *colon = open ? strrchr(open, ':') : NULL;
   if (!open || !colon || open == p)
      return 0;
   size_t n = (size_t)(open - p);
   while (n > 0 && p[n - 1] == ' ')
      n--;
   if (n == 0 || n >= flen || (size_t)(colon - open - 1) >= filelen)
      return 0;
   memcpy(func, p, n);
   func[n] = 0;
   memcpy(file, open + 1, (size_t)(colon - open - 1));
   file[colon - open - 1] = 0;
   char *end;
   unsigned long v = strtoul(colon + 1, &end, 10);
   if (end == colon + 1 || *end != ')')
      return 0;
   *lno = (unsigned)v;
   return 1;
}

static int signal_site(const cbt_run *r, cbt_crash *c);

/* "  misread: T2 read VAR = V (recorded run: W) at FILE:LINE in FUNC(),
 * the last value ..." (reschedule/report_bug.c) into c; 0 when the line
 * is not one. */
static int misread_of(const char *line, cbt_crash *c)
{
   const char *p = !strncmp(line, "  misread: ", 11) ? line + 11 : NULL;
   const char *var = p ? strstr(p, " read ") : NULL;
   const char *eq = var ? strstr(var, " = ") : NULL;
   const char *at = eq ? strstr(eq, ") at ") : NULL;
   const char *end = at ? strstr(at, ", the last value ") : NULL;
   if (!end || (size_t)(eq - var - 6) >= sizeof c->variable ||
       (size_t)(end - p) >= sizeof c->misread)
      return 0;
   memcpy(c->variable, var + 6, (size_t)(eq - var - 6));
   c->variable[eq - var - 6] = 0;
   memcpy(c->misread, p, (size_t)(end - p));
   c->misread[end - p] = 0;
   /* FILE:LINE, then " in FUNC()" when the function is known */
   const char *where = at + 5, *in = strstr(where, " in ");
   const char *colon = memchr(where, ':', (size_t)(end - where));
   if (!colon || (size_t)(colon - where) >= sizeof c->file)
      return 0;
   memcpy(c->file, where, (size_t)(colon - where));
   c->file[colon - where] = 0;
   const char *base = base_of(c->file);
   memmove(c->file, base, strlen(base) + 1);
   c->line = (unsigned)strtoul(colon + 1, NULL, 10);
   if (in && in < end) {
      size_t n = (size_t)(end - in - 4);
      if (n > 2 && n < sizeof c->function && !strncmp(end - 2, "()", 2)) {
         memcpy(c->function, in + 4, n - 2);
         c->function[n - 2] = 0;
      }
   }
   return 1;
}

/* The misread cbreplay's report on r gives, if any. */
static int misread_site(const cbt_run *r, cbt_crash *c)
{
   FILE *f = r->out_path[0] ? fopen(r->out_path, "r") : NULL;
   char line[2048];
   int found = 0;
   memset(c, 0, sizeof *c);
   while (f && !found && fgets(line, sizeof line, f))
      found = misread_of(line, c);
   if (f)
      fclose(f);
   if (!found)
      memset(c, 0, sizeof *c); /* a line that began to parse and failed */
   return found;
}

/* A crash where the program died; but an abort (a failed assert) is the
 * program's own check, as an exit code is: its misread, when there is
 * one, says what went wrong. */
int cbt_crash_site(const cbt_run *r, cbt_crash *c)
{
   cbt_crash m;
   int crashed = signal_site(r, c);
   if (crashed && strcmp(c->signal, "SIGABRT") != 0)
      return 1;
   if (r->verdict == CBT_FAILED && misread_site(r, &m)) {
      *c = m;
      return 1;
   }
   return crashed;
}

static int signal_site(const cbt_run *r, cbt_crash *c)
{
   memset(c, 0, sizeof *c);
   if (r->verdict != CBT_FAILED || !r->err_path[0])
      return 0;
   FILE *f = fopen(r->err_path, "r");
   char line[1024];
   int in_stack = 0;
   while (f && fgets(line, sizeof line, f)) {
      const char *sig = strstr(line, "Process terminating with default action of signal ");
      if (sig) {
         const char *name = strchr(sig, '(');
         size_t n = name ? strcspn(name + 1, ")") : 0;
         if (n == 0 || n >= sizeof c->signal)
            continue;
         memcpy(c->signal, name + 1, n);
         c->signal[n] = 0;
         in_stack = 1;
         continue;
      }
      char func[sizeof c->function], file[sizeof c->file];
      unsigned lno;
      if (in_stack && frame_of(line, func, sizeof func, file, sizeof file, &lno) &&
          program_file(r, file)) {
         memcpy(c->function, func, sizeof func);
         memcpy(c->file, file, sizeof file);
         c->line = lno;
         break;
      }
   }
   if (f)
      fclose(f);
   return c->function[0] != 0;
}

int cbt_crash_distance(const cbt_run *r, const cbt_crash *c)
{
   const cbt_event *ev[3] = {&r->e1, &r->f, &r->e2};
   int best = -1;
   if (!c->signal[0]) { /* a misread: its variable, or its very read */
      if (c->variable[0] && !strcmp(r->variable, c->variable))
         return 0;
      for (int k = 0; k < 3; k++)
         if (ev[k]->line == c->line && !strcmp(base_of(ev[k]->file), c->file))
            return 0;
      return -1;
   }
   for (int k = 0; k < 3; k++) {
      if (strcmp(ev[k]->function, c->function) ||
          strcmp(base_of(ev[k]->file), c->file))
         continue;
      int d = abs((int)ev[k]->line - (int)c->line);
      if (best < 0 || d < best)
         best = d;
   }
   return best;
}

void cbt_crash_words(const cbt_crash *c, char *buf, size_t len)
{
   if (!c->signal[0]) {
      cbt_fmt(buf, len, "%s", c->misread);
      return;
   }
   cbt_fmt(buf, len, "the program died of %s in %s() at %s:%u", c->signal,
           c->function, c->file, c->line);
}

/* The runs from `from` on whose pattern has an access in the function that
 * crashed, nearest the crashing line first: up to max of them moved to
 * from, from + 1, ...; returns how many. */
size_t cbt_crash_runs_first(cbt_test *t, size_t from, const cbt_crash *c,
                            size_t max)
{
   size_t moved = 0;
   while (moved < max) {
      size_t pick = (size_t)-1;
      int best = -1;
      for (size_t i = from + moved; i < t->nruns; i++) {
         int d = t->runs[i].readable ? cbt_crash_distance(&t->runs[i], c) : -1;
         if (d >= 0 && (best < 0 || d < best)) {
            best = d;
            pick = i;
         }
      }
      if (pick == (size_t)-1)
         break;
      size_t to = from + moved++;
      if (pick != to) {
         cbt_run tmp = t->runs[to];
         t->runs[to] = t->runs[pick];
         t->runs[pick] = tmp;
      }
   }
   return moved;
}
