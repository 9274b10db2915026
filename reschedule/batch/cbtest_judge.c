/* cbtest_judge.c: the verdict of a forced run, from how its cbreplay job
 * ended and what cbreplay's bug report says (the tail variant, how often
 * the failure came back when forced again, a deadlock's threads).  Both
 * cbtest's own forced runs (cbtest_pipeline.c) and --run-job's
 * (cbtest_merge.c) are judged here.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdio.h>
#include <string.h>

#include "cbtest.h"
#include "cbtrace.h"

/* From cbreplay's bug report (reschedule/report.c): the tail variant of a
 * schedule with several ("  tail variant N ...", or the hunt's "  forced
 * as variant N, by the hunt ...", else -1), and how often
 * the failure was forced again and came back ("  not reproduced: forced
 * again N times, it failed M"; a reproduced one says "reproduce: ..." and
 * came back every time: --confirm, CBT_CONFIRM for cbtest's runs). */
static void replay_facts(cbt_run *r)
{
   FILE *f = fopen(r->out_path, "r");
   char line[512];
   unsigned n, m;
   r->variant = -1;
   r->again = r->again_failed = 0;
   r->pinned[0] = 0;
   r->violation = -1;
   while (f && fgets(line, sizeof line, f)) {
      if (r->variant < 0 && sscanf(line, "  tail variant %d", &r->variant) != 1)
         (void)sscanf(line, "  forced as variant %d, by the hunt", &r->variant);
      if (!strncmp(line, "  the violation happened in this run: ", 38))
         r->violation = !strncmp(line + 38, "yes", 3) ? 1
                        : !strncmp(line + 38, "no", 2) ? 0
                        : strstr(line + 38, "left the schedule's path") ? CBT_LEFT_PATH
                        : -1;
      /* "  pinned: variant V failed again M of N times (...); ... forced,
       * failed K of K: PATH": the schedule's own counts stay as they were. */
      const char *pin = !strncmp(line, "  pinned: ", 10) ? strstr(line, " forced, failed ") : NULL;
      int v;
      if (pin && (pin = strstr(pin, ": ")) != NULL &&
          sscanf(line, "  pinned: variant %d failed again %u of %u", &v, &m, &n) == 3) {
         cbt_fmt(r->pinned, sizeof r->pinned, "%s", pin + 2);
         r->pinned[strcspn(r->pinned, "\n")] = 0;
         r->again = n;
         r->again_failed = m;
      }
      const char *failed = strstr(line, ", it failed ");
      if (!failed) /* a cure's: how often it passed again */
         failed = strstr(line, ", it passed ");
      if (sscanf(line, "  not reproduced: forced again %u", &n) == 1 &&
          failed && sscanf(failed, r->cure ? ", it passed %u" : ", it failed %u", &m) == 1) {
         r->again = n;
         r->again_failed = m;
      } else if (!strncmp(line, "  reproduce: ", 13) && !r->pinned[0] &&
                 !strstr(line, "(not forced again")) {
         r->again = r->again_failed = CBT_CONFIRM; /* every one it was asked */
      }
   }
   if (f)
      fclose(f);
}

/* A deadlock's threads as cbreplay's bug report names them, one a line
 * ("    T2 waits for lock b at x.c:28, held by T3 (taken at x.c:38)", and
 * "    and N more threads wait": reschedule/report.c, print_ending), into
 * buf one a line. */
static void replay_deadlock(const char *out_path, char *buf, size_t len)
{
   buf[0] = 0;
   FILE *f = fopen(out_path, "r");
   char line[1024];
   size_t n = 0;
   while (f && fgets(line, sizeof line, f)) {
      const char *p = line + 4;
      size_t digits = strspn(p + 1, "0123456789");
      int wait = !strncmp(line, "    T", 5) && digits &&
                 !strncmp(p + 1 + digits, " waits ", 7);
      if (!wait && strncmp(line, "    and ", 8) != 0)
         continue;
      if (!wait && !strstr(line, " more threads wait"))
         continue;
      line[strcspn(line, "\n")] = 0;
      int k = snprintf(buf + n, len - n, "%s%s", n ? "\n" : "", p);
      if (k < 0 || (size_t)k >= len - n)
         break; /* cut at a whole thread */
      n += (size_t)k;
   }
   if (n < len)
      buf[n] = 0;
   if (f)
      fclose(f);
}

void cbt_judge_replay(cbt_run *r, const cb_job_end *e)
{
   r->exit_code = e->code;
   replay_facts(r);
   r->seconds = e->seconds;
   if (e->code < 0 && e->error[0]) {
      r->verdict = CBT_ERROR; /* cbreplay did not start */
      cbt_fmt(r->note, sizeof r->note, "%s", e->error);
   } else if (e->timed_out) {
      r->verdict = CBT_ERROR;
      cbt_fmt(r->note, sizeof r->note, "cbreplay did not end and was stopped");
   } else {
      switch (e->code) {
      case 0: r->verdict = CBT_PASSED; break;
      case 1: r->verdict = r->cure ? CBT_CURED : CBT_FAILED; break;
      case 3: r->verdict = CBT_INFEASIBLE; break;
      case 4: r->verdict = CBT_HUNG; break;
      case 6: r->verdict = CBT_DEADLOCK; break;
      default: r->verdict = CBT_ERROR; break; /* 5: the tool failed */
      }
      if (r->verdict == CBT_DEADLOCK)
         replay_deadlock(r->out_path, r->deadlock, sizeof r->deadlock);
      if (r->verdict == CBT_ERROR) {
         char line[256];
         cbt_last_line(r->err_path, 0, line, sizeof line);
         if (r->readable || !r->note[0])
            cbt_fmt(r->note, sizeof r->note, "cbreplay exit %d%s%s", e->code,
                     *line ? ": " : "", line);
      }
   }
}
