#!/bin/sh
# run.sh BUILD-FUZZ-DIR NAME SECONDS: fuzzes one harness (make fuzz).
# Starts from the committed seeds (tests/fuzz/corpus/NAME/) and regressions
# (tests/fuzz/regress/NAME/), keeps what it learns in BUILD/corpus/NAME/
# (not committed), and writes any input that crashes, leaks, times out or
# allocates more than 2 GB to BUILD/found/NAME/: copy it into
# tests/fuzz/regress/NAME/ with the fix, so that `make check` replays it.
# Prints one line: executions run and what was found.
set -u
out=$1 name=$2 secs=$3
here=$(dirname "$0")
bin=$out/fuzz_$name
work=$out/corpus/$name
found=$out/found/$name
mkdir -p "$work" "$found"
log=$out/$name.log
"$bin" -max_total_time="$secs" -rss_limit_mb=2048 -malloc_limit_mb=2048 \
    -timeout=10 -print_final_stats=1 -artifact_prefix="$found/" \
    "$work" "$here/corpus/$name" "$here/regress/$name" >"$log" 2>&1
rc=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
nfound=$(find "$found" -type f | wc -l)
echo "fuzz $name: ${execs:-?} executions in ${secs} s, exit $rc," \
     "$nfound inputs in $found (log: $log)"
[ "$rc" = 0 ]
