#!/bin/sh
# The Z3 feasibility check behind `cbpredict --z3` (predict/z3_check.h):
# its C unit tests, plain and under ASan+UBSan, and the happens-before
# model (predict/hb.c) that the vector clocks and Z3 both take, pinned on
# small traces with the two agreeing on every pair of events
# (tests/unit/predict_hb.c).  Each binary prints TAP.
. "$(dirname "$0")/../tap.sh"
for bin in build/tests/z3_unit build/tests/z3_unit-san \
           build/tests/predict_hb build/tests/predict_hb-san; do
    if [ ! -x "$bin" ]; then
        _tap_report 1 "$bin is built (make $bin)"
        continue
    fi
    out=$("$bin" 2>&1); status=$?
    nfail=$(printf '%s\n' "$out" | grep -c '^not ok')
    nok=$(printf '%s\n' "$out" | grep -c '^ok')
    printf '%s\n' "$out" | grep -E '^(not ok|#)' | sed 's/^/# /'
    ok "$bin: $nok passed, $nfail failed" [ "$status" = 0 -a "$nfail" = 0 -a "$nok" -gt 20 ]
done
done_testing
