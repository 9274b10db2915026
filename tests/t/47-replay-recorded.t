#!/bin/sh
# Replay runs the program as it was recorded: with the recording's
# instrumentation (kept in the trace and in each schedule), judged against
# the recorded run's own exit status (kept in each schedule, so also when
# the trace is not beside the schedules), with the input given by --stdin
# (default /dev/null); and `--all DIR` takes the schedule folder.
. "$(dirname "$0")/../tap.sh"

cat >"$TMP/p.c" <<'C'
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
volatile int counter;
static void *work(void *a) { int v = counter; sched_yield(); counter = v + 1; return a; }
int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, 0, work, 0);
    pthread_create(&t2, 0, work, 0);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    if (getenv("READ")) {
        char buf[16];
        if (!fgets(buf, sizeof buf, stdin) || strcmp(buf, "hello\n") != 0)
            return 1;
    }
    return getenv("EXIT3") ? 3 : 0;
}
C
gcc -g -O1 -pthread -o "$TMP/p" "$TMP/p.c"
P="$TMP/p"

# ---- --help ---------------------------------------------------------------------
help=$(cbreplay --help)
like "$help" '--stdin FILE' "--help documents --stdin"
like "$help" 'Default /dev/null' "--help says the default input is /dev/null"

# ---- the recorded run's exit status travels in the schedule ---------------------
EXIT3=1 cbtrace record -o "$TMP/e3.pb" -- "$P" >/dev/null 2>&1
is "$?" 3 "a program whose success is exit 3 records with exit 3"
cbpredict -o "$TMP/e3" "$TMP/e3.pb" >/dev/null 2>&1
# The folder is not e3.pb.schedules: only the schedules know the exit status.
out=$(EXIT3=1 cbreplay --schedules "$TMP/e3" --schedule s1 -- "$P" 2>&1)
is "$?" 0 "exit 3 as recorded is not a failure (the trace is not beside the schedules)"
unlike "$out" 'failed \(exit 3\)' "s1 is not reported as failed with exit 3"

# ---- --all DIR --------------------------------------------------------------------
out=$(EXIT3=1 cbreplay --all "$TMP/e3" -j 2 -- "$P" 2>"$TMP/err")
rc=$?
is "$rc" 0 "--all DIR -- PROG forces the schedules of DIR"
like "$out" '^s1 ' "and its table names s1"
like "$(cat "$TMP/err")" '^cbreplay: \[1/' "results are reported as they come"
out=$(cbreplay --all "$TMP/e3" "$P" 2>&1)
is "$?" 2 "--all DIR PROG without --: exit 2"
like "$out" 'is a folder: to force its schedules, cbreplay --all .* -- PROG' \
    "and says how to write it"
out=$(cbreplay --schedules "$TMP/e3" --all "$TMP/e3" -- "$P" 2>&1)
is "$?" 2 "--schedules DIR and --all DIR together: exit 2"

# ---- --stdin ------------------------------------------------------------------------
printf 'hello\n' >"$TMP/hello"
READ=1 cbtrace record -o "$TMP/in.pb" -- "$P" <"$TMP/hello" >/dev/null 2>&1
cbpredict -o "$TMP/in" "$TMP/in.pb" >/dev/null 2>&1
out=$(READ=1 cbreplay --schedules "$TMP/in" --schedule s1 --variant 0 \
      --stdin "$TMP/hello" -- "$P" 2>&1)
is "$?" 0 "--stdin FILE gives each forced run the recorded input"
out=$(READ=1 cbreplay --schedules "$TMP/in" --schedule s1 --variant 0 -- "$P" \
      <"$TMP/hello" 2>&1)
is "$?" 1 "without --stdin a forced run reads /dev/null (and fails here)"
out=$(READ=1 cbreplay --schedules "$TMP/in" --schedule s1 --variant 0 \
      --stdin - -- "$P" <"$TMP/hello" 2>&1)
is "$?" 0 "--stdin - passes cbreplay's own input (one schedule)"
out=$(cbreplay --all "$TMP/in" --stdin - -- "$P" 2>&1)
is "$?" 2 "--stdin - with --all: exit 2"
out=$(cbreplay --all "$TMP/in" --stdin "$TMP/none" -- "$P" 2>&1)
is "$?" 2 "--stdin of a missing file: exit 2"
like "$out" "cannot read --stdin $TMP/none" "and says so"

# ---- the recording's instrumentation -----------------------------------------------
cbtrace record --instrument=all -o "$TMP/all.pb" -- "$P" >/dev/null 2>&1
cbpredict -o "$TMP/all" "$TMP/all.pb" >/dev/null 2>&1
# Forced without the recording's instrumentation, every schedule would be
# infeasible at its first event.  With it, some are still infeasible for
# their own reasons (lazy binding resolves sched_yield in whichever thread
# calls it first; which schedule ranks first varies with the recording), so
# the check is that one of the first ten is forced through (five were not
# enough once schedules were ranked by shape: one clean clone in three).
passed=""
for s in s1 s2 s3 s4 s5 s6 s7 s8 s9 s10; do
    [ -f "$TMP/all/$s.pb" ] || break
    out=$(cbreplay --schedules "$TMP/all" --schedule $s --variant 0 -- "$P" 2>&1)
    rc=$?
    printf '%s\n' "$out" | grep -Eq "^$s +.* infeasible " && continue
    passed=$s
    break
done
ok "a schedule of a run recorded with --instrument=all is forced with it (one of s1-s10 not infeasible)" \
    [ -n "$passed" ]
is "$rc" 0 "and passes"
# Schedules of two recordings made differently are refused together.
mkdir "$TMP/mixed"
cp "$TMP/all/s1.pb" "$TMP/mixed/s1.pb"
cp "$TMP/e3/s1.pb" "$TMP/mixed/s2.pb"
out=$(cbreplay --all "$TMP/mixed" -- "$P" 2>&1)
is "$?" 2 "schedules recorded with different --instrument together: exit 2"
like "$out" 'recorded with --instrument=all and --instrument=default' "and says why"
done_testing
