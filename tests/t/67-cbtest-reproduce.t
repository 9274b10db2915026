#!/bin/sh
# A failure that does not come back when forced again is no reproducer:
# a program with a real race (two threads add to a counter without a lock)
# whose check fails only in the second run of the program on this machine
# (a run counter kept in files created with O_EXCL), so exactly one forced
# run fails and nothing forced after it does.  cbreplay forces that
# schedule again (--confirm 1): the failure does not come back, so it goes
# on to the schedule's other tail variants, and ends with the first
# failure, said to be "not reproduced".  cbtest reads that: its summary
# says "not reproduced" and gives the command as "run again", and
# report.json says "reproduced": false, with the counts.  The racy program
# whose check always fails on the race (tests/programs/rww) stays
# "reproduced": true.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/lib/programs.sh"

CBTEST=$TOP/bin/cbtest
. "$TOP/tests/lib/json.sh"

cat > "$TMP/once.c" <<'EOF2'
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static long total;

static void *adder(void *arg)
{
   (void)arg;
   long t = total;
   total = t + 1;
   return NULL;
}

/* This run's number among the runs that shared DIR: 1, 2, ... */
static int run_number(const char *dir)
{
   char path[4096];
   for (int n = 1; n < 1000; n++) {
      snprintf(path, sizeof path, "%s/run%d", dir, n);
      int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
      if (fd >= 0) {
         close(fd);
         return n;
      }
   }
   return 0;
}

int main(int argc, char **argv)
{
   pthread_t a, b;
   pthread_create(&a, NULL, adder, NULL);
   pthread_create(&b, NULL, adder, NULL);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   if (argc > 1 && run_number(argv[1]) == 2) {
      fprintf(stderr, "once: total %ld\n", total);
      return 1;
   }
   return 0;
}
EOF2
cc -g -O0 -pthread -o "$TMP/once" "$TMP/once.c" || { ok "once.c builds" false; done_testing; }
mkdir -p "$TMP/runs"

(cd "$TMP" && "$CBTEST" -j 1 --timeout 60 -o out1 -- "$TMP/once" "$TMP/runs" \
   >"$TMP/out1.txt" 2>"$TMP/err1.txt"); RC=$?
OUT=$(cat "$TMP/out1.txt")
J=$TMP/out1/report.json
is "$RC" 1 "once: the forced run failed, so the test has a bug (exit 1)"
like "$OUT" "not reproduced: forced again [0-9]+ times?, it failed 0" \
   "once: the summary says the failure did not come back"
like "$OUT" "run again: .*cbreplay --schedule" "once: and gives the command as 'run again'"
unlike "$OUT" "reproduce: " "once: no 'reproduce:' line for it"
like "$OUT" "1 of the bugs not reproduced: .*no command that reproduces" \
   "once: the totals say one bug has no reproducer"
is "$(jget "$J" '$d->{bugs}[0]{reproduced} ? "true" : "false"')" false \
   "once: report.json: reproduced false"
is "$(jget "$J" '$d->{bugs}[0]{failed_again}')" 0 "once: report.json: failed again 0 times"
ok "once: report.json: forced again at least once" \
   [ "$(jget "$J" '$d->{bugs}[0]{forced_again}')" -ge 1 ]
like "$(jget "$TMP/out1/report.sarif" '$d->{runs}[0]{results}[0]{message}{text}')" \
   "Not reproduced when forced again; run again: " "once: report.sarif's message says so"
like "$(cat "$TMP/out1/report.html")" "Not reproduced: " "once: report.html too"
ok "once: the failing run was not the last (the variants after it were forced)" \
   [ "$(ls "$TMP/runs" | wc -l)" -gt 3 ]

if [ -x "$CB_PROGRAM_BIN/rww" ]; then
   (cd "$TMP" && "$CBTEST" -j 1 --timeout 60 -o out2 -- "$CB_PROGRAM_BIN/rww" \
      >"$TMP/out2.txt" 2>"$TMP/err2.txt"); RC=$?
   is "$RC" 1 "rww: a bug (exit 1)"
   like "$(cat "$TMP/out2.txt")" "reproduce: .*cbreplay --schedule" "rww: a reproducer"
   unlike "$(cat "$TMP/out2.txt")" "of the bugs not reproduced" "rww: no bug without a reproducer"
   is "$(jget "$TMP/out2/report.json" '$d->{bugs}[0]{reproduced} ? "true" : "false"')" true \
      "rww: report.json: reproduced true"
   is "$(jget "$TMP/out2/report.json" '$d->{bugs}[0]{forced_again} . "/" . $d->{bugs}[0]{failed_again}')" 3/3 \
      "rww: report.json: forced again 3 times (cbreplay --confirm 3), failed 3 times"
else
   ok "rww is built (make check builds it)" false
fi
done_testing
