#!/bin/sh
# cbtest --wrap under a real test runner: a small meson project with two
# tests, a lost update (bank) and a correct program (tally: every thread its
# own slot), run with `meson test --wrapper='cbtest --wrap --'`: exactly the
# buggy test fails, the report folder holds one result folder per test, and
# `cbtest --merge` makes one report of both.  Then the wrapper's own rules,
# with stand-in programs: a test's status and output pass through (exit 77,
# a signal, TAP on stdout for prove --exec), and two wrapped runs of the
# same test at once get folders of their own.
. "$(dirname "$0")/../tap.sh"

CBTEST=$TOP/bin/cbtest
if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ]; then
   ok "the tool is built (make check builds it)" false
   done_testing
fi

# ---- The wrapper's own rules (no Valgrind needed for what is checked) -------
printf '#!/bin/sh\necho "1..1"\necho "ok 1 - from the test"\necho "to stderr" >&2\nexit 77\n' >"$TMP/skip.sh"
chmod +x "$TMP/skip.sh"
OUT=$(cd "$TMP" && CBTEST_REPORT_DIR="$TMP/rep0" "$CBTEST" --wrap -- /bin/sh "$TMP/skip.sh" 2>"$TMP/skip.err"); RC=$?
is "$RC" 77 "--wrap: a test's own exit status passes through (77, skip)"
is "$OUT" "$(printf '1..1\nok 1 - from the test')" "--wrap: stdout is the test's own, nothing else (TAP for prove)"
like "$(cat "$TMP/skip.err")" "^to stderr" "--wrap: the test's stderr comes first on stderr"
is "$(ls "$TMP"/rep0/tests/*/test.state 2>/dev/null | wc -l)" 1 \
   "--wrap: CBTEST_REPORT_DIR names the report folder"

printf '#!/bin/sh\nkill -SEGV $$\n' >"$TMP/segv.sh"
chmod +x "$TMP/segv.sh"
# (in a shell of its own, whose "Segmentation fault" message is dropped)
sh -c 'cd "$1" && exec "$2" --wrap --report-dir "$1/rep0" -- /bin/sh "$1/segv.sh"' sh "$TMP" "$CBTEST" >/dev/null 2>&1; RC=$?
is "$RC" 139 "--wrap: a test killed by a signal dies of the same signal"

OUT=$(cd "$TMP" && "$CBTEST" --wrap --report-dir "$TMP/rep0" -- /no/such/test 2>&1); RC=$?
is "$RC" 127 "--wrap: a test cbtools cannot run is run plainly (its status: 127)"
like "$OUT" "cbtest: cbtools could not run the test .*running the test without cbtools" \
   "--wrap: and says so on stderr"

# Two wrapped runs of the same test at once: two folders, each complete.
(cd "$TMP" && "$CBTEST" --wrap --report-dir "$TMP/rep1" -- /bin/true >/dev/null 2>&1) &
(cd "$TMP" && "$CBTEST" --wrap --report-dir "$TMP/rep1" -- /bin/true >/dev/null 2>&1) &
wait
is "$(ls "$TMP/rep1/tests" | tr '\n' ' ')" "true true-2 " "--wrap: the same test twice at once: folders true and true-2"
is "$(ls "$TMP"/rep1/tests/*/test.state | wc -l)" 2 "--wrap: each with its own saved result"
is "$(find "$TMP/rep1" -name '*.XXXXXX' -o -name '*.state.*' | wc -l)" 0 "--wrap: no temporary file left behind"

# ---- A meson project -------------------------------------------------------
if ! command -v meson >/dev/null 2>&1 || ! command -v ninja >/dev/null 2>&1; then
   ok "# SKIP meson or ninja is not installed (scripts/setup-deps.sh installs them)" true
   done_testing
fi
P=$TMP/proj
mkdir -p "$P"
cat >"$P/bank.c" <<'EOF'
/* A lost update: two deposits, the read and the write not atomic. */
#include <pthread.h>
#include <stdio.h>
volatile int balance = 100;
__attribute__((noinline)) void deposit(int amount)
{
   int seen = balance;
   balance = seen + amount;
}
static void *teller(void *arg) { deposit((int)(long)arg); return NULL; }
int main(void)
{
   pthread_t a, b;
   pthread_create(&a, NULL, teller, (void *)10L);
   pthread_create(&b, NULL, teller, (void *)20L);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   if (balance != 130) { fprintf(stderr, "bank: lost a deposit\n"); return 1; }
   puts("bank: ok");
   return 0;
}
EOF
cat >"$P/tally.c" <<'EOF'
/* Correct: every thread counts in its own slot; main adds after joining. */
#include <pthread.h>
#include <stdio.h>
static long slot[2];
static void *count(void *arg) { long *s = arg; for (int i = 0; i < 10; i++) (*s)++; return NULL; }
int main(void)
{
   pthread_t a, b;
   pthread_create(&a, NULL, count, &slot[0]);
   pthread_create(&b, NULL, count, &slot[1]);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   printf("tally: %ld\n", slot[0] + slot[1]);
   return slot[0] + slot[1] == 20 ? 0 : 1;
}
EOF
cat >"$P/meson.build" <<'EOF'
project('bank', 'c', default_options: ['optimization=1', 'debug=true'])
threads = dependency('threads')
test('bank', executable('bank', 'bank.c', dependencies: threads))
test('tally', executable('tally', 'tally.c', dependencies: threads))
EOF
(cd "$P" && meson setup build >"$TMP/setup.log" 2>&1)
ok "meson setup" test -f "$P/build/build.ninja"
[ -f "$P/build/build.ninja" ] || { cat "$TMP/setup.log" | sed 's/^/# /'; done_testing; }
# The tests natively: both pass (the window is one instruction wide).
(cd "$P/build" && meson test >"$TMP/native.log" 2>&1); RC=$?
is "$RC" 0 "meson test natively: both tests pass"

REP=$TMP/report
(cd "$P/build" && CBTEST_REPORT_DIR=$REP meson test --num-processes 2 \
   --wrapper="$CBTEST --wrap --timeout 5 --" >"$TMP/wrapped.log" 2>&1); RC=$?
LOG=$(cat "$TMP/wrapped.log")
is "$RC" 1 "meson test through the wrapper: fails"
like "$LOG" "bank +FAIL" "the buggy test (bank) fails"
like "$LOG" "tally +OK" "the correct test (tally) passes"
like "$LOG" "Ok: +1" "exactly one test passes"
like "$LOG" "Fail: +1" "exactly one test fails"
like "$(cat "$P"/build/meson-logs/testlog*.txt 2>/dev/null)" "BUG RWW on balance" \
   "meson's test log holds cbtest's bug report"
is "$(ls "$REP/tests" | tr '\n' ' ')" "bank tally " "one result folder per test"

OUT=$("$CBTEST" --merge "$REP" 2>&1); RC=$?
is "$RC" 1 "--merge: exit 1, a bug among the merged tests"
# The bank test's first schedules run two at once: one or both may be
# confirmed before the stop at its first bug.
like "$OUT" "[12] bugs? confirmed in 1 of 2 tests" "--merge: the summary of both tests"
is "$(perl -MJSON::PP -0777 -ne 'my $d = decode_json($_); print join(",", map { "$_->{id}:$_->{outcome}" } @{$d->{tests}})' "$REP/report.json")" \
   "bank:bugs,tally:clean" "--merge: report.json names each test and its outcome"
ok "--merge: report.sarif and report.html written" test -s "$REP/report.sarif" -a -s "$REP/report.html"


# A test that failed in its first recorded run and passed when recorded
# again: the runner sees that failure, its status and its own output, not
# the later run's.
cat >"$TMP/once.sh" <<EOF
#!/bin/sh
[ -f "$TMP/once.ran" ] && { echo "second run fine"; exit 0; }
: >"$TMP/once.ran"
echo "first run broke" >&2
exit 4
EOF
chmod +x "$TMP/once.sh"
"$CBTEST" --wrap --report-dir "$TMP/once-out" -- "$TMP/once.sh" >"$TMP/once.out" 2>"$TMP/once.err"
is $? 4 "--wrap: a test that failed once when recorded exits with that run's status"
like "$(cat "$TMP/once.err")" "first run broke" "--wrap: and shows that run's stderr"
unlike "$(cat "$TMP/once.out")" "second run fine" "--wrap: not the later run's output"

done_testing
