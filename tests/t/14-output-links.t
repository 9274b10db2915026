#!/bin/sh
# Output files in a folder others can write to: a symbolic link planted
# where a command creates a file (its temporary name or its final one)
# never makes it write through the link.  Temporary names are
# unpredictable (mkstemp) and files are renamed into place.
. "$(dirname "$0")/../tap.sh"

cat >"$TMP/one.c" <<'C'
int x;
int main(void) { x = 1; return 0; }
C
gcc -g -O0 -o "$TMP/one" "$TMP/one.c"
victim="$TMP/victim"
reset_victim() { printf 'precious\n' >"$victim"; }
intact() { [ "$(cat "$victim")" = precious ]; }

# ---- cbtrace record -o LINK ------------------------------------------------------
reset_victim
ln -s "$victim" "$TMP/t.pb"
cbtrace record -o "$TMP/t.pb" -- "$TMP/one" >/dev/null 2>"$TMP/err"
is "$?" 0 "record over a planted link: exit 0"
ok "the file the link named is untouched" intact
ok "the trace replaced the link" [ -f "$TMP/t.pb" -a ! -L "$TMP/t.pb" ]
cbtrace stats "$TMP/t.pb" >/dev/null 2>&1
is "$?" 0 "and is a whole trace"
unlike "$(ls "$TMP")" 't\.pb\.' "no temporary file is left beside it"

# ---- cbpredict: the temporary name of a schedule ----------------------------------
# The old temporary name was DIR/sN.pb.tmp.PID; exec keeps the shell's pid,
# so the link is planted at exactly that name.
cbtrace record -o "$TMP/rww.pb" -- "$TOP/build/programs/rww" >/dev/null 2>&1
mkdir "$TMP/sch"
reset_victim
sh -c 'ln -s "$1" "$2/s1.pb.tmp.$$"; exec cbpredict -o "$2" "$3"' sh \
    "$victim" "$TMP/sch" "$TMP/rww.pb" >/dev/null 2>"$TMP/err"
is "$?" 0 "cbpredict with a link planted at its old temporary name: exit 0"
ok "the file the link named is untouched" intact
ok "s1.pb is a schedule of its own" [ -f "$TMP/sch/s1.pb" -a ! -L "$TMP/sch/s1.pb" ]
is "$(ls "$TMP/sch" | grep -cv '^s[0-9]*\.pb$')" 1 \
    "nothing else is left in the folder (only the planted link)"
reset_victim
ln -sf "$victim" "$TMP/sch/s2.pb"
cbpredict -o "$TMP/sch" "$TMP/rww.pb" >/dev/null 2>&1
ok "a link at a final name is replaced, not written through" intact

# ---- cbtest: report.json and report.sarif ------------------------------------------
mkdir "$TMP/out"
reset_victim
ln -s "$victim" "$TMP/out/report.json.tmp"
ln -s "$victim" "$TMP/out/report.sarif.tmp"
cbtest -o "$TMP/out" -- "$TMP/one" >"$TMP/cbtest.out" 2>&1
is "$?" 0 "cbtest with links at its old temporary report names: exit 0"
ok "the file the links named is untouched" intact
ok "report.json was written" [ -s "$TMP/out/report.json" -a ! -L "$TMP/out/report.json" ]
ok "report.sarif was written" [ -s "$TMP/out/report.sarif" -a ! -L "$TMP/out/report.sarif" ]
unlike "$(ls "$TMP/out")" 'report\.(json|sarif)\.[A-Za-z0-9]{6}$' \
    "no temporary report is left"
done_testing
