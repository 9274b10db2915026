#!/bin/sh
# cbpredict's unit tests (PENELOPE's examples, the program's own lock
# words, lock-order inversions, the writers an order violation holds back,
# reader/writer locks, the path to f and new paths first),
# plain and under ASan+UBSan.
. "$(dirname "$0")/../tap.sh"
for b in build/tests/predict_unit build/tests/predict_unit_san \
         build/tests/predict_rank build/tests/predict_rank_san \
         build/tests/predict_lockwords build/tests/predict_lockwords_san \
         build/tests/predict_deadlock build/tests/predict_deadlock_san \
         build/tests/predict_orders build/tests/predict_orders_san \
         build/tests/predict_rwlock build/tests/predict_rwlock_san \
         build/tests/predict_paths build/tests/predict_paths_san; do
    out=$("$b" 2>&1); rc=$?
    printf '%s\n' "$out" | sed 's/^/# /' | grep -E '^# not ok|runtime error|ERROR' | head -20
    is "$rc" 0 "$(basename "$b") passes"
    unlike "$out" '^not ok|runtime error|AddressSanitizer' "$(basename "$b"): no failure, no sanitizer report"
done
done_testing
