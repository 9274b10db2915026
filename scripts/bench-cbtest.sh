#!/bin/sh
# bench-cbtest.sh [PROGRAM...]: cbtest's throughput (issue 13) on a suite of
# programs of tests/programs/ (default: rww www wrw wwr), every schedule
# forced (--all-bugs):
#   - forced runs per minute with -j 1 and with -j 2 (the whole suite's wall
#     time: recording and prediction included), and the speed-up of -j 2;
#   - how busy each keeps the cores: CPU seconds (user + system) of cbtest
#     and everything it started, per wall second (2.00: both cores all the
#     time) -- on a shared machine other work lowers it, so the load
#     average before the runs is printed too; split into the jobs cbtest
#     keeps in flight (sampled every 0.1 s: its scheduling) and the CPU a
#     job gets while it is in flight (waits inside the job, and other work
#     on the machine), and the threads of cbtest's jobs that want a CPU
#     (runnable, sampled: what other work on the machine does not change),
#     per job in flight: below 1, jobs wait for something else than a CPU;
#   - the share of a forced run spent starting Valgrind: a trivial program
#     (tests/bench/trivial.c: one thread, nothing else) forced through
#     cbreplay with an empty plan, less its native run, is the fixed cost
#     of reaching the client's main (and of ending), set against the mean
#     forced run of the -j 1 suite; `valgrind --tool=none` on the same
#     program beside it (Valgrind's own start, without the tool).
# Output: `name value unit` lines, e.g.
#   cbtest.j2.forced_runs_per_min 31.5 runs/min
# Environment: CB_STARTS (trivial runs timed, default 5).  `make bench`
# builds what it needs.  A measurement, never a test: the machine is
# shared and noisy.

cd "$(dirname "$0")/.." || exit 2
top=$(pwd)
starts=${CB_STARTS:-5}
trivial=build/bench/trivial
mk=build/tests/replay_mkschedule
for f in bin/cbtest bin/cbreplay lib/cbtools/cbtools-amd64-linux "$trivial" "$mk"; do
   if [ ! -x "$f" ]; then
      echo "bench-cbtest: $f is missing: run make bench" >&2
      exit 2
   fi
done
[ $# -gt 0 ] || set -- rww www wrw wwr
work=$(mktemp -d "${TMPDIR:-/tmp}/cbbench.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT

: >"$work/suite.tests"
for name in "$@"; do
   if [ ! -x "build/programs/$name" ]; then
      echo "bench-cbtest: build/programs/$name is missing: run make bench" >&2
      exit 2
   fi
   echo "$top/build/programs/$name" >>"$work/suite.tests"
done

# json EXPR FILE: EXPR over the parsed report $d.
json() {
   perl -MJSON::PP -0777 -e 'my $d = decode_json(<STDIN>); print eval($ARGV[0]), "\n"' "$1" <"$2"
}

echo "bench.loadavg $(cut -d' ' -f1 /proc/loadavg) load"
echo "bench.cores $(nproc) cores"
echo "cbtest.suite $(echo "$@" | tr ' ' ',') programs"

# run_sampled OUT ERR CMD...: runs CMD (stdout to OUT, stderr to ERR) and,
# every 0.1 s, counts the processes it started that are still there (its
# jobs in flight) and the threads of all its descendants that are runnable
# (state R: on a CPU or waiting for one; a job that waits for a timer, a
# pipe or a lock is not).  Prints: exit code, wall s, CPU s (user + system
# of CMD and all it waited for), mean jobs in flight, mean runnable
# threads.
run_sampled() {
   perl -MTime::HiRes=time,sleep -MPOSIX=:sys_wait_h -e '
      my ($out, $err, @cmd) = @ARGV;
      my $t0 = time;
      my $pid = fork // die;
      if (!$pid) {
         open STDIN, "<", "/dev/null"; open STDOUT, ">", $out; open STDERR, ">", $err;
         exec @cmd or exit 127;
      }
      sub stat_of { open my $h, "<", $_[0] or return; my $l = <$h>; $l =~ /\) (\S) (\d+)/ ? ($1, $2) : () }
      my ($n, $jobs, $runnable, $st) = (0, 0, 0, 0);
      for (;;) {
         my $r = waitpid($pid, WNOHANG);
         if ($r == $pid) { $st = $?; last }
         my %kids;
         for my $f (glob "/proc/[0-9]*/stat") {
            my ($s, $pp) = stat_of($f) or next;
            my ($p) = $f =~ m{/proc/(\d+)/};
            push @{$kids{$pp}}, $p;
         }
         my @todo = @{$kids{$pid} || []};
         $jobs += @todo;
         while (defined(my $p = shift @todo)) {
            push @todo, @{$kids{$p} || []};
            for my $t (glob "/proc/$p/task/[0-9]*/stat") {
               my ($s) = stat_of($t);
               $runnable++ if defined $s && $s eq "R";
            }
         }
         $n++;
         sleep 0.1;
      }
      my $wall = time - $t0;
      my (undef, undef, $cu, $cs) = times;
      printf "%d %.2f %.2f %.2f %.2f\n", $st >> 8, $wall, $cu + $cs,
             $n ? $jobs / $n : 0, $n ? $runnable / $n : 0;
   ' "$@"
}

# suite J: one cbtest run; prints `name value unit` lines and keeps the
# report as $work/jJ/report.json.
suite() {
   j=$1
   set -- $(run_sampled "$work/j$j.out" "$work/j$j.err" bin/cbtest -j "$j" \
               --all-bugs --timeout 20 -o "$work/j$j" --tests "$work/suite.tests")
   if [ "$1" -gt 1 ]; then
      echo "bench-cbtest: cbtest -j $j failed (exit $1):" >&2
      tail -5 "$work/j$j.err" >&2
      return 1
   fi
   runs=$(json 'my $n = 0; for my $t (@{$d->{tests}}) { $n += grep { $_->{verdict} ne "pending" } @{$t->{schedules}} } $n' "$work/j$j/report.json")
   mean=$(json 'my ($n, $s) = (0, 0); for my $t (@{$d->{tests}}) { for (@{$t->{schedules}}) { next if $_->{verdict} eq "pending"; $n++; $s += $_->{seconds} } } sprintf "%.3f", $n ? $s / $n : 0' "$work/j$j/report.json")
   echo "$j $2 $3 $4 $runs $mean $5" | awk '{
      printf "cbtest.j%d.wall %.1f s\n", $1, $2
      printf "cbtest.j%d.forced_runs %d runs\n", $1, $5
      printf "cbtest.j%d.forced_runs_per_min %.1f runs/min\n", $1, ($2 > 0 ? $5 * 60 / $2 : 0)
      printf "cbtest.j%d.mean_forced_run %.2f s\n", $1, $6
      printf "cbtest.j%d.jobs_in_flight %.2f jobs\n", $1, $4
      printf "cbtest.j%d.cores_busy %.2f cores\n", $1, ($2 > 0 ? $3 / $2 : 0)
      printf "cbtest.j%d.cpu_per_job %.2f fraction\n", $1, ($2 > 0 && $4 > 0 ? $3 / $2 / $4 : 0)
      printf "cbtest.j%d.runnable_threads %.2f threads\n", $1, $7
      printf "cbtest.j%d.runnable_per_job %.2f fraction\n", $1, ($4 > 0 ? $7 / $4 : 0) }'
}
suite 1 >"$work/j1.lines" || exit 1
cat "$work/j1.lines"
suite 2 >"$work/j2.lines" || exit 1
cat "$work/j2.lines"
val() { awk -v k="$1" '$1 == k { print $2 }' "$work/j1.lines" "$work/j2.lines"; }
echo "$(val cbtest.j1.wall) $(val cbtest.j2.wall)" |
   awk '{ printf "cbtest.j2_speedup %.2f x\n", ($2 > 0 ? $1 / $2 : 0) }'

# The fixed cost of a forced run: the trivial program, natively, under
# --tool=none, and forced by cbreplay with an empty plan.
"$mk" -o "$work/empty.pb" --id 1 --program "$top/$trivial" || exit 2
# mean_of N CMD...: mean wall seconds and mean CPU seconds (user + system,
# what other work on the machine changes less) of N runs of CMD.
mean_of() {
   n=$1
   shift
   perl -MTime::HiRes=time -e '
      my $n = shift; my $t0 = time;
      for (1 .. $n) { system(@ARGV) == -1 and exit 2 }
      my @t = times;
      printf "%.4f %.4f\n", (time - $t0) / $n, ($t[2] + $t[3]) / $n' "$n" "$@" \
      </dev/null 2>/dev/null
}
native=$(mean_of 50 "$trivial")
none=$(mean_of "$starts" sh -c "valgrind --tool=none -q '$trivial' >/dev/null 2>&1")
replay=$(mean_of "$starts" sh -c "bin/cbreplay --schedule '$work/empty.pb' -- '$top/$trivial' >/dev/null 2>&1")
echo "$native $none $replay $(val cbtest.j1.mean_forced_run)" | awk '{
   start = $5 - $1
   printf "cbtest.trivial_native %.4f s\n", $1
   printf "cbtest.trivial_tool_none %.3f s\n", $3
   printf "cbtest.trivial_tool_none_cpu %.3f s\n", $4
   printf "cbtest.trivial_forced %.3f s\n", $5
   printf "cbtest.trivial_forced_cpu %.3f s\n", $6
   printf "cbtest.valgrind_start %.3f s\n", start
   printf "cbtest.valgrind_start_share %.2f fraction\n", ($7 > 0 ? start / $7 : 0) }'
