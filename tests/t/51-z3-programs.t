#!/bin/sh
# cbpredict --z3 end to end, on the programs of tests/programs/ recorded by
# the real tool (issue 5).  Each program is recorded once; both predictions
# and the replays use that one trace.
#   flag.c   the lockset pass predicts an RWR on `data` that the flag makes
#            impossible: without --z3 its schedule exists and its replay ends
#            infeasible (exit 3); with --z3 it is gone, counted as dropped.
#   rwr.c, strbuf.c  a value read twice (the price; a string buffer's
#            length, read once to make room for a copy and again to copy):
#            Z3 proves the RWR possible and its schedule is the model's
#            order.
#   every program: the schedules --z3 keeps are a subset of the candidates
#            (pattern, variable, e1/f/e2 lines, threads); every schedule
#            (atomicity, order violation, deadlock: all are asked) says sat
#            or unknown; `cbreplay --all` on them finds every buggy program
#            (exit 1), and no atomicity schedule nor any schedule that says
#            sat (the model's order) ends infeasible.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/lib/programs.sh"
TIMEOUT=5   # seconds after the release before a run counts as hung

if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || ! command -v cbpredict >/dev/null; then
   echo "Bail out! the tool or cbpredict is not built (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi
if ! cbpredict --help | grep -q -- '--z3'; then
   echo "Bail out! cbpredict has no --z3 (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi

# rows TABLE: a predicted violation a line, "PATTERN VAR E1 F E2 THREADS".
# A candidate whose orderings an earlier schedule forces is listed as =sN.
rows() { awk '/^=?s[0-9]+ / { print $2, $3, $4, $5, $6, $7 }' "$1" | sort; }
# z3_count TABLE WHAT: a count of the --z3 summary line ("dropped as
# impossible", "undecided", "candidates from the lockset pass").
z3_count() { sed -n "s/^cbpredict: z3: .*[ ,]\([0-9][0-9]*\) $2.*/\1/p" "$1"; }
for name in rww rwr wrw wwr www markup rww_locked rwr_locked wrw_locked \
            wwr_locked www_locked condvar barrier nested flag strbuf; do
   src=$CB_PROGRAM_SRC/$name.c
   if [ ! -x "$CB_PROGRAM_BIN/$name" ]; then
      ok "$name: built (make programs)" false
      continue
   fi
   d=$TMP/$name
   mkdir -p "$d"
   cb_record "$name" "$d/trace.pb"
   cbpredict -o "$d/plain" "$d/trace.pb" >"$d/plain.table" 2>&1
   rc=0
   cbpredict --z3 -o "$d/z3" "$d/trace.pb" >"$d/z3.table" 2>"$d/z3.err" || rc=$?
   is "$rc" 0 "$name: cbpredict --z3 exits 0"
   like "$(cat "$d/z3.table")" '^cbpredict: z3: [0-9]+ candidates from the lockset pass' \
      "$name: the table says what Z3 did"

   rows "$d/plain.table" >"$d/plain.rows"
   extra=$(rows "$d/z3.table" | comm -23 - "$d/plain.rows")
   is "$extra" "" "$name: the schedules kept by --z3 are among the candidates"

   # Every schedule carries Z3's verdict: all kinds are asked.
   cbpredict --z3 --json -o "$d/z3j" "$d/trace.pb" >"$d/z3.json" 2>/dev/null
   perl -MJSON::PP -e '
     local $/; open my $f, "<", $ARGV[0] or die; my $j = decode_json(<$f>);
     print "$_->{id} $_->{pattern} $_->{z3} $_->{z3_order}\n" for @{$j->{violations}};
   ' "$d/z3.json" >"$d/verdicts"
   nall=$(wc -l <"$d/verdicts")
   nverdict=$(awk '$3 == "sat" || $3 == "unknown"' "$d/verdicts" | wc -l)
   is "$nverdict" "$nall" "$name: each of the $nall schedules says sat or unknown"
   nsat=$(awk '$3 == "sat" && $4 != 1' "$d/verdicts" | wc -l)
   is "$nsat" 0 "$name: a schedule says sat only when it is the model's order"

   nz=$(grep -c '^s[0-9]* ' "$d/z3.table")
   if [ "$nz" -gt 0 ]; then
      out=$d/replay.out
      (cd "$d" && cbreplay --schedules "$d/z3" --all --timeout $TIMEOUT \
          -- "$CB_PROGRAM_BIN/$name" >"$out" 2>"$d/replay.err")
      rc=$?
      # An order violation or a deadlock Z3 left undecided may still be
      # infeasible; an atomicity schedule, or one Z3 proved, may not.
      ninf=$(awk 'NR == FNR { z[$1] = $3; next }
                  /^s[0-9]+ / && $7 == "infeasible" &&
                  (z[$1] == "sat" || ($2 != "ORD" && $2 != "DLK"))' \
             "$d/verdicts" "$out" | wc -l)
      is "$ninf" 0 "$name: no atomicity or proven schedule kept by --z3 ends infeasible ($nz forced)"
      [ "$ninf" = 0 ] || sed 's/^/#   /' "$out" | head -20
   else
      rc=0
   fi
   case $(cb_marker "$src" expect) in
   bug*) is "$rc" 1 "$name: cbreplay --all finds the bug with the --z3 schedules" ;;
   correct) is "$rc" 0 "$name: no forced run of a --z3 schedule fails" ;;
   esac

   if [ "$name" = flag ]; then
      like "$(rows "$d/plain.table")" '^RWR data ' "flag: without --z3, an RWR on data is predicted"
      s=$(awk '/^s[0-9]+ / && $2 == "RWR" && $3 == "data" { print $1; exit }' "$d/plain.table")
      rc=0
      (cd "$d" && cbreplay --schedule "$d/plain/$s.pb" --timeout $TIMEOUT \
          -- "$CB_PROGRAM_BIN/flag" >"$d/flag.replay" 2>&1) || rc=$?
      is "$rc" 3 "flag: without --z3, its replay ends infeasible (exit 3)"
      unlike "$(rows "$d/z3.table")" '^RWR data ' "flag: with --z3, the RWR on data is gone"
      ndrop=$(z3_count "$d/z3.table" 'dropped as impossible')
      ok "flag: counted as dropped by Z3 ($ndrop)" [ "${ndrop:-0}" -ge 1 ]
      like "$(cat "$d/z3.table")" " $ndrop by the check" "flag: and in the dropped line"
   fi
   case $name in rwr|strbuf)
      like "$(cat "$d/verdicts")" '^s[0-9]+ RWR sat 1$' \
         "$name: the value read twice is proven possible, its schedule the model's order"
   esac
done

done_testing
