#!/bin/sh
# The whole pipeline on every program of tests/programs/: record, predict,
# `cbreplay --all`.  What each program must give comes from its markers
# (tests/lib/README.md):
#   bug PATTERNS VAR --all exits 1, and a failed run has one of those
#                    patterns (RWR|ORD: either) and that variable (- : any)
#                    and names the program's e1, f, e2 lines;
#   correct          --all exits 0: no forced run fails or hangs;
#   deadlock         --all exits 1 with a deadlocked run (the tool ends it).
# Then one failing schedule of rww.c is replayed 10 times: 10 failures, one
# sequence of counted events.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/lib/programs.sh"

EV=$TOP/build/tests/replay_events
MK=$TOP/build/tests/replay_mkschedule
TIMEOUT=5   # seconds after the release before a run counts as hung

# ---- Are the pieces there?
if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || ! command -v cbpredict >/dev/null; then
   echo "Bail out! the tool or cbpredict is not built (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi
cat > "$TMP/a.c" <<'EOF'
int main(void) { return 0; }
EOF
cc -o "$TMP/a" "$TMP/a.c"
"$MK" -o "$TMP/empty.pb" --program "$TMP/a"
if ! cbreplay -v --timeout 60 --schedule "$TMP/empty.pb" -- "$TMP/a" 2>&1 |
     grep -q "tool: released"; then
   echo "Bail out! the tool has no replay mode yet (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi
cb_record rww "$TMP/probe.pb"
cbpredict -o "$TMP/probe.s" "$TMP/probe.pb" >/dev/null 2>&1
if ! ls "$TMP/probe.s"/s*.pb >/dev/null 2>&1; then
   echo "Bail out! cbpredict predicts nothing for rww.c yet (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi

# predict_and_replay NAME: record, predict, replay all; sets OUT and RC.
# The recorded run must end as the program's marker says (cbtools-exit,
# a passing run): prediction starts from a run that passed.  A buggy
# program's own race can strike in the recording too on a loaded machine
# (audit.c's auditor looking after both updates): then it is recorded
# again, at most twice more, and the test says so.
predict_and_replay() {
   d=$TMP/$1
   mkdir -p "$d"
   want=$(cb_marker "$CB_PROGRAM_SRC/$1.c" exit)
   for try in 1 2 3; do
      cb_record "$1" "$d/trace.pb"
      [ "$CB_STATUS" = "${want:-0}" ] && break
      diag "$1: the recorded run ended with $CB_STATUS, not ${want:-0} (try $try)"
   done
   cbpredict -o "$d/s" "$d/trace.pb" > "$d/predict.out" 2>&1
   OUT=$(cd "$d" && cbreplay --schedules "$d/s" --all --confirm 1 --timeout $TIMEOUT \
            -- "$CB_PROGRAM_BIN/$1" 2>"$d/replay.err")
   RC=$?
   printf '%s\n' "$OUT" > "$d/replay.out"
}

# failed_rows BASE: the table's rows of failed runs as PATTERN, VARIABLE,
# E1, F, E2 (a location in file BASE as its line number) and the row
# itself, tab-separated.  A
# variable may hold spaces (a heap block: "heap 0x... (malloc at a.c:12)"),
# so the columns after it are found as the first three FILE:LINE fields
# followed by the verdict "failed".
failed_rows() {
   printf '%s\n' "$OUT" | awk -v b="$1:" '
      function loc(x) { return x ~ /:[0-9]+$/ }
      function ln(x) { return index(x, b) == 1 ? substr(x, length(b) + 1) : x }
      /^s[0-9]+ / {
         i = 4
         while (i + 3 <= NF && !(loc($i) && loc($(i + 1)) && loc($(i + 2)) &&
                                 $(i + 3) == "failed"))
            i++
         if (i + 3 > NF) next
         v = $3
         for (k = 4; k < i; k++) v = v " " $k
         printf "%s\t%s\t%s\t%s\t%s\t%s\n", $2, v, ln($i), ln($(i + 1)), ln($(i + 2)), $0
      }'
}

# found_rows SRC PATTERNS VAR: rows of failed runs that the marker "bug
# PATTERNS VAR" allows (cb_expect_matches) and whose e1, f, e2 lines are the
# program's e1, f, e2 lines.
found_rows() {
   e1=" $(cb_role_lines "$1" e1 | tr '\n' ' ')"
   f=" $(cb_role_lines "$1" f | tr '\n' ' ')"
   e2=" $(cb_role_lines "$1" e2 | tr '\n' ' ')"
   failed_rows "$(basename "$1")" | while IFS='	' read -r pat var l1 lf l2 row; do
      cb_expect_matches "$2" "$3" "$pat" "$var" || continue
      case $e1 in *" $l1 "*) ;; *) continue ;; esac
      case $f in *" $lf "*) ;; *) continue ;; esac
      case $e2 in *" $l2 "*) ;; *) continue ;; esac
      printf '%s\n' "$row"
   done
}

for src in "$CB_PROGRAM_SRC"/*.c; do
   name=$(basename "$src" .c)
   expect=$(cb_marker "$src" expect)
   why=$(cb_program_missing "$src")
   [ -z "$why" ] || { skip "$name: not built: $why"; continue; }
   [ -x "$CB_PROGRAM_BIN/$name" ] || { _tap_report 1 "$name: not built"; continue; }
   case $expect in
   bug*)
      # PATTERNS, then the variable: the rest of the marker (libc's
      # hidden state has a name of several words).
      set -- $expect
      pats=$2
      shift 2
      var=$*
      # A recorded run is one interleaving, and a loaded machine picks
      # others: the bug must be found from one of at most six
      # recordings (a diag line says when the first did not do).  Some
      # interleavings need two reorderings, which one schedule does not
      # force: audit.c's fee landing before the deposit (1 recording in 4
      # under load, more under make check's own) leaves deposit-before-fee
      # and both-before-the-auditor to force, and every schedule of such a
      # recording passes.  Three tries failed once in about ten make
      # checks; six make it rare (a try costs seconds, only when needed).
      for try in 1 2 3 4 5 6; do
         predict_and_replay "$name"
         rows=$(found_rows "$src" "$pats" "$var")
         [ "$RC" = 1 ] && [ -n "$rows" ] && break
         [ $try = 6 ] || diag "$name: not found from recording $try (exit $RC); recording again"
      done
      is "$RC" 1 "$name: cbreplay --all finds the bug (exit 1)"
      ok "$name: a failed $pats run on $var names the buggy lines" test -n "$rows"
      [ -n "$rows" ] || printf '%s\n' "$OUT" | sed 's/^/#   /' | head -30
      ;;
   correct)
      predict_and_replay "$name"
      is "$RC" 0 "$name: every forced run passes (no false positive)"
      [ "$RC" = 0 ] || printf '%s\n' "$OUT" | sed 's/^/#   /' | head -30
      ;;
   deadlock)
      predict_and_replay "$name"
      is "$RC" 1 "$name: cbreplay --all ends, and reports the bug"
      like "$OUT" "^s[0-9]+ .* deadlock " "$name: a forced run ends as a deadlock"
      ;;
   *)
      # crash programs always fail: replaying them tests nothing new.
      ;;
   esac
done

# Ten replays of one failing schedule of rww.c.
s=$(printf '%s\n' "$(cat "$TMP/rww/replay.out" 2>/dev/null)" |
    awk '$7 == "failed" { print $1; exit }')
if [ -n "$s" ]; then
   fails=0 same=0
   for i in 1 2 3 4 5 6 7 8 9 10; do
      cbreplay --events-out "$TMP/ev$i" --schedule "$TMP/rww/s/$s.pb" \
         --timeout $TIMEOUT -- "$CB_PROGRAM_BIN/rww" >/dev/null 2>&1
      [ $? = 1 ] && fails=$((fails + 1))
      "$EV" "$TMP/ev$i" > "$TMP/seq$i" 2>/dev/null
      cmp -s "$TMP/seq1" "$TMP/seq$i" && same=$((same + 1))
   done
   is "$fails" 10 "rww $s replayed 10 times: 10 failures"
   is "$same" 10 "rww $s replayed 10 times: one sequence of counted events"
else
   _tap_report 1 "rww: no failing schedule to replay"
fi

done_testing
