/* napcount.c: the textbook race, as course notes and blog posts write it:
 * four workers copy a shared counter, nap, and store the copy plus one.
 * The nap hands the CPU to another worker, so under Valgrind's scheduler
 * every run loses updates (test 68-cbtest-failed-each): a test that fails
 * in each recorded run, which cbtest predicts from the last of them.  The
 * log count beside it is kept under its mutex: its two critical sections a
 * round apart also let another worker in, and are not the bug.  -DFIXED:
 * the copy, nap and store under the mutex too.  -DMISCOUNT: the test
 * expects one update too many, so it fails in every run for a reason of
 * its own (with -DFIXED: no race to blame). */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define WORKERS 4
#define ROUNDS 5
#ifdef MISCOUNT
#define EXPECTED (WORKERS * ROUNDS + 1)
#else
#define EXPECTED (WORKERS * ROUNDS)
#endif

static int counter;
static int log_lines;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
#ifdef FIXED
        pthread_mutex_lock(&lock);
#endif
        int tmp = counter;
        usleep(50);
        counter = tmp + 1;
#ifdef FIXED
        pthread_mutex_unlock(&lock);
#endif
        pthread_mutex_lock(&lock);
        log_lines++;
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(void)
{
    pthread_t th[WORKERS];
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&th[i], NULL, worker, NULL);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(th[i], NULL);
    if (counter != EXPECTED) {
        fprintf(stderr, "napcount: lost updates: counter is %d, expected %d\n",
                counter, EXPECTED);
        return 1;
    }
    printf("napcount: %d updates, %d log lines\n", counter, log_lines);
    return 0;
}
