#!/bin/sh
# The fuzz harnesses of tests/fuzz/ (clang's libFuzzer): each replays every
# input that ever crashed it or exhausted memory (tests/fuzz/regress/NAME/)
# and its seed corpus, then fuzzes a few seconds from them.  `make fuzz`
# runs them longer.
. "$(dirname "$0")/../tap.sh"
secs=${FUZZ_CHECK_SECONDS:-3}
for name in trace schedule wire tests_file source_expr; do
    bin="$TOP/build/fuzz/fuzz_$name"
    if [ ! -x "$bin" ]; then
        ok "fuzz_$name is built (make fuzz-build; clang from scripts/setup-deps.sh)" false
        continue
    fi
    corpus="$TOP/tests/fuzz/corpus/$name" regress="$TOP/tests/fuzz/regress/$name"
    # Given as files, not folders, so that libFuzzer runs each once and
    # writes nothing into the source tree.
    find "$corpus" "$regress" -type f ! -name .keep >"$TMP/$name.inputs"
    n=$(wc -l <"$TMP/$name.inputs")
    xargs "$bin" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 \
        <"$TMP/$name.inputs" >"$TMP/$name.replay" 2>&1
    rc=$?
    is "$rc" 0 "fuzz_$name: its $n seed and regression inputs run clean"
    [ "$rc" = 0 ] || tail -20 "$TMP/$name.replay" | sed 's/^/# /'
    mkdir -p "$TMP/work-$name" "$TMP/found-$name"
    "$bin" -max_total_time="$secs" -rss_limit_mb=2048 -malloc_limit_mb=2048 \
        -timeout=10 -print_final_stats=1 -artifact_prefix="$TMP/found-$name/" \
        "$TMP/work-$name" "$corpus" "$regress" >"$TMP/$name.fuzz" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$TMP/$name.fuzz")
    is "$rc" 0 "fuzz_$name: $secs s of fuzzing find nothing ($execs executions)"
    [ "$rc" = 0 ] && continue
    grep -E 'ERROR|SUMMARY|==[0-9]+==' "$TMP/$name.fuzz" | head -10 | sed 's/^/# /'
    for f in "$TMP/found-$name"/*; do
        [ -f "$f" ] && diag "found: $(basename "$f") ($(od -An -tx1 "$f" | head -3 | tr -d '\n'))"
    done
done
done_testing
