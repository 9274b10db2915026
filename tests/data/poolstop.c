/* poolstop.c: a thread pool whose shutdown flag is cleared without the
 * pool's mutex.  A worker that has just found `running` set and the queue
 * empty, and is about to wait, misses the broadcast: shutdown waits for
 * it for two seconds and gives up (exit 1).  -DFIXED: the flag is
 * cleared under the mutex.  Test 49-held-rank: the lost wake-up's order
 * violation, whose forced read sees the flag set as every round did,
 * ranks first (predict/rank_seen.c). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define WORKERS 3
#define JOBS 24
#define QCAP 32

static struct {
    pthread_mutex_t lock;
    pthread_cond_t work, gone;
    int queue[QCAP];
    int head, count, running, left;
    long sum;
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
          PTHREAD_COND_INITIALIZER, {0}, 0, 0, 1, 0, 0};

static long crunch(int n)
{
    long x = n;
    for (int i = 0; i < 50; i++)
        x = (x * 7 + 3) % 1009;
    return x;
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        while (pool.count == 0 && pool.running)
            pthread_cond_wait(&pool.work, &pool.lock);
        if (pool.count == 0)
            break;
        int job = pool.queue[pool.head];
        pool.head = (pool.head + 1) % QCAP;
        pool.count--;
        pthread_mutex_unlock(&pool.lock);
        long r = crunch(job);
        pthread_mutex_lock(&pool.lock);
        pool.sum += r;
    }
    pool.left++;
    pthread_cond_signal(&pool.gone);
    pthread_mutex_unlock(&pool.lock);
    return NULL;
}

static void submit(int job)
{
    pthread_mutex_lock(&pool.lock);
    pool.queue[(pool.head + pool.count) % QCAP] = job;
    pool.count++;
    pthread_cond_signal(&pool.work);
    pthread_mutex_unlock(&pool.lock);
}

static int shutdown_pool(void)
{
#ifdef FIXED
    pthread_mutex_lock(&pool.lock);
    pool.running = 0;
    pthread_mutex_unlock(&pool.lock);
#else
    pool.running = 0;
#endif
    pthread_cond_broadcast(&pool.work);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 2;
    int err = 0;
    pthread_mutex_lock(&pool.lock);
    while (pool.left < WORKERS && err != ETIMEDOUT)
        err = pthread_cond_timedwait(&pool.gone, &pool.lock, &until);
    int stuck = WORKERS - pool.left;
    pthread_mutex_unlock(&pool.lock);
    return stuck;
}

int main(void)
{
    pthread_t t[WORKERS];
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int j = 0; j < JOBS; j++)
        submit(j);
    int stuck = shutdown_pool();
    if (stuck) {
        fprintf(stderr, "poolstop: %d workers missed the shutdown\n", stuck);
        return 1;
    }
    for (int i = 0; i < WORKERS; i++)
        pthread_join(t[i], NULL);
    printf("poolstop: sum %ld\n", pool.sum);
    return 0;
}
