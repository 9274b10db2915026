#!/bin/sh
# Deadlocks end at once, in `cbtrace record` and in cbreplay, with who waits
# for what; correct programs that only look stuck are never called
# deadlocked.  Real programs under the real tool:
#   deadlocks   two locks taken in opposite orders (a barrier makes sure),
#               a join cycle, a condition wait after the only signal, a
#               semaphore nobody posts, a barrier short of a thread, C11
#               mutexes in opposite orders, a normal mutex locked twice by
#               its owner, the last running thread exiting, a lock its
#               holder ended without releasing, a signal sent just before
#               its sender ended and before the wait began;
#   twins       a timed wait that times out, a thread in read() (holding a
#               lock another waits for) until main writes the pipe, a
#               semaphore a signal handler posts, a recursive mutex taken
#               twice, a producer and consumer, a mutex unlocked by another
#               thread, two readers of an rwlock, an error-checking mutex
#               locked twice, a robust mutex whose holder died, a join of
#               a detached thread (it fails at
#               once), workers waiting on a condition that main cancels
#               and joins, a crash and an exit while threads wait; and in
#               replay, a thread the plan holds back while main waits to
#               join it.
# --timeout and the record timeout are far above what a run takes: a run
# that waited for them would have the verdict hung (or be killed), not
# deadlock.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/lib/rawwire.sh"

MK=$TOP/build/tests/replay_mkschedule
if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || [ ! -x "$MK" ]; then
   echo "Bail out! the tool or replay_mkschedule is not built (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi

# ---- the programs
cat > "$TMP/abba.c" <<'EOF'
#include <pthread.h>
pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
pthread_barrier_t both;
void *one(void *x)
{
   pthread_mutex_lock(&a);        /* one-a */
   pthread_barrier_wait(&both);
   pthread_mutex_lock(&b);        /* one-b */
   pthread_mutex_unlock(&b);
   pthread_mutex_unlock(&a);
   return x;
}
void *two(void *x)
{
   pthread_mutex_lock(&b);        /* two-b */
   pthread_barrier_wait(&both);
   pthread_mutex_lock(&a);        /* two-a */
   pthread_mutex_unlock(&a);
   pthread_mutex_unlock(&b);
   return x;
}
int main(void)
{
   pthread_t t1, t2;
   pthread_barrier_init(&both, NULL, 2);
   pthread_create(&t1, NULL, one, NULL);
   pthread_create(&t2, NULL, two, NULL);
   pthread_join(t1, NULL);        /* main-join */
   pthread_join(t2, NULL);
   return 0;
}
EOF
cat > "$TMP/joincycle.c" <<'EOF'
#include <pthread.h>
pthread_t t2, t3;
pthread_barrier_t ready;
void *two(void *x) { pthread_barrier_wait(&ready); pthread_join(t3, NULL); return x; }
void *three(void *x) { pthread_barrier_wait(&ready); pthread_join(t2, NULL); return x; }
int main(void)
{
   pthread_barrier_init(&ready, NULL, 3);
   pthread_create(&t2, NULL, two, NULL);
   pthread_create(&t3, NULL, three, NULL);
   pthread_barrier_wait(&ready);
   pthread_join(t2, NULL);
   return 0;
}
EOF
cat > "$TMP/lostsignal.c" <<'EOF'
#include <pthread.h>
#include <unistd.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
void *waiter(void *x)
{
   usleep(100000);                /* the signal comes first */
   pthread_mutex_lock(&m);
   pthread_cond_wait(&ready, &m); /* wait */
   pthread_mutex_unlock(&m);
   return x;
}
int main(void)
{
   pthread_t w;
   pthread_create(&w, NULL, waiter, NULL);
   pthread_mutex_lock(&m);
   pthread_cond_signal(&ready);
   pthread_mutex_unlock(&m);      /* the signal is surely sent by now */
   usleep(300000);                /* still running when the wait begins */
   pthread_join(w, NULL);
   return 0;
}
EOF
# One condition for both directions: main hands over one item to two idle
# consumers and waits on the same condition for the taker's
# acknowledgement; the taker's signal wakes the other consumer (the older
# waiter), which finds nothing and waits again, and main is never woken.
# Its twin (-DBROADCAST) wakes everyone and ends the consumers.
cat > "$TMP/wrongwake.c" <<'EOF'
#include <pthread.h>
#include <unistd.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
int item, taken, waiting, done;
void *consumer(void *x)
{
   pthread_mutex_lock(&m);
   waiting++;
   while (!item && !done)
      pthread_cond_wait(&cv, &m);  /* consumer-wait */
   if (item) {
      item = 0;
      taken = 1;
#ifdef BROADCAST
      pthread_cond_broadcast(&cv);
#else
      pthread_cond_signal(&cv);
#endif
   }
   pthread_mutex_unlock(&m);
   return x;
}
int main(void)
{
   pthread_t c[2];
   int n = 0;
   for (int i = 0; i < 2; i++)
      pthread_create(&c[i], NULL, consumer, NULL);
   while (n < 2) {                 /* both consumers wait */
      usleep(1000);
      pthread_mutex_lock(&m);
      n = waiting;
      pthread_mutex_unlock(&m);
   }
   usleep(20000);
   pthread_mutex_lock(&m);
   item = 1;
   pthread_cond_signal(&cv);
   while (!taken)
      pthread_cond_wait(&cv, &m);  /* main-wait */
   done = 1;
   pthread_cond_broadcast(&cv);
   pthread_mutex_unlock(&m);
   for (int i = 0; i < 2; i++)
      pthread_join(c[i], NULL);
   return 0;
}
EOF
cat > "$TMP/semzero.c" <<'EOF'
#include <pthread.h>
#include <semaphore.h>
sem_t s;
void *waiter(void *x) { sem_wait(&s); return x; }
int main(void)
{
   pthread_t w;
   sem_init(&s, 0, 0);
   pthread_create(&w, NULL, waiter, NULL);
   pthread_join(w, NULL);
   return 0;
}
EOF
cat > "$TMP/barrier3.c" <<'EOF'
#include <pthread.h>
pthread_barrier_t bar;
void *worker(void *x) { pthread_barrier_wait(&bar); return x; }
int main(void)
{
   pthread_t w;
   pthread_barrier_init(&bar, NULL, 3);
   pthread_create(&w, NULL, worker, NULL);
   pthread_barrier_wait(&bar);    /* main-wait */
   pthread_join(w, NULL);
   return 0;
}
EOF
cat > "$TMP/c11abba.c" <<'EOF'
#include <pthread.h>
#include <threads.h>
mtx_t a, b;
pthread_barrier_t both;
int one(void *x) { mtx_lock(&a); pthread_barrier_wait(&both); mtx_lock(&b); return 0; }
int two(void *x) { mtx_lock(&b); pthread_barrier_wait(&both); mtx_lock(&a); return 0; }
int main(void)
{
   thrd_t t1, t2;
   mtx_init(&a, mtx_plain);
   mtx_init(&b, mtx_plain);
   pthread_barrier_init(&both, NULL, 2);
   thrd_create(&t1, one, NULL);
   thrd_create(&t2, two, NULL);
   thrd_join(t1, NULL);
   thrd_join(t2, NULL);
   return 0;
}
EOF
cat > "$TMP/relock.c" <<'EOF'
#include <pthread.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int main(void)
{
   pthread_mutex_lock(&m);        /* first */
   pthread_mutex_lock(&m);        /* again */
   return 0;
}
EOF
cat > "$TMP/lastexit.c" <<'EOF'
#include <pthread.h>
#include <unistd.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
void *waiter(void *x) { pthread_mutex_lock(&m); pthread_cond_wait(&c, &m); return x; }
void *quitter(void *x) { usleep(300000); return x; }  /* the last one running */
int main(void)
{
   pthread_t w, q;
   pthread_create(&w, NULL, waiter, NULL);
   pthread_create(&q, NULL, quitter, NULL);
   pthread_join(w, NULL);
   return 0;
}
EOF
# Correct twins.
cat > "$TMP/errcheck.c" <<'EOF'
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
pthread_mutex_t m = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
int main(void)
{
   pthread_mutex_lock(&m);
   printf("again: %d\n", pthread_mutex_lock(&m) != 0);  /* EDEADLK */
   return 0;
}
EOF
cat > "$TMP/joindetached.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
void *worker(void *x) { pthread_mutex_lock(&m); pthread_mutex_unlock(&m); return x; }
int main(void)
{
   pthread_t w;
   pthread_mutex_lock(&m);
   pthread_create(&w, NULL, worker, NULL);  /* it waits for main's lock */
   pthread_detach(w);
   usleep(200000);
   printf("join fails: %d\n", pthread_join(w, NULL) != 0);  /* EINVAL */
   pthread_mutex_unlock(&m);
   usleep(100000);
   return 0;
}
EOF
cat > "$TMP/crashwait.c" <<'EOF'
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
void *waiter(void *x) { pthread_mutex_lock(&m); pthread_cond_wait(&c, &m); return x; }
void *crasher(void *x) { usleep(300000); abort(); }
int main(void)
{
   pthread_t w1, w2, k;
   pthread_create(&w1, NULL, waiter, NULL);
   pthread_create(&w2, NULL, waiter, NULL);
   pthread_create(&k, NULL, crasher, NULL);
   pthread_join(w1, NULL);
   return 0;
}
EOF
cat > "$TMP/cancelwait.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
int jobs, cleanups;
void undo(void *x) { cleanups++; pthread_mutex_unlock(x); }
void *worker(void *x)
{
   pthread_mutex_lock(&m);
   pthread_cleanup_push(undo, &m);
   for (;;) {
      while (jobs == 0)
         pthread_cond_wait(&c, &m);
      jobs--;
   }
   pthread_cleanup_pop(1);
   return x;
}
int main(void)
{
   pthread_t w[2];
   for (int i = 0; i < 2; i++)
      pthread_create(&w[i], NULL, worker, NULL);
   pthread_mutex_lock(&m);
   jobs = 3;
   pthread_cond_broadcast(&c);
   pthread_mutex_unlock(&m);
   for (int i = 0; i < 2; i++) {  /* shut down: the workers are cancelled */
      pthread_cancel(w[i]);
      pthread_join(w[i], NULL);
   }
   printf("cleanups: %d\n", cleanups);
   return 0;
}
EOF
cat > "$TMP/exitwait.c" <<'EOF'
#include <pthread.h>
#include <unistd.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
void *waiter(void *x) { pthread_mutex_lock(&m); pthread_cond_wait(&c, &m); return x; }
int main(void)
{
   pthread_t w[3];
   for (int i = 0; i < 3; i++)
      pthread_create(&w[i], NULL, waiter, NULL);
   usleep(200000);
   return 0;                      /* the waiters end with the process */
}
EOF
cat > "$TMP/timedwait.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <time.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
void *waiter(void *x)
{
   struct timespec ts;
   clock_gettime(CLOCK_REALTIME, &ts);
   ts.tv_sec += 1;
   pthread_mutex_lock(&m);
   int r = pthread_cond_timedwait(&ready, &m, &ts);  /* nobody signals */
   pthread_mutex_unlock(&m);
   printf("timed out: %d\n", r != 0);
   return x;
}
int main(void)
{
   pthread_t w;
   pthread_create(&w, NULL, waiter, NULL);
   pthread_join(w, NULL);
   return 0;
}
EOF
cat > "$TMP/piperead.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
int fds[2];
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
void *reader(void *x)
{
   char c = '?';
   pthread_mutex_lock(&m);
   if (read(fds[0], &c, 1) != 1)  /* blocks until main writes */
      c = '?';
   pthread_mutex_unlock(&m);
   printf("read %c\n", c);
   return x;
}
void *locker(void *x)
{
   usleep(50000);
   pthread_mutex_lock(&m);        /* waits for the reader */
   pthread_mutex_unlock(&m);
   return x;
}
int main(void)
{
   pthread_t r, l;
   if (pipe(fds) != 0)
      return 2;
   pthread_create(&r, NULL, reader, NULL);
   pthread_create(&l, NULL, locker, NULL);
   usleep(300000);
   if (write(fds[1], "x", 1) != 1)
      return 2;
   pthread_join(r, NULL);
   pthread_join(l, NULL);
   return 0;
}
EOF
cat > "$TMP/sighandler.c" <<'EOF'
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
sem_t s;
void on_alarm(int sig) { (void)sig; sem_post(&s); }
int main(void)
{
   struct sigaction sa = {0};
   sa.sa_handler = on_alarm;
   sigaction(SIGALRM, &sa, NULL);
   sem_init(&s, 0, 0);
   alarm(1);
   while (sem_wait(&s) != 0)      /* the only thread waits: the handler posts */
      ;
   puts("posted");
   return 0;
}
EOF
cat > "$TMP/recursive.c" <<'EOF'
#include <pthread.h>
#include <unistd.h>
pthread_mutex_t m;
void *other(void *x) { usleep(50000); pthread_mutex_lock(&m); pthread_mutex_unlock(&m); return x; }
int main(void)
{
   pthread_mutexattr_t at;
   pthread_t o;
   pthread_mutexattr_init(&at);
   pthread_mutexattr_settype(&at, PTHREAD_MUTEX_RECURSIVE);
   pthread_mutex_init(&m, &at);
   pthread_mutex_lock(&m);
   pthread_create(&o, NULL, other, NULL);
   usleep(200000);
   pthread_mutex_lock(&m);        /* again, while the other thread waits */
   pthread_mutex_unlock(&m);
   pthread_mutex_unlock(&m);
   pthread_join(o, NULL);
   return 0;
}
EOF
cat > "$TMP/prodcons.c" <<'EOF'
#include <pthread.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
int full;
void *consumer(void *x)
{
   for (int i = 0; i < 2000; i++) {
      pthread_mutex_lock(&m);
      while (!full)
         pthread_cond_wait(&c, &m);
      full = 0;
      pthread_cond_signal(&c);
      pthread_mutex_unlock(&m);
   }
   return x;
}
int main(void)
{
   pthread_t t;
   pthread_create(&t, NULL, consumer, NULL);
   for (int i = 0; i < 2000; i++) {
      pthread_mutex_lock(&m);
      while (full)
         pthread_cond_wait(&c, &m);
      full = 1;
      pthread_cond_signal(&c);
      pthread_mutex_unlock(&m);
   }
   pthread_join(t, NULL);
   return 0;
}
EOF
cat > "$TMP/handoff.c" <<'EOF'
/* Undefined by POSIX, but glibc's default mutex allows it. */
#include <pthread.h>
#include <unistd.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
void *worker(void *x)
{
   usleep(100000);
   pthread_mutex_unlock(&m);      /* main's lock, handed over */
   pthread_mutex_lock(&m);        /* while main waits to join this thread */
   pthread_mutex_unlock(&m);
   return x;
}
int main(void)
{
   pthread_t w;
   pthread_mutex_lock(&m);
   pthread_create(&w, NULL, worker, NULL);
   pthread_join(w, NULL);
   return 0;
}
EOF
cat > "$TMP/readers.c" <<'EOF'
#include <pthread.h>
pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
pthread_barrier_t all;
void *reader(void *x)
{
   pthread_rwlock_rdlock(&rw);
   pthread_barrier_wait(&all);
   pthread_rwlock_rdlock(&rw);    /* the other reader holds it too */
   pthread_rwlock_unlock(&rw);
   pthread_rwlock_unlock(&rw);
   return x;
}
int main(void)
{
   pthread_t r1, r2;
   pthread_barrier_init(&all, NULL, 2);
   pthread_create(&r1, NULL, reader, NULL);
   pthread_create(&r2, NULL, reader, NULL);
   pthread_join(r1, NULL);
   pthread_join(r2, NULL);
   return 0;
}
EOF
cat > "$TMP/leaked.c" <<'EOF'
#include <pthread.h>
#include <unistd.h>
pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
int rows = -1;
void *loader(void *x)
{
   pthread_mutex_lock(&table_lock);  /* loader-lock */
   if (rows < 0)
      return NULL;                   /* the error path forgets to unlock */
   rows++;
   pthread_mutex_unlock(&table_lock);
   return x;
}
void *reader(void *x)
{
   usleep(100000);                   /* the loader has come and gone */
   pthread_mutex_lock(&table_lock);  /* reader-lock */
   pthread_mutex_unlock(&table_lock);
   return x;
}
int main(void)
{
   pthread_t l, r;
   pthread_create(&l, NULL, loader, NULL);
   pthread_create(&r, NULL, reader, NULL);
   pthread_join(l, NULL);
   pthread_join(r, NULL);             /* main-join */
   return 0;
}
EOF
cat > "$TMP/robust.c" <<'EOF'
#include <errno.h>
#include <pthread.h>
#include <unistd.h>
pthread_mutex_t m;
void *dies(void *x)
{
   pthread_mutex_lock(&m);
   return x;                          /* ends holding it */
}
void *heir(void *x)
{
   usleep(100000);
   if (pthread_mutex_lock(&m) == EOWNERDEAD)
      pthread_mutex_consistent(&m);
   pthread_mutex_unlock(&m);
   return x;
}
int main(void)
{
   pthread_mutexattr_t a;
   pthread_mutexattr_init(&a);
   pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
   pthread_mutex_init(&m, &a);
   pthread_t d, h;
   pthread_create(&d, NULL, dies, NULL);
   pthread_create(&h, NULL, heir, NULL);
   pthread_join(d, NULL);
   pthread_join(h, NULL);
   return 0;
}
EOF
cat > "$TMP/lastsignal.c" <<'EOF'
#include <pthread.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t space = PTHREAD_COND_INITIALIZER, avail = PTHREAD_COND_INITIALIZER;
int count = 1;
void *filler(void *x)
{
   pthread_mutex_lock(&m);
   while (count > 0)
      pthread_cond_wait(&space, &m);  /* filler-wait */
   count++;
   pthread_mutex_unlock(&m);
   pthread_cond_signal(&avail);
   return x;
}
void *taker(void *x)
{
   pthread_mutex_lock(&m);
   while (count == 0)
      pthread_cond_wait(&avail, &m);
   /* forgets count-- */
   pthread_mutex_unlock(&m);
   pthread_cond_signal(&space);       /* its last act before it ends */
   return x;
}
int main(void)
{
   pthread_t f, t;
   pthread_create(&f, NULL, filler, NULL);
   pthread_create(&t, NULL, taker, NULL);
   pthread_join(f, NULL);
   pthread_join(t, NULL);
   return 0;
}
EOF
for p in abba joincycle lostsignal semzero barrier3 c11abba relock lastexit \
         timedwait piperead sighandler recursive prodcons handoff readers \
         errcheck joindetached crashwait exitwait leaked robust lastsignal \
         cancelwait; do
   cc -g -O0 -pthread -o "$TMP/$p" "$TMP/$p.c" || echo "Bail out! $p.c does not build"
done
cc -g -O2 -pthread -o "$TMP/wrongwake" "$TMP/wrongwake.c" || echo "Bail out! wrongwake.c does not build"
cc -g -O2 -pthread -DBROADCAST -o "$TMP/wakeall" "$TMP/wrongwake.c" || echo "Bail out! wakeall does not build"
line_of() { grep -n "/\* $2 \*/" "$TMP/$1.c" | cut -d: -f1; }

# record P: records $TMP/P; sets RC, ERR (stderr), OUT (stdout).
record() {
   RC=0
   timeout -k 5 120 cbtrace record -o "$TMP/$1.pb" -- "$TMP/$1" \
      >"$TMP/$1.out" 2>"$TMP/$1.err" || RC=$?
   ERR=$(cat "$TMP/$1.err")
   OUT=$(cat "$TMP/$1.out")
}

# ---- record: deadlocks end at once, and say who waits for what
record abba
is "$RC" 6 "abba: cbtrace record ends the deadlock, exit 6"
# The recording ends when the cycle closes (cb_lock_cycle_check): main is
# named, as joining, when it had begun to wait by then.
like "$(printf '%s\n' "$ERR" | tail -n 1)" \
   "^cbtrace: the program deadlocked: (T1 waits to join T2 at abba\.c:$(line_of abba main-join); )?T2 waits for lock b at abba\.c:$(line_of abba one-b), held by T3 \(taken at abba\.c:$(line_of abba two-b)\); T3 waits for lock a at abba\.c:$(line_of abba two-a), held by T2 \(taken at abba\.c:$(line_of abba one-a)\)$" \
   "abba: each thread, the lock it waits for, who holds it, where each call is"
cbtrace dump --header "$TMP/abba.pb" >"$TMP/abba.dump" 2>"$TMP/abba.dump.err"
is "$?" 0 "abba: the trace is whole (cbtrace dump exits 0)"
like "$(grep -c '^# deadlock: T[0-9] waits' "$TMP/abba.dump")" "^[23]$" \
   "abba: the trace keeps the deadlock (dump --header)"
like "$(grep '^# footer' "$TMP/abba.dump")" "exit status 0, signal 0, tool ended: yes" \
     "abba: the footer says the tool ended the run, with no status of the program's"
like "$(cbtrace stats "$TMP/abba.pb")" "^deadlocked: (T1 waits to join T2[^;]*; )?T2 waits for lock b" "abba: stats says so"
cbpredict -o "$TMP/abba.s" "$TMP/abba.pb" >"$TMP/abba.predict" 2>&1
is "$?" 0 "abba: cbpredict predicts from the trace of a deadlocked run"

record joincycle
is "$RC" 6 "join cycle: exit 6"
like "$ERR" "T2 waits to join T3 at joincycle.c:4; T3 waits to join T2 at joincycle.c:5$" \
     "join cycle: each thread waits to join the other"
record lostsignal
is "$RC" 6 "cond wait after the only signal: exit 6"
like "$ERR" "T1 waits to join T2 at lostsignal.c:[0-9]+; T2 waits for condition ready at lostsignal.c:$(line_of lostsignal wait), with no signal on its way$" \
     "cond wait after the only signal: the condition by name, no signal on its way"
record wrongwake
is "$RC" 6 "a signal that woke the wrong waiter: exit 6, not a hang"
like "$ERR" "T1 waits for condition cv at wrongwake.c:$(line_of wrongwake main-wait), with no signal on its way; T[23] waits for condition cv at wrongwake.c:$(line_of wrongwake consumer-wait), with no signal on its way$" \
     "a signal that woke the wrong waiter: main and the consumer it woke wait, the wake spent"
record wakeall
is "$RC" 0 "its twin that broadcasts ends (exit 0)"
record leaked
is "$RC" 6 "a lock its holder ended without releasing: exit 6"
like "$ERR" "T3 waits for lock table_lock at leaked\.c:$(line_of leaked reader-lock), held by T2, which ended without releasing it \(taken at leaked\.c:$(line_of leaked loader-lock)\)$" \
     "a lock its holder ended without releasing: who took it, and that it ended"
record robust
is "$RC" 0 "twin: a robust mutex whose holder died is taken by the next locker (no deadlock)"
# Recording announces a lock wait only when the call blocks, which this
# one never does; replay announces it before the call, where only the
# mutex's robustness (CB_WAIT_ROBUST) tells it from a lock left held.
"$MK" -o "$TMP/robust.pb" --program "$TMP/robust"
out=$(cbreplay --timeout 60 --schedule "$TMP/robust.pb" -- "$TMP/robust" 2>&1); rc=$?
is "$rc" 0 "twin in replay: a robust mutex whose holder died is no deadlock (exit 0)"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /' | head -12
# Whichever thread waits last, the signal it needed was sent before its
# wait began: the run ends at once instead of waiting for the timeout.
record lastsignal
is "$RC" 6 "a signal sent just before its thread ended, before the wait: exit 6"
like "$ERR" "waits for condition (space|avail) at lastsignal\.c:[0-9]+, with no signal on its way" \
     "a signal sent just before its thread ended: the wait it missed"
record semzero
is "$RC" 6 "a semaphore nobody posts: exit 6"
like "$ERR" "T2 waits for semaphore s at semzero.c:4, whose count is 0$" \
     "a semaphore nobody posts: its count is 0"
record barrier3
is "$RC" 6 "a barrier short of a thread: exit 6"
like "$ERR" "T1 waits at barrier bar at barrier3.c:$(line_of barrier3 main-wait), where 2 of 3 threads arrived; T2 waits at barrier bar at barrier3.c:3" \
     "a barrier short of a thread: 2 of 3 arrived"
record c11abba
is "$RC" 6 "C11 mutexes in opposite orders: exit 6"
like "$ERR" "T2 waits for lock b at c11abba.c:5, held by T3 \(taken at c11abba.c:6\); T3 waits for lock a at c11abba.c:6, held by T2 \(taken at c11abba.c:5\)$" \
     "C11 mutexes: the same detail"

record relock
is "$RC" 6 "a normal mutex locked again by its owner: exit 6"
like "$ERR" "T1 waits for lock m at relock.c:$(line_of relock again), held by T1 \(taken at relock.c:$(line_of relock first)\)$" \
     "a normal mutex locked again: held by the waiting thread itself"
record lastexit
is "$RC" 6 "the last running thread exits, the others wait: exit 6"
like "$ERR" "T1 waits to join T2 at lastexit.c:[0-9]+; T2 waits for condition c at lastexit.c:5" \
     "the last running thread exits: the two left waiting"

# ---- record: correct programs that only look stuck for a while
for p in timedwait piperead sighandler recursive prodcons handoff readers \
         errcheck joindetached exitwait cancelwait; do
   record $p
   is "$RC" 0 "$p: correct, recorded to its end (exit 0)"
   unlike "$ERR" "deadlock" "$p: not called a deadlock"
done
is "$(cat "$TMP/timedwait.out")" "timed out: 1" "timedwait: the wait timed out"
is "$(cat "$TMP/piperead.out")" "read x" "piperead: the reader got main's byte"
is "$(cat "$TMP/sighandler.out")" "posted" "sighandler: the handler's post ended the wait"
is "$(cat "$TMP/errcheck.out")" "again: 1" "errcheck: the second lock failed, it did not block"
is "$(cat "$TMP/joindetached.out")" "join fails: 1" "joindetached: the join failed, it did not wait"
is "$(cat "$TMP/cancelwait.out")" "cleanups: 2" "cancelwait: main cancelled and joined both waiting workers"
record crashwait
is "$RC" 134 "a crash while other threads wait: the crash (exit 134)"
unlike "$ERR" "deadlock" "a crash while other threads wait: not called a deadlock"

# ---- the raw stream: BLOCKED records become the footer's deadlock
raw H L 1 0x401000 12 /bin/p f p.c L 2 0x401100 20 /bin/p g p.c \
    S 0x601040 40 m V 3 0 3 2 0x601040 0 \
    V 245 1 2 1 0x601040 $((3 | 2 << 32)) V 245 4 1 2 0 2 E >"$TMP/dl.raw"
cbtrace encode -o "$TMP/dl.pb" "$TMP/dl.raw" 2>"$TMP/enc.err"
is "$?" 0 "encode: a raw stream with BLOCKED records is whole"
is "$(cbtrace dump --header "$TMP/dl.pb" | grep '^# deadlock')" \
   "# deadlock: T2 waits for lock m at p.c:12, held by T3, which ended without releasing it (taken at p.c:20)
# deadlock: T1 waits to join T2 at p.c:20" "encode: the deadlock, as the tool said it (T3, not among the live threads, ended)"
raw H V 245 0 2 0 0 0 E >"$TMP/bad.raw"
cbtrace encode -o "$TMP/bad.pb" "$TMP/bad.raw" 2>"$TMP/enc.err"
is "$?" 3 "encode: a BLOCKED record of no wait kind breaks the stream (exit 3)"
like "$(cat "$TMP/enc.err")" "a BLOCKED record of kind 0 for thread 2" "encode: and says so"

# ---- replay: the forced run deadlocks, and ends at once
"$MK" -o "$TMP/empty-abba.pb" --program "$TMP/abba"
out=$(cbreplay --timeout 60 --schedule "$TMP/empty-abba.pb" -- "$TMP/abba" 2>&1)
is "$?" 6 "replay of abba: deadlock, exit 6 (not hung after --timeout 60)"
like "$out" "^s[0-9]+ .* deadlock " "replay: the verdict in the table"
like "$out" "^    T2 waits for lock b at abba.c:$(line_of abba one-b), held by T3 \(taken at abba.c:$(line_of abba two-b)\)$" \
     "replay: the report names the thread, the lock, its holder, both lines"
like "$out" "^    T1 waits to join T2 at abba.c:$(line_of abba main-join)$" \
     "replay: and the joining thread"
if perl -MJSON::PP -e 1 2>/dev/null; then
   got=$(cbreplay --json --schedule "$TMP/empty-abba.pb" -- "$TMP/abba" 2>/dev/null |
         perl -MJSON::PP -e 'local $/; my $r = decode_json(<STDIN>)->{runs}[0];
            print join(",", $r->{verdict}, scalar @{$r->{deadlock}},
                       map { "T$_->{tid}:$_->{waits_for}:$_->{object}:T$_->{holder}" }
                       @{$r->{deadlock}})')
   is "$got" "deadlock,3,T1:join::T2,T2:lock:b:T3,T3:lock:a:T2" "replay: --json, thread by thread"
fi
for p in piperead timedwait; do
   "$MK" -o "$TMP/empty-$p.pb" --program "$TMP/$p"
   cbreplay --timeout 60 --schedule "$TMP/empty-$p.pb" -- "$TMP/$p" >"$TMP/$p.replay" 2>&1
   is "$?" 0 "replay of $p: passed, no deadlock"
done
# The plan holds handoff's worker (T2) back for a turn of a thread that
# never comes, while main may go as far as its join: main waits for T2,
# T2 waits for its turn, which is the tool's doing, not the program's.  The
# stall limit releases T2 and the run ends; the plan was not followed.
"$MK" -o "$TMP/held.pb" --program "$TMP/handoff" --prefix 2,0 --tail 9:1
out=$(cbreplay --stall-ms 500 --timeout 60 --schedule "$TMP/held.pb" -- "$TMP/handoff" 2>&1)
is "$?" 3 "a thread held back by the plan is no deadlock: infeasible, exit 3"
like "$out" "^s[0-9]+ .* infeasible " "held back by the plan: infeasible in the table, not deadlock"
# Why it stalled: whose turn it was, and what the program's own threads
# waited for.
like "$out" "infeasible: stalled: no scheduled progress \(T9's turn, step 1 of 1\)" \
   "held back by the plan: the report says whose turn it was"
# A thread the program blocks behind one the plan holds: main holds m
# (held by the plan after its lock and create), the worker's turn is its
# lock of m.  The report names the wait, the lock and its holder.
cat > "$TMP/behind.c" <<'EOF'
#include <pthread.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
void *worker(void *x)
{
   pthread_mutex_lock(&m);        /* behind-wait */
   pthread_mutex_unlock(&m);
   return x;
}
int main(void)
{
   pthread_t w;
   pthread_mutex_lock(&m);        /* behind-hold */
   pthread_create(&w, NULL, worker, NULL);
   pthread_mutex_unlock(&m);
   pthread_join(w, NULL);
   return 0;
}
EOF
cc -g -O0 -pthread -o "$TMP/behind" "$TMP/behind.c"
"$MK" -o "$TMP/behind.pb" --program "$TMP/behind" --prefix 2,0 --tail 2:1
out=$(cbreplay --stall-ms 500 --timeout 60 --schedule "$TMP/behind.pb" -- "$TMP/behind" 2>&1)
is "$?" 3 "a thread blocked behind one the plan holds: infeasible, exit 3"
like "$out" "infeasible: stalled: no scheduled progress \(T2's turn, step 1 of 1\)" \
   "blocked behind a held thread: whose turn it was"
like "$out" "^    T2 waits for lock m at behind\.c:$(grep -n behind-wait "$TMP/behind.c" | cut -d: -f1), held by T1 \(taken at behind\.c:$(grep -n behind-hold "$TMP/behind.c" | cut -d: -f1)\)$" \
   "blocked behind a held thread: what it waited for, and who held it"

# A lock-order deadlock while another thread goes on (a ticker waking every
# 100 ms for a minute): not every thread waits, but the two in the cycle
# never will move again.  The recording ends at once with the cycle; on
# the build before it ran until the ticker's minute was over (or cbtest's
# --record-timeout).
cat >"$TMP/ticking.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;
static volatile int stop;
static void *ticker(void *arg)
{
   (void)arg;
   for (int i = 0; i < 600 && !stop; i++)
      usleep(100000);
   return NULL;
}
static void *ab(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&a);
   pthread_barrier_wait(&both);
   pthread_mutex_lock(&b);        /* ab-wait */
   pthread_mutex_unlock(&b);
   pthread_mutex_unlock(&a);
   return NULL;
}
static void *ba(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&b);
   pthread_barrier_wait(&both);
   pthread_mutex_lock(&a);        /* ba-wait */
   pthread_mutex_unlock(&a);
   pthread_mutex_unlock(&b);
   return NULL;
}
int main(void)
{
   pthread_t k, x, y;
   pthread_barrier_init(&both, NULL, 2);
   pthread_create(&k, NULL, ticker, NULL);
   pthread_create(&x, NULL, ab, NULL);
   pthread_create(&y, NULL, ba, NULL);
   pthread_join(x, NULL);
   pthread_join(y, NULL);
   stop = 1;
   pthread_join(k, NULL);
   puts("done");
   return 0;
}
EOF
cc -g -O2 -pthread -o "$TMP/ticking" "$TMP/ticking.c"
start=$(date +%s)
out=$(timeout 120 cbtrace record -o "$TMP/ticking.pb" -- "$TMP/ticking" 2>&1)
rc=$?
took=$(( $(date +%s) - start ))
is "$rc" 6 "a lock cycle beside a running ticker: the recording ends as a deadlock (exit 6)"
ok "a lock cycle beside a running ticker: ended before the ticker's minute (${took} s)" [ "$took" -lt 50 ]
like "$out" "the program deadlocked: (T1 waits to join T3 at ticking\.c:[0-9]+; )?T3 waits for lock b at ticking\.c:$(grep -n ab-wait "$TMP/ticking.c" | cut -d: -f1), held by T4.*T4 waits for lock a at ticking\.c:$(grep -n ba-wait "$TMP/ticking.c" | cut -d: -f1), held by T3" \
   "a lock cycle beside a running ticker: the two threads of the cycle, each lock's holder"
unlike "$out" "T2 waits" "the ticker, which runs, is not in the cycle"

done_testing
