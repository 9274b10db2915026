/* cb_replay_status.c: replay mode's status lines (cb_wire.h), the one
 * channel from the tool to cbreplay: cb_replay_status writes each, and the
 * last one says how the run ended ("end exit N by T", "end signal by T",
 * "end signal", "end deadlock").  The facts for it come in as the run goes
 * (exit_group, a SIGABRT sent, the tool ending a deadlocked run); the
 * tool's shut-down says it (cb_main.c).  cb_replay.c follows the plan and
 * says what happened to it through here.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "cb_global.h"

extern Int VG_(safe_fd)(Int oldfd);

Int cb_status_fd = -1;

/* The fd moves up where the program's own fds do not go (Valgrind's
 * reserved range), so the program cannot close or reuse it. */
void cb_replay_status_init(void)
{
   if (cb_status_fd >= 0) {
      Int safe = VG_(safe_fd)(cb_status_fd);
      if (safe >= 0)
         cb_status_fd = safe;
   }
}

/* A write that fails ends them: cbreplay is gone or stopped reading. */
void cb_replay_status(const HChar *line)
{
   if (cb_status_fd < 0)
      return;
   HChar buf[256];
   Int n = VG_(snprintf)(buf, sizeof buf, "%s\n", line);
   if (VG_(write)(cb_status_fd, buf, n) != n)
      cb_status_fd = -1;
}

static Bool cb_deadlocked;       /* the tool ends the run (cb_deadlock.c) */

/* The "blocked" lines are said (cb_deadlock.c); the tool ends the run. */
void cb_replay_deadlocked(void)
{
   cb_deadlocked = True;
}

Bool cb_replay_was_deadlocked(void)
{
   return cb_deadlocked;
}

static Bool cb_exit_seen;
static Int  cb_exit_code;
static UInt cb_exit_wid;   /* the thread that ended the program */

void cb_replay_exit_called(CbThread *t, Int code)
{
   cb_exit_seen = True;
   cb_exit_code = code & 0xff;
   cb_exit_wid = t->wid;
   cb_replay_left_by_itself(t->wid);
}

/* The run will end by SIGABRT (abort, a failed assert) from t, unless it
 * is caught: "end signal by T" names t (the last to raise it). */
static UInt cb_abort_wid;

void cb_replay_abort_raised(CbThread *t)
{
   cb_abort_wid = t->wid;
}

/* The last status line.  Valgrind calls the tool's fini after a fatal
 * signal too, but does not tell the tool which one: cbreplay takes the
 * signal from the wait status. */
void cb_replay_end(void)
{
   HChar buf[64];
   if (cb_deadlocked)
      VG_(snprintf)(buf, sizeof buf, "end deadlock");
   else if (cb_exit_seen)
      VG_(snprintf)(buf, sizeof buf, "end exit %d by %u", cb_exit_code,
                    cb_exit_wid);
   else if (cb_abort_wid)
      VG_(snprintf)(buf, sizeof buf, "end signal by %u", cb_abort_wid);
   else
      VG_(snprintf)(buf, sizeof buf, "end signal");
   cb_replay_status(buf);
}
