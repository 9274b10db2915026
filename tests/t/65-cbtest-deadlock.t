#!/bin/sh
# cbtest on the deadlock programs of tests/programs/ (header
# `cbtools-expect: deadlock`: two locks taken in opposite orders, a lock
# taken under a gate lock, five philosophers; a DLK schedule forces each
# into a deadlock) and a correct program with nested
# locks.  A forced run that deadlocks (cbreplay exit 6) is its own verdict,
# not a hang: the summary, report.json, report.sarif, report.html and
# --merge say "deadlocked" with what each thread waited for and who held
# it; it is a failure of the program, so the test has a bug (exit 1) and
# Falcon's ranking counts the run as failing.  --timeout is far above what a
# run takes: a deadlock the tool did not end at once would be "hung".
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/lib/programs.sh"

CBTEST=$TOP/bin/cbtest
. "$TOP/tests/lib/json.sh"

progs=
for src in "$CB_PROGRAM_SRC"/*.c; do
   [ "$(cb_marker "$src" expect)" = deadlock ] && progs="$progs $(basename "$src" .c)"
done
ok "tests/programs has deadlock programs ($progs)" [ -n "$progs" ]
if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || [ ! -x "$CB_PROGRAM_BIN/nested" ]; then
   ok "the tool and the test programs are built (make check builds them)" false
   done_testing
fi

for name in $progs; do
   # The program's locks, as its line markers name them (a, b; forks).
   locks=$(cb_facts "$CB_PROGRAM_SRC/$name.c" | awk '$2 == "lock" { print $3 }' | sort -u |
           paste -sd'|' -)
   L="($locks)(\[[0-9]+\]|\+[0-9]+)?"
   d=$TMP/$name
   mkdir -p "$d"
   printf '%s\n' "$CB_PROGRAM_BIN/$name" "$CB_PROGRAM_BIN/nested" >"$d/suite.tests"
   # --no-explore: the correct program's exploration is 64's business.
   (cd "$d" && "$CBTEST" -j 2 --all-bugs --no-explore --timeout 60 -o out --tests suite.tests \
      >"$d/stdout" 2>"$d/stderr"); RC=$?
   OUT=$(cat "$d/stdout")
   OUT1=$(tr '\n' '~' <"$d/stdout")
   J=$d/out/report.json S=$d/out/report.sarif
   is "$RC" 1 "$name: exit 1, a deadlock is a confirmed bug"
   like "$OUT1" "001-$name [^~]*~ *[0-9]+ schedules? predicted: [0-9]+ passed, [0-9]+ failed, [1-9][0-9]* deadlocked, [0-9]+ infeasible, 0 hung" \
      "$name: the summary counts deadlocked runs in their own column, none as hung"
   like "$OUT" "BUG DLK on $L: the forced run deadlocked" "$name: the DLK bug, the forced run deadlocked"
   like "$OUT1" "deadlock:~ +T[0-9]+ waits [^~]*~ +T[0-9]+ waits for lock $L at $name\.c:[0-9]+, held by T[0-9]+ " \
      "$name: the summary says what each thread waited for and who held it"
   like "$OUT" "forced runs: [0-9]+ passed, [0-9]+ failed, [1-9][0-9]* deadlocked, [0-9]+ infeasible, 0 hung" \
      "$name: the suite's totals count the deadlock"
   like "$(cat "$d/stderr")" "\] 001-$name: .* [1-9][0-9]* deadlocked, .*: BUG" "$name: the progress line too"
   like "$OUT1" "002-nested [^~]*~ *[0-9]+ schedules? predicted: [0-9]+ passed, 0 failed, 0 deadlocked, [0-9]+ infeasible, 0 hung" \
      "nested: a correct program, no bug"

   # report.json
   is "$(jget "$J" '$d->{tests}[0]{outcome}')" bugs "$name: report.json: the test has bugs"
   is "$(jget "$J" '$d->{summary}{hung}')" 0 "$name: report.json: no run counted as hung"
   ok "$name: report.json: the summary counts the deadlocked runs" \
      [ "$(jget "$J" '$d->{summary}{deadlock}')" -ge 1 ]
   is "$(jget "$J" '$d->{tests}[0]{verdicts}{deadlock} >= 1 ? "yes" : "no"')" yes \
      "$name: report.json: the test's verdicts count them"
   is "$(jget "$J" 'join ",", map { $_->{pattern} } grep { $_->{verdict} eq "deadlock" } @{$d->{tests}[0]{schedules}}')" \
      "$(jget "$J" 'join ",", map { "DLK" } grep { $_->{verdict} eq "deadlock" } @{$d->{tests}[0]{schedules}}')" \
      "$name: report.json: the deadlocked schedules are the DLK ones"
   is "$(jget "$J" '$d->{bugs}[0]{verdict}')" deadlock "$name: report.json: the first bug's verdict is deadlock"
   waits=$(jget "$J" 'join "\n", @{$d->{bugs}[0]{deadlock}}')
   is "$(printf '%s\n' "$waits" | grep -E "T[0-9]+ waits for lock $L at " | wc -l)" \
      "$(printf '%s\n' "$waits" | grep -c "waits for lock")" \
      "$name: report.json: the bug names each thread's wait on one of the program's locks"
   ok "$name: report.json: on two locks at least" \
      [ "$(printf '%s\n' "$waits" | grep -oE "waits for lock [^ ]+" | sort -u | wc -l)" -ge 2 ]
   # Falcon: the deadlocked runs count as failing runs of their pattern.
   is "$(jget "$J" 'my ($p) = grep { $_->{pattern} eq "DLK" } @{$d->{patterns}}; $p->{failed} >= 1 && $p->{score} > 0 ? "yes" : "no"')" yes \
      "$name: report.json: the DLK pattern's deadlocked runs count as failures in its score"
   is "$(jget "$J" '$d->{bugs}[0]{rank} . ":" . $d->{bugs}[0]{pattern}')" 1:DLK "$name: the deadlock is ranked first"

   # report.sarif: a confirmed bug, reproduced, with its threads and locks.
   is "$(jget "$S" '$d->{runs}[0]{results}[0]{ruleId} . ":" . $d->{runs}[0]{results}[0]{level}')" DLK:error \
      "$name: report.sarif: a DLK result of level error"
   like "$(jget "$S" '$d->{runs}[0]{results}[0]{message}{text}')" \
      "confirmed: the forced run deadlocked .*: T[0-9]+ waits .*; T[0-9]+ waits for lock $L at .*held by T[0-9]+.* Reproduce: .*cbreplay --schedule " \
      "$name: report.sarif: the message names the threads, the locks, and how to reproduce it"
   is "$(jget "$S" '$d->{runs}[0]{results}[0]{properties}{verdict}')" deadlock \
      "$name: report.sarif: its verdict property is deadlock"
   like "$(cat "$d/out/report.html")" "Schedule s[0-9]+ deadlocked when forced" "$name: report.html says it"
   like "$(cat "$d/out/report.html")" "T[0-9]+ waits for lock $L at " "$name: report.html: what each thread waited for"

   # --merge reads the saved results back: the same verdict and waits.
   OUT=$("$CBTEST" --merge -o "$d/merged" "$d/out" 2>&1); RC=$?
   is "$RC" 1 "$name: --merge: exit 1"
   like "$OUT" "BUG DLK on $L: the forced run deadlocked" "$name: --merge: still deadlocked"
   like "$OUT" "T[0-9]+ waits for lock $L at $name\.c:[0-9]+, held by T[0-9]+" "$name: --merge: the waits kept"
   is "$(jget "$d/merged/report.json" '$d->{bugs}[0]{verdict}')" deadlock "$name: --merge: report.json verdict deadlock"
   # A result saved by an older cbtest (version 1: a run is its first 28
   # fields, without the deadlock and what later versions added) still reads.
   mkdir -p "$d/v1/tests/001-$name"
   perl -pe 's/^cbtest-state\t\d+$/cbtest-state\t1/; if (/^run\t/) { chomp; $_ = join("\t", (split /\t/, $_, -1)[0 .. 27]) . "\n" } s/\tdeadlock\t6\t/\thung\t6\t/' \
      "$d/out/tests/001-$name/test.state" >"$d/v1/tests/001-$name/test.state"
   OUT=$("$CBTEST" --merge -o "$d/v1" "$d/v1" 2>&1); RC=$?
   is "$RC" 1 "$name: --merge of a version 1 result: read, its bug kept (exit 1)"
   like "$OUT" "BUG DLK on $L: the forced run hung" "$name: --merge of a version 1 result: what it said then"
done

# A lost wake-up (the waiter checks its flag before taking the lock and
# waits without looking again): the forced signal finds no waiter, the
# run deadlocks, and the summary says what kind of order violation that
# is, as cbreplay's report does.
cat >"$TMP/lost.c" <<'EOF2'
#include <pthread.h>
#include <stdio.h>
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int ready;
static void *waiter(void *arg)
{
   if (!ready) {
      pthread_mutex_lock(&lock);
      pthread_cond_wait(&cond, &lock);
      pthread_mutex_unlock(&lock);
   }
   return arg;
}
int main(void)
{
   pthread_t t;
   pthread_create(&t, NULL, waiter, NULL);
   long r = 0;
   for (long i = 1; i <= 3000000; i++) /* long enough that the waiter waits */
      r += i % 7;
   pthread_mutex_lock(&lock);
   ready = 1;
   pthread_cond_signal(&cond);
   pthread_mutex_unlock(&lock);
   pthread_join(t, NULL);
   return r > 0 ? 0 : 1;
}
EOF2
if cc -O2 -g -pthread -o "$TMP/lost" "$TMP/lost.c"; then
   OUT=$(cd "$TMP" && "$CBTEST" --all-bugs --no-explore --timeout 30 -o lostout -- ./lost 2>&1); RC=$?
   is "$RC" 1 "lost wake-up: a bug confirmed"
   like "$OUT" "BUG ORD on cond \(a lost wake-up\): the forced run deadlocked" \
      "lost wake-up: the summary says so"
fi

# Locks in an array of structs: the wait-for lines name them as the
# title does (acc[1].lock), not by the nearest symbol (acc+64), which is
# all a forced run's tool knows.
cat >"$TMP/xfer.c" <<'EOF2'
#include <pthread.h>
struct account { long pad[6]; pthread_mutex_t lock; long balance; };
static struct account acc[2];
static void transfer(struct account *from, struct account *to)
{
   pthread_mutex_lock(&from->lock);
   pthread_mutex_lock(&to->lock);
   from->balance--;
   to->balance++;
   pthread_mutex_unlock(&to->lock);
   pthread_mutex_unlock(&from->lock);
}
static void *one(void *arg) { transfer(&acc[0], &acc[1]); return arg; }
static void *two(void *arg) { transfer(&acc[1], &acc[0]); return arg; }
int main(void)
{
   pthread_t a, b;
   pthread_mutex_init(&acc[0].lock, NULL);
   pthread_mutex_init(&acc[1].lock, NULL);
   pthread_create(&a, NULL, one, NULL);
   pthread_create(&b, NULL, two, NULL);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   return 0;
}
EOF2
if cc -O2 -g -pthread -o "$TMP/xfer" "$TMP/xfer.c"; then
   OUT=$(cd "$TMP" && "$CBTEST" --no-explore --timeout 30 -o xferout -- ./xfer 2>&1); RC=$?
   is "$RC" 1 "locks in an array of structs: the deadlock confirmed"
   like "$OUT" "waits for lock acc\[[01]\]\.lock at xfer\.c:[0-9]+, held by" \
      "locks in an array of structs: named as the source does"
   unlike "$OUT" "waits for lock acc\+" "locks in an array of structs: not by symbol and offset"
fi

# A lock-order inversion that can deadlock only once the journal has a
# record: the replayer takes the table's read lock inside the journal lock
# only for each record.  The first instance of the renamer's nested
# locking comes before any record, and its DLK schedule passes; the latest
# instance's (predict/deadlocks.c, written after the others) deadlocks.
cat >"$TMP/journal.c" <<'EOF'
#include <pthread.h>
#include <string.h>
static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t journal_lock = PTHREAD_MUTEX_INITIALIZER;
static char names[4][16] = {"alpha", "beta", "gamma", "delta"};
static int journal[16], njournal, found;
static void spin(int n) { volatile unsigned w = 0; for (int k = 0; k < n; k++) w += k; }
static void *renamer(void *arg)
{
   (void)arg;
   for (int i = 0; i < 3; i++) {
      spin(30000);
      pthread_rwlock_wrlock(&table_lock);
      strcpy(names[i], "renamed");
      pthread_mutex_lock(&journal_lock);
      journal[njournal++] = i;
      pthread_mutex_unlock(&journal_lock);
      pthread_rwlock_unlock(&table_lock);
   }
   return NULL;
}
static void *replayer(void *arg)
{
   (void)arg;
   for (int r = 0; r < 2; r++) {
      spin(45000);
      pthread_mutex_lock(&journal_lock);
      for (int i = 0; i < njournal; i++) {
         pthread_rwlock_rdlock(&table_lock);
         found += (int)strlen(names[journal[i]]);
         pthread_rwlock_unlock(&table_lock);
      }
      pthread_mutex_unlock(&journal_lock);
   }
   return NULL;
}
int main(void)
{
   pthread_t a, b;
   pthread_create(&a, NULL, renamer, NULL);
   pthread_create(&b, NULL, replayer, NULL);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   return found < 0;
}
EOF
cc -O2 -g -pthread -o "$TMP/journal" "$TMP/journal.c"
# A loaded machine may record the replayer before any journal record:
# then no inversion is seen.  Up to three recordings, until one has a DLK
# schedule that deadlocks (a clean-clone make check missed it once).
for try in 1 2 3; do
   cbtrace record -o "$TMP/journal.pb" -- "$TMP/journal" >/dev/null 2>&1
   rm -rf "$TMP/journal.s"
   cbpredict -o "$TMP/journal.s" "$TMP/journal.pb" >"$TMP/journal.table" 2>&1
   dl=0
   for sch in $(awk '$2 == "DLK" { print $1 }' "$TMP/journal.table"); do
      cbreplay --timeout 20 --schedule "$TMP/journal.s/$sch.pb" -- "$TMP/journal" \
         >"$TMP/journal.$sch.out" 2>&1
      [ $? = 6 ] && { dl=$((dl + 1)); dlout=$TMP/journal.$sch.out; }
   done
   [ "$dl" -ge 1 ] && break
   diag "journal: no DLK schedule deadlocked from recording $try"
done
# The lock-order inversions are numbered first, each instance: a budget
# (--max-runs) forces them before the atomicity candidates.
order=$(awk '/^s[0-9]+ / { print $2 }' "$TMP/journal.table" | uniq | tr '\n' ' ')
like "$order" "^DLK " "journal: s1 is a lock-order inversion ($order)"
unlike "$order" " DLK" "journal: every lock-order inversion comes before the other schedules"
ok "journal: a DLK schedule deadlocks the program (the latest instance of the nested locking)" [ "$dl" -ge 1 ]
[ "$dl" -ge 1 ] || sed 's/^/# /' "$TMP/journal.table"
# The deadlock is the inversion's violation: its row says so (its e2, the
# second request, never completes).
like "$(cat "${dlout:-/dev/null}")" "^s[0-9]+ +DLK .* deadlock +yes " \
   "journal: the deadlocked run's row says the violation happened"

# A deadlock in every recording (predict/deadlock_again.c): tellers that
# pause between their two locks deadlock in each recorded run, where pass
# B' sees no inversion (the inner requests never completed).  cbtest
# forces the recorded run again, which deadlocks every time: a DLK bug
# whose e2 is the request the recording blocked in.  On the build before:
# "failed natively ... not predicted", exit 3.
. "$TOP/tests/lib/pipeline.sh"
cb_build_data pausedlock.c pausedlock
cb_build_data pausedlock.c pausedlock3 -DRING=3
cb_build_data pausedlock.c pausedlock_fixed -DFIXED
for v in pausedlock pausedlock3; do
   cb_cbtest $v --timeout 10 --max-runs 10
   OUT=$(cat "$TMP/$v.d/stdout")
   is "$RC" 1 "$v: a bug is confirmed (exit 1)"
   # A recording that passed (a loaded machine let one teller finish
   # within its pause) is predicted as any other: the DLK all the same.
   if printf '%s\n' "$OUT" | grep -Eq "the program deadlocked: .*each of [0-9]+ recorded runs failed"; then
      like "$OUT" "it fails on its own too \\(exit 6: cbtrace: the program deadlocked: " "$v: it says every recording deadlocked"
   else
      skip "$v: a recording passed, so the lock cycle was predicted, not forced again"
   fi
   like "$(printf '%s\n' "$OUT" | grep -m1 '^   BUG ')" "^   BUG DLK on accounts(\\[[0-9]\\]\\.lock)?: the forced run deadlocked" \
      "$v: the bug is the lock cycle"
   like "$(tr '\n' '~' <"$TMP/$v.d/stdout")" "e1 lock +pausedlock\\.c:33 in teller [^~]*~[^~]*~ *f +lock +pausedlock\\.c:33 in teller [^~]*~[^~]*~ *e2 lock +pausedlock\\.c:35 in teller" \
      "$v: e1 and f the first locks, e2 the request the recording blocked in"
   cmd=$(sed -n 's/^ *reproduce: //p' "$TMP/$v.d/stdout" | head -1)
   again=0
   for i in 1 2 3; do sh -c "$cmd" >/dev/null 2>&1; [ $? = 6 ] && again=$((again + 1)); done
   is "$again" 3 "$v: its command deadlocks 3 times of 3 (exit 6)"
done
cb_cbtest pausedlock_fixed --timeout 10 --max-runs 10
is "$RC" 0 "pausedlock_fixed: clean (exit 0)"
done_testing
