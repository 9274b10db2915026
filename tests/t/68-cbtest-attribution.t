#!/bin/sh
# Which bug cbtest shows first when the first failure points elsewhere.
# 1. A crash is shown where it happened, and the bug whose accesses are
# there comes first (reschedule/batch/cbtest_crash.c).  A detached prefetch
# thread works on a scratch value both threads write (`scratch`, a
# harmless race), then logs through `g_log`, which main frees and clears
# when its own work is done, without waiting for the thread.  At -O2, the
# work in the start routine.  The first schedule cbpredict writes is an
# order violation on `scratch`; forcing it lets the thread log after the
# teardown, and the run dies of SIGSEGV in log_line().  On the build
# before, that scratch race was the test's only bug and the report said
# nothing of the crash.  Now cbtest forces the schedules with an access in
# the crashing function too: the order violation on g_log comes first,
# with the crash's function and line.  The twin joins the thread before
# the teardown: clean.
# 2. A failure after the run left the schedule's path: a lost wake-up
# behind a 400 ms timed wait (tests/data/waiter.c).  Its
# first schedule was an RWR on the flag, which fails only once its plan
# stalled in the wait and was given up ("whether this violation led to
# it is not known"); cbtest stopped there.  Now it forces a few more
# schedules (cbtest_pipeline.c), and the order violation on the
# condition, whose lost wake-up is seen to happen, comes first.  (In a
# recording where main read the flag first, that RWR's forced reads see
# what the recorded run's did, and it now ranks last: predict/rank_seen.c.)
# 3. What the failing program said (cbt_said): a table's block and its
# count read in two critical sections (tests/data/blockgrow.c, -O2, the
# reads in the start routine): its assertion's line, from stderr, in the
# summary, report.json, SARIF and HTML; the variant that says it on
# stdout and exits 1, that line; the crash above said nothing (null), not
# its progress.  On the build before, no report had any of them.  The
# twin reads both in one critical section: clean.
# 4. What the failing thread misread (reschedule/misread.c): a print
# spooler whose main fills in a job's copy count after queueing it
# (tests/data/spooljob.c, -O2, the printer's loop in its start routine).
# The first schedule that fails is one on the queue's head (an RWR in
# take()), which only lets the printer take a job early; the printer
# then reads the job's copies 0 and exits 1.  cbreplay, given --pin and
# the trace, compares its recorded failing run with the recorded run and
# says "misread: T2 read j->copies ... = 0 (recorded run: N)"; cbtest
# forces the schedules on that variable next, and the order violation on
# j->copies (main's write after the printer's read) comes first.  On the
# build before, the first bug was the RWR on head and nothing said what
# the printer read.  The same with an assert() instead of exit 1: the
# thread that raised SIGABRT is the one whose reads are compared.  The
# twin sets the count before queueing: clean.
. "$(dirname "$0")/../tap.sh"

if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || [ ! -x "$TOP/bin/cbtest" ]; then
   echo "Bail out! the tool or cbtest is not built (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi

cat > "$TMP/prefetch.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct log { pthread_mutex_t mu; char *buf; size_t used, cap; };
static struct log *g_log;
static volatile unsigned long scratch;
static void log_line(const char *msg)
{
   struct log *l = g_log;
   pthread_mutex_lock(&l->mu);
   size_t n = strlen(msg);
   if (l->used + n < l->cap) {
      memcpy(l->buf + l->used, msg, n);
      l->used += n;
   }
   pthread_mutex_unlock(&l->mu);
}
static unsigned long churn(unsigned long x, int rounds)
{
   for (int i = 0; i < rounds; i++)
      x = x * 6364136223846793005UL + 1442695040888963407UL;
   return x;
}
static void *prefetch(void *arg)
{
   (void)arg;
   scratch = churn(1, 2000);
   log_line("prefetch done\n");
   return NULL;
}
int main(void)
{
   pthread_t t;
   pthread_attr_t a;
   g_log = calloc(1, sizeof *g_log);
   pthread_mutex_init(&g_log->mu, NULL);
   g_log->cap = 4096;
   g_log->buf = malloc(g_log->cap);
   pthread_attr_init(&a);
#ifndef FIXED
   pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
#endif
   pthread_create(&t, &a, prefetch, NULL);
   scratch = churn(2, 2000000);
   log_line("main done\n");
#ifdef FIXED
   pthread_join(t, NULL);
#endif
   struct log *l = g_log;
   g_log = NULL;
   free(l->buf);
   pthread_mutex_destroy(&l->mu);
   free(l);
   printf("main: %lx\n", (unsigned long)scratch);
   return 0;
}
EOF
cc -O2 -g -pthread -o "$TMP/prefetch" "$TMP/prefetch.c" &&
cc -O2 -g -pthread -DFIXED -o "$TMP/prefetch_fixed" "$TMP/prefetch.c" ||
   { echo "Bail out! cannot build prefetch.c"; exit 1; }

for v in prefetch prefetch_fixed; do
   mkdir -p "$TMP/$v.d"
   (cd "$TMP/$v.d" && "$TOP/bin/cbtest" -j 1 --timeout 20 -o rep -- "$TMP/$v" \
      >stdout 2>stderr); eval "rc_$v=\$?"
done
OUT=$(cat "$TMP/prefetch.d/stdout")
S1=$(sed -n 's/^\(s1\) *ORD *scratch .*/\1/p' "$TMP/prefetch.d/rep/tests/001-prefetch/predict.out")
is "$S1" s1 "the first schedule is the order violation on scratch (the case this test is for)"
is "$rc_prefetch" 1 "prefetch: a bug is confirmed (exit 1)"
top=$(printf '%s\n' "$OUT" | grep -m1 '^   BUG ')
like "$top" "^   BUG ORD on g_log: " "the first bug is the order violation on g_log, where it crashed"
call=$(grep -n 'struct log \*l = g_log;' "$TMP/prefetch.c" | head -n 1 | cut -d: -f1)
crash=$((call + 1))
like "$OUT" "crash: +the program died of SIGSEGV in log_line\(\) at prefetch\.c:$crash" \
   "its entry says where the program died (prefetch.c:$crash)"
. "$TOP/tests/lib/json.sh"
J=$TMP/prefetch.d/rep/report.json
is "$(jget "$J" '"$d->{bugs}[0]{variable} $d->{bugs}[0]{crash}{signal} $d->{bugs}[0]{crash}{function}:$d->{bugs}[0]{crash}{line}"')" \
   "g_log SIGSEGV log_line:$crash" "report.json: the first bug, and where its run crashed"
is "$rc_prefetch_fixed" 0 "prefetch_fixed: clean (exit 0)"

cc -O2 -g -pthread -o "$TMP/waiter" "$TOP/tests/data/waiter.c" || { echo "Bail out! cannot build waiter.c"; exit 1; }
mkdir -p "$TMP/waiter.d"
(cd "$TMP/waiter.d" && "$TOP/bin/cbtest" -j 1 --timeout 20 -o rep -- "$TMP/waiter" >stdout 2>stderr)
is "$?" 1 "waiter: a bug is confirmed (exit 1)"
OUT=$(cat "$TMP/waiter.d/stdout")
top=$(printf '%s\n' "$OUT" | grep -m1 '^   BUG ')
# Quiet, the lost wake-up's own order violation (on cv); on a loaded
# machine the one on ready may fail too, its violation seen as well.
like "$top" "^   BUG ORD on (cv \(a lost wake-up\)|ready): the forced run failed$" \
   "waiter: the first bug is an order violation seen to happen ($top)"
# When main reads the flag before the producer sets it (a quiet machine),
# the RWR on ready, whose forced reads then see what the recorded run's
# saw, ranks after the order violations since predict/rank_seen.c: it is
# not forced once the ORD on cv is confirmed.  When the producer ran first,
# its e1 would see the flag's initial 0, which no read showed: it is
# forced first, and its failure after leaving the path is listed after
# the order violation.
if printf '%s\n' "$OUT" | grep -q "BUG RWR on ready"; then
   like "$OUT" "BUG RWR on ready: .*left the schedule's path" \
      "waiter: the failure after the run left its path is listed after it"
else
   unlike "$OUT" "BUG RWR" "waiter: the RWR on ready, ranked last, is not reported"
fi

J=$TMP/waiter.d/rep/report.json
like "$(jget "$J" '$d->{bugs}[0]{said}')" "^waiter: (the wake-up was lost|woke without the payload)" \
   "waiter: report.json says what the program said last on stderr"
J=$TMP/prefetch.d/rep/report.json
is "$(jget "$J" '!exists $d->{bugs}[0]{said} ? "absent" : defined $d->{bugs}[0]{said} ? "said" : "null"')" null \
   "prefetch: a crash whose program wrote nothing on stderr said nothing (not its progress)"

. "$TOP/tests/lib/pipeline.sh"
cb_build_data blockgrow.c blockgrow
cb_build_data blockgrow.c blockgrow_stdout -DSAY_ON_STDOUT
cb_build_data blockgrow.c blockgrow_fixed -DFIXED
for v in blockgrow blockgrow_stdout blockgrow_fixed; do
   cb_cbtest $v --timeout 20
   eval "rc_$v=\$RC"
done
OUT=$(cat "$TMP/blockgrow.d/stdout")
is "$rc_blockgrow" 1 "blockgrow: a bug is confirmed (exit 1)"
like "$OUT" "^      said: +blockgrow: .*blockgrow\.c:[0-9]+: reader: Assertion .used <= b->n. failed\.$" \
   "blockgrow: the summary quotes the program's assertion"
J=$TMP/blockgrow.d/rep/report.json
like "$(jget "$J" '$d->{bugs}[0]{said}')" "Assertion .used <= b->n. failed" \
   "blockgrow: report.json too"
like "$(jget "$TMP/blockgrow.d/rep/report.sarif" '$d->{runs}[0]{results}[0]{message}{text}')" \
   "it said \"blockgrow: .*Assertion .used <= b->n. failed\.\"" "blockgrow: and the SARIF message"
like "$(cat "$TMP/blockgrow.d/rep/report.html")" "The program said:</p><pre>blockgrow: .*Assertion .used &lt;= b-&gt;n. failed" \
   "blockgrow: and the HTML report"
is "$rc_blockgrow_stdout" 1 "blockgrow_stdout: a bug is confirmed (exit 1)"
like "$(cat "$TMP/blockgrow_stdout.d/stdout")" "^      said: +blockgrow: [0-9]+ values in a block of [0-9]+$" \
   "blockgrow_stdout: the summary quotes the line the program printed before exit 1 (the head of its details)"
is "$rc_blockgrow_fixed" 0 "blockgrow_fixed: clean (exit 0)"

cb_build_data spooljob.c spooljob
cb_build_data spooljob.c spooljob_assert -DASSERT
cb_build_data spooljob.c spooljob_fixed -DFIXED
for v in spooljob spooljob_assert spooljob_fixed; do
   cb_cbtest $v --timeout 20
   eval "rc_$v=\$RC"
done
OUT=$(cat "$TMP/spooljob.d/stdout")
read_at=$(grep -n 'j->copies < 1' "$TOP/tests/data/spooljob.c" | cut -d: -f1)
is "$rc_spooljob" 1 "spooljob: a bug is confirmed (exit 1)"
like "$OUT" "#1 .* ORD on j->copies .* f spooljob\.c:$read_at " \
   "spooljob: the first bug is the order violation on the job's copies, the value the printer misread"
like "$OUT" "^      misread: +T2 read j->copies \(heap block of [0-9]+ bytes from spooljob\.c:[0-9]+, offset 4\) = 0 \(recorded run: [1-3]\) at spooljob\.c:$read_at in printer\(\)$" \
   "spooljob: the summary says what the printer read, and where"
like "$OUT" "misread: .*, none of the accesses above" \
   "spooljob: a bug whose accesses are not that read says so"
like "$(cat "$TMP"/spooljob.d/rep/tests/*/replay-s*.out)" \
   "  misread: T2 read j->copies .* = 0 \(recorded run: [1-3]\) at spooljob\.c:$read_at in printer\(\), the last value T2 read otherwise than in the recorded run before it ended the run \(exit 1\)" \
   "spooljob: cbreplay's report has the misread"
J=$TMP/spooljob.d/rep/report.json
is "$(jget "$J" '"$d->{bugs}[0]{misread}{function}:$d->{bugs}[0]{misread}{line} " . ($d->{bugs}[0]{misread}{away_from_pattern} ? "away" : "its own") . " " . (defined $d->{bugs}[0]{crash} ? "crash" : "no crash")')" \
   "printer:$read_at its own no crash" "spooljob: report.json has the misread, the first bug's own read"
OUT=$(cat "$TMP/spooljob_assert.d/stdout")
assert_at=$(grep -n 'assert(j->copies' "$TOP/tests/data/spooljob.c" | cut -d: -f1)
is "$rc_spooljob_assert" 1 "spooljob_assert: a bug is confirmed (exit 1)"
like "$OUT" "#1 .* ORD on j->copies .* f spooljob\.c:$assert_at " \
   "spooljob_assert: a failed assert (SIGABRT) points at the misread too: the order violation on the copies first"
like "$(cat "$TMP"/spooljob_assert.d/rep/tests/*/replay-s*.out)" \
   "  misread: T2 read j->copies .* = 0 \(recorded run: [1-3]\) at spooljob\.c:$assert_at in printer\(\), .* before it ended the run \(abort\)" \
   "spooljob_assert: cbreplay's report has the misread of the thread that aborted"
is "$rc_spooljob_fixed" 0 "spooljob_fixed: clean (exit 0)"

done_testing
