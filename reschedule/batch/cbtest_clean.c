/* cbtest_clean.c: what cbtest leaves behind, whether it finished or was
 * interrupted.
 *
 * Every stage cbtest starts gets a private temporary folder as its TMPDIR
 * ($TMPDIR/cbtest-run.XXXXXX), removed with all it holds when cbtest ends
 * (short of SIGKILL): what a stage killed after its grace leaves in TMPDIR
 * (cbreplay's cbreplay.XXXXXX folders, Valgrind's files) goes with it, and
 * so do the test programs' own temporary files.  An interrupted test's work
 * folder loses the half-written files of the stages that were stopped (a
 * schedule or a report under its temporary name, cb_is_temp_name); what
 * had finished stays, for the reports.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cbtest.h"
#include "cbtrace.h"

static char g_tmp[PATH_MAX]; /* the private TMPDIR, "" when none */
static pid_t g_owner;        /* the process that made it */

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw)
{
   (void)st;
   (void)ftw;
   if (flag == FTW_DP)
      rmdir(path);
   else
      unlink(path);
   return 0;
}

void cbt_remove_tree(const char *path)
{
   nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void cbt_private_tmp_remove(void)
{
   /* Only its maker: a child that exits through exit() must not. */
   if (g_tmp[0] && getpid() == g_owner) {
      cbt_remove_tree(g_tmp);
      g_tmp[0] = 0;
   }
}

int cbt_private_tmp(char *why, size_t whylen)
{
   const char *base = getenv("TMPDIR");
   if (!base || !*base)
      base = "/tmp";
   if (cbt_fmt(g_tmp, sizeof g_tmp, "%s/cbtest-run.XXXXXX", base) != 0 ||
       !mkdtemp(g_tmp)) {
      cbt_fmt(why, whylen, "cannot create a temporary folder in %s: %s",
              base, errno ? strerror(errno) : "path too long");
      g_tmp[0] = 0;
      return -1;
   }
   g_owner = getpid();
   if (setenv("TMPDIR", g_tmp, 1) != 0) {
      cbt_fmt(why, whylen, "cannot set TMPDIR: %s", strerror(errno));
      cbt_private_tmp_remove();
      return -1;
   }
   atexit(cbt_private_tmp_remove);
   return 0;
}

static int remove_partial(const char *path, const struct stat *st, int flag,
                          struct FTW *ftw)
{
   (void)st;
   (void)ftw;
   if (flag == FTW_F && cb_is_temp_name(path))
      unlink(path);
   return 0;
}

void cbt_sweep_partial(const char *dir)
{
   nftw(dir, remove_partial, 16, FTW_PHYS);
}
