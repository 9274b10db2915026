#!/bin/sh
# A forced run runs on one CPU (trace/launch.c, trace/pool.c): Valgrind
# runs one thread at a time anyway, and a forced switch is then a
# hand-over on that CPU instead of the wake-up of an idle one
# (bench-replay, idle machine: 100,000 switches in 0.9 s, 2.7 s before).
# A program that prints how many CPUs it may run on: natively and under
# `cbtrace record` (the recorder encodes the stream beside it: not
# pinned) as many as the machine gives; in a forced run, one.  With
# `cbreplay --all -j 2` on a machine with two CPUs or more, the two
# workers' forced runs are on different CPUs when they overlap
# (the pool gives a pinned job the CPU with the fewest of its jobs).
. "$(dirname "$0")/../tap.sh"

MK=$TOP/build/tests/replay_mkschedule
if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || [ ! -x "$MK" ]; then
   echo "Bail out! the tool or replay_mkschedule is not built (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi

cat > "$TMP/cpus.c" <<'EOF'
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <time.h>
int main(int argc, char **argv)
{
   cpu_set_t s;
   if (sched_getaffinity(0, sizeof s, &s) != 0)
      return 2;
   /* with an argument: stay a while, so that --all's two runs overlap */
   for (volatile long i = 0; argc > 1 && i < 20000000; i++)
      ;
   FILE *f = argc > 2 ? fopen(argv[2], "a") : stdout; /* --all keeps stdout */
   if (!f)
      return 2;
   fprintf(f, "cpus %d on %d\n", CPU_COUNT(&s), sched_getcpu());
   return 0;
}
EOF
cc -O2 -o "$TMP/cpus" "$TMP/cpus.c" || { echo "Bail out! cannot build cpus.c"; exit 1; }
native=$("$TMP/cpus" | awk '{print $2}')
[ "${native:-0}" -ge 1 ] || { echo "Bail out! cannot tell how many CPUs a program may use here"; exit 1; }

cbtrace record -o "$TMP/t.pb" -- "$TMP/cpus" >"$TMP/rec.out" 2>&1
is "$(awk '/^cpus/ {print $2}' "$TMP/rec.out")" "$native" "cbtrace record: not pinned ($native)"

mkdir -p "$TMP/s"
"$MK" -o "$TMP/s/s1.pb" --id 1 --program "$TMP/cpus"
"$MK" -o "$TMP/s/s2.pb" --id 2 --program "$TMP/cpus"
out=$(cbreplay --timeout 60 --schedule "$TMP/s/s1.pb" -- "$TMP/cpus" 2>&1)
like "$out" "^cpus 1 on [0-9]+" "cbreplay: the forced run may run on one CPU"

# --all -j 2: each forced run pinned; on two CPUs or more, not the same one.
cbreplay --all "$TMP/s" -j 2 --timeout 60 -- "$TMP/cpus" slow "$TMP/all.out" >"$TMP/all.log" 2>&1
out=$(cat "$TMP/all.out")
is "$(printf '%s\n' "$out" | grep -c '^cpus 1 on ')" 2 "cbreplay --all -j 2: both forced runs on one CPU each"
if [ "$native" -ge 2 ]; then
   is "$(printf '%s\n' "$out" | awk '/^cpus 1 on / {print $4}' | sort -u | wc -l | tr -d ' ')" 2 \
      "cbreplay --all -j 2: on two different CPUs"
else
   ok "cbreplay --all -j 2: one CPU here, nothing to tell apart (skip)" true
fi
[ "$(printf '%s\n' "$out" | grep -c '^cpus 1 on ')" = 2 ] || sed 's/^/#   /' "$TMP/all.log" | head -20

done_testing
