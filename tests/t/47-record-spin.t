#!/bin/sh
# A spinner's repeated reads are no events (vgtool/cb_repeat.c), in the
# recording and in forced runs alike.  tests/data/handback.c (-O2, the
# loops in main and the start routine) hands a token back and forth 100
# times through an atomic word, each side spinning for its turn: under
# Valgrind a spinner spins its whole time slice, and on the build before
# the recording held about a million reads per wait (a 200-round twin:
# 214 million events, 860 MB, 40 s of prediction; cbtest 287 s, 17 of 25
# forced runs infeasible after the 3 s stall limit).  Now a wait is its
# first read, three repeats and the read that saw the change; the spinner
# gives way when its reads fill the buffer, and a forced run whose turn
# is a spinner's, waiting for a thread the plan holds, ends after 1 s.
. "$(dirname "$0")/../tap.sh"

if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || [ ! -x "$TOP/bin/cbtest" ]; then
   echo "Bail out! the tool or cbtest is not built (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi
. "$TOP/tests/lib/json.sh"
. "$TOP/tests/lib/pipeline.sh"

cb_build_data handback.c handback
cb_build_data handback.c early -DEARLY_HANDBACK

# The recording: every wait in it, each a few reads.
cbtrace record -o "$TMP/hb.pb" -- "$TMP/handback" >"$TMP/rec.out" 2>&1
is "$?" 0 "handback records and passes"
cbtrace dump "$TMP/hb.pb" >"$TMP/dump" 2>&1
n=$(grep -c '^[0-9]' "$TMP/dump")
ok "the trace holds a few events per round ($n for 100 rounds)" test "$n" -gt 400 -a "$n" -lt 4000
# The longest run of one thread's reads of turn, nothing between.
longest=$(awk '$3 == "read" && $4 == "turn" { if ($2 == who) run++; else run = 1; who = $2; if (run > m) m = run; next }
               { who = "" } END { print m + 0 }' "$TMP/dump")
ok "a wait is at most five reads of turn in a row (longest $longest)" test "$longest" -ge 4 -a "$longest" -le 5
# Each of main's 100 waits ends with the read that saw the worker's 0.
seen=$(grep -cE '^[0-9]+ T1 read turn size 4 = 0 ' "$TMP/dump")
ok "every wait's last read is kept (main read turn = 0 $seen times)" [ "$seen" -ge 100 ]
seen=$(grep -cE '^[0-9]+ T2 read turn size 4 = 1 ' "$TMP/dump")
ok "and the worker's (turn = 1 $seen times)" [ "$seen" -ge 100 ]

# The correct program: no bug, no forced run hung.
cb_cbtest handback --timeout 10 --max-runs 10
J=$TMP/handback.d/rep/report.json
is "$RC" 0 "handback: no bug reported (exit 0)"
is "$(jget "$J" '$d->{tests}[0]{verdicts}{hung}')" 0 "handback: no forced run hung"
[ "$RC" = 0 ] || sed 's/^/#   /' "$TMP/handback.d/stdout" | head -30

# The token handed back early: main sees its slot unchanged.
cb_cbtest early --timeout 10
is "$RC" 1 "early: a bug is confirmed (exit 1)"
like "$(cat "$TMP/early.d/stdout")" "said: +handback: round [0-9]+ saw [0-9]+" "early: the forced run failed main's check"
# Its schedule reproduces it: a forced run counts the spinner's reads as
# the recording did.
repro=$(sed -n 's/^ *reproduce: *//p' "$TMP/early.d/stdout" | head -1)
fails=0
for k in 1 2 3; do
   (cd "$TMP/early.d" && eval "$repro" >"$TMP/repro.$k" 2>&1)
   [ $? = 1 ] && fails=$((fails + 1))
done
is "$fails" 3 "early: the schedule reproduces the failure 3 times of 3"

done_testing
