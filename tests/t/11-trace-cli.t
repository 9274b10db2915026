#!/bin/sh
# cbtrace on the command line: help, bad input, the raw record stream
# encoded by hand (no tool needed), truncated traces, and a few smoke tests
# of `record` under the real tool.
. "$(dirname "$0")/../tap.sh"

. "$TOP/tests/lib/rawwire.sh"   # raw RECORDS...

# run CMD...: sets $out, $err (stderr) and $rc.
run() {
    "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?
    out=$(cat "$TMP/out"); err=$(cat "$TMP/err")
}
# one_error DESC EXPECTED-RC: stderr is one line starting "cbtrace:", and rc.
one_error() {
    is "$rc" "$2" "$1: exit $2"
    is "$(printf '%s\n' "$err" | wc -l)" 1 "$1: one line on stderr"
    like "$err" '^cbtrace: ' "$1: the line starts with cbtrace:"
}

# ---- help and usage ---------------------------------------------------------
run cbtrace --help
is "$rc" 0 "--help exits 0"
like "$out" 'Exit status' "--help documents the exit codes"
for sub in record dump stats encode; do
    run cbtrace $sub --help
    is "$rc" 0 "$sub --help exits 0"
    like "$out" "^usage: cbtrace $sub" "$sub --help shows its usage"
done
run cbtrace --version
like "$out" '^cbtrace \(cbtools\) ' "--version"
run cbtrace frobnicate
one_error "unknown subcommand" 2
run cbtrace
is "$rc" 2 "no subcommand: exit 2"
run cbtrace dump
one_error "dump without a trace" 2
run cbtrace stats --bogus x.pb
one_error "stats with an unknown option" 2

# ---- unreadable traces ------------------------------------------------------
run cbtrace dump "$TMP/missing.pb"
one_error "dump of a missing file" 2
like "$err" 'No such file' "missing file: says so"
: >"$TMP/empty.pb"
run cbtrace dump "$TMP/empty.pb"
one_error "dump of an empty file" 2
like "$err" 'empty' "empty file: says so"
printf 'this is not a trace at all\n' >"$TMP/garbage.pb"
run cbtrace stats "$TMP/garbage.pb"
one_error "stats of a text file" 2
like "$err" 'not a cbtools trace' "garbage: says it is not a trace"
printf 'CBTRACE\001\377\377' >"$TMP/cuthdr.pb"
run cbtrace dump "$TMP/cuthdr.pb"
one_error "dump of a trace cut inside its header" 2

# ---- the raw record stream, encoded -------------------------------------------
raw H L 1 401136 14 /t/rww deposit rww.c L 2 401200 30 /t/rww main rww.c \
    S 404040 4 balance S 4040a0 40 m \
    V 9 0 1 2 0 2  V 10 0 2 0 0 1  V 13 0 2 1 401130 0 \
    V 3 0 2 1 4040a0 0  V 1 4 2 1 404040 100 V 2 132 2 1 404040 110 \
    V 4 0 2 1 4040a0 0  V 14 0 2 1 401130 0  V 12 0 2 0 0 0 \
    V 11 0 1 2 0 2  V 1 4 1 2 404040 110  E >"$TMP/small.raw"
run cbtrace encode -o "$TMP/small.pb" "$TMP/small.raw"
is "$rc" 0 "encode of a whole raw stream: exit 0"
run cbtrace dump "$TMP/small.pb"
is "$rc" 0 "dump of a whole trace: exit 0"
is "$err" "" "dump of a whole trace: nothing on stderr"
expected='0 T1 create T2 @ rww.c:30 in main
1 T2 start from T1
2 T2 begin deposit @ rww.c:14 in deposit
3 T2 lock m mutex @ rww.c:14 in deposit
4 T2 read balance size 4 = 100 @ rww.c:14 in deposit
5 T2 write balance size 4 = 110 @ rww.c:14 in deposit
6 T2 unlock m mutex @ rww.c:14 in deposit
7 T2 end deposit @ rww.c:14 in deposit
8 T2 exit
9 T1 join T2 @ rww.c:30 in main
10 T1 read balance size 4 = 110 @ rww.c:30 in main'
is "$out" "$expected" "dump prints every event in words"
run cbtrace stats "$TMP/small.pb"
is "$rc" 0 "stats of a whole trace: exit 0"
like "$out" '^events: 11$' "stats: events"
like "$out" '^threads: 2$' "stats: threads"
like "$out" '^entities: 1$' "stats: entities (balance, by both threads)"
like "$out" '^variables: 1$' "stats: variables"
like "$out" '^locks: 1$' "stats: locks"
like "$out" '^context switches: 2$' "stats: context switches"
like "$out" '^kind read: 2$' "stats: events per kind"
like "$out" '^truncated: no$' "stats: not truncated"

# A stream cut short (no END): encoded as far as it goes, flagged.
raw H L 1 401136 14 /t/a f a.c V 1 4 1 1 404040 1 >"$TMP/cut.raw"
printf 'xyz' >>"$TMP/cut.raw"
run cbtrace encode -o "$TMP/cut.pb" "$TMP/cut.raw"
is "$rc" 3 "encode of a cut raw stream: exit 3"
run cbtrace dump "$TMP/cut.pb"
is "$rc" 3 "its trace dumps with exit 3 (the tool did not end)"
is "$out" "0 T1 read 0x404040 size 4 = 1 @ a.c:14 in f" "the whole event is kept"
raw V 1 4 1 0 0 0 >"$TMP/nohello.raw"
run cbtrace encode -o "$TMP/nohello.pb" "$TMP/nohello.raw"
is "$rc" 3 "encode of a stream without HELLO: exit 3"
like "$err" 'HELLO' "and says why"

# Events without a thread are dropped, undefined locations kept as unknown;
# both are counted in warnings.  A stream fed through a pipe arrives in
# pieces that split records: the same trace.
raw H L 1 401136 14 /t/a f a.c V 2 4 0 1 404040 1 V 2 4 1 7 404040 2 \
    V 1 4 2 1 404048 3 E >"$TMP/odd.raw"
run cbtrace encode -o "$TMP/odd.pb" "$TMP/odd.raw"
is "$rc" 0 "encode of a stream with odd events: exit 0"
like "$err" '1 events without a thread id were dropped' "warns of the dropped event"
like "$err" '1 events named an undefined location' "warns of the undefined location"
run cbtrace dump "$TMP/odd.pb"
is "$out" "0 T1 write 0x404040 size 4 = 2
1 T2 read 0x404048 size 4 = 3 @ a.c:14 in f" "the other events are kept, the location unknown"
(cat "$TMP/odd.raw" | perl -e 'binmode STDIN; binmode STDOUT; $| = 1;
    while (read(STDIN, $b, 7)) { print $b; select(undef, undef, undef, 0.001) }') |
    cbtrace encode -o "$TMP/odd2.pb" - 2>/dev/null
run cbtrace dump "$TMP/odd2.pb"
is "$out" "0 T1 write 0x404040 size 4 = 2
1 T2 read 0x404048 size 4 = 3 @ a.c:14 in f" "records split across reads decode the same"

# Thread ids are 32 bits from the tool to the trace: thread 70000 and
# thread 70000 + 65536 stay apart (16 bits made them one).
raw H L 1 401136 14 /t/a f a.c V 9 0 1 1 0 70000 V 10 0 70000 0 0 1 \
    V 2 4 70000 1 404040 1 V 2 4 135536 1 404040 2 E >"$TMP/wide.raw"
run cbtrace encode -o "$TMP/wide.pb" "$TMP/wide.raw"
is "$rc" 0 "encode of a stream with 32-bit thread ids: exit 0"
run cbtrace dump "$TMP/wide.pb"
is "$out" "0 T1 create T70000 @ a.c:14 in f
1 T70000 start from T1
2 T70000 write 0x404040 size 4 = 1 @ a.c:14 in f
3 T135536 write 0x404040 size 4 = 2 @ a.c:14 in f" "32-bit thread ids survive encoding"
run cbtrace dump --header "$TMP/small.pb"
like "$out" '# thread: T2 = 1.1' "dump --header names each thread by its path"
# A stream of the old 24-byte layout (wire version 1) is refused, not misread.
perl -e 'print pack("CCvVQ<Q<", 0xF1, 0, 0, 0, 1, 0),
              pack("CCvVQ<Q<", 2, 4, 1, 0, 0x404040, 1),
              pack("CCvVQ<Q<", 0xF2, 0, 0, 0, 0, 0)' >"$TMP/v1.raw"
run cbtrace encode -o "$TMP/v1.pb" "$TMP/v1.raw"
is "$rc" 3 "encode of a version-1 stream: exit 3"
like "$err" 'wire version 1, cbtrace reads 2' "and says which versions"

# ---- truncated traces: several chunks, cut in the middle ----------------------
raw H L 1 401136 14 /t/a f a.c N 70000 E >"$TMP/big.raw"
run cbtrace encode -o "$TMP/big.pb" "$TMP/big.raw"
is "$rc" 0 "encode of 70000 events"
size=$(wc -c <"$TMP/big.pb")
head -c $((size - 100)) "$TMP/big.pb" >"$TMP/trunc.pb"
run cbtrace dump "$TMP/trunc.pb"
is "$rc" 3 "dump of a truncated trace: exit 3"
is "$(printf '%s\n' "$err" | wc -l)" 1 "truncated: one line on stderr"
like "$err" "^cbtrace: warning: $TMP/trunc.pb: truncated: " "truncated: the warning names the file and why"
is "$(printf '%s\n' "$out" | wc -l)" 65536 "truncated: the whole first chunk is printed"
is "$(printf '%s\n' "$out" | tail -1)" "65535 T2 write 0x404048 size 4 = 65535 @ a.c:14 in f" \
    "truncated: the last whole event is right"
run cbtrace stats "$TMP/trunc.pb"
is "$rc" 3 "stats of a truncated trace: exit 3"
like "$out" '^events: 65536$' "stats counts the whole chunks"
like "$out" '^truncated: ' "stats says truncated"
# A corrupt byte in the middle of the first event chunk.
cp "$TMP/big.pb" "$TMP/corrupt.pb"
printf '\377\377\377\377' | dd of="$TMP/corrupt.pb" bs=1 seek=5000 conv=notrunc 2>/dev/null
run cbtrace dump "$TMP/corrupt.pb"
is "$rc" 3 "dump of a corrupt trace: exit 3"
like "$err" 'CRC' "a corrupt chunk is caught by its CRC"
run cbtrace stats "$TMP/big.pb"
bpe=$(printf '%s\n' "$out" | sed -n 's/^bytes per event: //p')
ok "a regular stream takes at most 8 bytes/event ($bpe)" \
    awk -v b="$bpe" 'BEGIN { exit !(b <= 8) }'

# ---- record: errors before anything runs --------------------------------------
run cbtrace record -o "$TMP/x.pb" -- "$TMP/no-such-program"
one_error "record of a missing program" 2
like "$err" 'no such program' "missing program: says so"
printf 'not a program\n' >"$TMP/notexec"; chmod -x "$TMP/notexec"
run cbtrace record -o "$TMP/x.pb" -- "$TMP/notexec"
one_error "record of a file that is not executable" 2
like "$err" 'not executable' "not executable: says so"
run cbtrace record -o "$TMP/x.pb" -- no-such-command-cbtools
one_error "record of a command not on PATH" 2
run cbtrace record
one_error "record without a program" 2
run cbtrace record --instrument=some -- /bin/true
one_error "record with a bad --instrument" 2

# ---- record under the real tool (smoke tests) -----------------------------------
if [ ! -d "$TOP/lib/cbtools" ]; then
    ok "the tool is built (lib/cbtools/; make check builds it)" false
    done_testing
fi
cat >"$TMP/tiny.c" <<'C'
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int x;
int main(int argc, char **argv)
{
    x = argc;
    if (argc > 1 && !strcmp(argv[1], "kill")) kill(getpid(), SIGKILL);
    if (argc > 1 && !strcmp(argv[1], "abort")) abort();
    if (argc > 2 && !strcmp(argv[1], "spin")) { /* until killed */
        close(creat(argv[2], 0644));
        for (;;) { x++; usleep(1000); }
    }
    return argc > 1 ? atoi(argv[1]) : 0;
}
C
gcc -g -O0 -o "$TMP/tiny" "$TMP/tiny.c"
run cbtrace record -o "$TMP/tiny.pb" -- "$TMP/tiny"
is "$rc" 0 "record of a tiny program: exit 0"
run cbtrace stats "$TMP/tiny.pb"
is "$rc" 0 "its trace is whole"
run cbtrace record -o "$TMP/tiny7.pb" -- "$TMP/tiny" 7
is "$rc" 7 "record passes the exit status through (7)"
run cbtrace record -o "$TMP/selfkill.pb" -- "$TMP/tiny" kill
is "$rc" 137 "a program that sends itself SIGKILL: exit 137"
run cbtrace dump "$TMP/selfkill.pb"
ok "its trace is readable" [ "$rc" = 0 -o "$rc" = 3 ]
# SIGKILL from outside, to the program (cbtrace's child), while it runs.
cbtrace record -o "$TMP/killed.pb" -- "$TMP/tiny" spin "$TMP/started" \
    >/dev/null 2>"$TMP/kerr" &
rec=$!
i=0
while [ ! -e "$TMP/started" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
child=$(pgrep -P "$rec")
[ -n "$child" ] && kill -KILL $child
wait $rec; rc=$?
is "$rc" 137 "a program killed by SIGKILL from outside: exit 137"
run cbtrace dump "$TMP/killed.pb"
is "$rc" 3 "its trace is readable and truncated (exit 3)"
like "$err" 'truncated: .*signal 9' "the warning says it was killed"
run cbtrace record -o "$TMP/abort.pb" -- "$TMP/tiny" abort
is "$rc" 134 "an aborting program: exit 134"
run cbtrace dump "$TMP/abort.pb"
ok "its trace is readable" [ "$rc" = 0 -o "$rc" = 3 ]
( cd "$TMP" && cbtrace record -- ./tiny >/dev/null 2>&1 )
ok "the default output is trace.pb in the current folder" [ -s "$TMP/trace.pb" ]
done_testing
