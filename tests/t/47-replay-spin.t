#!/bin/sh
# A forced run's spinning thread gives way (vgtool/cb_spin.c).  A correct
# Peterson lock (tests/data/peterson.c, -O2, the loop in the start
# routine) is uncontended in the recorded run: each worker takes it a
# thousand times in one time slice.  Forced to interleave, a worker that
# waits spins through its whole time slice (about 100,000 blocks) at
# each turn, and on the build before cbtest's delay schedules ran past
# --timeout after the release and were judged hung: three bugs reported in
# a correct program, 113 s.  Now a thread whose reads only repeat yields,
# and its spinning is no progress (a run-out thread that waits for a held
# one is blocked, not busy): no run hangs.  The lock's broken twins still
# fail: one that raises its flag after looking (both enter, a lost update)
# and one with flags only, whose livelock is still a hang (the yield does
# not hide it).
. "$(dirname "$0")/../tap.sh"

if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || [ ! -x "$TOP/bin/cbtest" ]; then
   echo "Bail out! the tool or cbtest is not built (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi
. "$TOP/tests/lib/json.sh"

for v in peterson check_then_set flags_only; do
   case $v in
   peterson) f= ;;
   check_then_set) f=-DCHECK_THEN_SET ;;
   *) f=-DFLAGS_ONLY ;;
   esac
   cc -O2 -g -pthread $f -o "$TMP/$v" "$TOP/tests/data/peterson.c" || { echo "Bail out! cannot build $v"; exit 1; }
done

# The correct lock: every predicted schedule, then cbtest's delays.
mkdir -p "$TMP/p.d"
(cd "$TMP/p.d" && "$TOP/bin/cbtest" -j 1 --timeout 5 --max-runs 18 -o rep -- "$TMP/peterson" >stdout 2>stderr)
rc=$?
J=$TMP/p.d/rep/report.json
is "$rc" 0 "peterson: no bug reported in the correct lock (exit 0)"
is "$(jget "$J" '$d->{tests}[0]{verdicts}{hung}')" 0 "peterson: no forced run hung"
ok "peterson: delay schedules were forced too ($(jget "$J" 'scalar grep { $_->{pattern} eq "explore" } @{$d->{tests}[0]{schedules}}'))" \
   [ "$(jget "$J" 'scalar grep { $_->{pattern} eq "explore" } @{$d->{tests}[0]{schedules}}')" -ge 1 ]
[ "$rc" = 0 ] || sed 's/^/#   /' "$TMP/p.d/stdout" | head -30

# Both may enter: the lost update is found, in the program's words.
mkdir -p "$TMP/c.d"
(cd "$TMP/c.d" && "$TOP/bin/cbtest" -j 1 --timeout 5 -o rep -- "$TMP/check_then_set" >stdout 2>stderr)
is "$?" 1 "check_then_set: a bug is confirmed (exit 1)"
like "$(cat "$TMP/c.d/stdout")" "said: +lost updates: [0-9]+" "check_then_set: its run lost an update"

# Flags only: both wait forever; the run still hangs.
mkdir -p "$TMP/f.d"
(cd "$TMP/f.d" && "$TOP/bin/cbtest" -j 1 --timeout 3 --max-runs 3 -o rep -- "$TMP/flags_only" >stdout 2>stderr)
is "$?" 1 "flags_only: a bug is confirmed (exit 1)"
like "$(cat "$TMP/f.d/stdout")" "BUG [A-Z]+ on [a-z]+.*: the forced run hung" "flags_only: its forced run hung (the livelock)"

done_testing
