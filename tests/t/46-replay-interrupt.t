#!/bin/sh
# An interrupted `cbreplay --all` (SIGINT, SIGTERM, SIGHUP) prints the table
# of the schedules that had finished, removes its temporary files (its
# cbreplay.XXXXXX folders; Valgrind leaves no vgdb-pipe-* files), leaves no
# forced program running, and still dies of the signal (exit 130, 143,
# 129).  While it runs it reports each result as it comes.
. "$(dirname "$0")/../tap.sh"

# Forced runs end at once until the test creates $SLOW; from then on each
# sleeps (and says so in $SLEEPING), so that the interruption comes while a
# run is in progress and after s1 (all its tail variants) finished.
cat >"$TMP/slow.c" <<'C'
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>
volatile int counter;
static void *work(void *a) { int v = counter; sched_yield(); counter = v + 1; return a; }
int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, 0, work, 0);
    pthread_create(&t2, 0, work, 0);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    const char *slow = getenv("SLOW"), *sleeping = getenv("SLEEPING");
    if (slow && sleeping && access(slow, F_OK) == 0) {
        close(creat(sleeping, 0644));
        sleep(120);
    }
    return 0;
}
C
gcc -g -O1 -pthread -o "$TMP/slow" "$TMP/slow.c"
cbtrace record -o "$TMP/t.pb" -- "$TMP/slow" >/dev/null 2>&1
cbpredict -o "$TMP/s" "$TMP/t.pb" >/dev/null 2>&1
n=$(ls "$TMP/s" | grep -c '^s[0-9]*\.pb$')
ok "the program has at least two schedules ($n)" [ "$n" -ge 2 ]

for sig in INT TERM HUP; do
    case $sig in INT) want=130 ;; TERM) want=143 ;; HUP) want=129 ;; esac
    # The last round's out and err go first: the background job truncates
    # them only once it runs, and a stale "[1/" would end the wait below.
    rm -rf "$TMP/slowmark" "$TMP/sleeping" "$TMP/tmp" "$TMP/out" "$TMP/err"
    mkdir "$TMP/tmp"
    # A background job of a script starts with SIGINT ignored: undo that.
    TMPDIR="$TMP/tmp" SLOW="$TMP/slowmark" SLEEPING="$TMP/sleeping" \
        perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' \
        cbreplay --schedules "$TMP/s" --all -j 1 --timeout 200 -- "$TMP/slow" \
        >"$TMP/out" 2>"$TMP/err" &
    pid=$!
    i=0
    until grep -qs '\[1/' "$TMP/err" || [ $i -ge 600 ]; do sleep 0.1; i=$((i + 1)); done
    touch "$TMP/slowmark"
    i=0
    until [ -e "$TMP/sleeping" ] || [ $i -ge 600 ]; do sleep 0.1; i=$((i + 1)); done
    kill -$sig $pid
    wait $pid; rc=$?
    is "$rc" "$want" "SIG$sig: cbreplay dies of it (exit $want)"
    out=$(cat "$TMP/out"); err=$(cat "$TMP/err")
    k=$(printf '%s\n' "$err" | grep -c "^cbreplay: \[[0-9]*/$n\] ")
    like "$err" "^cbreplay: \[1/$n\] s1 passed" "SIG$sig: s1's result was reported as it came"
    ok "SIG$sig: some ($k) but not all schedules finished" [ "$k" -ge 1 -a "$k" -lt "$n" ]
    like "$out" '^s1 .* passed' "SIG$sig: the table shows the finished s1"
    is "$(printf '%s\n' "$out" | grep -c '^s[0-9]')" "$k" \
        "SIG$sig: the table shows the $k finished schedules, not the interrupted one"
    like "$out" "^$k forced runs?: 0 failed, 0 deadlocked, 0 hung, " "SIG$sig: a summary of what finished"
    like "$err" "interrupted by SIG$sig" "SIG$sig: stderr says it was interrupted"
    is "$(ls -A "$TMP/tmp")" "" "SIG$sig: no temporary file left (no cbreplay.*, no vgdb-pipe-*)"
    # Killed processes may take a moment to be reaped on a busy machine.
    i=0
    while pgrep -f "$TMP/slow" >/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    left=$(pgrep -f "$TMP/slow" | tr '\n' ' ')
    is "$left" "" "SIG$sig: no forced program left running"
    [ -n "$left" ] && kill -KILL $left
done

# A reader that stops reading (`| grep -q`, `| head`) ends cbreplay with
# SIGPIPE at its next write: its temporary files go first.
rm -rf "$TMP/tmp"; mkdir "$TMP/tmp"
TMPDIR="$TMP/tmp" cbreplay -v --timeout 60 --schedule "$TMP/s/s1.pb" -- "$TMP/slow" 2>&1 |
    grep -q "tool: released"
is "$(ls -A "$TMP/tmp")" "" "SIGPIPE: no temporary file left (no cbreplay.*)"
done_testing
