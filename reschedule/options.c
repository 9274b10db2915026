/* options.c: cbreplay's command line.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay.h"

static const char usage_text[] =
"usage: cbreplay --schedule ID|PATH [options] -- PROG [ARGS...]\n"
"       cbreplay --all [DIR] [-j N] [options] -- PROG [ARGS...]\n"
"\n"
"Forces a schedule predicted by cbpredict on PROG, run under the cbtools\n"
"Valgrind tool, and lets the program's own test judge the run.\n"
"\n"
"Finding schedules:\n"
"  --schedule PATH     a schedule file (any path to an existing file)\n"
"  --schedule s17|17   the file s17.pb in the schedule folder, which is\n"
"                      --schedules DIR if given, else TRACE.schedules/ when\n"
"                      --trace TRACE is given, else ./trace.pb.schedules/\n"
"                      (where `cbtrace record` + `cbpredict` put them)\n"
"  --all [DIR]         every sN.pb of the folder DIR, or of the schedule\n"
"                      folder found as above, in parallel; a line on stderr\n"
"                      for each as it ends\n"
"  --confirm N         force a schedule whose run failed, deadlocked or hung\n"
"                      N more times (default 1; 0: never): the report says\n"
"                      how many of them failed again, and gives the command\n"
"                      to reproduce it only when every one did.  When some\n"
"                      did not (the threads run free after the schedule's\n"
"                      last step), a failing run is recorded and its whole\n"
"                      order forced 1 + N times as NAME-pinned.pb beside\n"
"                      the schedule: when every one fails, that is the\n"
"                      reproducer (\"pinned:\" in the report)\n"
"  --pin               pin every failure --confirm brought back each time\n"
"                      too (one more recorded run and 1 + N forced runs):\n"
"                      a failure that came back N times may still depend\n"
"                      on how the threads ran free after the last step;\n"
"                      its whole order forced does not (cbtest passes it).\n"
"                      The recorded failing run is also compared with the\n"
"                      schedule's trace (below): the report's \"misread:\"\n"
"                      line is the last value the thread that ended the\n"
"                      run read otherwise than in the recorded run\n"
"  --variant N         force only tail variant N of the schedule (one\n"
"                      schedule only).  Without it: variant 0, then, while\n"
"                      a run passes, is infeasible or fails but not again\n"
"                      when confirmed, the next variant; the first that\n"
"                      fails, deadlocks or hangs every time is the verdict\n"
"\n"
"Options:\n"
"  --schedules DIR     the schedule folder (cbpredict -o DIR)\n"
"  --trace TRACE       also refuse schedules predicted from another trace\n"
"                      (without it: the trace beside a TRACE.schedules\n"
"                      folder, when it is still there); a pinned failure's\n"
"                      misread is found against it\n"
"  -j, --jobs N        forced runs at once with --all (default: one per core)\n"
"  --timeout S         a run that has not ended S seconds after the tool\n"
"                      released its threads (or S seconds after the last\n"
"                      scheduling step) is hung: a livelock, or threads\n"
"                      waiting where the tool does not see (read(), a\n"
"                      futex by hand).  A deadlock through locks, joins,\n"
"                      conditions, semaphores and barriers ends at once.\n"
"                      Default 20\n"
"  --check CMD         also judge the output: `sh -c CMD` reads the\n"
"                      program's stdout on its stdin; non-zero exit = failed\n"
"  --stall-ms MS       the tool declares the schedule infeasible when it\n"
"                      makes no progress for MS milliseconds (default 3000),\n"
"                      or after a moment when every thread it lets run\n"
"                      waits in a lock, join, condition, semaphore or\n"
"                      barrier call for a thread it holds back\n"
"  --stdin FILE        the program's standard input in every forced run\n"
"                      (each reads FILE from its start): give it the input\n"
"                      the recorded run read.  Default /dev/null; \"-\" is\n"
"                      cbreplay's own input (one schedule only)\n"
"  --events-out FILE   write the tool's raw counted-event stream (cb_wire.h)\n"
"                      of the run to FILE (one schedule only; with tail\n"
"                      variants, of the last variant forced)\n"
"  --record FILE       also record the forced run: FILE is its trace, as\n"
"                      `cbtrace record` writes one, which cbpredict can\n"
"                      predict from again (one schedule only; with tail\n"
"                      variants, of the last variant forced)\n"
"  --json              print the results as one JSON document\n"
"  -v, --verbose       echo the tool's status lines on stderr\n"
"  -h, --help          this text\n"
"\n"
"Each run is instrumented as the recorded run was (cbtrace record\n"
"--instrument=..., kept in the trace and in every schedule); schedules of\n"
"runs recorded differently are refused together.\n"
"\n"
"Verdict of a forced run, first rule that applies, and the exit status\n"
"with one schedule:\n"
"  5 error       Valgrind or the cbtools tool failed (the tool did not\n"
"                report the program's end: a Valgrind panic, an out-of-\n"
"                memory kill), or the run could not start; never a bug\n"
"                of the program.  Valgrind's last stderr lines are shown\n"
"  6 deadlock    every thread of the program waited for a lock, a join, a\n"
"                condition, a semaphore or a barrier that only another\n"
"                waiting thread could give, and the tool ended the run at\n"
"                once; the report names each thread, what it waits for\n"
"                and who holds it, with file:line\n"
"  1 failed      the program failed: a fatal signal (abort included), an\n"
"                exit code other than 0 and the recorded run's own (kept\n"
"                in the schedule), or --check failed; whether or not the\n"
"                schedule was followed to its end (the report says how\n"
"                far: \"after following the schedule to step 7 of 9\")\n"
"  4 hung        the program did not end within --timeout after the\n"
"                threads were released; its whole process group was\n"
"                killed (a run stopped while the plan still held threads\n"
"                back is infeasible: the plan, not the program, kept it)\n"
"  3 infeasible  the program passed but the tool could not follow the\n"
"                schedule (a thread whose turn it was is blocked, gone, or\n"
"                stalled) and the violation did not happen: the run\n"
"                tested nothing\n"
"  1 cured       a cure (cbpredict --cures: the recorded run failed, and\n"
"                the schedule forces one of its orders the other way\n"
"                round) whose run passed with that order forced: the\n"
"                order is the recorded failure's cause.  A cure's run\n"
"                that failed, hung or deadlocked is \"not cured\" (exit 0)\n"
"  0 passed      otherwise\n"
"  2             bad usage or bad input (no run): missing, corrupt, or\n"
"                foreign schedule (another program, trace or event\n"
"                counting), missing program, tool not built\n"
"With --all: 1 when any run failed, deadlocked, hung or was cured (all\n"
"bugs), else 5 when any run was an error, else 0; infeasible schedules\n"
"are counted in the table, not treated as failures.\n"
"A failing, deadlocked or hung run gets a bug report: the three events of\n"
"the pattern with file:line, function, thread and values, the tail\n"
"variant, how far the schedule was followed, and the command that\n"
"reproduces it.\n";

static int usage_error(const char *fmt, ...)
   __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   fputs("cbreplay: ", stderr);
   vfprintf(stderr, fmt, ap);
   va_end(ap);
   fputs("\n(cbreplay --help for usage)\n", stderr);
   return CBR_EXIT_USAGE;
}

static int parse_double(const char *s, double *out)
{
   char *end;
   errno = 0;
   double v = strtod(s, &end);
   if (errno || end == s || *end || !(v > 0) || v > 1e6)
      return -1;
   *out = v;
   return 0;
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
   char *end;
   errno = 0;
   if (*s < '0' || *s > '9')
      return -1;
   unsigned long v = strtoul(s, &end, 10);
   if (errno || *end || v > max)
      return -1;
   *out = v;
   return 0;
}

enum {
   OPT_SCHEDULE = 256, OPT_SCHEDULES, OPT_ALL, OPT_TRACE, OPT_TIMEOUT,
   OPT_CHECK, OPT_JSON, OPT_STALL, OPT_EVENTS_OUT, OPT_VARIANT, OPT_CONFIRM, OPT_PIN, OPT_STDIN,
   OPT_RECORD
};

static int check_combinations(const cbr_options *o);

/* One option from getopt: 0, or the usage error's exit code. */
static int one_option(int c, char **argv, cbr_options *o)
{
   unsigned long u;
   switch (c) {
   case OPT_SCHEDULE: o->schedule = optarg; break;
   case OPT_SCHEDULES: o->schedules = optarg; break;
   case OPT_ALL: o->all = 1; break;
   case 'j':
      if (parse_uint(optarg, 1024, &u) || u == 0)
         return usage_error("bad -j '%s': want a number of jobs, 1 to 1024",
                            optarg);
      o->jobs = (int)u;
      break;
   case OPT_TRACE: o->trace = optarg; break;
   case OPT_TIMEOUT:
      if (parse_double(optarg, &o->timeout_s))
         return usage_error("bad --timeout '%s': want seconds > 0", optarg);
      break;
   case OPT_CHECK: o->check = optarg; break;
   case OPT_JSON: o->json = 1; break;
   case OPT_STALL:
      if (parse_uint(optarg, 3600000, &u) || u == 0)
         return usage_error("bad --stall-ms '%s': want milliseconds, 1 to "
                            "3600000", optarg);
      o->stall_ms = (unsigned)u;
      break;
   case OPT_EVENTS_OUT: o->events_out = optarg; break;
   case OPT_RECORD:
      if (!*optarg)
         return usage_error("--record needs a file");
      o->record = optarg;
      break;
   case OPT_STDIN: o->stdin_path = optarg; break;
   case OPT_VARIANT:
      if (parse_uint(optarg, 65535, &u))
         return usage_error("bad --variant '%s': want a variant number, "
                            "0 to 65535", optarg);
      o->variant = (int)u;
      break;
   case OPT_CONFIRM:
      if (parse_uint(optarg, 100, &u))
         return usage_error("bad --confirm '%s': want a number of runs, 0 to 100",
                            optarg);
      o->confirm = (int)u;
      break;
   case OPT_PIN: o->pin = 1; break;
   case 'v': o->verbose = 1; break;
   case ':':
      return usage_error("option %s needs a value", argv[optind - 1]);
   default:
      return usage_error("unknown option '%s'", argv[optind - 1]);
   }
   return 0;
}

static int is_dir(const char *path)
{
   struct stat st;
   return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* getopt stopped at argv[optind], not after "--": with --all, a folder
 * there followed (later) by "--" is the schedule folder.  1: taken. */
static int all_folder(int argc, char **argv, cbr_options *o, int *rc)
{
   *rc = 0;
   if (!o->all || optind >= argc || !strcmp(argv[optind - 1], "--") ||
       !is_dir(argv[optind]))
      return 0;
   int dashes = 0;
   for (int i = optind + 1; i < argc && !dashes; i++)
      dashes = !strcmp(argv[i], "--");
   if (!dashes)
      *rc = usage_error("%s is a folder: to force its schedules, "
                        "cbreplay --all %s -- PROG [ARGS...]", argv[optind],
                        argv[optind]);
   else if (o->schedules)
      *rc = usage_error("both --schedules %s and --all %s name the schedule "
                        "folder", o->schedules, argv[optind]);
   else
      o->schedules = argv[optind++];
   return *rc == 0;
}

int cbr_parse_options(int argc, char **argv, cbr_options *o)
{
   static const struct option longopts[] = {
      {"schedule", required_argument, NULL, OPT_SCHEDULE},
      {"schedules", required_argument, NULL, OPT_SCHEDULES},
      {"all", no_argument, NULL, OPT_ALL},
      {"jobs", required_argument, NULL, 'j'},
      {"trace", required_argument, NULL, OPT_TRACE},
      {"timeout", required_argument, NULL, OPT_TIMEOUT},
      {"check", required_argument, NULL, OPT_CHECK},
      {"json", no_argument, NULL, OPT_JSON},
      {"stall-ms", required_argument, NULL, OPT_STALL},
      {"events-out", required_argument, NULL, OPT_EVENTS_OUT},
      {"record", required_argument, NULL, OPT_RECORD},
      {"variant", required_argument, NULL, OPT_VARIANT},
      {"confirm", required_argument, NULL, OPT_CONFIRM},
      {"pin", no_argument, NULL, OPT_PIN},
      {"stdin", required_argument, NULL, OPT_STDIN},
      {"verbose", no_argument, NULL, 'v'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};

   memset(o, 0, sizeof *o);
   o->timeout_s = CBR_DEFAULT_TIMEOUT_S;
   o->stall_ms = CBR_DEFAULT_STALL_MS;
   o->variant = -1;
   o->confirm = 1;
   o->stdin_path = "/dev/null";
   long cores = sysconf(_SC_NPROCESSORS_ONLN);
   o->jobs = cores > 0 ? (int)cores : 1;

   opterr = 0;
   optind = 1;
   int c, rc;
   /* '+': stop at PROG, so that the program's own options stay its own. */
   do {
      while ((c = getopt_long(argc, argv, "+:j:vh", longopts, NULL)) != -1) {
         if (c == 'h') {
            fputs(usage_text, stdout);
            return 1;
         }
         if ((rc = one_option(c, argv, o)) != 0)
            return rc;
      }
   } while (all_folder(argc, argv, o, &rc));
   if (rc)
      return rc;
   if (optind >= argc)
      return usage_error("no program given: cbreplay ... -- PROG [ARGS...]");
   o->prog_argv = argv + optind;
   o->prog_argc = argc - optind;
   return check_combinations(o);
}

/* Options that exclude or need each other. */
static int check_combinations(const cbr_options *o)
{
   if (o->all && o->schedule)
      return usage_error("--schedule and --all exclude each other");
   if (!o->all && !o->schedule)
      return usage_error("name a schedule (--schedule ID|PATH) or --all");
   if (o->all && o->events_out)
      return usage_error("--events-out works with one --schedule only");
   if (o->all && o->record)
      return usage_error("--record works with one --schedule only");
   if (o->all && o->variant >= 0)
      return usage_error("--variant works with one --schedule only");
   if (o->check && !*o->check)
      return usage_error("--check needs a command");
   if (o->all && !strcmp(o->stdin_path, "-"))
      return usage_error("--stdin - works with one --schedule only (parallel "
                         "runs cannot share one input): give a file");
   if (strcmp(o->stdin_path, "-") != 0 && access(o->stdin_path, R_OK) != 0)
      return usage_error("cannot read --stdin %s: %s", o->stdin_path,
                         strerror(errno));
   return 0;
}
