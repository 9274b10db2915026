#!/bin/sh
# Messages that agree with each other and with what happened: an option
# without its value says so; cbpredict does not call a run with lock-order
# inversions one with nothing to predict; a deadlock's bug report does not
# say "unknown" about whether it happened; a long cbpredict --z3 says how
# far it got while it runs; make on a machine that is not amd64 says so
# in one line.
. "$(dirname "$0")/../tap.sh"

out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s -C "$TOP" -n CB_ARCH=aarch64 all 2>&1); rc=$?
ok "make on an aarch64 machine stops" test "$rc" != 0
like "$out" "cbtools: this machine is aarch64; the cbtools Valgrind tool is built for amd64 \(x86_64\) Linux only" \
   "and says why in one line"
is "$(printf '%s\n' "$out" | wc -l)" 1 "one line"
out=$(sh -c 'uname() { echo riscv64; }; . "$0"' "$TOP/scripts/setup-deps.sh" 2>&1); rc=$?
is "$rc" 1 "setup-deps.sh on a riscv64 machine: exit 1"
like "$out" "^setup-deps: this machine is riscv64; the cbtools Valgrind tool is built for amd64" \
   "and one line that says why"

cat >"$TMP/dl.c" <<'C'
#include <pthread.h>
#include <unistd.h>
pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static void *t1(void *x)
{
    pthread_mutex_lock(&a); pthread_mutex_lock(&b);
    pthread_mutex_unlock(&b); pthread_mutex_unlock(&a);
    return x;
}
static void *t2(void *x)
{
    usleep(100000);
    pthread_mutex_lock(&b); pthread_mutex_lock(&a);
    pthread_mutex_unlock(&a); pthread_mutex_unlock(&b);
    return x;
}
int main(void)
{
    pthread_t x, y;
    pthread_create(&x, 0, t1, 0);
    pthread_create(&y, 0, t2, 0);
    pthread_join(x, 0);
    pthread_join(y, 0);
    return 0;
}
C
gcc -g -O1 -pthread -o "$TMP/dl" "$TMP/dl.c"
cbtrace record -o "$TMP/dl.pb" -- "$TMP/dl" >/dev/null 2>&1

# ---- an option without its value ----------------------------------------------------
out=$(cbpredict "$TMP/dl.pb" -o 2>&1)
is "$?" 2 "cbpredict TRACE -o: exit 2"
like "$out" '^cbpredict: -o needs a folder' "it says -o needs a folder"
unlike "$out" 'unknown option' "not that -o is unknown"
out=$(cbpredict "$TMP/dl.pb" --max 2>&1)
like "$out" '^cbpredict: --max needs a number of schedules' "--max without a value says so"

# ---- lock-order inversions only --------------------------------------------------------
out=$(cbpredict -o "$TMP/s" "$TMP/dl.pb" 2>&1)
is "$?" 0 "cbpredict of a run whose only bug is a lock-order inversion: exit 0"
like "$out" '1 lock-order inversions' "it reports the inversion"
unlike "$out" 'nothing to predict' "and does not say there is nothing to predict"

# ---- the deadlock's bug report -------------------------------------------------------------
out=$(cbreplay --schedules "$TMP/s" --schedule s1 --timeout 60 -- "$TMP/dl" 2>&1)
is "$?" 6 "the forced lock-order inversion deadlocks (exit 6), long before --timeout"
like "$out" '^BUG \(s1\): DLK' "a bug report for the deadlock"
unlike "$out" 'happened in this run: unknown' "it does not say it is unknown whether it happened"

# ---- cbpredict --z3 says how far it got -------------------------------------------------------
"$TOP/build/tools/cb-gen-trace" -n 20000 -t 4 -v 50 -k 10 -o "$TMP/g.pb" >/dev/null
cbpredict --z3 --z3-timeout 1000 --max 4 -o "$TMP/gs" "$TMP/g.pb" >"$TMP/z3.out" 2>"$TMP/z3.err"
is "$?" 0 "cbpredict --z3 on a generated trace: exit 0"
like "$(cat "$TMP/z3.err")" '^cbpredict: z3: [0-9]+ candidates asked \(of at most 4\): ' \
    "a run of more than 2 s prints progress lines on stderr"
done_testing
