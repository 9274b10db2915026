#!/bin/sh
# bench-e2e.sh [PROGRAM...]: how fast the whole pipeline confirms a real
# bug (issue 9), on every buggy program of tests/programs/ (header
# `cbtools-expect: bug ...`; default: all of them).  For each program:
#   - record it, predict, then force the schedules one at a time in the
#     order cbpredict numbered them (s1, s2, ...) until the first run that
#     fails (cbreplay exit 1); print how many forced runs that took and the
#     seconds from the start of the recording to that verdict (record +
#     predict + the forced runs), or "none" when no forced run fails;
#   - beside it, how many plain native runs it takes to see the program
#     fail once (at most CB_NATIVE_CAP, else "never");
#   - determinism: the first failing schedule replayed CB_REPLAYS times
#     must fail every time; print how many did.
# Output: `name value unit` lines, e.g.
#   e2e.pool.forced_runs 2 runs
# then a table of the same numbers, one line a program.
#
# Environment: CB_NATIVE_CAP (default 1000), CB_MAX_FORCED (forced runs at
# most per program, default 100), CB_REPLAYS (default 30), CB_TIMEOUT
# (cbreplay --timeout, default 10).  `make bench` builds what it needs.
# A measurement, never a test: the machine is shared and noisy.

cd "$(dirname "$0")/.." || exit 2
cap=${CB_NATIVE_CAP:-1000}
max_forced=${CB_MAX_FORCED:-100}
replays=${CB_REPLAYS:-30}
rtimeout=${CB_TIMEOUT:-10}
top=$(pwd)
for tool in bin/cbtrace bin/cbpredict bin/cbreplay lib/cbtools/cbtools-amd64-linux; do
   if [ ! -x "$tool" ]; then
      echo "bench-e2e: $tool is missing: run make bench" >&2
      exit 2
   fi
done
work=$(mktemp -d "${TMPDIR:-/tmp}/cbe2e.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
elapsed() { echo "$(now) $1" | awk '{ printf "%.2f", $1 - $2 }'; }

# marker SRC KEY: the header marker cbtools-KEY (tests/lib/README.md).
marker() {
   sed -n "s/^.*cbtools-$2:[[:space:]]*//p" "$1" | head -n 1 | sed 's/[[:space:]]*$//'
}

# replay DIR SCHEDULE PROG: one forced run; prints cbreplay's exit status.
replay() {
   (cd "$1" && "$top/bin/cbreplay" --timeout "$rtimeout" --schedule "$2" \
       -- "$top/$3" >/dev/null 2>&1)
   echo $?
}

# native PROG: plain runs until one fails; prints their count or "never".
native() {
   i=1
   while [ "$i" -le "$cap" ]; do
      if ! timeout 10 "$1" >/dev/null 2>&1; then
         echo "$i"
         return
      fi
      i=$((i + 1))
   done
   echo never
}

if [ $# -eq 0 ]; then
   set -- $(for s in tests/programs/*.c; do
               case $(marker "$s" expect) in bug*) basename "$s" .c ;; esac
            done)
fi

: >"$work/table"
for name in "$@"; do
   src=tests/programs/$name.c
   prog=build/programs/$name
   if [ ! -f "$src" ] || [ ! -x "$prog" ]; then
      echo "bench-e2e: $prog is missing: run make bench" >&2
      continue
   fi
   d=$work/$name
   mkdir -p "$d"
   t0=$(now)
   timeout 120 bin/cbtrace record -o "$d/trace.pb" -- "$prog" \
      >/dev/null 2>"$d/record.err"
   bin/cbpredict -o "$d/s" "$d/trace.pb" >"$d/predict.out" 2>&1
   nums=$(ls "$d/s" 2>/dev/null | sed -n 's/^s\([0-9][0-9]*\)\.pb$/\1/p' | sort -n)
   nsched=$(printf '%s\n' $nums | grep -c .)
   forced=0 first=
   for n in $nums; do
      [ "$forced" -lt "$max_forced" ] || break
      forced=$((forced + 1))
      if [ "$(replay "$d" "$d/s/s$n.pb" "$prog")" = 1 ]; then
         first=s$n
         break
      fi
   done
   secs=$(elapsed "$t0")
   if [ -n "$first" ]; then
      runs=$forced
      same=0
      i=0
      while [ "$i" -lt "$replays" ]; do
         [ "$(replay "$d" "$d/s/$first.pb" "$prog")" = 1 ] && same=$((same + 1))
         i=$((i + 1))
      done
      again="$same/$replays"
   else
      runs=none secs=none again=none
   fi
   nat=$(native "$prog")

   echo "e2e.$name.schedules $nsched schedules"
   echo "e2e.$name.forced_runs $runs runs"
   echo "e2e.$name.seconds_to_bug $secs s"
   echo "e2e.$name.first_failing ${first:-none} schedule"
   echo "e2e.$name.replays_failing $again replays"
   echo "e2e.$name.native_runs_to_failure $nat runs"
   printf '%-10s %9s %6s %8s %7s %8s %7s\n' "$name" "$nsched" "$runs" \
      "$secs" "${first:-none}" "$again" "$nat" >>"$work/table"
done

printf '%-10s %9s %6s %8s %7s %8s %7s\n' program schedules forced seconds first \
   replays native
cat "$work/table"
