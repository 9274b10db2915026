/* cbtest_words.c: the words of a forced run's verdict, a test's outcome
 * and an event's place, as the summary, the reports and the state file
 * write them.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "cbtest.h"

const char *cbt_verdict_name(enum cbt_verdict v)
{
   switch (v) {
   case CBT_PENDING: return "pending";
   case CBT_PASSED: return "passed";
   case CBT_FAILED: return "failed";
   case CBT_INFEASIBLE: return "infeasible";
   case CBT_HUNG: return "hung";
   case CBT_DEADLOCK: return "deadlock";
   case CBT_ERROR: return "error";
   case CBT_CURED: return "cured";
   case CBT_NVERDICTS: break;
   }
   return "?";
}

const char *cbt_verdict_words(enum cbt_verdict v)
{
   return v == CBT_DEADLOCK ? "deadlocked"
          : v == CBT_CURED  ? "passed with this order the other way round"
                            : cbt_verdict_name(v);
}

int cbt_is_bug(enum cbt_verdict v)
{
   return v == CBT_FAILED || v == CBT_DEADLOCK || v == CBT_HUNG || v == CBT_CURED;
}

const char *cbt_outcome_name(enum cbt_outcome o)
{
   switch (o) {
   case CBT_O_NONE: return "not run";
   case CBT_O_ERROR: return "error";
   case CBT_O_FAILED_NATIVELY: return "failed natively";
   case CBT_O_CLEAN: return "clean";
   case CBT_O_BUGS: return "bugs";
   }
   return "?";
}

const char *cbt_event_where(const cbt_event *e, char *buf, size_t len)
{
   if (!e->file[0])
      cbt_fmt(buf, len, "?");
   else if (e->line)
      cbt_fmt(buf, len, "%s:%u", e->file, e->line);
   else
      cbt_fmt(buf, len, "%s", e->file);
   return buf;
}
