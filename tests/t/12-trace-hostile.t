#!/bin/sh
# Hostile and odd input files: sizes and ids read from a file are checked
# against what the file can hold before anything is allocated, and what is
# not a regular file is read only as far as it looks like a cbtools file.
# Every command runs under a memory limit, so that a regression shows as a
# failed test (an "out of memory" message) instead of a swapping machine.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/lib/rawwire.sh"

# frames PAYLOAD-HEX...: a file of magic CBTRACE\1 (or $MAGIC) and frames.
frames() {
    perl -MCompress::Zlib -e '
        binmode STDOUT;
        print $ENV{MAGIC} // "CBTRACE\x01";
        for my $h (@ARGV) {
            my $p = pack("H*", $h);
            print pack("VV", length($p), crc32($p)), $p;
        }' -- "$@"
}
# Protobuf by hand: varint V, field F of wire type 0 (fv) or 2 (fs).
pb() {
    perl -e '
        sub v { my $n = shift; my $s = "";
                while ($n >= 0x80) { $s .= chr(($n & 0x7f) | 0x80); $n >>= 7 }
                $s . chr($n) }
        my @o = (""); my @stack;
        for (@ARGV) {
            if (/^(\d+)=(\d+)$/) { $o[-1] .= v($1 << 3) . v($2) }
            elsif (/^(\d+)\{$/) { push @stack, $1; push @o, "" }
            elsif ($_ eq "}") { my $m = pop @o; my $f = pop @stack;
                                $o[-1] .= v(($f << 3) | 2) . v(length $m) . $m }
            elsif (/^(\d+):(.*)$/) { $o[-1] .= v(($1 << 3) | 2) . v(length $2) . $2 }
        }
        print unpack("H*", $o[0]);' -- "$@"
}
run() { # run CMD...: $out, $err, $rc, under a 400 MB address-space limit
    (ulimit -v 400000; "$@") >"$TMP/out" 2>"$TMP/err"; rc=$?
    out=$(cat "$TMP/out"); err=$(cat "$TMP/err")
}

header=$(pb '1{' 1=1 2:/t/prog '}')
footer=$(pb '4{' 1=0 5=1 '}')

# ---- a location id far beyond the locations the file holds --------------------
frames "$header" "$(pb '2{' 1=67108863 3:obj '}')" "$footer" >"$TMP/bigloc.pb"
size=$(wc -c <"$TMP/bigloc.pb")
run cbtrace stats "$TMP/bigloc.pb"
is "$rc" 3 "a $size-byte trace naming location 2^26-1: read as truncated (exit 3)"
like "$err" 'location id 67108863, but the trace defines only 1' \
    "the warning names the impossible id, not a failed allocation"
unlike "$err" 'memory' "no allocation was tried"
# Ids are dense: 1 then 2 is fine, even across chunks.
frames "$header" "$(pb '2{' 1=1 '}')" "$(pb '2{' 1=2 '}' '4{' 1=0 5=1 '}')" \
    >"$TMP/dense.pb"
run cbtrace stats "$TMP/dense.pb"
is "$rc" 0 "locations 1 and 2 in two chunks: a whole trace"

# ---- a header that is not one: nothing leaks (the unit test under ASan says
# so); here the message ----------------------------------------------------------
frames "$footer" >"$TMP/nohdr.pb"
run cbtrace dump "$TMP/nohdr.pb"
is "$rc" 2 "a first chunk without a header: exit 2"
like "$err" 'damaged header: first chunk has no header' "and says why"

# ---- files that are not regular files --------------------------------------------
run timeout 30 cbtrace dump /dev/zero
is "$rc" 2 "dump /dev/zero ends at once (exit 2)"
like "$err" 'not a cbtools trace' "and says it is not a trace"
run timeout 30 cbpredict /dev/zero
is "$rc" 2 "cbpredict /dev/zero: exit 2"
like "$err" 'not a cbtools trace' "cbpredict says it is not a trace"
frames "$header" "$footer" >"$TMP/tiny.pb"
run sh -c "cat '$TMP/tiny.pb' | cbtrace stats /dev/stdin"
is "$rc" 0 "a whole trace through a pipe is read"
# A pipe that announces a 200 MB frame and stops: the frame is cut short,
# and only the bytes that came were stored.
{ frames "$header"; printf '\000\000\200\014\000\000\000\000abc'; } >"$TMP/bigframe.pb"
run sh -c "cat '$TMP/bigframe.pb' | cbtrace stats /dev/stdin"
is "$rc" 3 "a pipe announcing a 200 MB frame that never comes: truncated"
like "$err" 'cut short' "the frame is cut short"
# An endless run of the magic and zeros: empty frames, up to the bound
# (256 MiB: more memory than run allows).
(ulimit -v 1000000; timeout 60 sh -c "{ printf 'CBTRACE\001'; cat /dev/zero; } | cbtrace stats /dev/stdin") >"$TMP/out" 2>"$TMP/err"
rc=$?; err=$(cat "$TMP/err")
is "$rc" 2 "an endless stream of empty frames stops at the bound (exit 2)"
like "$err" 'MiB from a pipe' "and says so"

# ---- the tool's raw stream -------------------------------------------------------
raw H L 67108864 401000 1 o f a.c E >"$TMP/bigloc.raw"
run cbtrace encode -o "$TMP/bigloc-enc.pb" "$TMP/bigloc.raw"
is "$rc" 3 "a raw LOCDEF with id 2^26 before any other: a broken stream (exit 3)"
like "$err" 'location id 67108864 after only 0 locations' "and says why"
unlike "$err" 'memory' "no allocation was tried"
done_testing
