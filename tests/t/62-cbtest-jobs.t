#!/bin/sh
# cbtest beyond one machine: --emit-jobs records and predicts here and
# writes every forced run as one command line; the lines run anywhere (here:
# sh, one after another, in another folder); --merge makes the report.  It
# must equal the report of a plain cbtest run of the same suite, timings and
# the output folder's name aside.  Real pipeline on tests/programs.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/lib/programs.sh"

CBTEST=$TOP/bin/cbtest
if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || [ ! -x "$CB_PROGRAM_BIN/rww" ]; then
   ok "the tool and the test programs are built (make check builds them)" false
   done_testing
fi

# Bad usage first.
OUT=$("$CBTEST" --emit-jobs "$TMP/j" --wrap -- /bin/true 2>&1); RC=$?
is "$RC" 2 "--emit-jobs with --wrap: exit 2"
OUT=$("$CBTEST" --run-job "$TMP/nothing" s1 2>&1); RC=$?
is "$RC" 2 "--run-job on a folder without results: exit 2"
like "$OUT" "^cbtest: --run-job: " "--run-job: says why"
OUT=$("$CBTEST" --merge "$TMP" 2>&1); RC=$?
is "$RC" 2 "--merge of a folder without results: exit 2"
like "$OUT" "no cbtest results in it" "--merge: says why"
OUT=$("$CBTEST" --merge "$TMP" -o "$TMP/m" 2>&1); RC=$?
is "$RC" 2 "--merge DIR -o OUT: exit 2"
like "$OUT" "^cbtest: --merge: -o comes after a folder; options go first" \
   "--merge DIR -o OUT: says the options go first"

printf '%s\n' "$CB_PROGRAM_BIN/rww" "$CB_PROGRAM_BIN/www" "$CB_PROGRAM_BIN/crash" >"$TMP/suite.tests"

# The plain run.
(cd "$TMP" && "$CBTEST" --all-bugs --timeout 10 -o plain --tests suite.tests >plain.out 2>&1); RC_PLAIN=$?
is "$RC_PLAIN" 1 "plain run: a bug confirmed"

# The same suite as jobs.
(cd "$TMP" && "$CBTEST" --all-bugs --timeout 10 -o shared --emit-jobs jobs.txt --tests suite.tests >emit.out 2>&1); RC=$?
is "$RC" 0 "--emit-jobs: exit 0"
NJOBS=$(wc -l <"$TMP/jobs.txt")
NRUNS=$(perl -MJSON::PP -0777 -ne 'my $d = decode_json($_); print $d->{summary}{schedules}' "$TMP/plain/report.json")
is "$NJOBS" "$NRUNS" "--emit-jobs: one line per forced run ($NJOBS)"
like "$(cat "$TMP/emit.out")" "job.? written to .*jobs.txt.*cbtest --merge" "--emit-jobs: says what to do next"
is "$(ls "$TMP"/shared/tests/*/replay-* 2>/dev/null | wc -l)" 0 "--emit-jobs: nothing forced yet"
like "$(head -n 1 "$TMP/jobs.txt")" "cbtest'? --all-bugs --run-job '?/.*/shared/tests/001-rww'? s1$" \
   "a job line: cbtest --all-bugs --run-job TESTDIR sN (it forces as the plain run does)"

# Run the lines somewhere else, as a job array would, and merge.
mkdir -p "$TMP/elsewhere"
(cd "$TMP/elsewhere" && sh ../jobs.txt >jobs.log 2>&1); RC=$?
is "$RC" 0 "every job line ran and saved its result"
is "$(ls "$TMP"/shared/tests/*/runs/*.result | wc -l)" "$NJOBS" "one result file per job"
(cd "$TMP" && "$CBTEST" --merge shared >merge.out 2>&1); RC=$?
is "$RC" "$RC_PLAIN" "--merge: the plain run's exit status"

# The two reports, with timings and the folder names taken out.
norm() { # REPORT FOLDER
   perl -MJSON::PP -0777 -e '
      my ($file, $dir) = @ARGV;
      open my $f, "<", $file or die; local $/; my $d = JSON::PP->new->decode(<$f>);
      sub walk { my $x = shift;
         if (ref $x eq "HASH") { delete @$x{qw(seconds jobs output_dir)}; walk($_) for values %$x }
         elsif (ref $x eq "ARRAY") { walk($_) for @$x } }
      walk($d);
      my $s = JSON::PP->new->canonical->pretty->encode($d);
      $s =~ s/\Q$dir\E/DIR/g; print $s' "$1" "$2"
}
# canon: thread ids renamed in order of first appearance.  The plain run
# and the jobs' run each record the program; on a loaded machine the two
# workers may start in the other order, and T2 and T3 swap throughout.
canon() {
   perl -pe 's/"thread" : (\d+)/"thread" : "T$1"/g;
             s/\bT(\d+)\b/$m{$1} \/\/= "X" . ++$n; $m{$1}/ge'
}
norm "$TMP/plain/report.json" "$TMP/plain" | canon >"$TMP/a.json"
norm "$TMP/shared/report.json" "$TMP/shared" | canon >"$TMP/b.json"
D=$(diff "$TMP/a.json" "$TMP/b.json")
# Each run records the programs anew, and a loaded machine can record
# another interleaving, which predicts other schedules: both again, up to
# twice (a clean clone's make check beside other work differed twice in
# a row once).
for again in 1 2; do
   [ -n "$D" ] || break
   diag "the two runs' reports differ (another recorded interleaving?); both again:"
   printf '%s\n' "$D" | head -10 | sed 's/^/#   /'
   rm -rf "$TMP/plain" "$TMP/shared" "$TMP/jobs.txt"
   (cd "$TMP" && "$CBTEST" --all-bugs --timeout 10 -o plain --tests suite.tests >plain.out 2>&1)
   (cd "$TMP" && "$CBTEST" --all-bugs --timeout 10 -o shared --emit-jobs jobs.txt --tests suite.tests >emit.out 2>&1)
   (cd "$TMP/elsewhere" && sh ../jobs.txt >jobs.log 2>&1)
   (cd "$TMP" && "$CBTEST" --merge shared >merge.out 2>&1)
   norm "$TMP/plain/report.json" "$TMP/plain" | canon >"$TMP/a.json"
   norm "$TMP/shared/report.json" "$TMP/shared" | canon >"$TMP/b.json"
   D=$(diff "$TMP/a.json" "$TMP/b.json")
done
is "$D" "" "report.json: merged jobs equal the plain run (timings aside)"
norm "$TMP/plain/report.sarif" "$TMP/plain" | canon >"$TMP/a.sarif"
norm "$TMP/shared/report.sarif" "$TMP/shared" | canon >"$TMP/b.sarif"
is "$(diff "$TMP/a.sarif" "$TMP/b.sarif")" "" "report.sarif: the same"
strip() { sed -e "s|$2|DIR|g" -e 's/in [0-9.]* s, [0-9]* schedules* forced (-j [0-9]*)/TIMES/' "$1" | grep -v '^cbtest: \[' ; }
is "$(strip "$TMP/merge.out" "$TMP/shared" | grep -v '^reports:' | canon)" \
   "$(strip "$TMP/plain.out" "$TMP/plain" | grep -v '^reports:' | canon)" "the summary: the same"
like "$(cat "$TMP/merge.out")" "failed natively" "the natively failing test is in the merged report too"

# A job run again (a retried array task) replaces its result; a merge of
# the plain folder itself works as well.
JOB1=$(head -n 1 "$TMP/jobs.txt")
(cd "$TMP/elsewhere" && sh -c "$JOB1" >/dev/null 2>&1); RC=$?
is "$RC" 0 "a job run twice: fine"
(cd "$TMP" && "$CBTEST" --merge -o remerged plain >/dev/null 2>&1); RC=$?
is "$RC" 1 "--merge -o OUT of a plain run's folder"
norm "$TMP/remerged/report.json" "$TMP/plain" | canon >"$TMP/c.json"
is "$(diff "$TMP/a.json" "$TMP/c.json" | grep -c '^[<>]')" 0 "--merge of a plain run reproduces its report"

done_testing
