/* find_schedule.c: from what the user typed to schedule files.
 *
 * `--schedule ARG`: an existing file is used as is (any path); otherwise an
 * id "s17" or "17" names s17.pb in the schedule folder.  The folder is
 * --schedules DIR, else TRACE.schedules when --trace TRACE was given (where
 * cbpredict puts schedules by default, beside its trace), else
 * ./trace.pb.schedules, the default of `cbtrace record` + `cbpredict` run in
 * the current folder.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "replay.h"

const char *cbr_schedules_dir(const cbr_options *o, char *buf, size_t len)
{
   if (o->schedules)
      snprintf(buf, len, "%s", o->schedules);
   else if (o->trace)
      snprintf(buf, len, "%s.schedules", o->trace);
   else
      snprintf(buf, len, "%s", CBR_DEFAULT_SCHEDULES);
   return buf;
}

/* "s17" or "17" -> 17; -1 when arg is not an id. */
static long parse_id(const char *arg)
{
   const char *p = arg[0] == 's' ? arg + 1 : arg;
   if (!*p || strlen(p) > 9)
      return -1;
   for (const char *q = p; *q; q++)
      if (*q < '0' || *q > '9')
         return -1;
   return strtol(p, NULL, 10);
}

static int is_regular(const char *path)
{
   struct stat st;
   return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int absolute(const char *path, char *out, size_t len, cb_error *err)
{
   char buf[PATH_MAX];
   if (!realpath(path, buf))
      return cb_fail(err, "%s: %s", path, strerror(errno));
   if (strlen(buf) >= len)
      return cb_fail(err, "%s: path too long", path);
   strcpy(out, buf);
   return 0;
}

int cbr_find_schedule(const cbr_options *o, const char *arg, char *path,
                      size_t len, cb_error *err)
{
   char dir[PATH_MAX], cand[PATH_MAX + 32];
   struct stat st;

   if (is_regular(arg))
      return absolute(arg, path, len, err);
   long id = parse_id(arg);
   if (id < 0) {
      if (stat(arg, &st) == 0)
         return cb_fail(err, "schedule %s is not a file", arg);
      return cb_fail(err, "no schedule file %s (and it is not an id like "
                          "s17 either)", arg);
   }
   cbr_schedules_dir(o, dir, sizeof dir);
   snprintf(cand, sizeof cand, "%s/s%ld.pb", dir, id);
   if (is_regular(cand))
      return absolute(cand, path, len, err);
   if (stat(dir, &st) != 0)
      return cb_fail(err, "no schedule s%ld: no schedule folder %s (give "
                          "--schedules DIR, or run cbpredict first)", id, dir);
   return cb_fail(err, "no schedule s%ld: %s does not exist", id, cand);
}

typedef struct {
   long id;
   char *path;
} numbered;

static int by_id(const void *a, const void *b)
{
   long x = ((const numbered *)a)->id, y = ((const numbered *)b)->id;
   return (x > y) - (x < y);
}

/* "s17.pb" -> 17, else -1. */
static long schedule_file_id(const char *name)
{
   size_t n = strlen(name);
   if (n < 5 || name[0] != 's' || strcmp(name + n - 3, ".pb") != 0)
      return -1;
   char id[16];
   if (n - 3 >= sizeof id)
      return -1;
   memcpy(id, name, n - 3);
   id[n - 3] = 0;
   return parse_id(id);
}

int cbr_list_schedules(const char *dir, char ***paths, size_t *n,
                       cb_error *err)
{
   char absdir[PATH_MAX];
   DIR *d = opendir(dir);
   if (!d)
      return cb_fail(err, "cannot open schedule folder %s: %s%s", dir,
                     strerror(errno),
                     errno == ENOENT ? " (give --schedules DIR, or run "
                                       "cbpredict first)" : "");
   if (!realpath(dir, absdir)) {
      closedir(d);
      return cb_fail(err, "%s: %s", dir, strerror(errno));
   }
   numbered *v = NULL;
   size_t count = 0, cap = 0;
   struct dirent *de;
   while ((de = readdir(d)) != NULL) {
      long id = schedule_file_id(de->d_name);
      if (id < 0)
         continue;
      if (count == cap) {
         cap = cap ? 2 * cap : 16;
         numbered *nv = realloc(v, cap * sizeof *v);
         if (!nv)
            break;
         v = nv;
      }
      size_t len = strlen(absdir) + strlen(de->d_name) + 2;
      v[count].id = id;
      v[count].path = malloc(len);
      if (!v[count].path)
         break;
      snprintf(v[count].path, len, "%s/%s", absdir, de->d_name);
      count++;
   }
   closedir(d);
   if (count > 1)
      qsort(v, count, sizeof *v, by_id);
   *paths = calloc(count ? count : 1, sizeof **paths);
   for (size_t i = 0; i < count; i++)
      (*paths)[i] = v[i].path;
   free(v);
   *n = count;
   /* An empty folder is no error: cbpredict found nothing to force. */
   return 0;
}
