#!/bin/sh
# Atomicity violations over two variables (predict/two_vars.c), in
# tests/data/meter.c: workers account a packet's bytes in one critical
# section and its count in the next (account() inlined into the start
# routine at -O2), and a monitor checks, under the same lock, that the
# bytes are the packets times 64.  Each variable is always locked; the
# pair is not.  The split writer must be named as a WRW on both
# variables, the split reader (-DSPLIT_READER: the monitor reads them in
# two sections, the workers update both in one) as an RWR on both, with
# the three lines and words that say two sections; the twins (one section)
# have no two-variable candidate, and the split writer's is clean.  On the build before,
# meter was named by single-variable shapes (an order violation on one of
# them) or not at all.
. "$(dirname "$0")/../tap.sh"

if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || [ ! -x "$TOP/bin/cbtest" ]; then
   echo "Bail out! the tool or cbtest is not built (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi
. "$TOP/tests/lib/pipeline.sh"

cb_build_data meter.c meter
cb_build_data meter.c meter_O0 -O0
cb_build_data meter.c meter_reader -DSPLIT_READER
cb_build_data meter.c meter_fixed -DFIXED
cb_build_data meter.c meter_reader_fixed -DSPLIT_READER -DFIXED
# A line of meter.c: the last with TEXT (the split writer's), or the first.
line() { grep -n "$1" "$TOP/tests/data/meter.c" | ${2:-tail} -1 | cut -d: -f1; }
L_BYTES=$(line 'bytes += n;')
L_PACKETS=$(line 'packets++;')
L_BOTH_B=$(line 'bytes += n;' head)
L_BOTH_P=$(line 'packets++;' head)
L_MB=$(line 'b = bytes;')
L_MP=$(line 'p = packets;')

# cbpredict: the candidate on both variables, and none for the twins.
"$TOP/bin/cbtrace" record -o "$TMP/m.pb" -- "$TMP/meter" >/dev/null 2>&1
P=$("$TOP/bin/cbpredict" -o "$TMP/ms" "$TMP/m.pb" 2>/dev/null)
like "$P" "^s1 +WRW +bytes and packets +meter\\.c:$L_BYTES +meter\\.c:($L_MB|$L_MP) +meter\\.c:$L_PACKETS " \
   "meter: the first schedule is a WRW on bytes and packets (e1 the bytes, e2 the count)"
for v in meter_fixed meter_reader_fixed; do
   "$TOP/bin/cbtrace" record -o "$TMP/$v.pb" -- "$TMP/$v" >/dev/null 2>&1
   unlike "$("$TOP/bin/cbpredict" -o "$TMP/$v.s" "$TMP/$v.pb" 2>/dev/null)" " and " \
      "$v: no two-variable candidate (one section for both)"
done
R=$(cd "$TMP" && "$TOP/bin/cbreplay" --schedule ms/s1.pb --timeout 10 -- "$TMP/meter" 2>/dev/null)
is "$?" 1 "meter: its first schedule fails (exit 1)"
like "$R" "T[0-9]+'s write of bytes at meter\\.c:$L_BYTES and its write of packets at meter\\.c:$L_PACKETS, in two critical sections, were not atomic: T[0-9]+'s read of (bytes|packets) at meter\\.c:[0-9]+, in one section with the other, ran between them and saw one updated without the other" \
   "  in words that say two sections and name each variable"
like "$R" "^    e1  T[0-9]+ write bytes = " "  e1 names its own variable"

# cbtest, as a user runs it.
for v in meter meter_O0; do
   cb_cbtest $v --timeout 10 --max-runs 25
   is "$RC" 1 "$v: a bug is confirmed (exit 1)"
   like "$(grep -m1 '^   BUG ' "$TMP/$v.d/stdout")" "^   BUG WRW on bytes and packets: the forced run failed" \
      "$v: named by both variables"
done
cb_cbtest meter_reader --timeout 10 --max-runs 25
is "$RC" 1 "meter_reader: a bug is confirmed (exit 1)"
like "$(grep -m1 '^   BUG ' "$TMP/meter_reader.d/stdout")" "^   BUG RWR on bytes and packets: the forced run failed" \
   "meter_reader: the monitor's two reads split by a worker's update"
like "$(tr '\n' '~' <"$TMP/meter_reader.d/stdout")" "e1 read  meter\\.c:$L_MB in monitor [^~]*~[^~]*~ *f  write meter\\.c:($L_BOTH_B|$L_BOTH_P) in (account|worker) [^~]*~[^~]*~ *e2 read  meter\\.c:$L_MP in monitor" \
   "meter_reader: e1 and e2 the monitor's reads, f the worker's update"
# The split reader's twin has no two-variable candidate (above); the
# writer's is forced whole, for any false positive.
cb_cbtest meter_fixed --timeout 10 --max-runs 10
is "$RC" 0 "meter_fixed: clean (exit 0)"
done_testing
