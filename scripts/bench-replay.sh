#!/bin/sh
# bench-replay.sh: how fast the tool forces a schedule.  A two-thread
# program (tests/unit/replay_pingpong.c: main and one thread each increment
# their own volatile counter 25,000 times, a load and a store each) is
# forced through a hand-built plan that alternates (T2, 1 event), (T1, 1
# event) for 100,000 steps: 100,000 forced context switches.  Beside it: the
# same program under `valgrind --tool=none` (the floor), and replay with an
# empty plan (the tool's own cost without forcing).  Target (issue 13): at
# least 100,000 forced switches per second (issue 4 asked for 50,000).
#
# Usage: scripts/bench-replay.sh [SWITCHES]   (default 100,000; `make bench`
# builds what it needs).  The program always runs 25,000 increments a
# thread; fewer switches leave the rest of it to run released.
# Prints one summary line at the end:
#   replay: 100000 forced switches in 2.10 s = 47619/s (net of --tool=none
#   0.27 s: 54645/s; empty plan 0.40 s), verdict passed
# A measurement, never a test: the machine is shared and noisy.

cd "$(dirname "$0")/.." || exit 2
prog=build/bench/replay_pingpong
mk=build/tests/replay_mkschedule
if [ ! -x bin/cbreplay ] || [ ! -x "$prog" ] || [ ! -x "$mk" ]; then
   echo "bench-replay: bin/cbreplay, $prog or $mk is missing: run make bench" >&2
   exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/cbbench.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
elapsed() { echo "$(now) $1" | awk '{ printf "%.2f", $1 - $2 }'; }

switches=${1:-100000}
case $switches in ''|*[!0-9]*) echo "bench-replay: SWITCHES must be a number" >&2; exit 2 ;; esac
[ "$switches" -le 100000 ] || { echo "bench-replay: at most 100000 switches" >&2; exit 2; }
# T1's counted event 0 is the create; then both loops, interleaved by the
# tail.  50,000 steps of "T2 one event, T1 one event" = 100,000 switches.
"$mk" -o "$work/pingpong.pb" --id 1 --program "$prog" --prefix 1,0 \
   --tail 2:1,1:1 --tail-repeat $((switches / 2)) || exit 2
"$mk" -o "$work/empty.pb" --id 2 --program "$prog" || exit 2

t0=$(now)
valgrind --tool=none -q "$prog" >/dev/null 2>&1
none=$(elapsed "$t0")

t0=$(now)
bin/cbreplay --timeout 120 --schedule "$work/empty.pb" -- "$prog" \
   >"$work/empty.out" 2>&1
empty=$(elapsed "$t0")

t0=$(now)
bin/cbreplay --timeout 600 --json --schedule "$work/pingpong.pb" -- "$prog" \
   >"$work/replay.out" 2>"$work/replay.err"
rc=$?
replay=$(elapsed "$t0")
verdict=$(sed -n 's/.*"verdict": "\([a-z]*\)".*/\1/p' "$work/replay.out")
if [ "$rc" != 0 ]; then
   echo "bench-replay: the forced run did not pass (exit $rc, ${verdict:-no verdict}):" >&2
   sed 's/^/  /' "$work/replay.out" "$work/replay.err" | tail -8 >&2
fi
echo "$switches $replay $none $empty ${verdict:-none}" | awk '{
   rate = $2 > 0 ? $1 / $2 : 0
   net = ($2 - $3) > 0 ? $1 / ($2 - $3) : 0
   printf "replay: %d forced switches in %.2f s = %.0f/s (net of --tool=none %.2f s: %.0f/s; empty plan %.2f s), verdict %s\n",
          $1, $2, rate, $3, net, $4, $5 }'
[ "$rc" = 0 ]
