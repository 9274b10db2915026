/* cbpredict: predicts atomicity-violating schedules from one recorded run
 * (PENELOPE sections 3 and 4) and writes one schedule file per violation.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rank.h"
#include "explore.h"

/* --base: the candidates on lines base_path's trace never ran first
 * (fresh.c); 0, or 1 when that trace cannot be read (said on stderr).  A
 * truncated base is used as far as it is whole: a line it lacks only
 * ranks a candidate first. */
static int prefer_fresh(const char *base_path, const cb_trace *t, cbp_analysis *a,
                        size_t *fresh) {
   cb_trace base;
   memset(&base, 0, sizeof base);
   cb_error err;
   if (cb_trace_read(base_path, &base, &err)) {
      fprintf(stderr, "cbpredict: cannot read --base %s: %s\n", base_path, err.msg);
      return 1;
   }
   *fresh = cbp_prefer_fresh(t, &base, &a->r);
   cb_trace_free(&base);
   return 0;
}

#define FRESH_BUILD 64

/* How many schedules to build for --max limit: with --base, the new
 * path's violations all (up to FRESH_BUILD); with --seen, room for those
 * forced before, which are not written.  more: how many such. */
static size_t build_count(size_t limit, size_t more) {
   if (more > FRESH_BUILD) more = FRESH_BUILD;
   return limit > SIZE_MAX - more ? SIZE_MAX : limit + more;
}

static const char usage[] =
   "usage: cbpredict [-o DIR] [--json] [--max N] [--blocks=MODE] [--patterns=LIST]\n"
   "                 [--partial] [--recorded-failed [--cures]]\n"
   "                 [--delays N [--seed S] [--seen FILE]]\n"
   "                 [--base TRACE]\n"
   "                 [--z3 [--z3-timeout MS] [--z3-window N]] [--jobs N] TRACE\n"
   "\n"
   "Finds every way two threads and one variable can break the atomicity of a\n"
   "block in the recorded run TRACE (patterns RWR, RWW, WRW, WWR, WWW), and\n"
   "every pair of nested lock acquisitions in opposite orders that can\n"
   "deadlock (pattern DLK: e1 T1 takes A, f T2 takes B, e2 T1 asks for B),\n"
   "every pair of conflicting accesses of two threads that no create, join,\n"
   "barrier or signal orders, forced the other way round (pattern ORD: e1 = e2\n"
   "= the access that ran first, f = the other thread's, forced before it: a use\n"
   "before an initialisation, a check that another thread's act overtakes), and\n"
   "writes one schedule per predicted violation, DIR/s1.pb, DIR/s2.pb, ...,\n"
   "that `cbreplay --schedule sN -- PROG` forces.  Prints a table of the\n"
   "violations (pattern, variable, the three file:line locations, threads)\n"
   "and a summary line.\n"
   "\n"
   "options:\n"
   "  -o, --output DIR   where schedules go (default: TRACE.schedules/ beside\n"
   "                     the trace); created if needed; old s*.pb removed\n"
   "  --json             one JSON object on stdout instead of the table\n"
   "  --max N            build and write at most N schedules\n"
   "  --blocks=MODE      what a transaction is: functions (the outermost call\n"
   "                     below the thread's root function), markup (the\n"
   "                     outermost CB_ATOMIC_BEGIN/END region), or auto\n"
   "                     (default: markup if the trace has any, else functions)\n"
   "  --patterns=LIST    which shapes to look for, comma-separated: atomicity\n"
   "                     (RWR..WWW), deadlock (DLK), order (ORD); default all.\n"
   "                     Blocks are every function activation and each\n"
   "                     thread's whole run (its start routine or main)\n"
   "  --partial          predict from the readable part of a truncated trace\n"
   "  --recorded-failed  the recorded run's non-zero exit was the test failing\n"
   "                     (cbtest, for a test that failed in each recorded run):\n"
   "                     a forced run that exits so fails (by default a forced\n"
   "                     run passes with the recorded run's own exit code), and\n"
   "                     only the violations that happened in that run, a\n"
   "                     thread's access, another's, the first's next, are\n"
   "                     written\n"
   "  --cures            with --recorded-failed, when none happened in that\n"
   "                     run: its orders of two threads' conflicting accesses,\n"
   "                     each forced the other way round (pattern ORD, the\n"
   "                     first thread's reads since its last synchronisation\n"
   "                     moved after the other's access); a forced run that\n"
   "                     passes names the failure's cause (cbreplay: cured);\n"
   "                     a run that deadlocked: its threads blocked on a\n"
   "                     condition that another thread signalled before their\n"
   "                     wait began, forced to wait first (a lost wake-up),\n"
   "                     and the cycle of threads waiting for each other's\n"
   "                     locks as the recorded run itself (DLK: forced, it\n"
   "                     deadlocks again)\n"
   "  --jobs N           threads cbpredict may use, for the analysis and for\n"
   "                     writing the schedules (default: the online CPUs, at\n"
   "                     most 2; 1: one thread); the output is the same\n"
   "  --delays N         also explore, for when prediction finds nothing that\n"
   "                     fails: schedules (pattern explore) that follow the\n"
   "                     recorded run to a delay point, a thread's conflicting\n"
   "                     access (a variable two threads touch, one writing) or\n"
   "                     synchronisation call, and hold that thread back; up to\n"
   "                     N points a schedule (1..7): the thread of the next point\n"
   "                     runs alone to it and is held in turn; after the last,\n"
   "                     every other thread runs out alone, then the held one,\n"
   "                     then all are free.\n"
   "                     Every single delay first, then chains drawn at random;\n"
   "                     no ordering twice.  At most --max schedules in all\n"
   "                     (default: the predicted ones and 100 of these).\n"
   "                     --patterns=explore writes only these\n"
   "  --seed S           the order and the draws of --delays (default 1): the\n"
   "                     same seed, the same schedules\n"
   "  --seen FILE        orderings not to write again (digests, one a line, as\n"
   "                     cbtest --explore keeps them for the schedules it forced):\n"
   "                     neither delay schedules nor predicted ones, nor one\n"
   "                     aimed at the lines of a pattern that FILE holds twice\n"
   "                     (cb_site_digest); --max counts only the new\n"
   "  --base TRACE       build and number first the violations with e1, f or e2\n"
   "                     on a source line that TRACE (another run of the same\n"
   "                     program, as cbtest's exploration passes the test's\n"
   "                     recording) has no event at: the path this run took\n"
   "                     and that one did not\n"
   "  --z3               prove each candidate possible before writing its\n"
   "                     schedule: Z3 looks for an execution consistent with\n"
   "                     the recorded one (same locks, the same happens-before\n"
   "                     edges as the lockset pass, every read before the\n"
   "                     violation reading the value it read) that runs e1, f,\n"
   "                     e2 in that order (an order violation: f before e1; a\n"
   "                     deadlock: both first locks held at once).\n"
   "                     Unsatisfiable over the whole trace up to the\n"
   "                     violation: the candidate is dropped (a flag or a\n"
   "                     counter orders the threads) and counted; undecided\n"
   "                     (time limit, a window that does not reach back to\n"
   "                     the trace's start): kept; satisfiable: kept, and the\n"
   "                     model's order becomes the schedule when replay can\n"
   "                     follow it.  The table and --json say how many were\n"
   "                     found, dropped, undecided and kept, and the time per\n"
   "                     query; each schedule's z3 field says sat (the\n"
   "                     schedule is the model's order) or unknown\n"
   "  --z3-timeout MS    time limit of one query (default 2000; 0: none)\n"
   "  --z3-window N      at most N events of the trace per query (default 1000;\n"
   "                     0: no limit); events before the window keep their\n"
   "                     recorded order, and its answer unsat is no proof;\n"
   "                     a query whose window must reach from e1 to an f\n"
   "                     more than 4N events away is not asked (undecided)\n"
   "  -h, --help         this text\n"
   "\n"
   "Reader/writer locks: two sections read-locked on one rwlock do not\n"
   "exclude each other (an update made under rdlock is predicted against\n"
   "another reader's access); a write-locked section excludes every other\n"
   "section of the lock, and a lock-order cycle through two read holds is\n"
   "no deadlock.\n"
   "\n"
   "exit status: 0 success (also when nothing is predicted); 1 the schedules\n"
   "could not be written, or Z3 could not start; 2 bad usage, or a trace that is missing, truncated,\n"
   "corrupt, empty or without threads.\n";

static int bad_usage(const char *what) {
   fprintf(stderr, "cbpredict: %s\nusage: cbpredict [-o DIR] [--json] [--max N] "
                   "[--blocks=MODE] [--z3] TRACE (see --help)\n", what);
   return 2;
}

/* A non-negative decimal number, whole: 0, else -1. */
static int parse_count(const char *s, unsigned long long *v) {
   char *end;
   errno = 0;
   *v = strtoull(s, &end, 10);
   return errno || *end || !*s || s[0] == '-' || s[0] == '+' || s[0] == ' ' ? -1 : 0;
}

static double now(void) {
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int make_dir(const char *dir) {
   char buf[4096];
   if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) { errno = ENAMETOOLONG; return -1; }
   for (char *p = buf + 1; *p; p++)
      if (*p == '/') {
         *p = 0;
         if (mkdir(buf, 0777) && errno != EEXIST) return -1;
         *p = '/';
      }
   if (mkdir(buf, 0777) && errno != EEXIST) return -1;
   struct stat st;
   if (stat(buf, &st) || !S_ISDIR(st.st_mode)) { errno = ENOTDIR; return -1; }
   return 0;
}

/* Removes the s<digits>.pb files a previous run left, and the
 * s<digits>-pinned.pb that cbreplay made of their failing runs. */
static void remove_stale(const char *dir) {
   DIR *d = opendir(dir);
   if (!d) return;
   struct dirent *de;
   while ((de = readdir(d))) {
      const char *n = de->d_name;
      if (n[0] != 's' || !n[1]) continue;
      size_t k = 1;
      while (n[k] >= '0' && n[k] <= '9') k++;
      if (k == 1 || (strcmp(n + k, ".pb") && strcmp(n + k, "-pinned.pb"))) continue;
      char *p;
      if (asprintf(&p, "%s/%s", dir, n) < 0) continue;
      unlink(p);
      free(p);
   }
   closedir(d);
}

/* What an option that takes a value wants, for "-o needs a folder". */
static const char *value_wanted(int opt) {
   switch (opt) {
   case 'o': return "a folder";
   case 'm': return "a number of schedules";
   case 'b': return "a mode (functions, markup or auto)";
   case 'P': return "a list of atomicity, deadlock, order";
   case 'T': return "milliseconds";
   case 'W': return "a number of events";
   case 'D': return "a number of delays";
   case 'S': case 'J': return "a number";
   case 'F': return "a file";
   default: return "a value";
   }
}

/* --z3 progress on stderr (z3_predict.c calls it after each query): from
 * 2 s on, on a terminal one line kept in place, else a line every 10 s, so
 * that a long run is never silent and a log of one stopped from outside
 * says how far it got. */
static double z3_started, z3_shown;
static int z3_line;      /* a line in place is on the terminal */
static size_t z3_limit;  /* --max: at most this many are asked */

static void z3_progress(const cbp_z3_summary *s) {
   double t = now(), since = t - z3_started;
   int tty = isatty(2);
   if (since < 2 || t - z3_shown < (tty ? 0.5 : 10)) return;
   z3_shown = t;
   uint64_t most = s->candidates < z3_limit ? s->candidates : z3_limit;
   fprintf(stderr, "%scbpredict: z3: %llu candidates asked (of at most %llu): "
                   "%llu sat, %llu dropped, %llu undecided; %.0f s%s",
           tty ? "\r\033[K" : "", (unsigned long long)s->asked,
           (unsigned long long)most, (unsigned long long)s->sat,
           (unsigned long long)s->dropped, (unsigned long long)s->undecided,
           since, tty ? "" : "\n");
   z3_line = tty;
   fflush(stderr);
}

static void z3_progress_end(void) {
   if (z3_line) fputs("\r\033[K", stderr);
   z3_line = 0;
}

/* "atomicity,order" -> the families to skip (the complement); "explore"
 * asks for delay schedules (*explore). */
static int parse_patterns(const char *arg, unsigned *skip, int *explore) {
   static const struct { const char *name; unsigned fam; } fams[] = {
      {"atomicity", CBP_FAM_ATOMICITY}, {"deadlock", CBP_FAM_DEADLOCK},
      {"order", CBP_FAM_ORDER}, {"explore", 8u}};
   unsigned want = 0;
   const char *p = arg;
   while (*p) {
      size_t n = strcspn(p, ",");
      unsigned f = 0;
      for (size_t k = 0; k < sizeof fams / sizeof *fams; k++)
         if (strlen(fams[k].name) == n && !strncmp(p, fams[k].name, n)) f = fams[k].fam;
      if (!f) return -1;
      want |= f;
      p += n;
      if (*p == ',') p++;
   }
   if (!want) return -1;
   *explore = (want & 8u) != 0;
   *skip = (CBP_FAM_ATOMICITY | CBP_FAM_DEADLOCK | CBP_FAM_ORDER) & ~want;
   return 0;
}

/* --delays: delay schedules after the predicted ones, numbered on from
 * them, with what is left of --max (explore.c).  0, or 1 when one could not
 * be written. */
static int write_delays(const cb_trace *t, cbp_analysis *a, cbp_explore_options *eo,
                        const char *dir, size_t limit, uint64_t *written,
                        cbp_explore_result *xr) {
   cb_error err;
   eo->max = limit == (size_t)-1 ? CBP_EXPLORE_DEFAULT_MAX
             : limit > *written  ? limit - *written : 0;
   int rc = cbp_explore_write(t, a, eo, dir, (uint32_t)*written + 1, xr, &err);
   if (rc)
      fprintf(stderr, "cbpredict: cannot write a delay schedule in %s: %s\n", dir, err.msg);
   *written += xr->written;
   return rc ? 1 : 0;
}

/* What the command line asks. */
typedef struct {
   cbp_options o;
   const char *dir, *seen_path, *base_path, *path;
   int json, partial, z3, explore, run_failed, cures;
   cbp_z3_summary z3s;
   size_t limit;              /* --max; (size_t)-1: none */
   cbp_explore_options eo;
   cb_hand_locks hand;        /* the program's own locks (cb_hand_locks_mark) */
} cli;

/* One option of getopt's; -1 to go on, else the exit code. */
static int parse_option(int ch, const char *arg, char **argv, cli *c) {
   unsigned long long v;
   switch (ch) {
   case 'o': c->dir = arg; break;
   case 'j': c->json = 1; break;
   case 'p': c->partial = 1; break;
   case 'R': c->run_failed = 1; break;
   case 'C': c->cures = 1; break;
   case 'h': fputs(usage, stdout); return 0;
   case 'z': c->z3 = 1; break;
   case 'm':
      if (parse_count(arg, &v)) return bad_usage("--max wants a number of schedules");
      c->limit = (size_t)v; /* 0: write none, only report */
      break;
   case 'T':
      if (parse_count(arg, &v) || v > 86400000ull)
         return bad_usage("--z3-timeout wants milliseconds (0: no limit)");
      c->z3s.timeout_ms = (unsigned)v;
      break;
   case 'W':
      if (parse_count(arg, &v)) return bad_usage("--z3-window wants a number of events");
      c->z3s.window = (size_t)v;
      break;
   case 'P':
      if (parse_patterns(arg, &c->o.skip, &c->explore))
         return bad_usage("--patterns wants a list of atomicity, deadlock, order, explore");
      break;
   case 'D': case 'S':
      if (parse_count(arg, &v) || (ch == 'D' && (v < 1 || v > CBP_EXPLORE_MAX_DELAYS)))
         return bad_usage(ch == 'D' ? "--delays wants a number of delays, 1 to 7"
                                    : "--seed wants a number");
      if (ch == 'D') c->eo.delays = (unsigned)v; else c->eo.seed = v;
      break;
   case 'F': c->seen_path = arg; break;
   case 'J':
      if (parse_count(arg, &v) || v < 1 || v > 1024) return bad_usage("--jobs wants a number of threads");
      c->o.jobs = (unsigned)v;
      break;
   case 'B': c->base_path = arg; break;
   case 'b':
      if (!strcmp(arg, "functions")) c->o.blocks = CBP_BLOCKS_FUNCTIONS;
      else if (!strcmp(arg, "markup")) c->o.blocks = CBP_BLOCKS_MARKUP;
      else if (!strcmp(arg, "auto")) c->o.blocks = CBP_BLOCKS_AUTO;
      else return bad_usage("--blocks wants functions, markup or auto");
      break;
   case ':': {
      char m[160];
      snprintf(m, sizeof m, "%s needs %s", argv[optind - 1], value_wanted(optopt));
      return bad_usage(m);
   }
   default: {
      char m[128];
      snprintf(m, sizeof m, "unknown option %s", argv[optind - 1]);
      return bad_usage(m);
   }
   }
   return -1;
}

/* The command line into c; -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, cli *c) {
   static const struct option opts[] = {
      {"output", required_argument, 0, 'o'}, {"json", no_argument, 0, 'j'},
      {"max", required_argument, 0, 'm'},    {"blocks", required_argument, 0, 'b'},
      {"partial", no_argument, 0, 'p'},      {"help", no_argument, 0, 'h'},
      {"z3", no_argument, 0, 'z'},           {"z3-timeout", required_argument, 0, 'T'},
      {"z3-window", required_argument, 0, 'W'}, {"patterns", required_argument, 0, 'P'},
      {"delays", required_argument, 0, 'D'},   {"seed", required_argument, 0, 'S'},
      {"seen", required_argument, 0, 'F'},    {"base", required_argument, 0, 'B'},
      {"jobs", required_argument, 0, 'J'},   {"recorded-failed", no_argument, 0, 'R'},
      {"cures", no_argument, 0, 'C'},        {0, 0, 0, 0}};
   memset(c, 0, sizeof *c);
   c->o.blocks = CBP_BLOCKS_AUTO;
   c->z3s.timeout_ms = 2000;
   c->z3s.window = 1000;
   c->limit = (size_t)-1;
   c->eo.seed = 1;
   opterr = 0;
   for (int ch; (ch = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1;) {
      int rc = parse_option(ch, optarg, argv, c);
      if (rc >= 0) return rc;
   }
   if (optind != argc - 1)
      return bad_usage(optind == argc ? "no trace given" : "one trace at a time");
   if (c->explore && !c->eo.delays) c->eo.delays = 2;
   if (c->seen_path && !c->eo.delays) return bad_usage("--seen goes with --delays N");
   if (c->cures && !c->run_failed) return bad_usage("--cures goes with --recorded-failed");
   c->path = argv[optind];
   return -1;
}

/* The trace of path into t, whole (or, with --partial, as far as it is);
 * 0, or the exit code, said on stderr. */
static int load_trace(const char *path, int partial, cb_trace *t) {
   memset(t, 0, sizeof *t);
   cb_error err;
   if (cb_trace_read(path, t, &err)) {
      fprintf(stderr, "cbpredict: cannot read %s: %s\n", path, err.msg);
      return 2;
   }
   if (t->truncated && !partial) {
      fprintf(stderr, "cbpredict: %s is truncated or corrupt: %s (--partial predicts "
                      "from the %zu events before the damage)\n",
              path, t->truncation[0] ? t->truncation : "cut short", t->nevents);
      cb_trace_free(t);
      return 2;
   }
   if (t->nevents == 0) {
      fprintf(stderr, "cbpredict: %s: the trace holds no events\n", path);
      cb_trace_free(t);
      return 2;
   }
   return 0;
}

/* The candidates' schedules: Z3's (--z3) or synthesis', built only for
 * those that will be written; 0, or the exit code. */
static int build(const cb_trace *t, cbp_analysis *a, cli *c, size_t fresh) {
   size_t built;
   c->z3s.on_query = z3_progress;
   z3_started = now();
   z3_limit = c->limit;
   int z3_failed = c->z3 && cbp_z3_build_schedules(t, a, c->limit, &c->z3s, &built);
   z3_progress_end();
   if (z3_failed) {
      fprintf(stderr, "cbpredict: cannot start Z3: out of memory\n");
      return 1;
   }
   /* With --base, the new path's violations are all built (up to
    * FRESH_BUILD) so that ranking picks the --max written among them: the
    * closest in the trace is not always the one that keeps the path. */
   if (!c->z3) cbp_build_schedules(t, a, build_count(c->limit, fresh + c->eo.nseen), NULL, NULL);
   if (a->x.active_threads == 0) {
      fprintf(stderr, "cbpredict: %s: the trace has no threads\n", c->path);
      return 2;
   }
   return 0;
}

/* The table or --json, with a note when there was nothing to predict. */
static void report(const cb_trace *t, const cbp_analysis *a, const cli *c,
                   cbp_report_info *info, const cbp_explore_result *xr) {
   char note[256];
   if (a->x.active_threads == 1) {
      snprintf(note, sizeof note,
               "cbpredict: only one thread ran, so no other thread can break a "
               "block's atomicity: nothing to predict");
      info->note = note;
   } else if (!a->x.nshared && a->r.n == 0 && !xr->written) {
      snprintf(note, sizeof note,
               "cbpredict: no variable was touched by two threads and no locks were "
               "taken in opposite orders: nothing to predict");
      info->note = note;
   }
   if (c->json) cbp_report_json(stdout, t, &a->x, &a->r, info);
   else cbp_report_table(stdout, t, &a->x, &a->r, info);
}

/* The schedule folder (default: TRACE.schedules), its old s*.pb gone;
 * 0, or 1 (said on stderr).  --max 0 writes nothing: the folder is not
 * created for it, but an existing one loses its old schedules all the
 * same (else they would pass for this trace's). */
static int schedule_dir(const cli *c, char *buf, size_t n, const char **dir) {
   *dir = c->dir;
   if (!*dir) {
      snprintf(buf, n, "%s.schedules", c->path);
      *dir = buf;
   }
   struct stat st;
   if (c->limit == 0 && stat(*dir, &st) != 0 && errno == ENOENT) return 0;
   if (make_dir(*dir)) {
      fprintf(stderr, "cbpredict: cannot create %s: %s\n", *dir, strerror(errno));
      return 1;
   }
   remove_stale(*dir);
   return 0;
}

/* --cures: when none of the violations happened in the failing run, its
 * orders between two threads, forced the other way round (cures.c); when
 * it deadlocked, its waits that began after their signal (cure_wake.c)
 * and its lock cycle forced again (deadlock_again.c). */
static void cures_if_none_shown(const cb_trace *t, cbp_analysis *a) {
   size_t shown;
   if (t->footer.nblocked) { /* a deadlock: its waits, not its data */
      cbp_wake_cures(t, a);
      cbp_deadlock_again(t, a);
      return;
   }
   free(cbp_rank_failed(t, &a->x, &a->r, &shown));
   if (shown == 0) cbp_cures(t, a);
}

/* The analysis, its schedules written and reported; the exit code. */
static int predict(const cb_trace *t, cli *c, double t0) {
   cbp_analysis a;
   cbp_analyze_candidates(t, &c->o, &a);
   a.run_failed = c->run_failed;
   if (c->cures) cures_if_none_shown(t, &a);
   size_t fresh = 0; /* candidates on lines --base never ran */
   char defdir[4096];
   const char *dir;
   int rc = c->base_path && prefer_fresh(c->base_path, t, &a, &fresh) ? 2 : 0;
   if (!rc) rc = build(t, &a, c, fresh);
   if (!rc) rc = schedule_dir(c, defdir, sizeof defdir, &dir);
   if (rc) {
      cbp_analysis_free(&a);
      return rc;
   }
   cbp_rank(t, &a.x, &a.r); /* schedule numbers: the likeliest first */
   uint64_t written = 0;
   rc = cbp_write_schedules(t, &a, dir, c->limit, c->eo.seen, c->eo.nseen,
                            c->o.jobs ? c->o.jobs : cbp_default_jobs(), &written);
   cbp_explore_result xr;
   memset(&xr, 0, sizeof xr);
   if (c->eo.delays && rc == 0) rc = write_delays(t, &a, &c->eo, dir, c->limit, &written, &xr);
   cbp_report_info info = {c->path, dir, now() - t0, written, NULL, c->z3 ? &c->z3s : NULL,
                           c->eo.delays ? &xr : NULL, c->hand.words, c->hand.sems,
                           c->run_failed, a.cures};
   report(t, &a, c, &info, &xr);
   cbp_explore_free(&xr);
   cbp_analysis_free(&a);
   return rc;
}

int main(int argc, char **argv) {
   cli c;
   int rc = parse_args(argc, argv, &c);
   if (rc >= 0) return rc;
   double t0 = now();
   cbp_keep_freed_memory();
   uint64_t *seen = NULL;
   if (c.seen_path) {
      cb_error serr;
      if (cb_ordering_read(c.seen_path, &seen, &c.eo.nseen, &serr)) {
         fprintf(stderr, "cbpredict: cannot read --seen: %s\n", serr.msg);
         return 2;
      }
      qsort(seen, c.eo.nseen, sizeof *seen, cbp_digest_cmp); /* for bsearch */
      c.eo.seen = seen;
   }
   cb_trace t;
   rc = load_trace(c.path, c.partial, &t);
   if (!rc) {
      /* A deadlock failed too: --cures looks for the waits it lost. */
      if (c.run_failed && !cb_trace_failed(&t) && !(t.footer.nblocked && c.cures)) {
         fprintf(stderr, "cbpredict: --recorded-failed: the run recorded in %s did not "
                         "fail (%s)\n", c.path,
                 !t.footer.present     ? "the trace does not say how it ended"
                 : t.footer.nblocked   ? "it deadlocked"
                                       : "it exited 0");
         cb_trace_free(&t);
         free(seen);
         return 2;
      }
      /* Hand-made locks are locks before any pass looks at the trace. */
      c.hand = cb_hand_locks_mark(&t);
      rc = predict(&t, &c, t0);
      cb_trace_free(&t);
   }
   free(seen);
   return rc;
}
