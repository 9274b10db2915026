#!/bin/sh
# bench-predict.sh [EVENTS]: cbpredict's speed and peak memory on a synthetic
# trace (8 threads, 300 variables, 100 locks; default 10 million events).
# Prints: predict: N events, X events/s, peak Y bytes/event
set -eu
cd "$(dirname "$0")/.."
N=${1:-10000000}
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/cbbench.XXXXXX")
trap 'rm -rf "$TMPD"' EXIT
build/tools/cb-gen-trace -n "$N" -t 8 -v 300 -k 100 -o "$TMPD/trace.pb"
start=$(date +%s.%N)
/usr/bin/time -f '%M' -o "$TMPD/rss" bin/cbpredict --max 100 -o "$TMPD/s" "$TMPD/trace.pb" > "$TMPD/out"
end=$(date +%s.%N)
events=$(sed -n 's/^cbpredict: \([0-9]*\) events.*/\1/p' "$TMPD/out")
rss_kb=$(tail -1 "$TMPD/rss")
awk -v n="$events" -v s="$start" -v e="$end" -v kb="$rss_kb" 'BEGIN {
  t = e - s; if (t <= 0) t = 1e-9;
  printf "predict: %d events, %.0f events/s, peak %.1f bytes/event\n", n, n / t, kb * 1024 / n }'
