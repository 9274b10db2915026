#!/bin/sh
# example.sh: the whole cbtools pipeline on the bundled example
# (examples/bank.c, a check-then-act withdrawal), as `make example` runs it:
#   1. run the program natively (it passes: the bug hides in a tiny window);
#   2. cbtrace record: watch one passing run under Valgrind; cbtrace stats;
#   3. cbpredict: the schedules that would break the atomicity of a block;
#   4. cbreplay --all: force each schedule; the program's own check judges.
# Steps 3 and 4 run when their commands are built.  Exit 0 when every step
# that ran did its job (and, with cbreplay, the bug was found), 1 otherwise.

cd "$(dirname "$0")/.." || exit 2
prog=build/examples/bank
out=${CB_EXAMPLE_DIR:-build/example}
if [ ! -x "$prog" ] || [ ! -x bin/cbtrace ]; then
   echo "example: $prog or bin/cbtrace is missing: run make example" >&2
   exit 2
fi
rm -rf "$out"
mkdir -p "$out" || exit 2

step() { printf '\n== %s\n' "$*"; }

step "1. Run the program natively: it almost always passes"
echo "\$ $prog"
"$prog"
echo "(exit status $?)"

step "2. Record one run and show its statistics"
echo "\$ cbtrace record -o $out/bank.pb -- $prog"
bin/cbtrace record -o "$out/bank.pb" -- "$prog"
status=$?
if [ ! -s "$out/bank.pb" ]; then
   echo "example: cbtrace record wrote no trace (exit $status)" >&2
   exit 1
fi
echo "(the recorded run exited with status $status)"
echo "\$ cbtrace stats $out/bank.pb"
bin/cbtrace stats "$out/bank.pb" || exit 1

if [ ! -x bin/cbpredict ]; then
   step "3. cbpredict is not built yet: the example stops after recording"
   exit 0
fi
step "3. Predict the schedules that break a block's atomicity"
echo "\$ cbpredict -o $out/schedules $out/bank.pb"
bin/cbpredict -o "$out/schedules" "$out/bank.pb" || exit 1

if [ ! -x bin/cbreplay ]; then
   step "4. cbreplay is not built yet: the example stops after predicting"
   exit 0
fi
step "4. Force every predicted schedule; the program's own check judges"
# --pin: each failure's whole order becomes its reproducer, and the run
# is compared with the trace: the "misread:" line says what the program's
# check read otherwise than in the recorded run.
echo "\$ cbreplay --schedules $out/schedules --trace $out/bank.pb --pin --all -- $prog"
bin/cbreplay --schedules "$out/schedules" --trace "$out/bank.pb" --pin --all -- "$prog"
status=$?
echo
case $status in
0) echo "example: no forced run failed: the bug was NOT found" >&2
   exit 1 ;;
1) echo "example: found it: a forced schedule makes bank overdraw the account."
   echo "The report above names the check, the other customer's debit, and the"
   echo "debit that follows the stale check, what main's own check read (its"
   echo "\"misread:\" line), and the command that replays it."
   exit 0 ;;
*) echo "example: cbreplay failed (exit $status)" >&2
   exit 1 ;;
esac
