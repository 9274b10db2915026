#!/bin/sh
# A check and its act in two critical sections of one lock
# (tests/data/ports.c): a server finds a free port under the table's lock,
# unlocks, locks again and binds it, bumping a bind counter in the same
# section.  Forcing one server's bind before another's splits a find from
# its bind too, so the order violation on the counter fails by the same
# interleaving; the report must name the owner (RWW: the find's read, the
# other's bind, this one's bind), which ranks first (split_check,
# predict/rank.c).  On the build before, cbtest named "ORD on
# ports[0].binds" at -O2 and -O0.  The twin finds and binds in one
# section: clean.
. "$(dirname "$0")/../tap.sh"

if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || [ ! -x "$TOP/bin/cbtest" ]; then
   echo "Bail out! the tool or cbtest is not built (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi
. "$TOP/tests/lib/pipeline.sh"

cb_build_data ports.c ports
cb_build_data ports.c ports_O0 -O0
cb_build_data ports.c ports_fixed -DFIXED
L_FIND=$(grep -n 'if (ports\[i\].owner == 0)' "$TOP/tests/data/ports.c" | cut -d: -f1)
L_BIND=$(grep -n 'ports\[p\].owner = me;' "$TOP/tests/data/ports.c" | cut -d: -f1)

"$TOP/bin/cbtrace" record -o "$TMP/p.pb" -- "$TMP/ports" >/dev/null 2>&1
like "$("$TOP/bin/cbpredict" -o "$TMP/ps" "$TMP/p.pb" 2>/dev/null)" \
   "^s1 +RWW +ports\\[[01]\\]\\.owner +ports\\.c:$L_FIND +ports\\.c:$L_BIND +ports\\.c:$L_BIND " \
   "cbpredict: the first schedule is the find and the bind split by the other's bind"
for v in ports ports_O0; do
   cb_cbtest $v --timeout 10 --max-runs 25
   is "$RC" 1 "$v: a bug is confirmed (exit 1)"
   like "$(grep -m1 '^   BUG ' "$TMP/$v.d/stdout")" "^   BUG RWW on ports\\[[01]\\]\\.owner: the forced run failed" \
      "$v: named by the owner, not the bind counter"
done
cb_cbtest ports_fixed --timeout 10 --max-runs 10
is "$RC" 0 "ports_fixed: clean (exit 0)"
done_testing
