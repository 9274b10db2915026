#!/bin/sh
# An interrupted cbtest (SIGINT, SIGTERM, SIGHUP) stops every job with its
# process group, prints the summary and writes report.json, report.sarif
# and report.html of what had finished, leaves no temporary file in the
# output folder or in $TMPDIR (its stages' TMPDIR is a private folder it
# removes; half-written files of stopped stages go) and no program running,
# and dies of the signal (exit 130, 143, 129) -- the mechanism of
# `cbreplay --all` (46-replay-interrupt.t), through the same pool.
#  - The real pipeline: a suite of two tests; the first finishes, a forced
#    run of the second sleeps when SIGINT comes.
#  - Stand-in stages (a copy of cbtest beside scripts named cbtrace,
#    cbpredict, cbreplay) for each signal: the stuck forced run ignores
#    SIGTERM (it is killed after the grace) and leaves a cbreplay.XXXXXX
#    folder and a vgdb-pipe-* file in its TMPDIR, and the test's cbpredict
#    left a schedule under its temporary name.
. "$(dirname "$0")/../tap.sh"

CBTEST=$TOP/bin/cbtest
MK=$TOP/build/tests/replay_mkschedule
. "$TOP/tests/lib/json.sh"
# wait_for CMD...: up to 300 s (a loaded machine) until CMD succeeds.
wait_for() {
   i=0
   until "$@" || [ $i -ge 1500 ]; do sleep 0.2; i=$((i + 1)); done
}
# temp_files DIR: files left under a temporary name (NAME.XXXXXXXXXXXX).
temp_files() { find "$1" -type f | grep -E '\.[0-9a-f]{12}$'; }
# none_left PATTERN: no process whose command line matches is left.
none_left() {
   i=0
   while pgrep -f "$1" >/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
   left=$(pgrep -f "$1" | tr '\n' ' ')
   [ -n "$left" ] && kill -KILL $left
   [ -z "$left" ]
}
if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || [ ! -x "$MK" ]; then
   ok "the tool and replay_mkschedule are built (make check builds them)" false
   done_testing
fi

# ---- The real pipeline ------------------------------------------------------------
# slow [DIR]: a racy counter.  With DIR, once DIR exists (its test's
# schedules: in forced runs, never in the recording) the first run to claim
# $SLEEPING sleeps; every other run ends at once.
cat >"$TMP/slow.c" <<'C'
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>
volatile int counter;
static void *work(void *a) { int v = counter; sched_yield(); counter = v + 1; return a; }
int main(int argc, char **argv)
{
    pthread_t t1, t2;
    pthread_create(&t1, 0, work, 0);
    pthread_create(&t2, 0, work, 0);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    const char *sleeping = getenv("SLEEPING");
    if (argc > 1 && sleeping && access(argv[1], F_OK) == 0) {
        int fd = open(sleeping, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd >= 0) {
            close(fd);
            sleep(120);
        }
    }
    return 0;
}
C
gcc -g -O1 -pthread -o "$TMP/slow" "$TMP/slow.c"
R=$TMP/real
mkdir -p "$R/tmp"
printf '%s\n' "$TMP/slow" "$TMP/slow $R/out/tests/002-slow/schedules" >"$R/suite.tests"
# A background job of a script starts with SIGINT ignored: undo that.
TMPDIR="$R/tmp" SLEEPING="$R/sleeping" perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' \
   "$CBTEST" -j 2 --no-explore --timeout 200 -o "$R/out" --tests "$R/suite.tests" \
   >"$R/stdout" 2>"$R/stderr" &
pid=$!
wait_for grep -qs '\[1/2\] 001-slow' "$R/stderr"
wait_for test -e "$R/sleeping"
kill -INT $pid
wait $pid; rc=$?
OUT=$(cat "$R/stdout") OUT1=$(tr '\n' '~' <"$R/stdout") ERR=$(cat "$R/stderr")
is "$rc" 130 "real, SIGINT: cbtest dies of it (exit 130)"
like "$ERR" "^cbtest: interrupted by SIGINT: every job was stopped; 1 of 2 tests had finished" \
   "real: stderr says it was interrupted, and how far it got"
like "$OUT" "^cbtest: 2 tests in .*, INTERRUPTED" "real: the summary says INTERRUPTED"
like "$OUT1" "001-slow [^~]*~ +([0-9]+) schedules predicted: [0-9]+ passed, 0 failed, 0 deadlocked, [0-9]+ infeasible, 0 hung~" \
   "real: the summary shows the finished test and its forced runs"
like "$OUT1" "002-slow [^~]*~ +not finished: cbtest was interrupted while forcing its schedules~ +[0-9]+ schedules predicted: .*, [1-9][0-9]* not run~" \
   "real: the interrupted test: its runs that finished, and the ones that did not"
like "$OUT" "^reports: " "real: the reports were written"
J=$R/out/report.json
is "$(jget "$J" '$d->{interrupted} ? "yes" : "no"')" yes "real: report.json parses and says interrupted"
is "$(jget "$J" '$d->{tests}[0]{outcome}')" clean "real: report.json: the finished test, clean"
is "$(jget "$J" 'scalar grep { $_->{verdict} eq "pending" } @{$d->{tests}[0]{schedules}}')" 0 \
   "real: report.json: every forced run of the finished test has its verdict"
ok "real: report.json: the finished test has forced runs" \
   [ "$(jget "$J" 'scalar @{$d->{tests}[0]{schedules}}')" -ge 1 ]
is "$(jget "$J" '$d->{tests}[1]{interrupted} ? "yes" : "no"')" yes "real: report.json: the second test was interrupted"
ok "real: report.json: its unfinished run is pending" \
   [ "$(jget "$J" 'scalar grep { $_->{verdict} eq "pending" } @{$d->{tests}[1]{schedules}}')" -ge 1 ]
is "$(jget "$R/out/report.sarif" '$d->{runs}[0]{invocations}[0]{executionSuccessful} ? "yes" : "no"')" no \
   "real: report.sarif parses, its invocation not successful"
like "$(cat "$R/out/report.html" 2>/dev/null)" "001-slow" "real: report.html lists the finished test"
is "$(temp_files "$R/out")" "" "real: no temporary file left in the output folder"
is "$(ls -A "$R/tmp")" "" "real: nothing left in \$TMPDIR (no cbtest-run.*, cbreplay.*, vgdb-pipe-*)"
ok "real: no program left running" none_left "$TMP/slow"
OUT=$("$CBTEST" --merge -o "$R/merged" "$R/out" 2>&1); RC=$?
is "$RC" 0 "real: --merge of the interrupted run's folder: the finished test (exit 0)"
like "$OUT" "002-slow: no results \(the test did not finish\)" "real: --merge: the unfinished one is named as such"

# ---- Stand-in stages, every signal -----------------------------------------------
FAKE=$TMP/fake
mkdir -p "$FAKE/bin" "$FAKE/progs"
cp "$CBTEST" "$FAKE/bin/cbtest"
export MK STATE="$FAKE/state"
# cbtrace record -o TRACE -- PROG ARGS: the "trace" names the program.
cat >"$FAKE/bin/cbtrace" <<'EOF'
#!/bin/sh
[ "$1" = record ] && [ "$2" = -o ] && [ "$4" = -- ] || exit 2
printf '%s\n' "$5" >"$3"
EOF
# cbpredict -o DIR TRACE: two schedules; for `stuck`, a third one whose
# writer died before its rename.
cat >"$FAKE/bin/cbpredict" <<'EOF'
#!/bin/sh
[ "$1" = -o ] || exit 2
dir=$2 prog=$(cat "$3")
mkdir -p "$dir"
"$MK" -o "$dir/s1.pb" --id 1 --program "$prog" || exit 1
"$MK" -o "$dir/s2.pb" --id 2 --program "$prog" || exit 1
[ "$(basename "$prog")" = stuck ] && echo half >"$dir/s3.pb.0123456789ab"
exit 0
EOF
# cbreplay --schedule PATH --timeout S ... -- PROG: the first forced run of
# `stuck` leaves files in its TMPDIR, ignores SIGTERM and runs the program
# (which sleeps); every other run passes.
cat >"$FAKE/bin/cbreplay" <<'EOF'
#!/bin/sh
while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done
shift
if [ "$(basename "$1")" = stuck ] && (set -C; : >"$STATE/replaying") 2>/dev/null; then
   d=$(mktemp -d "${TMPDIR:-/tmp}/cbreplay.XXXXXX")
   echo plan >"$d/plan"
   : >"${TMPDIR:-/tmp}/vgdb-pipe-from-vgdb-to-$$"
   trap '' TERM INT HUP
   exec "$@"
fi
exit 0
EOF
printf '#!/bin/sh\nexit 0\n' >"$FAKE/progs/fast"
printf '#!/bin/sh\nexec sleep 120\n' >"$FAKE/progs/stuck"
chmod +x "$FAKE"/bin/* "$FAKE"/progs/*
printf '%s\n' "$FAKE/progs/fast" "$FAKE/progs/stuck" >"$FAKE/suite.tests"

for sig in INT TERM HUP; do
   case $sig in INT) want=130 ;; TERM) want=143 ;; HUP) want=129 ;; esac
   d=$FAKE/$sig
   rm -rf "$STATE"
   mkdir -p "$d/tmp" "$STATE"
   TMPDIR="$d/tmp" perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' \
      "$FAKE/bin/cbtest" -j 2 --no-explore -o "$d/out" --tests "$FAKE/suite.tests" >"$d/stdout" 2>"$d/stderr" &
   pid=$!
   wait_for grep -qs '\[1/2\] 001-fast' "$d/stderr"
   wait_for test -e "$STATE/replaying"
   wait_for test -e "$d/out/tests/002-stuck/schedules/s3.pb.0123456789ab"
   kill -$sig $pid
   wait $pid; rc=$?
   is "$rc" "$want" "stand-ins, SIG$sig: cbtest dies of it (exit $want)"
   like "$(cat "$d/stderr")" "interrupted by SIG$sig" "stand-ins, SIG$sig: said so"
   like "$(tr '\n' '~' <"$d/stdout")" "001-fast [^~]*~ +2 schedules predicted: 2 passed" \
      "stand-ins, SIG$sig: the summary shows the finished test"
   is "$(jget "$d/out/report.json" '$d->{tests}[0]{outcome} . "," . ($d->{tests}[1]{interrupted} ? "interrupted" : "?")')" \
      clean,interrupted "stand-ins, SIG$sig: report.json: the finished test and the interrupted one"
   is "$(jget "$d/out/report.sarif" '$d->{version}')" 2.1.0 "stand-ins, SIG$sig: report.sarif parses"
   is "$(temp_files "$d/out")" "" "stand-ins, SIG$sig: the half-written schedule was removed"
   is "$(ls -A "$d/tmp")" "" "stand-ins, SIG$sig: \$TMPDIR is empty (what the killed stage left there went with cbtest's private TMPDIR)"
   ok "stand-ins, SIG$sig: the stage that ignored SIGTERM was killed with its group" none_left "$FAKE/progs/stuck"
done

done_testing
