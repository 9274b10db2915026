#!/bin/sh
# cbreplay's verdicts, exit codes, timeouts, process groups, --check, --json,
# --all in parallel, the bug report and its reproduce command.  The Valgrind
# tool is replaced by a stand-in `valgrind` (first on PATH) that speaks the
# status-line protocol of cb_wire.h, so these run without the real tool and
# test cbreplay's own logic only; 42-replay-tool.t and 45-replay-e2e.t use the
# real tool.  The stand-in picks a behaviour from the first prefix count of
# the plan (mode): 1 pass, 2 fail (exit 1), 3 infeasible, 4 hang after the
# release, 5 SIGSEGV, 6 abort, 7 a divergence note, 8 meet another run (parallelism),
# 9 hang before any status line, 10 infeasible at step 1 of 2 and then exit 1,
# 11 Valgrind dies (no "end" line), 12 the program exits 0 and Valgrind 1,
# 13 fail only when the tail starts with thread 1 (tail variants),
# 14 the tool ends a deadlock ("blocked" lines, "end deadlock", exit 6),
# 15 the same, but Valgrind then exits 0, 17 infeasible at step 1 of 2 and
# then exit 0, 18 T2's first event is a read of another address than its
# step expects, 19 the same, then e1, f, e2 not seen in order and the
# program fails; 0 (a hunt plan: no prefix counts) holds T2 and, unless
# FAKE_HUNT=miss, f comes and the program fails.
. "$(dirname "$0")/../tap.sh"

MK=$TOP/build/tests/replay_mkschedule
mkdir -p "$TMP/bin" "$TMP/tool" "$TMP/s"
printf '#!/bin/sh\nexit 99\n' > "$TMP/tool/cbtools-amd64-linux"
chmod +x "$TMP/tool/cbtools-amd64-linux"
export CBTOOLS_LIB="$TMP/tool"

cat > "$TMP/bin/valgrind" <<'EOF'
#!/bin/bash
# Stand-in for the cbtools tool in replay mode (see 41-replay-verdicts.t).
[ -n "$FAKE_LOG" ] && echo "$*" >> "$FAKE_LOG"
status= plan= out=
while [ $# -gt 0 ]; do
  case $1 in
    --cb-status-fd=*) status=${1#*=} ;;
    --cb-plan=*) plan=${1#*=} ;;
    --cb-out-fd=*) out=${1#*=} ;;
    --) shift; break ;;
  esac
  shift
done
[ -n "$FAKE_PLAN_COPY" ] && cp "$plan" "$FAKE_PLAN_COPY"
[ -n "$out" ] && printf 'raw events\n' >&"$out"
mode=$(od -An -t u8 -j 32 -N 8 "$plan" | tr -d ' ')
first_tid=$(od -An -t u8 -j 56 -N 8 "$plan" | tr -d ' ')
say() { printf '%s\n' "$1" >&"$status"; }
case $mode in
  0) # a hunt plan (no prefix counts): its words follow the waits' count
     say tail-done; say released
     say "hunt-hold 2 1"
     if [ "${FAKE_HUNT:-hit}" = hit ]; then say "hunt-hit 2 1 3"; say "pattern 1"
     else say "infeasible the hunt: 4 hold(s) at e1's instruction, and no other thread's f came"; fi
     [ -n "$FAKE_HUNT_COPY" ] && cp "$plan" "$FAKE_HUNT_COPY"
     mode=hunt-$FAKE_HUNT ;;
  3) say "infeasible thread T9 never reached its turn"; say released ;;
  7) say prefix-done; say "diverged 2 17"; say released ;;
  9) ;;
  10|17) say prefix-done; say "step 1 2"; say "infeasible thread 2 exited in its turn"
      say released ;;
  18|19) say prefix-done; say "unexpected 2 0 1 0x401000 0x601040 rww.c:99 1"
      say "step 1 2"; say "step 2 2"; say tail-done; say released ;;
  20|21) say prefix-done; say "unexpected 1 $((mode == 20 ? 3 : 9)) 1 0x401000 0x601040 rww.c:99 1"
      say "step 1 2"; say "step 2 2"; say tail-done; say released ;;
  11) say prefix-done; echo "valgrind: the 'impossible' happened: out of memory" >&2
      exit 1 ;;
  *) say prefix-done; say "step 1 2"; say "step 2 2"; say tail-done; say released ;;
esac
# What e1, f and e2 read and wrote in the forced run (mode 2: e2 differs
# from the recorded run's value).
[ "$mode" = 2 ] && { say "value 0 5"; say "value 1 6"; say "value 2 7"; }
# An order violation's plan slots are f, e1, e2 (reschedule/plan.c): the
# tool says f's value first.
[ "$mode" = 16 ] && { say "value 0 9"; say "value 1 7"; say "value 2 7"; }
if [ "$mode" = 14 ] || [ "$mode" = 15 ]; then
   say "blocked 1 4 0x0 prog.c:30 2 ? 0x0 ?"
   say "blocked 2 1 0x601040 prog.c:14 3 prog.c:21 0x0 counter_lock"
   say "blocked 3 1 0x601080 prog.c:21 2 prog.c:13 0x0 ?"
   say "pattern 0"; say "end deadlock"
   [ "$mode" = 14 ] && exit 6
   exit 0
fi
export CB_FAKE_MODE=$mode CB_FAKE_TID=$first_tid
"$@"
rc=$?
[ "$mode" = 12 ] && { say "end exit $rc"; exit 1; }
case $mode in 3|10|17|19|hunt-miss) say "pattern 0" ;; *) say "pattern 1" ;; esac
if [ $rc -gt 128 ]; then
   say "end signal"
   trap - ABRT SEGV; ulimit -c 0; kill -s $((rc - 128)) $$
fi
say "end exit $rc"
exit $rc
EOF
chmod +x "$TMP/bin/valgrind"
PATH="$TMP/bin:$PATH"

# The program under test: behaves by mode, prints 200, records its pid.
cat > "$TMP/prog" <<'EOF'
#!/bin/sh
echo 200
[ -n "$PIDFILE" ] && echo $$ >> "$PIDFILE"
case $CB_FAKE_MODE in
  2|16|19|20|21|hunt-|hunt-hit) echo "prog: assertion failed: counter == 2" >&2; exit 1 ;;
  10) exit 1 ;;
  13) if [ "$CB_FAKE_TID" = 1 ]; then echo "prog: T1 went first" >&2; exit 1; fi ;;
  4|9) sleep 300 & echo $! >> "${PIDFILE:-/dev/null}"; wait ;;
  5) kill -SEGV $$ ;;
  6) kill -ABRT $$ ;;
  8) touch "$MEET/$$"; i=0
     while [ $(ls "$MEET" | wc -l) -lt 2 ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
     [ $(ls "$MEET" | wc -l) -ge 2 ] ;;
esac
EOF
chmod +x "$TMP/prog"
P=$TMP/prog
count_alive() { # processes of the pid file still running (zombies are dead)
   n=0
   for p in $(cat "$1"); do
      case $(ps -o stat= -p "$p" 2>/dev/null) in ""|Z*) ;; *) n=$((n + 1)) ;; esac
   done
   echo $n
}
mk() { # mk FILE ID MODE [more args]
   f=$1 id=$2 mode=$3; shift 3
   "$MK" -o "$f" --id "$id" --program "$P" --prefix "$mode,0" --tail 2:1,1:1 \
      --pattern RWW --variable counter \
      --e1 1:2:read:rww.c:14:deposit:5 --f 2:0:write:rww.c:15:withdraw:6 \
      --e2 1:3:write:rww.c:15:deposit:6 "$@"
}
for m in 1 2 3 4 5 6 7 9 10 11 12 14 15; do mk "$TMP/m$m.pb" $m $m; done
"$MK" -o "$TMP/m16.pb" --id 16 --program "$P" --prefix "16,0" --tail 2:1,1:1 \
   --pattern ORD --variable counter \
   --e1 1:3:write:rww.c:15:deposit:6 --f 2:0:read:rww.c:14:withdraw:5 \
   --e2 1:3:write:rww.c:15:deposit:6

# ---- one run: verdicts and exit codes
out=$(cbreplay --schedule "$TMP/m1.pb" -- "$P")
is $? 0 "passed: exit 0"
like "$out" "^s1 +RWW +counter +rww.c:14 +rww.c:15 +rww.c:15 +passed +yes" "passed: table row"
like "$out" "^200$" "the program's stdout passes through"

out=$(cbreplay --schedule "$TMP/m2.pb" -- "$P" 2>/dev/null)
is $? 1 "failed (exit 1): exit 1"
like "$out" "failed \(exit 1\)" "failed: verdict says exit 1"
like "$out" "BUG \(s2\): RWW atomicity violation on counter" "failed: bug report"
like "$out" "e1 +T1 read +counter = 5 +at rww.c:14 in deposit\(\)" "bug report: e1 with value, line, function, thread"
like "$out" "f +T2 write counter = 6 +at rww.c:15 in withdraw\(\)" "bug report: f"
like "$out" "e2 +T1 write counter = 7 \(recorded run: 6\) +at rww.c:15 in deposit\(\)" \
     "bug report: e2 with the forced run's value, the recorded one beside it"
like "$out" "reproduce: cbreplay --schedule $TMP/m2.pb -- $P$" "bug report: reproduce command"
cmd=$(printf '%s\n' "$out" | sed -n 's/^  reproduce: //p')
(eval "$cmd") >/dev/null 2>&1
is $? 1 "the reproduce command reproduces the failure"

# An order violation: e1 and e2 are one event, one value; f read before it.
out=$(cbreplay --schedule "$TMP/m16.pb" -- "$P" 2>/dev/null)
is $? 1 "ORD failed: exit 1"
like "$out" "e1 +T1 write counter = 7 \(recorded run: 6\) +at rww.c:15" "ORD: e1's forced value is its own"
like "$out" "f +T2 read +counter = 9 \(recorded run: 5\) +at rww.c:14" "ORD: f's forced value is its own"
like "$out" "e2 +T1 write counter = 7 \(recorded run: 6\) +at rww.c:15" "ORD: e2, the same event as e1, the same value"

out=$(cbreplay --schedule "$TMP/m3.pb" -- "$P")
is $? 3 "infeasible: exit 3"
like "$out" "s3 infeasible: thread T9 never reached its turn" "infeasible: the tool's reason"
unlike "$out" "BUG" "infeasible: no bug report"

# A program that fails after the tool could not go on failed: the bug is
# not thrown away.
out=$(cbreplay --schedule "$TMP/m10.pb" -- "$P" 2>/dev/null)
is $? 1 "exit 1 after an infeasible turn: failed, exit 1"
like "$out" "s10 failed after following the schedule to step 1 of 2; then the tool could not go on: thread 2 exited in its turn" \
     "failed: says how far the schedule was followed"
like "$out" "BUG \(s10\): the forced run failed \(exit 1\) under a schedule aimed at the RWW atomicity violation on counter, which did not happen: the failure comes from elsewhere" \
     "failed after an infeasible turn: a bug report, which says the violation did not happen"
like "$out" "the schedule was to run T2's write at rww.c:15 between T1's read at rww.c:14 and its write at rww.c:15, but that did not happen in this run\." \
     "failed without the violation: what the schedule meant, not that it happened"

# Valgrind or the tool failing is an error (exit 5), never a bug.
out=$(cbreplay --schedule "$TMP/m11.pb" -- "$P" 2>"$TMP/err")
is $? 5 "Valgrind died (no end from the tool): error, exit 5"
like "$out" "^s11 .* error " "error: in the table"
like "$out" "ERROR \(s11\): Valgrind or the cbtools tool died: Valgrind exited 1 before the tool reported the program's end" \
     "error: says the tool died"
like "$out" "\| valgrind: the 'impossible' happened" "error: Valgrind's last stderr lines"
unlike "$out" "BUG" "error: no bug report"
like "$(cat "$TMP/err")" "^cbreplay: s11: error: " "error: said on stderr too"
out=$(cbreplay --schedule "$TMP/m12.pb" -- "$P" 2>/dev/null)
is $? 5 "the program exited 0 and Valgrind 1: error, exit 5"
like "$out" "Valgrind failed: the program exited 0, then Valgrind exited 1" \
     "error: Valgrind ended otherwise than the program"

out=$(cbreplay --schedule "$TMP/m7.pb" -- "$P")
is $? 0 "diverged is a note, not a verdict: the run passed"
like "$out" "s7 note: T2 ran its counted event 17 out of turn" "diverged: noted"

out=$(cbreplay --schedule "$TMP/m5.pb" -- "$P" 2>/dev/null)
is $? 1 "fatal signal: exit 1"
like "$out" "failed \(SIGSEGV\)" "fatal signal named"
out=$(cbreplay --schedule "$TMP/m6.pb" -- "$P" 2>/dev/null)
is $? 1 "abort: exit 1"
like "$out" "failed \(SIGABRT\)" "abort named"

# ---- deadlock: the tool ended the run and said who waits for what
out=$(cbreplay --timeout 60 --schedule "$TMP/m14.pb" -- "$P")
is $? 6 "deadlock: exit 6"
like "$out" "^s14 .* deadlock +no " "deadlock: verdict in the table"
like "$out" "^1 forced run: 0 failed, 1 deadlocked, 0 hung, 0 passed, 0 infeasible" \
     "deadlock: counted apart in the summary"
like "$out" "BUG \(s14\): RWW atomicity violation on counter; the forced run deadlocked: each of its threads waits for another, and the tool ended it at once" \
     "deadlock: a bug report"
like "$out" "^    T1 waits to join T2 at prog.c:30$" "deadlock: the joining thread"
like "$out" "^    T2 waits for lock counter_lock at prog.c:14, held by T3 \(taken at prog.c:21\)$" \
     "deadlock: a lock by name, its holder and where each took it"
like "$out" "^    T3 waits for lock 0x601080 at prog.c:21, held by T2 \(taken at prog.c:13\)$" \
     "deadlock: a lock without a name by address"
if perl -MJSON::PP -e 1 2>/dev/null; then
   got=$(cbreplay --json --schedule "$TMP/m14.pb" -- "$P" | perl -MJSON::PP -e '
      local $/; my $d = decode_json(<STDIN>); my $r = $d->{runs}[0];
      my $b = $r->{deadlock}[1];
      print join(",", $r->{verdict}, $r->{exit_code}, $r->{deadlocked_threads},
                 $b->{tid}, $b->{waits_for}, $b->{object}, $b->{location},
                 $b->{holder}, $b->{holder_location}, $d->{summary}{deadlock})')
   is "$got" "deadlock,-1,3,2,lock,counter_lock,prog.c:14,3,prog.c:21,1" \
      "--json: the deadlock, thread by thread"
fi
out=$(cbreplay --schedule "$TMP/m15.pb" -- "$P" 2>/dev/null)
is $? 5 "the tool ended a deadlock but Valgrind exited 0: error, exit 5"
like "$out" "Valgrind failed: the tool ended the deadlocked program, then Valgrind exited 0" \
     "error: says how Valgrind ended"

# ---- hangs: killed after --timeout, with everything the program started
: > "$TMP/pids"
out=$(PIDFILE=$TMP/pids cbreplay --timeout 1 --schedule "$TMP/m4.pb" -- "$P")
is $? 4 "hung after release: exit 4"
like "$out" "hung +yes|hung +\?" "hung: verdict in the table"
like "$out" "BUG \(s4\).*no end 1 s after the threads were released" "hung: bug report"
sleep 0.2
alive=$(count_alive "$TMP/pids")
is "$(wc -l < "$TMP/pids" | tr -d ' ')" 4 \
   "hung program and its child both started, in the run and when forced again (--confirm)"
is "$alive" 0 "the whole process group was killed"

: > "$TMP/pids"
out=$(PIDFILE=$TMP/pids cbreplay --timeout 1 --schedule "$TMP/m9.pb" -- "$P")
is $? 3 "no status at all and no end: the plan held threads, infeasible (exit 3), not a bug"
like "$out" "infeasible: the plan still held threads back when the time ran out" \
   "a run stopped while the plan held threads back says so"

# cbreplay interrupted: the forced program does not outlive it.
: > "$TMP/pids"
PIDFILE=$TMP/pids cbreplay --timeout 60 --schedule "$TMP/m4.pb" -- "$P" >/dev/null 2>&1 &
bg=$!
i=0
while [ "$(wc -l < "$TMP/pids")" -lt 2 ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
kill -TERM $bg
{ wait $bg; } 2>/dev/null
sleep 0.2
alive=$(count_alive "$TMP/pids")
is "$alive" 0 "SIGTERM to cbreplay kills the forced program's group"

# ---- --check: the program's stdout is judged
out=$(cbreplay --check 'grep -qx 200' --schedule "$TMP/m1.pb" -- "$P")
is $? 0 "--check that passes: exit 0"
unlike "$out" "^200$" "--check consumes the program's stdout"
out=$(cbreplay --check 'grep -qx 201' --schedule "$TMP/m1.pb" -- "$P")
is $? 1 "--check that fails: exit 1"
like "$out" "failed \(check 1\)" "--check failure shown"
like "$out" "reproduce: cbreplay --schedule .* --check 'grep -qx 201' -- " "reproduce command keeps --check"

# ---- what the tool is given
: > "$TMP/log"
FAKE_LOG=$TMP/log FAKE_PLAN_COPY=$TMP/plan cbreplay --stall-ms 750 \
   --events-out "$TMP/events" --schedule "$TMP/m1.pb" -- "$P" x y >/dev/null
args=$(cat "$TMP/log")
like "$args" "^--tool=cbtools .*--fair-sched=yes .*--px-default=allregs-at-each-insn" "Valgrind gets the replay options (registers exact at every instruction: a gate retries one)"
like "$args" "--cb-mode=replay --cb-plan=[^ ]+ --cb-status-fd=[0-9]+ --cb-instrument=default --cb-out-fd=[0-9]+ -- $P x y$" "the tool gets mode, plan, status, instrumentation and event fds"
like "$args" "--vgdb=no" "Valgrind runs without gdbserver (no vgdb-pipe files)"
words=$(od -An -t u8 -v "$TMP/plan" | tr -s ' \n' ' ' | sed 's/^ //; s/ $//')
# ... stall, no thread paths (0), three expected events: e1, f, e2 as
# (tid, index, kind, code address, data address), no waits in the prefix,
# no hunt.
is "$words" "5638872116037353473 2 7867390 2 1 0 2 2 1 1 1 1 2 2 0 1 3 750 0 3 1 2 1 0 0 2 0 2 0 0 1 3 2 0 0 0 0" \
   "plan words: magic version mask prefix tail e1 f e2 stall paths expectations waits hunt"
is "$(cat "$TMP/events")" "raw events" "--events-out receives the tool's event stream"

# ---- --json
out=$(cbreplay --json --schedule "$TMP/m2.pb" -- "$P" 2>/dev/null)
is $? 1 "--json keeps the exit code"
if perl -MJSON::PP -e 1 2>/dev/null; then
   got=$(printf '%s' "$out" | perl -MJSON::PP -e '
      local $/; my $d = decode_json(<STDIN>); my $r = $d->{runs}[0];
      print join(",", $r->{schedule}, $r->{verdict}, $r->{exit_code},
                 $r->{e1}{location}, $r->{e1}{function}, $r->{f}{tid},
                 $r->{e2}{value}, ($r->{violation} ? "yes" : "no"),
                 $d->{summary}{failed})')
   is "$got" "s2,failed,1,rww.c:14,deposit,2,6,yes,1" "--json is valid and complete"
else
   like "$out" '"verdict": "failed"' "--json has the verdict"
fi
unlike "$out" "^200" "--json keeps the program's stdout out of the document"

# ---- --all: parallel, infeasible counted, failures and hangs are bugs
mk "$TMP/s/s1.pb" 1 1
mk "$TMP/s/s2.pb" 2 3
mk "$TMP/s/s3.pb" 3 8
mk "$TMP/s/s4.pb" 4 8
mkdir "$TMP/meet"
out=$(MEET=$TMP/meet cbreplay --schedules "$TMP/s" --all -j 2 --timeout 20 -- "$P")
is $? 0 "--all with passes and an infeasible one: exit 0"
like "$out" "^s1 .* passed" "--all: s1 passed"
like "$out" "^s2 .* infeasible" "--all: s2 infeasible"
like "$out" "^s3 .* passed" "--all -j 2: two runs met (ran at the same time)"
like "$out" "4 forced runs: 0 failed, 0 deadlocked, 0 hung, 3 passed, 1 infeasible" "--all: summary"
unlike "$out" "^200" "--all keeps the programs' stdout out of the table"

mk "$TMP/s/s5.pb" 5 2
mk "$TMP/s/s6.pb" 6 4
rm -f "$TMP/s/s3.pb" "$TMP/s/s4.pb"
out=$(cbreplay --schedules "$TMP/s" --all --timeout 2 -- "$P")
is $? 1 "--all with a failure and a hang: exit 1"
like "$out" "^s5 .* failed \(exit 1\)" "--all: s5 failed"
like "$out" "^s6 .* hung" "--all: s6 hung"
like "$out" "prog: assertion failed: counter == 2" "--all: the bug report shows the program's stderr"
is "$(printf '%s\n' "$out" | grep -c '^BUG')" 2 "--all: a bug report for the failure and the hang"
out=$(cd "$TMP" && ln -s s trace.pb.schedules && cbreplay --all --json --timeout 2 -- "$P")
is $? 1 "--all finds ./trace.pb.schedules by default"

# --all: an error without failures is exit 5, a failure wins over it.
mkdir "$TMP/e"
mk "$TMP/e/s1.pb" 1 1
mk "$TMP/e/s2.pb" 2 11
out=$(cbreplay --schedules "$TMP/e" --all -- "$P" 2>/dev/null)
is $? 5 "--all with an error and no failure: exit 5"
like "$out" "2 forced runs: 0 failed, 0 deadlocked, 0 hung, 1 passed, 0 infeasible, 1 error" \
     "--all: errors counted apart"
mk "$TMP/e/s3.pb" 3 2
out=$(cbreplay --schedules "$TMP/e" --all -- "$P" 2>/dev/null)
is $? 1 "--all with an error and a failure: exit 1"
mkdir "$TMP/d"
mk "$TMP/d/s1.pb" 1 1
mk "$TMP/d/s2.pb" 2 14
out=$(cbreplay --schedules "$TMP/d" --all -- "$P" 2>/dev/null)
is $? 1 "--all with a deadlock: exit 1 (a bug)"
like "$out" "2 forced runs: 0 failed, 1 deadlocked, 0 hung, 1 passed, 0 infeasible" \
     "--all: the deadlock counted"

# ---- tail variants: variant 0 (T2 first) passes, variant 1 (T1 first) fails.
mk "$TMP/v.pb" 20 13 --tail-name "release after e2" --variant 1:1,2:1 \
   --variant-name "T1 to its block end" --variant 2:out
out=$(cbreplay --schedule "$TMP/v.pb" -- "$P" 2>/dev/null)
is $? 1 "variant 0 passes, variant 1 fails: failed, exit 1"
like "$out" "^s20 .* failed \(exit 1\) .* 1 of 3$" "the table names the variant"
like "$out" "tail variant 1 \(T1 to its block end\) of the schedule's 3 \(2 tried\)" \
     "the bug report names the variant"
like "$out" "reproduce: cbreplay --schedule $TMP/v.pb --variant 1 -- $P$" \
     "the reproduce command forces that variant"
cmd=$(printf '%s\n' "$out" | sed -n 's/^  reproduce: //p')
(eval "$cmd") >/dev/null 2>&1
is $? 1 "the reproduce command reproduces the failing variant"
cbreplay --variant 0 --schedule "$TMP/v.pb" -- "$P" >/dev/null 2>&1
is $? 0 "--variant 0 forces only variant 0 (passes)"
out=$(cbreplay --variant 3 --schedule "$TMP/v.pb" -- "$P" 2>&1)
is $? 2 "--variant beyond the schedule's: exit 2"
like "$out" "no such tail variant \(its variants are 0 to 2\)" "--variant beyond: says why"
out=$(cbreplay --variant 1 --all --schedules "$TMP/e" -- "$P" 2>&1)
is $? 2 "--variant with --all: exit 2"
if perl -MJSON::PP -e 1 2>/dev/null; then
   got=$(cbreplay --json --schedule "$TMP/v.pb" -- "$P" 2>/dev/null | perl -MJSON::PP -e '
      local $/; my $r = decode_json(<STDIN>)->{runs}[0];
      print join(",", $r->{verdict}, $r->{variant}, $r->{variant_name},
                 $r->{variants_tried}, $r->{variants}, $r->{steps_followed},
                 $r->{steps})')
   is "$got" "failed,1,T1 to its block end,2,3,2,2" "--json: variant, tried, steps"
fi
mk "$TMP/v2.pb" 21 13 --variant 2:2 --variant 2:1,1:1
out=$(cbreplay --schedule "$TMP/v2.pb" -- "$P" 2>/dev/null)
is $? 0 "every variant passes: passed"
like "$out" "s21 tail variants tried: 3 of 3" "passed: every variant was tried"
out=$(cbreplay --schedule "$TMP/m1.pb" -- "$P")
unlike "$out" "variant" "a schedule without variants says nothing of them"
# A divergence's found event is named by the schedule's name for its
# address (here the variable's: e1, f and e2 access it), not by a number.
"$MK" -o "$TMP/m18.pb" --id 18 --program "$P" --prefix "18,0" --tail 2:1@read,1:1 \
   --pattern RWW --variable counter --address 601040 \
   --e1 1:2:read:rww.c:14:deposit:5 --f 2:1:write:rww.c:15:withdraw:6 \
   --e2 1:3:write:rww.c:15:deposit:6
out=$(cbreplay --schedule "$TMP/m18.pb" -- "$P" 2>/dev/null)
like "$out" "diverged: T2 event 0 expected read, found read counter at rww.c:99 \(while the schedule was forced\)" \
     "a divergence names the address it found by the schedule's name for it"
# A failed run that left the schedule's path: the tool's "e1, f, e2 did not
# run in order" follows counted indexes that may name other events now, so
# whether the violation happened is not known, and not said to be "no".
"$MK" -o "$TMP/m19.pb" --id 19 --program "$P" --prefix "19,0" --tail 2:1@read,1:1 \
   --pattern RWW --variable counter --address 601040 \
   --e1 1:2:read:rww.c:14:deposit:5 --f 2:1:write:rww.c:15:withdraw:6 \
   --e2 1:3:write:rww.c:15:deposit:6
out=$(cbreplay --schedule "$TMP/m19.pb" -- "$P" 2>/dev/null)
is $? 1 "a diverged run that fails: failed (exit 1)"
like "$out" "the violation happened in this run: unknown \(the run left the schedule's path" \
     "whether the violation happened is unknown after a divergence"
unlike "$out" "which did not happen" "the headline does not say it did not happen"
out=$(cbreplay --json --schedule "$TMP/m19.pb" -- "$P" 2>/dev/null)
like "$out" '"violation": null' "--json: violation null"
# The tool says e1, f, e2 ran in order, but the run had left the path at
# e2's own counted index (T1's event 3): what ran there was another event,
# so it is not known; after it (T1's event 9), the tool's yes stands.
for m in 20 21; do
   "$MK" -o "$TMP/m$m.pb" --id $m --program "$P" --prefix "$m,0" --tail 2:1@read,1:1 \
      --pattern RWW --variable counter --address 601040 \
      --e1 1:2:read:rww.c:14:deposit:5 --f 2:1:write:rww.c:15:withdraw:6 \
      --e2 1:3:write:rww.c:15:deposit:6
done
out=$(cbreplay --schedule "$TMP/m20.pb" -- "$P" 2>/dev/null)
like "$out" "the violation happened in this run: unknown \(the run left the schedule's path" \
     "a divergence at e2's own index: whether the violation happened is unknown"
like "$out" "it failed after leaving the schedule's path at T1's event 3" \
     "how far: not 'after following the whole schedule' once the path was left"
like "$out" "the schedule was to run T2's write at rww.c:15 between T1's read at rww.c:14 and its write at rww.c:15; whether it did in this run is not known" \
     "the explanation is not stated as fact"
out=$(cbreplay --schedule "$TMP/m21.pb" -- "$P" 2>/dev/null)
like "$out" "the violation happened in this run: yes" \
     "a divergence after e1, f and e2: the tool's yes stands"
# Variants that begin with the steps an infeasible run could not follow
# would stop there too: not forced.  Mode 3 stops in the prefix, which all
# share; mode 17 at tail step 1, which variant 1 shares and variant 2 not.
: > "$TMP/vlog"
mk "$TMP/vi.pb" 22 3 --variant 1:1,2:1 --variant 2:out
out=$(FAKE_LOG=$TMP/vlog cbreplay --schedule "$TMP/vi.pb" -- "$P" 2>/dev/null)
is $? 3 "infeasible in the prefix: infeasible (exit 3)"
like "$out" "s22 tail variants tried: 1 of 3, .*the others begin with the steps an infeasible one could not follow" \
     "one variant forced, and why not the others"
is "$(wc -l < "$TMP/vlog")" 1 "one forced run: every variant shares the prefix"
: > "$TMP/vlog"
mk "$TMP/vj.pb" 23 17 --variant 2:1,1:2 --variant 1:1,2:1
out=$(FAKE_LOG=$TMP/vlog cbreplay --json --schedule "$TMP/vj.pb" -- "$P" 2>/dev/null)
like "$out" '"variants_tried": 2, "variants_skipped": 1, "variants": 3' \
     "infeasible at step 1: the variant that shares it is skipped, the other forced"
is "$(wc -l < "$TMP/vlog")" 2 "two forced runs"

# The hunt (reschedule/hunt.c): every variant infeasible in the prefix,
# then the schedule's events by their code.  Only with e1's code address
# and e1, f memory accesses.
: > "$TMP/vlog"
mk "$TMP/hu.pb" 24 3 --variant 1:1,2:1 --code 401136
out=$(FAKE_LOG=$TMP/vlog FAKE_HUNT_COPY=$TMP/hunt.plan cbreplay --schedule "$TMP/hu.pb" -- "$P" 2>/dev/null)
is $? 1 "infeasible variants, then the hunt finds the failure (exit 1)"
like "$out" "s24 every tail variant tried was infeasible; the hunt \(its events by their code, not the recorded counts\) gave the verdict" \
     "the summary says the hunt gave the verdict"
like "$out" "^s24 .* failed \(exit 1\) +yes .* hunt$" "the table's variant column says hunt"
like "$out" "forced as variant 2, by the hunt: the first thread past e1's instruction held until another thread's f on its variable" \
     "the bug report says how the run was forced"
like "$out" "reproduce: cbreplay --schedule $TMP/hu.pb --variant 2 -- " "its reproduce command forces the hunt (variant 2 of a schedule with 2)"
like "$out" "in this run the hunt held T2 \\(its hold 1\\) until T3's access" "and which threads the hunt met"
hw=$(od -An -t u8 -v "$TMP/hunt.plan" | tr -s ' \n' ' ' | sed 's/^ //; s/ $//')
like "$hw" " 8 1 1 4198710 0 0 2 500 4\$" "the plan's hunt: after e1 (a read at 0x401136, address not stable), f a write"
is "$(wc -l < "$TMP/vlog")" 3 "three forced runs: variant 0, the hunt, its confirmation"
out=$(cbreplay --json --schedule "$TMP/hu.pb" -- "$P" 2>/dev/null)
like "$out" '"variant": 2, "variant_name": "the hunt: [^"]*", "variants_tried": 1, "variants_skipped": 1, "variants": 2, "hunted": true' \
     "--json: the hunt's variant, its name, and hunted"
out=$(FAKE_HUNT=miss cbreplay --schedule "$TMP/hu.pb" -- "$P" 2>/dev/null)
is $? 3 "a hunt whose f never came: infeasible (exit 3)"
like "$out" "the hunt \(its events by their code, not the recorded counts\) was infeasible too" "and says so"
out=$(cbreplay --schedule "$TMP/hu.pb" --variant 3 -- "$P" 2>&1)
like "$out" "no such tail variant \(its variants are 0 to 1, and the hunt after them\)" "--variant past the hunt: refused"
# A failure the violation did not cause (mode 19: e1, f, e2 not in
# order): the hunt is forced too, and its verdict taken only when it
# fails by the violation.
mk "$TMP/hw.pb" 26 19 --code 401136
out=$(cbreplay --schedule "$TMP/hw.pb" -- "$P" 2>/dev/null)
is $? 1 "failed elsewhere, then the hunt fails by the violation (exit 1)"
like "$out" "s26 a tail variant failed, but not by the violation; the hunt .* failed by it and gave the verdict" \
     "the summary says why the hunt's verdict was taken"
like "$out" "the violation happened in this run: yes" "the report is the hunt's run"
out=$(FAKE_HUNT=miss cbreplay --schedule "$TMP/hw.pb" -- "$P" 2>/dev/null)
like "$out" "^s26 .* failed \(exit 1\) +\? " "a hunt that misses leaves variant 0's verdict (violation unknown)"
unlike "$out" "the hunt \(its events" "and is not named"
mk "$TMP/hv.pb" 25 3 --code 401136 --f 2:0:lock
out=$(cbreplay --schedule "$TMP/hv.pb" -- "$P" 2>/dev/null)
is $? 3 "f no memory access: no hunt, infeasible"
unlike "$out" "hunt" "no hunt named"

mkdir "$TMP/none"
out=$(cbreplay --schedules "$TMP/none" --all -- "$P" 2>"$TMP/err")
is $? 0 "--all on an empty folder: nothing to force, exit 0"
like "$out" "0 forced runs: 0 failed" "--all on an empty folder: empty summary"
like "$(cat "$TMP/err")" "no schedules \\(sN.pb\\) in .*/none: nothing to force" "--all on an empty folder: says so"
out=$(cbreplay --schedules "$TMP/nosuchdir" --all -- "$P" 2>&1)
is $? 2 "--all on a missing folder: exit 2"

done_testing
