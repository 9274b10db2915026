#!/bin/sh
# cbreplay's command line: --help, usage errors, and bad input refused with
# exit 2 and a clear line: missing/corrupt schedule, missing program, a
# schedule predicted for another program or trace.  Also runs the unit tests
# of its parts (tests/unit/replay_unit.c, replay_misread.c).  Needs no Valgrind tool: a fake
# tool folder (CBTOOLS_LIB) passes the "is the tool built" check.
. "$(dirname "$0")/../tap.sh"

MK=$TOP/build/tests/replay_mkschedule

# The unit tests, as part of this script's TAP stream.
mkdir "$TMP/unit"
out=$("$TOP/build/tests/replay_unit" "$TMP/unit" 2>&1)
rc=$?
is "$rc" 0 "replay_unit passes"
[ "$rc" = 0 ] || printf '%s\n' "$out" | grep -v '^ok' | sed 's/^/#   /'
mkdir "$TMP/unit-san"
out=$("$TOP/build/tests/replay_unit-san" "$TMP/unit-san" 2>&1)
rc=$?
is "$rc" 0 "replay_unit passes under ASan+UBSan"
[ "$rc" = 0 ] || printf '%s\n' "$out" | grep -v '^ok' | sed 's/^/#   /' | head -30
# misread.c, plain and under ASan+UBSan.
for u in replay_misread replay_misread-san; do
   out=$("$TOP/build/tests/$u" 2>&1)
   rc=$?
   is "$rc" 0 "$u passes"
   [ "$rc" = 0 ] || printf '%s\n' "$out" | grep -v '^ok' | sed 's/^/#   /' | head -30
done

out=$(cbreplay --help)
is $? 0 "--help exits 0"
like "$out" "--schedule ID\|PATH" "--help shows --schedule"
like "$out" "trace\.pb\.schedules" "--help says where ids are looked up"
like "$out" "3 infeasible" "--help documents the exit codes"

out=$(cbreplay 2>&1)
is $? 2 "no arguments: exit 2"
like "$out" "^cbreplay: no program given" "no arguments: says what is missing"
out=$(cbreplay -- /bin/true 2>&1)
is $? 2 "no schedule named: exit 2"
like "$out" "cbreplay: name a schedule" "no schedule named: clear message"
out=$(cbreplay --all --schedule s1 -- /bin/true 2>&1)
is $? 2 "--all with --schedule: exit 2"
out=$(cbreplay --bogus -- /bin/true 2>&1)
is $? 2 "unknown option: exit 2"
like "$out" "unknown option '--bogus'" "unknown option named"
out=$(cbreplay --schedule s1 --timeout -3 -- /bin/true 2>&1)
is $? 2 "bad --timeout: exit 2"
out=$(cbreplay --all -j 0 -- /bin/true 2>&1)
is $? 2 "bad -j: exit 2"
out=$(cbreplay --schedule 2>&1)
is $? 2 "option without its value: exit 2"

# Two tiny programs, and a fake tool folder.
cat > "$TMP/a.c" <<'EOF'
int main(void) { return 0; }
EOF
cat > "$TMP/b.c" <<'EOF'
int main(void) { return 1 - 1; }
EOF
cc -o "$TMP/a" "$TMP/a.c" && cc -o "$TMP/b" "$TMP/b.c" || { echo "Bail out! no cc"; exit 1; }
mkdir -p "$TMP/tool"
printf '#!/bin/sh\nexit 99\n' > "$TMP/tool/cbtools-amd64-linux"
chmod +x "$TMP/tool/cbtools-amd64-linux"
export CBTOOLS_LIB="$TMP/tool"

out=$(cbreplay --schedule s1 -- "$TMP/nosuch" 2>&1)
is $? 2 "missing program: exit 2"
like "$out" "^cbreplay: .*nosuch: no such program" "missing program: clear message"
printf 'x' > "$TMP/noexec"
out=$(cbreplay --schedule s1 -- "$TMP/noexec" 2>&1)
is $? 2 "program not executable: exit 2"
like "$out" "not executable" "program not executable: clear message"

out=$(cd "$TMP" && cbreplay --schedule s1 -- ./a 2>&1)
is $? 2 "id without a schedule folder: exit 2"
like "$out" "no schedule s1: no schedule folder trace.pb.schedules" \
     "id without a folder: names the default folder"
out=$(cbreplay --schedule "$TMP/missing.pb" -- "$TMP/a" 2>&1)
is $? 2 "missing schedule file: exit 2"
like "$out" "no schedule file .*missing.pb" "missing schedule file: clear message"

mkdir "$TMP/scheds"
"$MK" -o "$TMP/scheds/s3.pb" --id 3 --program "$TMP/a" --prefix 1 \
   --pattern RWW --variable counter
out=$(cbreplay --schedules "$TMP/scheds" --schedule s3 -- "$TMP/b" 2>&1)
is $? 2 "schedule of another program: exit 2"
like "$out" "^cbreplay: schedule s3 was predicted for another program \(.*/a," \
     "schedule of another program: names the program it was made for"
out=$(cbreplay --schedules "$TMP/scheds" --all -- "$TMP/b" 2>&1)
is $? 2 "--all with a schedule of another program: exit 2"

"$MK" -o "$TMP/scheds/s4.pb" --id 4 --program "$TMP/a" --mask 6
out=$(cbreplay --schedule "$TMP/scheds/s4.pb" -- "$TMP/a" 2>&1)
is $? 2 "schedule counted with another mask: exit 2"
like "$out" "another version of cbtools" "other mask: clear message"

# A prefix order (Schedule.prefix_order) that cannot be meant: numbers
# not four a wait, a thread outside the prefix, waits out of order.
"$MK" -o "$TMP/scheds/s5.pb" --id 5 --program "$TMP/a" --prefix 3,3 \
   --tail 1:1 --order 2:1:1:2,2:2
out=$(cbreplay --schedule "$TMP/scheds/s5.pb" -- "$TMP/a" 2>&1)
is $? 2 "prefix order of six numbers: exit 2"
like "$out" "schedule s5 is malformed: its prefix order has 6 numbers" \
     "prefix order of six numbers: clear message"
"$MK" -o "$TMP/scheds/s6.pb" --id 6 --program "$TMP/a" --prefix 3,3 \
   --tail 1:1 --order 2:1:3:1
out=$(cbreplay --schedule "$TMP/scheds/s6.pb" -- "$TMP/a" 2>&1)
is $? 2 "a wait for a thread outside the prefix: exit 2"
like "$out" "wait 1 of its prefix order \(T2 for T3\) names a thread outside" \
     "a wait for a thread outside the prefix: clear message"
"$MK" -o "$TMP/scheds/s7.pb" --id 7 --program "$TMP/a" --prefix 3,3 \
   --tail 1:1 --order 2:2:1:1,2:1:1:2
out=$(cbreplay --schedule "$TMP/scheds/s7.pb" -- "$TMP/a" 2>&1)
is $? 2 "waits out of order: exit 2"
like "$out" "wait 2 of its prefix order \(T2 for T1\) is out of order" \
     "waits out of order: clear message"

printf 'CBSCHED\001garbage that is no frame' > "$TMP/corrupt.pb"
out=$(cbreplay --schedule "$TMP/corrupt.pb" -- "$TMP/a" 2>&1)
is $? 2 "corrupt schedule: exit 2"
like "$out" "^cbreplay: cannot read schedule .*corrupt.pb: " "corrupt schedule: clear message"
head -c 12 "$TMP/scheds/s3.pb" > "$TMP/cut.pb"
out=$(cbreplay --schedule "$TMP/cut.pb" -- "$TMP/a" 2>&1)
is $? 2 "truncated schedule: exit 2"
printf 'not a schedule at all' > "$TMP/text.pb"
out=$(cbreplay --schedule "$TMP/text.pb" -- "$TMP/a" 2>&1)
is $? 2 "not a schedule: exit 2"

# --trace: a schedule predicted from another trace is refused.  Needs a
# trace file; cbtrace record needs the real tool, so a trace is made only
# when the recorder works.
unset CBTOOLS_LIB
if [ -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] && command -v cbtrace >/dev/null &&
   cbtrace record -o "$TMP/a.trace" -- "$TMP/a" >/dev/null 2>&1; then
   export CBTOOLS_LIB="$TMP/tool"
   out=$(cbreplay --trace "$TMP/a.trace" --schedule "$TMP/scheds/s3.pb" -- "$TMP/a" 2>&1)
   is $? 2 "schedule of another trace: exit 2"
   like "$out" "predicted from another trace" "other trace: clear message"
else
   ok "cbtrace record works, for the other-trace check" false
fi
export CBTOOLS_LIB="$TMP/tool"
out=$(cbreplay --trace "$TMP/nosuch.trace" --schedule "$TMP/scheds/s3.pb" -- "$TMP/a" 2>&1)
is $? 2 "missing --trace: exit 2"

# The tool not built: exit 2, says so.
out=$(CBTOOLS_LIB="$TMP/empty" cbreplay --schedule "$TMP/scheds/s3.pb" -- "$TMP/a" 2>&1)
is $? 2 "tool not built: exit 2"
like "$out" "tool is not built" "tool not built: clear message"

done_testing
