#!/bin/sh
# bench-predict.sh [EVENTS...]: cbpredict's speed, peak memory and schedule
# files on synthetic traces (8 threads, 300 variables, 100 locks), with no
# cap on the schedules written, at each size (default 1, 10 and 50 million
# events), then again writing none (--max 0: the analysis alone, without
# the file system's cost of creating a file per schedule).  Prints
# `name value unit` lines, e.g.
#   predict_10M_events_per_s 1234567 events/s
# and how the CPU time per event at each size compares with the smallest
# size (1.00: time grows linearly with the trace).  CBPREDICT=path measures
# another build (an older one, for a before/after ratio); TMPDIR says where
# the trace and the schedules go (the file system's cost of creating a file
# per schedule is part of the no-cap figure).
set -eu
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- 1000000 10000000 50000000
CBPREDICT=${CBPREDICT:-bin/cbpredict}
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/cbbench.XXXXXX")
trap 'rm -rf "$TMPD"' EXIT

label() { awk -v n="$1" 'BEGIN { if (n % 1000000 == 0) printf "%dM", n / 1000000; else print n }'; }

# run N MAXARG: one cbpredict run; sets secs (wall), cpu (user + system:
# less sensitive than wall time to other work on a shared machine), kb,
# events, written.
run() {
   rm -rf "$TMPD/s"
   start=$(date +%s.%N)
   /usr/bin/time -f '%M %U %S' -o "$TMPD/rss" "$CBPREDICT" $2 -o "$TMPD/s" "$TMPD/trace.pb" > "$TMPD/out"
   end=$(date +%s.%N)
   secs=$(awk -v s="$start" -v e="$end" 'BEGIN { t = e - s; printf "%.3f", (t > 0 ? t : 1e-9) }')
   kb=$(tail -1 "$TMPD/rss" | cut -d' ' -f1)
   cpu=$(tail -1 "$TMPD/rss" | awk '{ printf "%.2f", $2 + $3 }')
   events=$(sed -n 's/^cbpredict: \([0-9]*\) events.*/\1/p' "$TMPD/out")
   written=$(sed -n 's/.* \([0-9]*\) schedules written.*/\1/p' "$TMPD/out")
}

first_per_event=
for n in "$@"; do
   l=$(label "$n")
   build/tools/cb-gen-trace -n "$n" -t 8 -v 300 -k 100 -o "$TMPD/trace.pb"
   run "$n" ""
   sizes=$(find "$TMPD/s" -name 's*.pb' -printf '%s\n' | awk '
      { t += $1; if ($1 > m) m = $1 } END { printf "%d %d", NR ? t / NR : 0, m }')
   awk -v l="$l" -v n="$events" -v t="$secs" -v kb="$kb" -v w="$written" -v sz="$sizes" -v cpu="$cpu" 'BEGIN {
      split(sz, s, " ")
      printf "predict_%s_events %d events\n", l, n
      printf "predict_%s_seconds %.2f s\n", l, t
      printf "predict_%s_events_per_s %.0f events/s\n", l, n / t
      printf "predict_%s_cpu_seconds %.2f s\n", l, cpu
      printf "predict_%s_events_per_cpu_s %.0f events/s\n", l, n / (cpu > 0 ? cpu : 1e-9)
      printf "predict_%s_cpu_ns_per_event %.0f ns/event\n", l, cpu * 1e9 / n
      printf "predict_%s_peak_bytes_per_event %.1f bytes/event\n", l, kb * 1024 / n
      printf "predict_%s_schedules %d schedules\n", l, w
      printf "predict_%s_schedule_bytes_mean %d bytes\n", l, s[1]
      printf "predict_%s_schedule_bytes_max %d bytes\n", l, s[2] }'
   per_event=$(awk -v t="$cpu" -v n="$events" 'BEGIN { printf "%.6g", t / n }')
   run "$n" "--max 0"
   awk -v l="$l" -v n="$events" -v t="$secs" -v cpu="$cpu" 'BEGIN {
      printf "predict_%s_analysis_seconds %.2f s\n", l, t
      printf "predict_%s_analysis_events_per_s %.0f events/s\n", l, n / t
      printf "predict_%s_analysis_events_per_cpu_s %.0f events/s\n", l, n / (cpu > 0 ? cpu : 1e-9) }'
   if [ -z "$first_per_event" ]; then
      first_per_event=$per_event
      first_label=$l
   else
      awk -v l="$l" -v f="$first_label" -v a="$per_event" -v b="$first_per_event" 'BEGIN {
         printf "predict_%s_cpu_per_event_vs_%s %.2f ratio\n", l, f, a / b }'
   fi
done
