#!/bin/sh
# Exploration when prediction runs dry: cbpredict --delays, cbreplay
# --record and cbtest --explore on the programs whose header says
# `cbtools-expect: explore PATTERNS VAR` (a bug prediction alone does not
# confirm) and on their correct twins (NAME_fixed.c):
#  - prediction alone confirms no bug (cbtest --no-explore exits 0);
#  - cbtest, exploring by default, confirms it within 20 forced runs
#    (--max-runs 20: the predicted schedules get 15 of them); with
#    --explore --all-bugs,
#    one of the confirmed schedules is of one of PATTERNS on VAR, its first
#    delay point the [d1] line, and its reproduce command fails 10 times out
#    of 10;
#  - the twin gets no BUG (by default too), its exploration goes on in
#    rounds from the
#    traces of its forced runs, and no ordering is forced twice;
#  - a lost wake-up at shutdown that only a recording in the other
#    thread-start order shows is confirmed (exploration's second
#    recording), and its twin is clean;
#  - cbpredict --delays writes the same schedules for the same seed, none
#    of an ordering given as --seen; cbreplay --record leaves a trace that
#    cbpredict predicts from and cbreplay replays.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/lib/programs.sh"

DIG=$TOP/build/tests/schedule_digest
TIMEOUT=20

. "$TOP/tests/lib/json.sh"

# ---- Command lines -------------------------------------------------------------
OUT=$(cbtest --help); like "$OUT" "--explore" "cbtest --help names --explore"
like "$OUT" "--delays N" "cbtest --help names --delays N"
OUT=$(cbpredict --help); like "$OUT" "--delays N" "cbpredict --help names --delays N"
OUT=$(cbreplay --help); like "$OUT" "--record FILE" "cbreplay --help names --record FILE"
OUT=$(cbtest --delays 0 -- /bin/true 2>&1); RC=$?
is "$RC" 2 "cbtest --delays 0: exit 2"
like "$OUT" "^cbtest: --delays wants" "cbtest --delays 0: says what it wants"
OUT=$(cbtest --explore --emit-jobs "$TMP/jobs" -- /bin/true 2>&1); RC=$?
is "$RC" 2 "cbtest --explore --emit-jobs: exit 2 (rounds need the runs' results)"
OUT=$(cbtest --no-explore --delays 2 -- /bin/true 2>&1); RC=$?
is "$RC" 2 "cbtest --no-explore --delays 2: exit 2"
like "$(cbtest --help)" "--no-explore" "cbtest --help names --no-explore"
OUT=$(cbpredict --delays 8 "$TMP/none.pb" 2>&1); RC=$?
is "$RC" 2 "cbpredict --delays 8: exit 2"
OUT=$(cbpredict --seen "$TMP/none" "$TMP/none.pb" 2>&1); RC=$?
is "$RC" 2 "cbpredict --seen without --delays: exit 2"
OUT=$(cbreplay --all --record "$TMP/r.pb" -- /bin/true 2>&1); RC=$?
is "$RC" 2 "cbreplay --all --record: exit 2"

# ---- The programs ----------------------------------------------------------------
nexplore=0
for src in "$CB_PROGRAM_SRC"/*.c; do
   name=$(basename "$src" .c)
   expect=$(cb_marker "$src" expect)
   case $expect in explore*) ;; *) continue ;; esac
   nexplore=$((nexplore + 1))
   set -- $expect
   pats=$2 var=$3
   prog=$CB_PROGRAM_BIN/$name
   why=$(cb_program_missing "$src")
   [ -z "$why" ] || { skip "$name: not built: $why"; continue; }
   [ -x "$prog" ] || { ok "$name: built" false; continue; }

   OUT=$(cbtest -j 2 --timeout $TIMEOUT -o "$TMP/$name.plain" --no-explore -- "$prog" 2>&1); RC=$?
   is "$RC" 0 "$name: prediction alone confirms no bug"
   unlike "$OUT" "BUG" "$name: no BUG with --no-explore"

   d=$TMP/$name.x
   OUT=$(cbtest -j 2 --timeout $TIMEOUT -o "$d" --max-runs 20 -- "$prog" 2>&1); RC=$?
   is "$RC" 1 "$name: cbtest, exploring by default, confirms the bug (exit 1)"
   runs=$(jget "$d/report.json" 'my $n = 0; $n += $_->{verdict} ne "pending" for @{$d->{tests}[0]{schedules}}; $n')
   ok "$name: confirmed within 20 forced runs ($runs)" test "$runs" -le 20 -a "$runs" -ge 1
   is "$(jget "$d/report.json" '$d->{tests}[0]{explore}{ended}')" "a bug was confirmed" \
      "$name: report.json says why exploring ended"

   # Which delay schedule fails first depends on the seed's order, and some
   # expose the bug only when the released threads race their way (in
   # handoff.c, T2 held before its drain's unlock of queue_lock): --all-bugs
   # forces the round's other schedules too, among them the one of the
   # marker, which must fail every time.
   d=$TMP/$name.all
   OUT=$(cbtest -j 2 --timeout $TIMEOUT -o "$d" --explore --all-bugs --max-runs 20 -- \
         "$prog" 2>&1); RC=$?
   is "$RC" 1 "$name: --explore --all-bugs: exit 1"
   # A delay schedule has no e1, f, e2: its rank line gives its delay point.
   ranks=$(printf '%s\n' "$OUT" | grep -E '^  #[0-9]+ .* explore on ')
   like "$ranks" "  explore on .*  d1 [^ ]+:[0-9]+  \(" "$name: Bugs by rank gives an explore bug's delay point"
   unlike "$ranks" "explore on .* e1 " "$name: and no e1, f, e2 for it"
   want=$(cb_role_lines "$src" d1 | tr '\n' ' ')
   # Each BUG block as "PATTERN VAR D1-LINE REPRODUCE", one a line.
   blocks=$(printf '%s\n' "$OUT" | awk '
      /^   BUG / { pat = $2; var = $4; sub(/:$/, "", var); d1 = "" }
      /^ *d1 / && d1 == "" { n = split($3, w, ":"); d1 = w[n] }
      /^ *reproduce: / { sub(/^ *reproduce: /, ""); print pat, var, d1, $0 }')
   repro=
   while read -r pat bvar line cmd; do
      cb_expect_matches "$pats" "$var" "$pat" "$bvar" || continue
      if [ -n "$want" ]; then
         case " $want " in *" $line "*) ;; *) continue ;; esac
      fi
      repro=$cmd
      break
   done <<BLOCKS
$blocks
BLOCKS
   ok "$name: a confirmed schedule is $pats on $var, its first delay point the [d1] line ($want)" \
      test -n "$repro"
   fails=0
   for i in 1 2 3 4 5 6 7 8 9 10; do
      [ -n "$repro" ] || break
      sh -c "$repro" >/dev/null 2>&1
      [ $? = 1 ] && fails=$((fails + 1))
   done
   is "$fails" 10 "$name: its reproduce command fails 10 times out of 10"

   # The correct twin.
   twin=${name}_fixed
   [ -x "$CB_PROGRAM_BIN/$twin" ] || { ok "$twin: built" false; continue; }
   d=$TMP/$twin.x
   OUT=$(cbtest -j 2 --timeout $TIMEOUT -o "$d" --max-runs 16 -- \
         "$CB_PROGRAM_BIN/$twin" 2>&1); RC=$?
   is "$RC" 0 "$twin: no bug, exploring by default"
   unlike "$OUT" "BUG" "$twin: no BUG line"
   rounds=$(jget "$d/report.json" '$d->{tests}[0]{explore}{rounds_from_forced_runs}')
   ok "$twin: rounds predicted from forced runs' traces ($rounds)" test "$rounds" -ge 1
   ntraces=$(ls "$d"/tests/*/explore/*.trace.pb 2>/dev/null | wc -l)
   ok "$twin: every explored run was recorded ($ntraces traces)" test "$ntraces" -ge 2
   forced=$(jget "$d/report.json" 'join " ", map { $_->{schedule} } grep { $_->{verdict} ne "pending" } @{$d->{tests}[0]{schedules}}')
   n=$(echo $forced | wc -w)
   nd=$("$DIG" $forced | awk '{ print $1 }' | sort -u | wc -l)
   ok "$twin: $n forced runs, 16 at most" test "$n" -le 16 -a "$n" -ge 2
   is "$nd" "$n" "$twin: no ordering forced twice"
done
ok "there are programs only exploration finds ($nexplore)" test "$nexplore" -ge 1

# ---- The second recording: the other thread-start order ---------------------------
# Two senders drain an outbox; at shutdown main sets closing and broadcasts
# without the mutex.  Under Valgrind the senders start first and wait, and
# no schedule predicted from that recording reaches a sender's last check
# after main's last message: the bug shows in a recording where main runs
# on first, which exploration makes after its first round (on the build
# before, 2 of 2 cbtest runs at --max-runs 25 found nothing, and its twin
# wq_shutdown of trial 7 0 of 3).  Up to two cbtest runs: the test's own
# recording may already be the lucky one, or neither.
cat >"$TMP/outbox.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct outbox {
   pthread_mutex_t lock;
   pthread_cond_t ready;
   int msgs[8];
   int count;
   int closing;
   long sent;
};

static void spin(int n)
{
   volatile int x = 0;
   for (int i = 0; i < n; i++)
      x += i;
}

static void *sender(void *arg)
{
   struct outbox *ob = arg;
   pthread_mutex_lock(&ob->lock);
   for (;;) {
      while (ob->count == 0 && !__atomic_load_n(&ob->closing, __ATOMIC_ACQUIRE))
         pthread_cond_wait(&ob->ready, &ob->lock);
      if (ob->count == 0)
         break;
      int m = ob->msgs[--ob->count];
      pthread_mutex_unlock(&ob->lock);
      spin(4000 + 500 * m);
      pthread_mutex_lock(&ob->lock);
      ob->sent += m;
   }
   pthread_mutex_unlock(&ob->lock);
   return NULL;
}

int main(void)
{
   struct outbox *ob = calloc(1, sizeof *ob);
   pthread_mutex_init(&ob->lock, NULL);
   pthread_cond_init(&ob->ready, NULL);
   pthread_t s[2];
   for (int i = 0; i < 2; i++)
      pthread_create(&s[i], NULL, sender, ob);
   for (int m = 1; m <= 6; m++) {
      pthread_mutex_lock(&ob->lock);
      ob->msgs[ob->count++] = m;
      pthread_cond_signal(&ob->ready);
      pthread_mutex_unlock(&ob->lock);
      spin(15000);
   }
   spin(30000);
#ifdef FIXED
   pthread_mutex_lock(&ob->lock);
#endif
   __atomic_store_n(&ob->closing, 1, __ATOMIC_RELEASE);
   pthread_cond_broadcast(&ob->ready);
#ifdef FIXED
   pthread_mutex_unlock(&ob->lock);
#endif
   for (int i = 0; i < 2; i++)
      pthread_join(s[i], NULL);
   printf("outbox: sent %ld\n", ob->sent);
   return ob->sent == 21 ? 0 : 1;
}
EOF
cc -O2 -g -pthread -o "$TMP/outbox" "$TMP/outbox.c" &&
cc -O2 -g -pthread -DFIXED -o "$TMP/outbox_fixed" "$TMP/outbox.c" ||
   { echo "Bail out! cannot build outbox.c"; exit 1; }
for try in 1 2; do
   d=$TMP/outbox.x$try
   OUT=$(cbtest -j 2 --timeout $TIMEOUT --max-runs 25 -o "$d" -- "$TMP/outbox" 2>&1); RC=$?
   [ "$RC" = 1 ] && break
   diag "outbox: no bug in cbtest run $try (exit $RC)"
done
is "$RC" 1 "outbox: cbtest confirms the lost wake-up at shutdown (exit 1)"
like "$OUT" "BUG ORD on ob->closing .*: the forced run deadlocked" \
   "outbox: an order violation on ob->closing deadlocks"
d=$TMP/outbox_fixed.x
# --max-runs 12 still leaves exploration runs after the predicted ones.
OUT=$(cbtest -j 2 --timeout $TIMEOUT --max-runs 12 -o "$d" -- "$TMP/outbox_fixed" 2>&1); RC=$?
is "$RC" 0 "outbox_fixed: no bug"
like "$OUT" "explored in [0-9]+ rounds \(.*1 from a second recording with the other thread-start order\)" \
   "outbox_fixed: exploration predicted from a second recording"
is "$(jget "$d/report.json" '$d->{tests}[0]{explore}{second_recording} ? 1 : 0')" 1 \
   "outbox_fixed: report.json says so"
cbtrace stats "$d"/tests/*/explore/other.trace.pb >/dev/null 2>&1
is "$?" 0 "outbox_fixed: the second recording is kept beside the rounds"

# ---- cbpredict --delays and cbreplay --record on one of them ---------------------
for src in "$CB_PROGRAM_SRC"/*.c; do
   case $(cb_marker "$src" expect) in explore*) break ;; esac
done
name=$(basename "$src" .c)
cb_record "$name" "$TMP/t.pb"
cbpredict --patterns=explore --delays 2 --seed 5 -o "$TMP/a" "$TMP/t.pb" >"$TMP/a.out"
RC=$?
is "$RC" 0 "cbpredict --patterns=explore --delays 2 exits 0"
rows=$(grep -c '^s[0-9]* *explore ' "$TMP/a.out")
nfiles=$(ls "$TMP/a" | grep -c '^s[0-9]*\.pb$')
ok "one schedule file per explore row ($rows)" test "$rows" -ge 1 -a "$rows" = "$nfiles"
unlike "$(grep '^s[0-9]' "$TMP/a.out")" '^s[0-9]+ +(RWR|RWW|WRW|WWR|WWW|ORD|DLK) ' \
   "--patterns=explore: delay schedules only"
like "$(cat "$TMP/a.out")" "explore: [0-9]+ delay points" "the summary counts the delay points"
cbpredict --patterns=explore --delays 2 --seed 5 -o "$TMP/b" "$TMP/t.pb" >/dev/null
same=1
for f in "$TMP"/a/s*.pb; do cmp -s "$f" "$TMP/b/$(basename "$f")" || same=0; done
is "$same" 1 "the same seed writes the same schedules"
"$DIG" "$TMP"/a/s*.pb | awk '{ print $1 }' >"$TMP/seen"
nd=$(sort -u "$TMP/seen" | wc -l)
is "$nd" "$nfiles" "no ordering written twice"
OUT=$(cbpredict --patterns=explore --delays 1 --seed 9 --seen "$TMP/seen" -o "$TMP/c" "$TMP/t.pb")
n1=$(ls "$TMP/c" | grep -c '^s[0-9]*\.pb$')
new=$("$DIG" "$TMP"/c/s*.pb 2>/dev/null | awk '{ print $1 }' | grep -cxFf "$TMP/seen")
is "$new" 0 "--seen: none of those orderings again ($n1 others)"
OUT=$(cbpredict --json --delays 1 -o "$TMP/j" "$TMP/t.pb" >"$TMP/j.json")
is "$(jget "$TMP/j.json" '$d->{explore}{delays}')" 1 "--json has the explore object"
is "$(jget "$TMP/j.json" 'scalar @{$d->{explore}{rows}} == $d->{explore}{schedules} ? 1 : 0')" 1 \
   "--json lists every delay schedule"

s=$(ls "$TMP/a" | head -1)
cbreplay --schedule "$TMP/a/$s" --timeout $TIMEOUT --record "$TMP/r.pb" -- \
   "$CB_PROGRAM_BIN/$name" >/dev/null 2>&1
ok "cbreplay --record writes a readable trace" cbtrace stats "$TMP/r.pb"
cbpredict -o "$TMP/r" "$TMP/r.pb" >/dev/null 2>&1
RC=$?
is "$RC" 0 "cbpredict predicts from a forced run's trace"
s=$(ls "$TMP/r" | head -1)
if [ -n "$s" ]; then
   cbreplay --schedule "$TMP/r/$s" --timeout $TIMEOUT -- "$CB_PROGRAM_BIN/$name" >/dev/null 2>&1
   RC=$?
   ok "cbreplay accepts its schedules (exit $RC)" test "$RC" -le 4 -a "$RC" != 2
fi

done_testing
