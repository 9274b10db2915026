#!/bin/sh
# Records the programs whose bug is hidden state inside the C library
# (tests/programs/strtok_fields.c, gmtime_stamp.c; vgtool/
# cb_preload_libc.c) and the correct twin, and checks what their dumps
# show: each strtok call as accesses to "strtok's saved position (libc)"
# at the caller's line (strtok(line) a write, strtok(NULL) a read then a
# write), gmtime as a write then a read of its static struct tm, and the
# caller's own reads of that struct named after it; strtok_r nothing of
# the kind.  Then the same program recorded with --instrument=all, where
# libc's own code is watched too: it records, passes, and still has the
# events (libc's real accesses are recorded beside them: a double view,
# documented in cb_preload_libc.c).  errbuf.c's buffer is only ever
# touched inside libc (vsnprintf, strcpy: vgtool/cb_preload_strmem.c): its
# markers ask for those calls at the caller's lines.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/lib/programs.sh"

for p in strtok_fields strtok_fields_fixed gmtime_stamp errbuf errbuf_fixed; do
   check_recorded_program "$p"
done

d=$TMP/strtok_fields.pb.dump
ok "strtok_fields: its dump exists" test -s "$d"
# Per thread, the strtok events in order: W, then R W per strtok(NULL).
for t in T2 T3; do
   seq=$(grep -E "^[0-9]+ $t (read|write) strtok's saved position \(libc\) " "$d" |
         awk '{ printf "%s ", $3 }')
   is "$seq" "write read write read write read write " \
      "strtok_fields: $t's strtok calls: a write, then a read and a write per strtok(NULL)"
done
n=$(grep -c "strtok's" "$TMP/strtok_fields_fixed.pb.dump" 2>/dev/null)
is "$n" 0 "strtok_fields_fixed: strtok_r keeps no hidden state: no such event"

d=$TMP/gmtime_stamp.pb.dump
like "$(grep ' T2 ' "$d" | grep "static struct tm" | head -3 | awk '{ print $3 }' | tr '\n' ' ')" \
   "^write read read " "gmtime_stamp: a write and a read of the static struct tm at the call, then the caller's own reads"
like "$(cat "$d")" "read localtime/gmtime's static struct tm \(libc\)\+[0-9]+ size 4" \
   "gmtime_stamp: the caller's reads of the struct are named after it"

# errbuf_fixed formats into its own stack buffers too: those calls make
# no event, in record and replay alike (the rule replay applies to every
# access), so its forced runs follow their schedules (they were nearly all
# infeasible when record dropped them and replay counted them).
cbtrace record -o "$TMP/ebf.pb" -- "$CB_PROGRAM_BIN/errbuf_fixed" >/dev/null 2>&1
cbpredict -o "$TMP/ebf" "$TMP/ebf.pb" >/dev/null 2>&1
out=$(cbreplay --schedules "$TMP/ebf" --all -- "$CB_PROGRAM_BIN/errbuf_fixed" 2>/dev/null)
like "$out" '^s1 ' "errbuf_fixed: its schedules are forced"
unlike "$out" '^s[0-9]+ .* infeasible ' "errbuf_fixed: none of them infeasible (its own stack buffers make no event)"

# strdup allocates inside libc, where the malloc wrapper's caller is not
# the program's: the copy is said allocated at the strdup line, so that its
# free is a free of a known block.
cat >"$TMP/dup.c" <<'EOF'
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
   char *s = strdup(argc > 5 ? argv[1] : "a name");
   char *t = strndup(s, 3);
   int r = s[0] != t[0];
   free(t);
   free(s);
   return r;
}
EOF
cc -O0 -g -o "$TMP/dup" "$TMP/dup.c"
cbtrace record -o "$TMP/dup.pb" -- "$TMP/dup" >/dev/null 2>&1
d=$(cbtrace dump "$TMP/dup.pb" 2>&1)
like "$d" 'alloc heap block of 7 bytes from dup\.c:5 size 7 @ dup\.c:5' "strdup: its copy allocated at the caller's line, 7 bytes"
like "$d" 'alloc heap block of 4 bytes from dup\.c:6 size 4 @ dup\.c:6' "strndup: its copy allocated at the caller's line, 4 bytes"
like "$d" 'free heap block of 7 bytes from dup\.c:5 @ dup\.c:9' "and the free of the copy is of that block"

# --instrument=all: libc's own strtok is watched too.
rc=0
timeout -k 5 "$CB_RECORD_TIMEOUT" cbtrace record --instrument=all -o "$TMP/all.pb" \
   -- "$CB_PROGRAM_BIN/strtok_fields" >"$TMP/all.out" 2>"$TMP/all.err" || rc=$?
is "$rc" 0 "strtok_fields --instrument=all: records, and the program passes"
cbtrace dump "$TMP/all.pb" >"$TMP/all.dump" 2>&1
n=$(grep -cE "^[0-9]+ T2 (read|write) strtok's saved position \(libc\) .*strtok_fields.c:" "$TMP/all.dump")
is "$n" 7 "strtok_fields --instrument=all: the same 7 strtok events of T2 at the caller's line"

done_testing
