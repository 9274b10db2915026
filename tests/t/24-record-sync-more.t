#!/bin/sh
# Every other way a C program synchronises, recorded and predicted like the
# pthread mutex: a C11 mutex, a timed rwlock and a spinlock give the same
# cut-points as their mutex twin; a semaphore hand-off the same as its
# mutex+condition twin; a recursive mutex is recorded once per outermost
# acquisition and its schedule replays without a stall; C++ new/delete are
# ALLOC/FREE; pthread_once/call_once and pthread_kill -> sigwait order
# threads; a raw futex call is counted as unhandled.  The programs are
# written here (into $TMP), one source per family with the primitive chosen
# by -D, so that the twins share their line numbers.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/lib/programs.sh"

if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || ! command -v cbpredict >/dev/null; then
   echo "Bail out! the tool or cbpredict is not built"; exit 1
fi

# record NAME: records $TMP/NAME into $TMP/NAME.pb, dumps it to NAME.dump
# and predicts into NAME.table (schedules in NAME.s/).
record() {
   CB_STATUS=0
   timeout -k 5 "$CB_RECORD_TIMEOUT" cbtrace record -o "$TMP/$1.pb" -- "$TMP/$1" \
      >"$TMP/$1.out" 2>"$TMP/$1.err" || CB_STATUS=$?
   is "$CB_STATUS" 0 "$1: recorded, exit 0"
   cbtrace dump "$TMP/$1.pb" >"$TMP/$1.dump" 2>>"$TMP/$1.err"
   cbpredict -o "$TMP/$1.s" "$TMP/$1.pb" >"$TMP/$1.table" 2>>"$TMP/$1.err"
}

# rows NAME [VAR]: the table's violations as "PATTERN VAR E1 F E2", sorted.
rows() {
   awk -v var="$2" '/^s[0-9]+ / && (var == "" || $3 == var) { print $2, $3, $4, $5, $6 }' \
      "$TMP/$1.table" | sort -u
}

# count NAME REGEX: dump lines matching.
count() { grep -Ec "$2" "$TMP/$1.dump"; }

# ---- locks: one withdraw in two critical sections, an RWW on balance ----
cat >"$TMP/locks.c" <<'EOF'
#include <pthread.h>
#include <threads.h>
#include <time.h>
#if defined(USE_C11)
mtx_t lk;
#define INIT() mtx_init(&lk, mtx_plain)
#define LOCK() mtx_lock(&lk)
#define UNLOCK() mtx_unlock(&lk)
#elif defined(USE_RWTIMED)
pthread_rwlock_t lk = PTHREAD_RWLOCK_INITIALIZER;
struct timespec far;
#define INIT() (clock_gettime(CLOCK_REALTIME, &far), far.tv_sec += 60)
#define LOCK() pthread_rwlock_timedwrlock(&lk, &far)
#define UNLOCK() pthread_rwlock_unlock(&lk)
#elif defined(USE_SPIN)
pthread_spinlock_t lk;
#define INIT() pthread_spin_init(&lk, PTHREAD_PROCESS_PRIVATE)
#define LOCK() pthread_spin_lock(&lk)
#define UNLOCK() pthread_spin_unlock(&lk)
#else
pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
#define INIT() 0
#define LOCK() pthread_mutex_lock(&lk)
#define UNLOCK() pthread_mutex_unlock(&lk)
#endif
volatile int balance = 100;
__attribute__((noinline)) void withdraw(int amount)
{
   LOCK();
   int b = balance;
   UNLOCK();
   LOCK();
   balance = b - amount;
   UNLOCK();
}
void *worker(void *arg) { withdraw(10); return arg; }
int main(void)
{
   pthread_t t1, t2;
   INIT();
   pthread_create(&t1, NULL, worker, NULL);
   pthread_create(&t2, NULL, worker, NULL);
   pthread_join(t1, NULL);
   pthread_join(t2, NULL);
   return balance != 80;
}
EOF
for v in MUTEX C11 RWTIMED SPIN; do
   cc -g -O0 -pthread -DUSE_$v -o "$TMP/lk_$v" "$TMP/locks.c"
   record "lk_$v"
done
want=$(rows lk_MUTEX)
like "$want" "^RWW balance locks.c:30 locks.c:33 locks.c:33$" "mutex twin: the RWW on balance (read line 30, write line 33)"
for v in C11 RWTIMED SPIN; do
   is "$(rows lk_$v)" "$want" "$v: the same cut-points as the pthread mutex"
   is "$(count lk_$v ' T[23] lock lk ')" 4 "$v: 4 locks recorded (2 per worker)"
   is "$(count lk_$v ' T[0-9]+ unlock lk ')" 4 "$v: 4 unlocks recorded, none for the init"
done
is "$(count lk_C11 ' lock lk mutex @ locks.c:29 ')" 2 "C11: mtx_lock is a mutex lock at the user's line"
is "$(count lk_RWTIMED ' (lock|unlock) lk wr ')" 8 "RWTIMED: timedwrlock and its unlock are in write mode"

# ---- a semaphore hand-off and its mutex+condition twin ----
cat >"$TMP/handoff.c" <<'EOF'
#include <pthread.h>
#include <semaphore.h>
#include <unistd.h>
volatile int data;
#ifdef USE_SEM
sem_t full;
#define INIT() sem_init(&full, 0, 0)
#define HANDOVER() sem_post(&full)
#define TAKE() sem_wait(&full)
#else
pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
int ready;
#define INIT() 0
#define HANDOVER() (pthread_mutex_lock(&lk), ready = 1, pthread_cond_signal(&cv), pthread_mutex_unlock(&lk))
#define TAKE() do { pthread_mutex_lock(&lk); while (!ready) pthread_cond_wait(&cv, &lk); pthread_mutex_unlock(&lk); } while (0)
#endif
__attribute__((noinline)) void produce(void)
{
   data = 1;
   HANDOVER();
   usleep(20000);
   data = 2;
}
__attribute__((noinline)) int consume(void)
{
   TAKE();
   int first = data;
   int second = data;
   return first != second;
}
void *producer(void *arg) { usleep(20000); produce(); return arg; }
void *consumer(void *arg) { return (void *)(long)consume(); }
int main(void)
{
   pthread_t p, c;
   void *bad;
   INIT();
   pthread_create(&c, NULL, consumer, NULL);
   pthread_create(&p, NULL, producer, NULL);
   pthread_join(c, &bad);
   pthread_join(p, NULL);
   return bad != 0;
}
EOF
for v in SEM COND; do
   cc -g -O0 -pthread -DUSE_$v -o "$TMP/ho_$v" "$TMP/handoff.c"
   record "ho_$v"
done
# The write before the hand-off (line 20) is ordered before both reads;
# the write after it (line 23) is a real RWR.
# (Other rows are the recorded order itself, or ORD reorderings that
# replay judges: they are not compared.)
is "$(rows ho_SEM data | grep '^RWR')" "RWR data handoff.c:28 handoff.c:23 handoff.c:29" \
   "semaphore hand-off: only the write after the hand-off breaks the reads"
is "$(rows ho_SEM data | grep '^RWR')" "$(rows ho_COND data | grep '^RWR')" \
   "semaphore hand-off: the same atomicity cut-points on data as its condition twin"
is "$(rows ho_SEM data | awk '$4 == "handoff.c:20"')" "" \
   "semaphore hand-off: the write before the hand-off is never forced into the reads"
is "$(count ho_SEM ' T3 sem-post full post 1 @ handoff.c:21 ')" 1 "SEM: the post is numbered 1, at the user's line"
is "$(count ho_SEM ' T2 sem-wait full post 1 @ handoff.c:27 ')" 1 "SEM: the wait names the post it consumed"
s=$(ls "$TMP/ho_SEM.s" 2>/dev/null | head -1)
if [ -n "$s" ]; then
   v=0
   timeout -k 5 120 cbreplay --schedule "$TMP/ho_SEM.s/$s" -- "$TMP/ho_SEM" >"$TMP/ho.replay" 2>&1 || v=$?
   is "$v" 1 "SEM: the predicted RWR replays and fails the program"
else
   ok "SEM: a schedule was written" false
fi

# ---- a recursive mutex: nested locks make no events, replay has no stall ----
cat >"$TMP/recursive.c" <<'EOF'
#include <pthread.h>
pthread_mutex_t m;
volatile int balance = 100;
__attribute__((noinline)) int peek(void)
{
   pthread_mutex_lock(&m);
   int b = balance;
   pthread_mutex_unlock(&m);
   return b;
}
__attribute__((noinline)) void withdraw(int d)
{
   pthread_mutex_lock(&m);
   int b = peek();
   pthread_mutex_unlock(&m);
   pthread_mutex_lock(&m);
   pthread_mutex_lock(&m);
   balance = b - d;
   pthread_mutex_unlock(&m);
   pthread_mutex_unlock(&m);
}
void *worker(void *a) { withdraw(10); return a; }
int main(void)
{
   pthread_mutexattr_t at;
   pthread_mutexattr_init(&at);
   pthread_mutexattr_settype(&at, PTHREAD_MUTEX_RECURSIVE);
   pthread_mutex_init(&m, &at);
   pthread_t t1, t2;
   pthread_create(&t1, NULL, worker, NULL);
   pthread_create(&t2, NULL, worker, NULL);
   pthread_join(t1, NULL);
   pthread_join(t2, NULL);
   return balance != 80;
}
EOF
cc -g -O0 -pthread -o "$TMP/recursive" "$TMP/recursive.c"
record recursive
is "$(awk '$2 == "T2" && ($3 == "lock" || $3 == "unlock") { print $3, $(NF-2) }' "$TMP/recursive.dump" | tr '\n' ,)" \
   "lock recursive.c:13,unlock recursive.c:15,lock recursive.c:16,unlock recursive.c:20," \
   "recursive: only the outermost lock and unlock are recorded"
s=$(ls "$TMP/recursive.s" 2>/dev/null | head -1)
if [ -n "$s" ]; then
   v=0
   timeout -k 5 120 cbreplay -v --schedule "$TMP/recursive.s/$s" -- "$TMP/recursive" >"$TMP/rec.replay" 2>&1 || v=$?
   is "$v" 1 "recursive: the predicted RWW replays and fails the program"
   like "$(cat "$TMP/rec.replay")" "failed \\(exit 1\\)" "recursive: the verdict is failed"
   unlike "$(cat "$TMP/rec.replay")" "stalled|in its turn" "recursive: no stall"
else
   ok "recursive: a schedule was written" false
fi

# ---- C++: recycled nodes are new blocks ----
cat >"$TMP/nodes.cpp" <<'EOF'
#include <pthread.h>
struct Node { int value; Node *next; };
Node *head;
pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static void *worker(void *)
{
   for (int i = 0; i < 3; i++) {
      Node *n = new Node;
      n->value = i;
      pthread_mutex_lock(&lk);
      n->next = head;
      head = n;
      head = n->next;
      pthread_mutex_unlock(&lk);
      delete n;
      int *a = new int[4];
      a[0] = i;
      delete[] a;
   }
   return nullptr;
}
int main()
{
   pthread_t a, b;
   pthread_create(&a, nullptr, worker, nullptr);
   pthread_create(&b, nullptr, worker, nullptr);
   pthread_join(a, nullptr);
   pthread_join(b, nullptr);
   return head != nullptr;
}
EOF
if command -v g++ >/dev/null && g++ -g -O0 -pthread -o "$TMP/nodes" "$TMP/nodes.cpp"; then
   record nodes
   is "$(count nodes ' alloc .* size 16 @ nodes.cpp:8 ')" 6 "C++: operator new is an alloc at the user's line (6)"
   is "$(count nodes ' alloc .* size 16 @ nodes.cpp:16 ')" 6 "C++: operator new[] is an alloc (6)"
   is "$(count nodes ' free .* @ nodes.cpp:15 ')" 6 "C++: operator delete is a free (6)"
   is "$(count nodes ' free .* @ nodes.cpp:18 ')" 6 "C++: operator delete[] is a free (6)"
   # Node and int[4] are both 16 bytes: the allocator hands the blocks
   # back and forth, and each access names the block live at its time.
   is "$(count nodes ' write heap block of 16 bytes from nodes.cpp:8 size 4 = [0-9]+ @ nodes.cpp:9 ')" 6 \
      "C++: each n->value write names its Node block (nodes.cpp:8)"
   is "$(count nodes ' write heap block of 16 bytes from nodes.cpp:16 size 4 = [0-9]+ @ nodes.cpp:17 ')" 6 \
      "C++: each a[0] write names its int[4] block (nodes.cpp:16), recycled or not"
else
   ok "C++: skipped, no g++ # SKIP" true
fi

# ---- once, call_once, thrd_*, a raw futex, pthread_kill -> sigwait ----
cat >"$TMP/misc.c" <<'EOF'
#include <pthread.h>
#include <threads.h>
#include <signal.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/futex.h>
volatile int config, other, balance = 100;
pthread_once_t once = PTHREAD_ONCE_INIT;
once_flag flag = ONCE_FLAG_INIT;
int fut;
sigset_t set;
static void setup(void) { config = 42; }
static void setup2(void) { other = 7; }
int worker(void *arg)
{
   pthread_once(&once, setup);
   call_once(&flag, setup2);
   syscall(SYS_futex, &fut, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
   return config != 42 || other != 7;
}
__attribute__((noinline)) void withdraw(int d)
{
   int b = balance;
   balance = b - d;
}
void *sleeper(void *arg)
{
   int s;
   sigwait(&set, &s);
   withdraw(10);
   return arg;
}
int main(void)
{
   thrd_t t[2];
   pthread_t w;
   int bad = 0, r;
   sigemptyset(&set);
   sigaddset(&set, SIGUSR1);
   pthread_sigmask(SIG_BLOCK, &set, NULL);
   for (int i = 0; i < 2; i++) thrd_create(&t[i], worker, NULL);
   for (int i = 0; i < 2; i++) { thrd_join(t[i], &r); bad |= r; }
   pthread_create(&w, NULL, sleeper, NULL);
   usleep(20000);
   withdraw(10);
   pthread_kill(w, SIGUSR1);
   pthread_join(w, NULL);
   return bad || balance != 80;
}
EOF
cc -g -O0 -pthread -o "$TMP/misc" "$TMP/misc.c"
record misc
is "$(count misc ' release once once @ misc.c:16 ')" 1 "once: the init routine's end is one release, at the pthread_once line"
is "$(count misc ' acquire once once @ misc.c:16 ')" 2 "once: each return of pthread_once acquires"
is "$(count misc ' release flag once @ misc.c:17 ')" 1 "call_once: recorded like pthread_once"
is "$(count misc ' join T[23] @ misc.c:42 ')" 2 "thrd_join: joins at the user's line"
is "$(count misc ' release .* signal @ misc.c:46 ')" 1 "pthread_kill: a release of the target"
is "$(count misc ' acquire .* signal @ misc.c:29 ')" 1 "sigwait: an acquire when the signal came"
like "$(cbtrace stats "$TMP/misc.pb")" "unhandled futex: 2" "stats: the raw futex calls are counted and named"
# withdraw in main before the kill and in the woken thread after it: ordered,
# so no violation may put one withdraw inside the other (main's own final
# check of balance at line 48 may still see the woken thread's write).
is "$(rows misc balance | awk '$5 != "misc.c:48"')" "" "pthread_kill -> sigwait orders the two withdraws"
done_testing
