/* stop.c: SIGINT, SIGTERM and SIGHUP as a request to stop a job pool
 * (pool.h): the one way `cbreplay --all` and `cbtest` are interrupted.
 *
 * The handler only notes the first signal and wakes the pool's wait
 * (cb_pool_wake); the caller's loop sees cb_stop_requested(), stops its
 * jobs through the pool (each job's whole process group), reports what had
 * finished, cleans up, and then dies of the same signal (cb_die_of_signal),
 * so that its parent sees it was interrupted (the shell: 128+N).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pool.h"

static volatile sig_atomic_t g_stop; /* the signal that asked, 0 none */

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
enum { NSTOP = sizeof stop_signals / sizeof *stop_signals };
static struct sigaction g_old[NSTOP];
static int g_caught;

static void on_stop_signal(int sig)
{
   if (!g_stop)
      g_stop = sig;
   cb_pool_wake();
}

void cb_stop_catch(void)
{
   struct sigaction sa;
   memset(&sa, 0, sizeof sa);
   sa.sa_handler = on_stop_signal; /* no SA_RESTART: a blocking call ends */
   sigemptyset(&sa.sa_mask);
   g_stop = 0;
   for (int i = 0; i < NSTOP; i++)
      sigaction(stop_signals[i], &sa, g_caught ? NULL : &g_old[i]);
   g_caught = 1;
}

int cb_stop_requested(void)
{
   return g_stop;
}

void cb_stop_restore(void)
{
   if (!g_caught)
      return;
   for (int i = 0; i < NSTOP; i++)
      sigaction(stop_signals[i], &g_old[i], NULL);
   g_caught = 0;
}

void cb_die_of_signal(int sig)
{
   fflush(NULL);
   struct sigaction dfl;
   memset(&dfl, 0, sizeof dfl);
   dfl.sa_handler = SIG_DFL;
   sigemptyset(&dfl.sa_mask);
   sigaction(sig, &dfl, NULL);
   sigset_t set;
   sigemptyset(&set);
   sigaddset(&set, sig);
   sigprocmask(SIG_UNBLOCK, &set, NULL);
   raise(sig);
   _exit(128 + sig); /* a signal whose default is not to die */
}
