#!/bin/sh
# Delay schedules and their dedup (predict/explore.c, trace/ordering.c), and
# the composition of schedules predicted from forced runs' traces
# (reschedule/batch/cbtest_compose.c): unit tests.
. "$(dirname "$0")/../tap.sh"
for b in build/tests/predict_explore build/tests/cbtest_compose; do
    out=$("$b" 2>&1); rc=$?
    printf '%s\n' "$out" | grep -E '^not ok|^#' | sed 's/^/# /' | head -20
    is "$rc" 0 "$(basename "$b") passes"
    like "$out" '^1\.\.[1-9]' "$(basename "$b"): ran its tests"
    unlike "$out" '^not ok' "$(basename "$b"): no failure"
done
done_testing
