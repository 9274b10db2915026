#!/bin/sh
# cbreplay's verdicts with the real tool, on hand-made schedules of small
# programs written here:
#   - an abort inside the forced tail is a failed run (exit 1) and says how
#     far the schedule was followed, not "infeasible" because the thread
#     died in its turn;
#   - Valgrind failing (out of memory, because the program fills its
#     address space; or killed with SIGKILL from outside) is an error
#     (exit 5), never a bug;
#   - a schedule whose tail variant 0 passes and variant 1 fails is failed
#     with variant 1, and `--variant 1` reproduces it 5 times in 5;
#   - a run-out step whose thread exits, or blocks, moves the plan on;
#   - a forced run ending with the recorded run's own non-zero exit passes;
#   - a program that execs another one is judged by that one's exit;
#   - a failure is forced again (--confirm): one that does not come back
#     gets no reproduce command, one that does is said to reproduce;
#   - an order violation whose f crashes the process happened, though e1
#     never ran (cut short);
#   - a turn that ends at a condition wait's wake-up gives the mutex back
#     while the thread waits for its next turn, and a plan whose runnable
#     thread waits for a held one stalls at once, not at --stall-ms.
. "$(dirname "$0")/../tap.sh"

MK=$TOP/build/tests/replay_mkschedule
if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ]; then
   echo "Bail out! the tool is not built (lib/cbtools) (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi

# tailabort.c: T2 reads `shared` twice and aborts when it changed between
# the reads; T1 writes it once.  Counted events: T1 create (0), write (1),
# join (2); T2 read (0), read (1), then three writes of `sink` (2, 3, 4).
cat > "$TMP/tailabort.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static volatile int shared, sink;
static void *reader(void *arg)
{
   int first = shared;
   int again = shared;
   if (first != again) {
      fprintf(stderr, "tailabort: shared changed between two reads\n");
      abort();
   }
   sink = 1;
   sink = 2;
   sink = 3;
   return arg;
}
int main(void)
{
   pthread_t t;
   pthread_create(&t, NULL, reader, NULL);
   shared = 1;
   pthread_join(t, NULL);
   return 0;
}
EOF
cc -O0 -g -pthread -o "$TMP/tailabort" "$TMP/tailabort.c" || exit 1
TA=$TMP/tailabort
pat="--pattern RWR --variable shared --e1 2:0:read:tailabort.c:8:reader
     --f 1:1:write:tailabort.c:24:main --e2 2:1:read:tailabort.c:9:reader"

# ---- an abort inside the forced tail: T2 reads, T1 writes, then T2's turn
# of 5 events ends after one, in abort().
"$MK" -o "$TMP/abort.pb" --id 1 --program "$TA" --prefix 1,0 \
   --tail 2:1,1:1,2:5,1:1 $pat
out=$(cbreplay --schedule "$TMP/abort.pb" -- "$TA" 2>"$TMP/err")
is $? 1 "abort inside the forced tail: failed, exit 1 (not infeasible)"
like "$out" "^s1 +RWR +shared .* failed \(SIGABRT\) +yes" "table: failed by SIGABRT, the violation happened"
like "$out" "s1 failed after following the schedule to step 3 of 4" \
     "says how far the schedule was followed"
like "$out" "BUG \(s1\): RWR atomicity violation on shared" "a bug report"
like "$(cat "$TMP/err")" "tailabort: shared changed between two reads" \
     "the program's own message passes through"

# ---- tail variants: variant 0 lets T2 read twice before T1 writes (passes),
# variant 1 is the tail above (fails).
"$MK" -o "$TMP/var.pb" --id 2 --program "$TA" --prefix 1,0 \
   --tail 2:2,1:1 --tail-name "T2 to its block end before f" \
   --variant 2:1,1:1,2:5,1:1 --variant-name "f right after e1" $pat
out=$(cbreplay --schedule "$TMP/var.pb" -- "$TA" 2>/dev/null)
is $? 1 "variant 0 passes, variant 1 fails: failed, exit 1"
like "$out" "^s2 .* failed \(SIGABRT\) .* 1 of 2$" "the table names variant 1"
like "$out" "tail variant 1 \(f right after e1\) of the schedule's 2 \(2 tried\)" \
     "the bug report names the variant"
cmd=$(printf '%s\n' "$out" | sed -n 's/^  reproduce: //p')
like "$cmd" "--schedule $TMP/var.pb --variant 1 -- $TA$" "reproduce: --variant 1"
fails=0
for i in 1 2 3 4 5; do
   (eval "$cmd") >/dev/null 2>&1
   [ $? = 1 ] && fails=$((fails + 1))
done
is "$fails" 5 "--variant 1 reproduces the failure 5 times in 5"
cbreplay --variant 0 --schedule "$TMP/var.pb" -- "$TA" >/dev/null 2>&1
is $? 0 "--variant 0 alone passes"

# ---- run-out steps.  runout.c: T2 (producer) writes data then ready and
# exits; T1 reads ready and data, then joins, and (without an argument)
# exits 1 unless it saw ready set: unless T2 ran to its end first.  T2
# runs out (to its exit), then T1 reads: the plan moves on after T2's exit.
cat > "$TMP/runout.c" <<'EOF'
#include <pthread.h>
#include <stdlib.h>
static volatile int data, ready;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static void *producer(void *arg)
{
   if (arg)
      pthread_mutex_lock(&m);
   data = 42;
   ready = 1;
   if (arg)
      pthread_mutex_unlock(&m);
   return NULL;
}
int main(int argc, char **argv)
{
   pthread_t t;
   (void)argv;
   if (argc > 1)
      pthread_mutex_lock(&m);
   pthread_create(&t, NULL, producer, argc > 1 ? &m : NULL);
   int r = ready;
   int d = data;
   if (argc > 1)
      pthread_mutex_unlock(&m);
   pthread_join(t, NULL);
   return argc > 1 ? 0 : !r || d != 42;
}
EOF
cc -O0 -g -pthread -o "$TMP/runout" "$TMP/runout.c" || exit 1
RO=$TMP/runout
"$MK" -o "$TMP/ro.pb" --id 3 --program "$RO" --prefix 1,0 --tail 2:out,1:2
out=$(cbreplay -v --stall-ms 3000 --schedule "$TMP/ro.pb" -- "$RO" 2>&1)
is $? 0 "a run-out step whose thread exits moves on: passed"
like "$out" "tool: run-out-exited 2" "the tool says T2's run-out ended with its exit"
like "$out" "tool: step 2 2" "the next step started"
like "$out" "tool: tail-done" "the whole tail was followed"
unlike "$out" "tool: infeasible" "nothing infeasible"
# With an argument, T1 holds m while T2 runs out: T2 blocks on m, and after
# a short while without progress the plan moves on to T1, which reads and
# unlocks (and exits 0 whatever it read).  T1's counted events: lock (0), create (1), reads (2, 3).
"$MK" -o "$TMP/rob.pb" --id 4 --program "$RO" --prefix 2,0 --tail 2:out,1:3
out=$(cbreplay -v --stall-ms 3000 --schedule "$TMP/rob.pb" -- "$RO" x 2>&1)
is $? 0 "a run-out step whose thread blocks moves on: passed"
like "$out" "tool: run-out-blocked 2" "the tool says T2's run-out ended blocked"
like "$out" "tool: tail-done" "the whole tail was followed after the block"
unlike "$out" "tool: infeasible" "a blocked run-out is not infeasible"

# ---- the recorded run's own exit status is no failure: exit3.c always
# exits 3; with its trace known (--trace, or the trace beside the schedule
# folder) a forced run that exits 3 passes, without it the run failed.
printf 'int main(void) { return 3; }\n' > "$TMP/exit3.c"
cc -o "$TMP/exit3" "$TMP/exit3.c" || exit 1
cbtrace record -o "$TMP/e3.pb" -- "$TMP/exit3" >/dev/null 2>&1
id=$(cbtrace dump --header "$TMP/e3.pb" | sed -n 's/^# trace id: //p')
mkdir "$TMP/e3.pb.schedules"
"$MK" -o "$TMP/e3.pb.schedules/s1.pb" --program "$TMP/exit3" --trace-id "$id"
cbreplay --schedule s1 --trace "$TMP/e3.pb" -- "$TMP/exit3" >/dev/null 2>&1
is $? 0 "exit 3 as in the recorded run (--trace): passed"
cbreplay --schedule "$TMP/e3.pb.schedules/s1.pb" -- "$TMP/exit3" >/dev/null 2>&1
is $? 0 "exit 3 as in the recorded run (trace beside the folder): passed"
cp "$TMP/e3.pb.schedules/s1.pb" "$TMP/e3-alone.pb"
cbreplay --schedule "$TMP/e3-alone.pb" -- "$TMP/exit3" >/dev/null 2>&1
is $? 1 "exit 3 with no trace to compare with: failed"

# ---- a program that executes another one (env does) leaves the tool
# behind: no "end" from the tool, but no error either; the exec'd
# program's exit decides.
"$MK" -o "$TMP/env.pb" --id 7 --program /usr/bin/env
cbreplay --schedule "$TMP/env.pb" -- /usr/bin/env false >/dev/null 2>&1
is $? 1 "exec of a program that fails: failed, not error"
cbreplay --schedule "$TMP/env.pb" -- /usr/bin/env true >/dev/null 2>&1
is $? 0 "exec of a program that passes: passed"

# ---- Valgrind fails: jit.c writes 400,000 tiny functions into memory,
# then (with an argument) fills its address space with reserved mappings
# and calls them.  Natively it passes either way; under Valgrind, the
# translations of the new code need memory that is no longer there, and
# Valgrind stops with "out of memory" before the tool's end.
cat > "$TMP/jit.c" <<'EOF'
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
int main(int argc, char **argv)
{
   size_t nfn = 400000, sz = nfn * 8;
   (void)argv;
   unsigned char *code = mmap(NULL, sz + 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
   if (code == MAP_FAILED)
      return 4;
   volatile int *shared = (volatile int *)(code + sz);
   for (size_t i = 0; i < nfn; i++) { /* incl shared(%rip); ret; nop */
      unsigned char *f = code + 8 * i;
      int32_t disp = (int32_t)((intptr_t)shared - (intptr_t)(f + 6));
      f[0] = 0xff; f[1] = 0x05; memcpy(f + 2, &disp, 4); f[6] = 0xc3; f[7] = 0x90;
   }
   for (size_t blk = (size_t)1 << 36; argc > 1 && blk >= 4096;)
      if (mmap(NULL, blk, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
               -1, 0) == MAP_FAILED)
         blk /= 2;
   for (size_t i = 0; i < nfn; i++)
      ((void (*)(void))(code + 8 * i))();
   return *shared == (int)nfn ? 0 : 1;
}
EOF
cc -O1 -g -o "$TMP/jit" "$TMP/jit.c" || exit 1
"$TMP/jit" x
is $? 0 "jit passes natively, address space full or not"
"$MK" -o "$TMP/jit.pb" --id 5 --program "$TMP/jit"
out=$(cbreplay --timeout 60 --schedule "$TMP/jit.pb" -- "$TMP/jit" x 2>"$TMP/err")
is $? 5 "Valgrind out of memory: error, exit 5"
like "$out" "^s5 .* error " "error in the table"
like "$out" "ERROR \(s5\): Valgrind or the cbtools tool died: Valgrind exited 1 before the tool reported the program's end" \
     "the report says the tool died"
like "$out" "\| .*Valgrind cannot continue" "the report shows Valgrind's last lines"
unlike "$out" "BUG" "no bug report"

# killme.c writes its pid (Valgrind's, as it runs inside Valgrind's
# process) and sleeps; the test kills it with SIGKILL, as the kernel's
# out-of-memory killer would.
cat > "$TMP/killme.c" <<'EOF'
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
   FILE *f = argc > 1 ? fopen(argv[1], "w") : NULL;
   if (!f)
      return 2;
   fprintf(f, "%d\n", (int)getpid());
   fclose(f);
   for (int i = 0; i < 600; i++)
      usleep(100000);
   return 0;
}
EOF
cc -O0 -g -o "$TMP/killme" "$TMP/killme.c" || exit 1
"$MK" -o "$TMP/kill.pb" --id 6 --program "$TMP/killme"
rm -f "$TMP/pid"
cbreplay --timeout 60 --schedule "$TMP/kill.pb" -- "$TMP/killme" "$TMP/pid" \
   >"$TMP/out" 2>&1 &
bg=$!
i=0
while [ ! -s "$TMP/pid" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
kill -KILL "$(cat "$TMP/pid")"
wait $bg
is $? 5 "Valgrind killed with SIGKILL from outside: error, exit 5"
like "$(cat "$TMP/out")" "Valgrind was killed by SIGKILL before the tool reported the program's end \(killed from outside: out of memory\?\)" \
     "the report says Valgrind was killed"

# ---- --confirm: flaky.c fails when the count in its file is odd, and
# counts each run, so a failing run is followed by a passing one: the
# failure does not come from the schedule.  tailabort's abort comes back.
cat > "$TMP/flaky.c" <<'EOF'
#include <stdio.h>
int main(int argc, char **argv)
{
   long n = 0;
   FILE *f = fopen(argv[1], "r");
   if (f) { if (fscanf(f, "%ld", &n) != 1) n = 0; fclose(f); }
   f = fopen(argv[1], "w");
   if (!f) return 2;
   fprintf(f, "%ld\n", n + 1);
   fclose(f);
   return n % 2 ? 1 : 0;
}
EOF
cc -O0 -g -o "$TMP/flaky" "$TMP/flaky.c" || exit 1
"$MK" -o "$TMP/flaky.pb" --id 7 --program "$TMP/flaky"
echo 1 > "$TMP/count"
out=$(cbreplay --schedule "$TMP/flaky.pb" -- "$TMP/flaky" "$TMP/count" 2>/dev/null)
is $? 1 "a run that failed once is still failed (exit 1)"
like "$out" "not reproduced: forced again 1 time, it failed 0" \
     "forced again, it passed: not reproduced"
unlike "$out" "reproduce: " "no reproduce command for it"
echo 1 > "$TMP/count"
out=$(cbreplay --json --schedule "$TMP/flaky.pb" -- "$TMP/flaky" "$TMP/count" 2>/dev/null)
like "$out" '"confirm_runs": 1, "confirm_failed": 0, "reproduced": false, "reproduce": ""' \
     "--json: reproduced false, no reproduce command"
echo 1 > "$TMP/count"
out=$(cbreplay --confirm 0 --schedule "$TMP/flaky.pb" -- "$TMP/flaky" "$TMP/count" 2>/dev/null)
like "$out" "reproduce: .*\(not forced again: --confirm 0\)" "--confirm 0: not forced again, and said so"
out=$(cbreplay --json --confirm 2 --schedule "$TMP/abort.pb" -- "$TA" 2>/dev/null)
like "$out" '"confirm_runs": 2, "confirm_failed": 2, "reproduced": true' \
     "an abort the schedule causes comes back twice in two: reproduced"
cbreplay --confirm 101 --schedule "$TMP/flaky.pb" -- "$TMP/flaky" "$TMP/count" >/dev/null 2>&1
is $? 2 "--confirm 101: bad usage"

# ---- a condition wait's wake-up that ends its thread's turn, and a plan
# that surely cannot go on.  condwake.c: T2 waits for `ready` under m; T1
# sets it and signals, then takes m once more.  Counted events: T1 create
# (0), lock (1), write (2), signal (3), unlock (4), lock (5), write (6),
# unlock (7), join (8); T2 lock (0), read (1), the wait's unlock (2), its
# wake-up (3), the lock it returns with (4), read (5), unlock (6).
cat > "$TMP/condwake.c" <<'EOF'
#include <pthread.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int ready, after;
static void *waiter(void *arg)
{
   pthread_mutex_lock(&m);
   while (!ready)
      pthread_cond_wait(&c, &m);
   pthread_mutex_unlock(&m);
   return arg;
}
int main(void)
{
   pthread_t t;
   pthread_create(&t, NULL, waiter, NULL);
   pthread_mutex_lock(&m);
   ready = 1;
   pthread_cond_signal(&c);
   pthread_mutex_unlock(&m);
   pthread_mutex_lock(&m);
   after = 1;
   pthread_mutex_unlock(&m);
   pthread_join(t, NULL);
   return 0;
}
EOF
cc -O0 -g -pthread -o "$TMP/condwake" "$TMP/condwake.c" || exit 1
CW=$TMP/condwake
# T2's turn ends with its wake-up, where the real wait has returned holding
# m: m must go back while T2 waits for its turn, or T1's next lock (its
# turn) waits for T2, which waits for T1's turn.  The recorded run's LOCK
# event comes later, and so does T2's taking m again.
"$MK" -o "$TMP/cw.pb" --id 8 --program "$CW" --prefix 1,0 \
   --tail 2:3@unlock,1:4@unlock,2:1@wait,1:3@unlock
out=$(timeout 60 cbreplay -v --stall-ms 30000 --schedule "$TMP/cw.pb" -- "$CW" 2>&1)
is $? 0 "a turn that ends at a condition wait's wake-up: passed"
like "$out" "tool: tail-done" "the whole tail was followed (T1 took m while T2 waited for its turn)"
unlike "$out" "tool: infeasible" "nothing infeasible"
# T2's turn of 4 events cannot end: its wake-up needs T1's signal, and the
# plan holds T1.  The tool sees that T2 waits in a call only a held thread
# could end and declares the plan stalled at once, not after the 30 s
# stall limit (the `timeout 20` would kill a run that waited for it).
"$MK" -o "$TMP/cwstuck.pb" --id 9 --program "$CW" --prefix 1,0 --tail 2:4@wait,1:8
out=$(timeout 20 cbreplay -v --stall-ms 30000 --schedule "$TMP/cwstuck.pb" -- "$CW" 2>&1)
is $? 3 "a plan whose only runnable thread waits for a held one: infeasible (exit 3), before the stall limit"
like "$out" "stalled: no scheduled progress \(T2's turn, step 1 of 2\)" "the turn it stalled at is named"
like "$out" "T2 waits for condition c at condwake.c:9, with no signal on its way" \
     "and what T2 waits for"

# An order violation whose f crashes the process (a division by a count
# not set yet) happened, though e1 never ran: its thread was alive and cut
# short by the crash (cb_pattern_cut_short).  Trial 7's share_count was
# told "the violation did not happen: the failure comes from elsewhere".
cat > "$TMP/divcount.c" <<'EOF'
#include <pthread.h>
#include <stdlib.h>
struct pool { int nworkers; long share; };
static void *worker(void *arg)
{
   struct pool *p = arg;
   volatile long w = 0;
   for (int k = 0; k < 200000; k++) w += k;
   p->share = 1000 / p->nworkers;
   return NULL;
}
int main(void)
{
   struct pool *p = calloc(1, sizeof *p);
   pthread_t t;
   pthread_create(&t, NULL, worker, p);
   p->nworkers = 2;
   pthread_join(t, NULL);
   return p->share != 500;
}
EOF
cc -O0 -g -pthread -o "$TMP/divcount" "$TMP/divcount.c"
# A recording in which the worker divides first crashes, and predicts the
# other order: main runs first after the create (--parent-first), and a
# loaded machine gets two more tries.
for try in 1 2 3; do
   cbtrace record --parent-first -o "$TMP/div.pb" -- "$TMP/divcount" >/dev/null 2>&1 && break
   diag "divcount: recording $try did not pass"
done
cbpredict -o "$TMP/div" "$TMP/div.pb" >"$TMP/div.table" 2>&1
sch=$(awk '$2 == "ORD" && $3 ~ /nworkers/ { print $1; exit }' "$TMP/div.table")
if [ -n "$sch" ]; then
   out=$(cbreplay --timeout 20 --schedule "$TMP/div/$sch.pb" -- "$TMP/divcount" 2>&1)
   like "$out" "failed \(SIGFPE\)" "divcount: the forced read divides by zero"
   like "$out" "the violation happened in this run: yes" \
      "divcount: the order violation happened (e1 cut short by the crash)"
else
   ok "divcount: an ORD on p->nworkers is predicted" false
   sed 's/^/# /' "$TMP/div.table"
fi
done_testing
