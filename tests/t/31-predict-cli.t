#!/bin/sh
# cbpredict's command line: --help, bad input, the table, --json, -o, --max.
. "$(dirname "$0")/../tap.sh"
GEN=build/tools/cb-gen-trace

out=$(cbpredict --help); rc=$?
is "$rc" 0 "--help exits 0"
like "$out" 'exit status' "--help documents the exit status"

cbpredict >/dev/null 2>"$TMP/err"; is "$?" 2 "no trace: exit 2"
like "$(cat "$TMP/err")" '^cbpredict: no trace given' "no trace: message"
cbpredict --bogus x 2>"$TMP/err"; is "$?" 2 "unknown option: exit 2"
cbpredict --max x t.pb 2>"$TMP/err"; is "$?" 2 "--max x: exit 2"
cbpredict "$TMP/missing.pb" 2>"$TMP/err"; is "$?" 2 "missing trace: exit 2"
like "$(cat "$TMP/err")" "^cbpredict: cannot read .*missing.pb" "missing trace: message"
: > "$TMP/empty.pb"
cbpredict "$TMP/empty.pb" 2>"$TMP/err"; is "$?" 2 "empty file: exit 2"
like "$(cat "$TMP/err")" "^cbpredict: .*empty.pb" "empty file: message names it"
printf 'not a trace at all, just text\n' > "$TMP/junk.pb"
cbpredict "$TMP/junk.pb" 2>"$TMP/err"; is "$?" 2 "corrupt file: exit 2"

# Three RWR-ish blocks against one writer: a race on x, a safe y.
cat > "$TMP/t.txt" <<'T'
T1 start T1
T1 begin main
T1 create T2
T1 create T3
T2 start T1
T2 begin worker
T3 start T1
T3 begin worker
T2 begin deposit
T2 read x =0 @bank.c:10
T2 lock m
T2 read y @bank.c:11
T2 write y @bank.c:12
T2 unlock m
T2 write x =1 @bank.c:13
T2 end deposit
T3 begin withdraw
T3 read x =1 @bank.c:20
T3 write x =0 @bank.c:21
T3 lock m
T3 write y @bank.c:22
T3 unlock m
T3 end withdraw
T2 end worker
T3 end worker
T1 join T2
T1 join T3
T
$GEN --from-text "$TMP/t.txt" -o "$TMP/t.pb"; is "$?" 0 "text trace written"

# --recorded-failed is for a run that failed: this one exited 0.
cbpredict --recorded-failed -o "$TMP/rf" "$TMP/t.pb" >/dev/null 2>"$TMP/err"; is "$?" 2 "--recorded-failed on a run that did not fail: exit 2"
like "$(cat "$TMP/err")" "^cbpredict: --recorded-failed: the run recorded in .*t.pb did not fail \\(it exited 0\\)" \
   "--recorded-failed: says why"

out=$(cbpredict "$TMP/t.pb"); rc=$?
is "$rc" 0 "prediction exits 0"
like "$out" '^s1 +(RWR|RWW|WRW|WWR|WWW) +x +bank\.c:[0-9]+ +bank\.c:[0-9]+ +bank\.c:[0-9]+ +T[23]/T[23]' "table row names pattern, x, three locations, threads"
unlike "$(printf '%s\n' "$out" | grep -v ' ORD ')" ' y ' "the lock-protected y is in no atomicity violation"
like "$out" 'cut-points' "summary line with the prediction figures"
ok "default folder beside the trace holds s1.pb" test -s "$TMP/t.pb.schedules/s1.pb"
n=$(ls "$TMP/t.pb.schedules" | grep -c '^s[0-9]*\.pb$')
rows=$(printf '%s\n' "$out" | grep -c '^s[0-9]')
is "$n" "$rows" "one schedule file per table row"

touch "$TMP/t.pb.schedules/s99.pb" "$TMP/t.pb.schedules/s99-pinned.pb"
cbpredict --max 1 -o "$TMP/t.pb.schedules" "$TMP/t.pb" > "$TMP/out1"; is "$?" 0 "--max 1 exits 0"
is "$(ls "$TMP/t.pb.schedules" | tr '\n' ' ')" "s1.pb " "--max 1: one schedule, stale ones removed (and a pinned copy of one)"
cbpredict --max 0 -o "$TMP/none" "$TMP/t.pb" > /dev/null; is "$?" 0 "--max 0 exits 0"
ok "--max 0 creates no schedule folder" test ! -e "$TMP/none"
cbpredict --max 0 -o "$TMP/t.pb.schedules" "$TMP/t.pb" > /dev/null
is "$(ls "$TMP/t.pb.schedules" | tr '\n' ' ')" "" "--max 0 still removes an existing folder's old schedules"

cbpredict --json -o "$TMP/sched" "$TMP/t.pb" > "$TMP/j"; is "$?" 0 "--json exits 0"
perl -MJSON::PP -e '
  local $/; open my $f, "<", $ARGV[0] or die; my $j = decode_json(<$f>);
  die "no violations\n" unless @{$j->{violations}};
  for my $v (@{$j->{violations}}) {
    die "bad schedule path\n" unless -s $v->{schedule};
    next if $v->{pattern} eq "ORD";
    die "bad variable\n" unless $v->{variable} eq "x";
    die "no pattern\n" unless $v->{pattern} =~ /^(RWR|RWW|WRW|WWR|WWW)$/;
    die "no e1 location\n" unless $v->{e1}{location} =~ /^bank\.c:\d+$/;
  }
  die "counts\n" unless $j->{schedules} == @{$j->{violations}} && $j->{events} > 0;
' "$TMP/j" 2>"$TMP/perr"
is "$?" 0 "--json parses, names x and existing schedule files $(cat "$TMP/perr")"
ok "-o DIR holds s1.pb" test -s "$TMP/sched/s1.pb"

# Two locks taken in opposite orders by two threads: a DLK row, and its
# schedule; in one order only (nested.c): none.
dlk_text() { # OUTER INNER of T3
cat <<T
T1 start T1
T1 begin main
T1 create T2
T1 create T3
T2 start T1
T2 begin forward
T2 lock a @d.c:1
T2 lock b @d.c:2
T2 unlock b
T2 unlock a
T2 end forward
T3 start T1
T3 begin backward
T3 lock $1 @d.c:3
T3 lock $2 @d.c:4
T3 unlock $2
T3 unlock $1
T3 end backward
T1 join T2
T1 join T3
T
}
dlk_text b a > "$TMP/dlk.txt"
$GEN --from-text "$TMP/dlk.txt" -o "$TMP/dlk.pb"
out=$(cbpredict -o "$TMP/dlk.s" "$TMP/dlk.pb"); is "$?" 0 "lock-order inversion: exit 0"
like "$out" '^s1 +DLK +b +d\.c:1 +d\.c:3 +d\.c:2 +T2/T3' "DLK row: lock b, T2 takes a, T3 takes b, T2 asks for b"
like "$out" ' 1 lock-order inversions' "summary counts the inversion"
ok "DLK schedule written" test -s "$TMP/dlk.s/s1.pb"
cbpredict --json -o "$TMP/dlk.s" "$TMP/dlk.pb" > "$TMP/dj"
perl -MJSON::PP -e '
  local $/; open my $f, "<", $ARGV[0] or die; my $j = decode_json(<$f>);
  my ($v) = grep { $_->{pattern} eq "DLK" } @{$j->{violations}};
  die "no DLK\n" unless $v && $j->{deadlocks} == 1;
  die "events\n" unless $v->{e1}{kind} eq "lock" && $v->{f}{kind} eq "lock" &&
                        $v->{e2}{kind} eq "lock" && $v->{variable} eq "b";
  die "tail must end after T3 takes b\n"
     unless $v->{tail}[-1][0] == 3 && $v->{tail}[0][0] == 2;
' "$TMP/dj" 2>"$TMP/perr"
is "$?" 0 "--json: the DLK violation, its lock events and its tail $(cat "$TMP/perr")"
dlk_text a b > "$TMP/nodlk.txt"
$GEN --from-text "$TMP/nodlk.txt" -o "$TMP/nodlk.pb"
out=$(cbpredict -o "$TMP/nodlk.s" "$TMP/nodlk.pb")
unlike "$out" 'DLK' "one lock order: no DLK"

# One thread: zero schedules and a reason.
printf 'T1 start T1\nT1 begin main\nT1 begin f\nT1 read x @a.c:1\nT1 write x @a.c:2\nT1 end f\n' > "$TMP/one.txt"
$GEN --from-text "$TMP/one.txt" -o "$TMP/one.pb"
out=$(cbpredict "$TMP/one.pb"); is "$?" 0 "one thread: exit 0"
like "$out" 'only one thread' "one thread: a sentence that says why"

# A truncated trace: exit 2 unless --partial.
$GEN -n 200000 -o "$TMP/big.pb"
size=$(wc -c < "$TMP/big.pb")
head -c $((size / 2)) "$TMP/big.pb" > "$TMP/cut.pb"
cbpredict --max 0 "$TMP/cut.pb" >/dev/null 2>"$TMP/err"; is "$?" 2 "truncated trace: exit 2"
like "$(cat "$TMP/err")" 'truncated' "truncated trace: message says so"
cbpredict --max 0 --partial "$TMP/cut.pb" >/dev/null 2>&1; is "$?" 0 "--partial predicts from the readable part"
# --z3: options, the summary line, --json, deadlocks asked too (both first
# locks held at once: here possible, so kept in the model's order).
like "$(cbpredict --help)" '--z3-timeout MS' "--help documents --z3 and its options"
cbpredict --z3 --z3-timeout x "$TMP/t.pb" >/dev/null 2>"$TMP/err"; is "$?" 2 "--z3-timeout x: exit 2"
like "$(cat "$TMP/err")" '^cbpredict: --z3-timeout wants' "--z3-timeout x: message"
cbpredict --z3 --z3-window -1 "$TMP/t.pb" >/dev/null 2>&1; is "$?" 2 "--z3-window -1: exit 2"
out=$(cbpredict --z3 -o "$TMP/tz" "$TMP/t.pb"); is "$?" 0 "--z3: exit 0"
like "$out" '^cbpredict: z3: [0-9]+ candidates from the lockset pass, [0-9]+ asked .* [0-9]+ dropped as impossible, [0-9]+ undecided .* ms per query' \
   "--z3: the summary says found, dropped, undecided, time per query"
unlike "$(cbpredict -o "$TMP/tp" "$TMP/t.pb")" 'z3:' "without --z3: no z3 line"
cbpredict --z3 --json -o "$TMP/dz" "$TMP/dlk.pb" > "$TMP/dzj"
perl -MJSON::PP -e '
  local $/; open my $f, "<", $ARGV[0] or die; my $j = decode_json(<$f>);
  my $z = $j->{z3} or die "no z3 object\n";
  my @v = @{$j->{violations}};
  my ($d) = grep { $_->{pattern} eq "DLK" } @v;
  die "the DLK schedule must stay, proven possible\n" unless $d && $d->{z3} eq "sat";
  die "asked $z->{asked}: not every candidate\n"
     unless $z->{asked} == $z->{sat} + $z->{dropped} + $z->{undecided} &&
            $z->{asked} == $z->{candidates};
  die "kept\n" unless $z->{kept} == @v;
  for (@v) { die "z3 field $_->{z3}\n" unless $_->{z3} =~ /^(sat|unknown)$/ }
  die "ms per query\n" unless exists $z->{ms_per_query} && $z->{candidates} >= @v;
' "$TMP/dzj" 2>"$TMP/perr"
is "$?" 0 "--z3 --json: counts, each schedule's verdict, the DLK asked and kept $(cat "$TMP/perr")"

# --base: a base trace that cannot be read is the user's error (exit 2,
# what went wrong); against its own trace nothing moves (fresh.c).
cbpredict --base "$TMP/missing.pb" -o "$TMP/tb" "$TMP/t.pb" >/dev/null 2>"$TMP/err"
is "$?" 2 "--base missing: exit 2"
like "$(cat "$TMP/err")" "^cbpredict: cannot read --base .*missing.pb" "--base missing: message"
a=$(cbpredict -o "$TMP/tb1" "$TMP/t.pb" | grep '^s[0-9]')
b=$(cbpredict --base "$TMP/t.pb" -o "$TMP/tb2" "$TMP/t.pb" | grep '^s[0-9]')
is "$b" "$a" "--base the same trace: the same table"

# --seen with a schedule's aim (its pattern and lines) twice: exploration
# forced it twice from other traces, no third is written; once: it is.
DIG=$TOP/build/tests/schedule_digest
aim() { awk '$1 == "s1" { print $2, $4, $5, $6 }' "$1"; }
cbpredict -o "$TMP/sa" "$TMP/t.pb" >"$TMP/sa.out"
site=$("$DIG" --site "$TMP/sa/s1.pb" | cut -d' ' -f1)
printf '%s\n%s\n' "$site" "$site" >"$TMP/seen2"
printf '%s\n' "$site" >"$TMP/seen1"
cbpredict --delays 1 --seen "$TMP/seen2" -o "$TMP/sb" "$TMP/t.pb" >"$TMP/sb.out" 2>&1
ok "--seen, an aim twice: no schedule aims at s1's lines again" \
   sh -c '! grep -q "^s[0-9]* *$(echo "$1" | sed "s/ /.* /g")" "$2"' - "$(aim "$TMP/sa.out")" "$TMP/sb.out"
like "$(cat "$TMP/sb.out")" "forced before, or their lines twice" "--seen, an aim twice: the summary says so"
cbpredict --delays 1 --seen "$TMP/seen1" -o "$TMP/sc" "$TMP/t.pb" >"$TMP/sc.out" 2>&1
is "$(aim "$TMP/sc.out")" "$(aim "$TMP/sa.out")" "--seen, an aim once: it is still written first"
done_testing
