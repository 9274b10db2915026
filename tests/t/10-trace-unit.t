#!/bin/sh
# The trace library's unit tests (tests/unit/trace_unit.c), built plain and
# under ASan+UBSan: both must pass.  Each prints its own TAP; this script
# runs them as two tests and shows their lines as comments.
. "$(dirname "$0")/../tap.sh"
plan 2
for v in trace_unit trace_unit-san; do
    bin="$TOP/build/tests/$v"
    mkdir -p "$TMP/$v"
    if [ ! -x "$bin" ]; then
        _tap_report 1 "$v: not built (make $bin)"
        continue
    fi
    # MALLOC_PERTURB_: fresh memory is not zero, as under meson test.
    out=$(MALLOC_PERTURB_=165 "$bin" "$TMP/$v" 2>&1); rc=$?
    printf '%s\n' "$out" | grep -v '^ok ' | sed 's/^/# /'
    n_ok=$(printf '%s\n' "$out" | grep -c '^ok ')
    [ "$rc" = 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok'
    _tap_report $? "$v: $n_ok unit tests pass"
done
