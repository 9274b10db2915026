#!/bin/sh
# glib-suite.sh: cbtest over GLib's own threading tests, the ones Debian's
# libglib2.0-tests installs in /usr/libexec/installed-tests/glib/, with
# Helgrind's verdict on the same runs beside it.  GLib is the C library most
# programs link; its tests are real threaded code that uses GLib's own
# locks (GMutex, GRecMutex, GRWLock, GCond, g_once, bit locks), which the
# tool wraps (vgtool/cb_preload_glib.c).  Part of `make bench`, never of
# `make check`: it takes minutes, and what it finds is a measurement.
#
# Each test is one GLib test program with the test cases (-p PATH) that
# finish in well under a second natively: the stress cases (mutex5,
# rec-mutex4, rwlock7, 1bit-mutex: 20 s and more natively, hours under
# Valgrind) and the cases that measure time (cond/wait-until,
# asyncqueue/timed, private2, staticprivate4) are left out; the perf/
# cases are kept where, outside GLib's perf mode (-m perf), they are small
# contended counters.  For each:
#   cbtest -j 2 --max-runs N --timeout S -- PROG -p PATH ...
# under a budget of GLIB_SUITE_SECONDS (cbtest is stopped then and reports
# what finished), and `valgrind --tool=helgrind` on the same command.
# Output: `name value unit` lines, per test
#   glib.TEST.time 123.4 s          cbtest's wall time
#   glib.TEST.forced 10 runs         forced runs made (passed, failed,
#                                    infeasible, hung)
#   glib.TEST.infeasible 3 runs      of them, the ones that could not be
#                                    followed
#   glib.TEST.findings 0 bugs        bugs cbtest confirmed
#   glib.TEST.helgrind 12 warnings   Helgrind's distinct errors (ERROR
#                                    SUMMARY's contexts, each reported once)
#   glib.TEST.helgrind_races 9 warnings   of them, "Possible data race"
#   glib.TEST.helgrind_errors 480 errors  every occurrence (ERROR SUMMARY)
# then the totals as glib.all.*, and a table.  A confirmed bug in GLib's
# own tests is most likely a false positive of ours: each is listed with
# its pattern, variable and locations, to look at.
#
# Usage: scripts/glib-suite.sh [-o DIR] [TEST...]   (default: every test
# below whose program is installed).  -o DIR keeps every cbtest folder
# (DIR/TEST/) and Helgrind's output (DIR/TEST.helgrind).
# Environment: GLIB_SUITE_MAX_RUNS (forced runs per test, default 10),
# GLIB_SUITE_SECONDS (budget per test, default 600), GLIB_SUITE_TIMEOUT
# (cbtest --timeout, default 20), GLIB_TESTS_DIR (default
# /usr/libexec/installed-tests/glib).
# Exit status: 0 when it ran (whatever it found), 2 when it could not.

cd "$(dirname "$0")/.." || exit 2
top=$(pwd)
max_runs=${GLIB_SUITE_MAX_RUNS:-10}
budget=${GLIB_SUITE_SECONDS:-600}
rtimeout=${GLIB_SUITE_TIMEOUT:-20}
gdir=${GLIB_TESTS_DIR:-/usr/libexec/installed-tests/glib}

keep=
if [ "${1:-}" = -o ]; then
   [ $# -ge 2 ] || { echo "glib-suite: -o wants a folder" >&2; exit 2; }
   keep=$2
   shift 2
fi
for tool in bin/cbtest bin/cbtrace bin/cbpredict bin/cbreplay \
            lib/cbtools/cbtools-amd64-linux; do
   if [ ! -x "$tool" ]; then
      echo "glib-suite: $tool is missing: run make" >&2
      exit 2
   fi
done
if [ ! -d "$gdir" ]; then
   echo "glib-suite: $gdir is missing: GLib's installed tests are not there (scripts/setup-deps.sh installs libglib2.0-tests)" >&2
   exit 2
fi
command -v valgrind >/dev/null || { echo "glib-suite: no valgrind" >&2; exit 2; }

if [ -n "$keep" ]; then
   mkdir -p "$keep" || exit 2
   work=$(cd "$keep" && pwd)
else
   work=$(mktemp -d "${TMPDIR:-/tmp}/cbglib.XXXXXX") || exit 2
   trap 'rm -rf "$work"' EXIT
fi

# The tests: NAME PROGRAM [ARGS...], one a line.
tests() {
   cat <<'EOF'
thread thread
mutex mutex -p /thread/mutex1 -p /thread/mutex2 -p /thread/mutex3 -p /thread/mutex4 -p /thread/mutex/perf/contended/2 -p /thread/mutex/perf/contended/4
rec-mutex rec-mutex -p /thread/rec-mutex1 -p /thread/rec-mutex2 -p /thread/rec-mutex3 -p /thread/rec-mutex/perf/contended2/depth2 -p /thread/rec-mutex/perf/contended4/depth3
rwlock rwlock -p /thread/rwlock1 -p /thread/rwlock2 -p /thread/rwlock3 -p /thread/rwlock4 -p /thread/rwlock5 -p /thread/rwlock6 -p /thread/rwlock8
cond cond -p /thread/cond1 -p /thread/cond2
once once
onceinit onceinit
private private -p /thread/private1 -p /thread/private3 -p /thread/staticprivate1 -p /thread/staticprivate2 -p /thread/staticprivate3 -p /thread/staticprivate5
asyncqueue asyncqueue -p /asyncqueue/basics -p /asyncqueue/sort -p /asyncqueue/destroy -p /asyncqueue/threads -p /asyncqueue/push_front
thread-pool thread-pool
atomic atomic
EOF
}

now() { date +%s.%N; }
elapsed() { echo "$(now) $1" | awk '{ printf "%.1f", $1 - $2 }'; }

# jget FILE EXPR: a value of report.json (EXPR: perl on $d).
jget() {
   perl -MJSON::PP -e '
      local $/; open my $f, "<", $ARGV[0] or do { print "0\n"; exit };
      my $d = eval { JSON::PP->new->utf8->decode(<$f>) };
      if (!$d) { print "0\n"; exit }
      my $v = eval $ARGV[1]; print defined $v ? "$v\n" : "0\n";' "$1" "$2"
}

# run_one NAME PROGRAM [ARGS...]: the cbtest and Helgrind lines of one test.
run_one() {
   name=$1 prog=$gdir/$2
   shift 2
   d=$work/$name
   rm -rf "$d"
   t0=$(now)
   timeout -k 30 "$budget" bin/cbtest -j 2 --no-explore --max-runs "$max_runs" \
      --timeout "$rtimeout" --record-timeout "$budget" -o "$d" \
      -- "$prog" "$@" </dev/null >"$d.cbtest" 2>&1
   rc=$?
   t=$(elapsed "$t0")
   r=$d/report.json
   forced=$(jget "$r" 'my $s = $d->{summary}; $s->{passed} + $s->{failed} + $s->{infeasible} + $s->{hung}')
   infeasible=$(jget "$r" '$d->{summary}{infeasible}')
   bugs=$(jget "$r" '$d->{summary}{bugs}')
   native=$(jget "$r" '$d->{summary}{failed_natively}')
   errors=$(jget "$r" '$d->{summary}{errors}')
   timeout -k 30 "$budget" valgrind --tool=helgrind "$prog" "$@" \
      </dev/null >/dev/null 2>"$d.helgrind"
   sum=$(grep '^==[0-9]*== ERROR SUMMARY:' "$d.helgrind" | tail -n 1)
   hgerr=$(printf '%s\n' "$sum" | sed -n 's/.*SUMMARY: \([0-9]*\) errors.*/\1/p')
   hg=$(printf '%s\n' "$sum" | sed -n 's/.* from \([0-9]*\) contexts.*/\1/p')
   races=$(grep -c "Possible data race" "$d.helgrind")
   echo "glib.$name.time $t s"
   echo "glib.$name.forced $forced runs"
   echo "glib.$name.infeasible $infeasible runs"
   echo "glib.$name.findings $bugs bugs"
   echo "glib.$name.helgrind ${hg:-?} warnings"
   echo "glib.$name.helgrind_races $races warnings"
   echo "glib.$name.helgrind_errors ${hgerr:-?} errors"
   note=""
   [ "$rc" = 124 ] || [ "$rc" = 137 ] || [ "$rc" = 130 ] && note="stopped at ${budget}s"
   [ "$native" = 0 ] || note="$note failed natively under the tool"
   [ "$errors" = 0 ] || note="$note cbtest error"
   printf '%s %s %s %s %s %s %s %s %s\n' "$name" "$t" "$forced" "$infeasible" \
      "$bugs" "${hg:-?}" "$races" "${hgerr:-?}" "$note" >>"$work/table"
   # Each confirmed bug, to look at: GLib's own tests should have none.
   perl -MJSON::PP -e '
      local $/; open my $f, "<", $ARGV[0] or exit; my $d = eval {
         JSON::PP->new->utf8->decode(<$f>) } or exit;
      for my $t (@{$d->{tests}}) { for my $s (@{$t->{schedules}}) {
         next unless $s->{verdict} eq "failed" || $s->{verdict} eq "hung";
         my $at = sub { my $e = $_[0] || {};
            $e->{file} ? "$e->{file}:$e->{line}" : ($e->{function} || "?") };
         printf "%s: %s %s %s on %s: e1 %s f %s e2 %s (%s)\n", $ARGV[1], $s->{id},
            $s->{verdict}, $s->{pattern} // "?", $s->{variable} // "?",
            $at->($s->{e1}), $at->($s->{f}), $at->($s->{e2}), $s->{output} // "";
      } }' "$r" "$name" >>"$work/bugs"
}

: >"$work/table"
: >"$work/bugs"
want=" $* "
n=0
while read -r name prog args; do
   [ $# -eq 0 ] || case $want in *" $name "*) ;; *) continue ;; esac
   if [ ! -x "$gdir/$prog" ]; then
      echo "glib-suite: $gdir/$prog is not installed: skipped" >&2
      continue
   fi
   # shellcheck disable=SC2086  # args are words
   run_one "$name" "$prog" $args
   n=$((n + 1))
done <<EOF
$(tests)
EOF
[ "$n" -gt 0 ] || { echo "glib-suite: no test ran" >&2; exit 2; }

awk '{ t += $2; f += $3; i += $4; b += $5; h += $6; r += $7; e += $8 } END {
   printf "glib.all.time %.1f s\nglib.all.forced %d runs\nglib.all.infeasible %d runs\n", t, f, i
   printf "glib.all.findings %d bugs\nglib.all.helgrind %d warnings\n", b, h
   printf "glib.all.helgrind_races %d warnings\nglib.all.helgrind_errors %d errors\n", r, e }' \
   "$work/table"
echo
printf '%-12s %8s %7s %10s %5s %9s %6s %8s  %s\n' test seconds forced infeasible bugs helgrind races hg-errors note
while read -r name t f i b h r e note; do
   printf '%-12s %8s %7s %10s %5s %9s %6s %8s  %s\n' "$name" "$t" "$f" "$i" "$b" "$h" "$r" "$e" "$note"
done <"$work/table"
if [ -s "$work/bugs" ]; then
   echo
   echo "confirmed bugs (in GLib's own tests: most likely false positives of cbtools):"
   cat "$work/bugs"
fi
exit 0
