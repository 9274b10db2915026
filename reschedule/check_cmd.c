/* check_cmd.c: runs the user's --check CMD on the program's output.
 *
 * The program's own exit status is its test; --check adds a test of its
 * output for programs that always exit 0 (`--check 'grep -qx 200'`).  CMD
 * runs in its own process group, so that a CMD that hangs is killed whole.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"
#include "replay.h"

int cbr_run_check(const char *cmd, const char *in_path, int out_fd,
                  double timeout_s)
{
   int in = open(in_path, O_RDONLY | O_CLOEXEC);
   if (in < 0)
      return -1;
   pid_t pid = fork();
   if (pid < 0) {
      close(in);
      return -1;
   }
   if (pid == 0) {
      setpgid(0, 0);
      dup2(in, 0);
      if (out_fd != 1)
         dup2(out_fd, 1);
      execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
      _exit(127);
   }
   setpgid(pid, pid);
   close(in);

   double deadline = cbr_now() + timeout_s;
   int ws;
   for (;;) {
      pid_t r = waitpid(pid, &ws, WNOHANG);
      if (r == pid)
         return cb_wait_status_code(ws);
      if (r < 0 && errno != EINTR)
         return -1;
      if (cbr_now() >= deadline) {
         kill(-pid, SIGKILL);
         kill(pid, SIGKILL);
         while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
            ;
         return 124;
      }
      struct timespec nap = {0, 5 * 1000 * 1000};
      nanosleep(&nap, NULL);
   }
}
