/* check_cmd.c: runs the user's --check CMD on the program's output.
 *
 * The program's own exit status is its test; --check adds a test of its
 * output for programs that always exit 0 (`--check 'grep -qx 200'`).  CMD
 * runs in its own process group, so that a CMD that hangs is killed whole.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "replay.h"
#include "spawn.h"

int cbr_run_check(const char *cmd, const char *in_path, int out_fd,
                  double timeout_s)
{
   int in = open(in_path, O_RDONLY | O_CLOEXEC);
   if (in < 0)
      return -1;
   char *const argv[] = {"sh", "-c", (char *)cmd, NULL};
   cb_spawn_spec s = CB_SPAWN_SPEC_INIT;
   s.file = "/bin/sh";
   s.argv = argv;
   s.fd_in = in;
   s.fd_out = out_fd;
   s.new_group = 1;
   cb_error err;
   pid_t pid = cb_spawn(&s, &err);
   close(in);
   if (pid == -2)
      return 127; /* no /bin/sh: as the shell says of a missing command */
   if (pid < 0)
      return -1;

   double deadline = cb_now() + timeout_s;
   int ws;
   for (;;) {
      pid_t r = cb_wait(pid, &ws, WNOHANG);
      if (r == pid)
         return cb_wait_status_code(ws);
      if (r < 0)
         return -1;
      if (cb_now() >= deadline) {
         kill(-pid, SIGKILL);
         kill(pid, SIGKILL);
         cb_wait(pid, &ws, 0);
         return 124;
      }
      struct timespec nap = {0, 5 * 1000 * 1000};
      nanosleep(&nap, NULL);
   }
}
