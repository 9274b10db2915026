/* spooljob.c: a print spooler.  main submits jobs to a queue that a
 * printer thread drains; the printer refuses a job without copies.  The
 * bug: main fills in a job's copy count after submitting it, so the
 * printer can take the job first and find none.  With -DFIXED the count
 * is set before the job is queued; with -DASSERT the printer asserts
 * instead of exiting 1. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NJOBS 6

struct job {
    int id;
    int copies;
    struct job *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
static struct job *head, *tail;
static int pages;

static void submit(struct job *j)
{
    pthread_mutex_lock(&lock);
    j->next = NULL;
    if (tail)
        tail->next = j;
    else
        head = j;
    tail = j;
    pthread_cond_signal(&ready);
    pthread_mutex_unlock(&lock);
}

static struct job *take(void)
{
    pthread_mutex_lock(&lock);
    while (!head)
        pthread_cond_wait(&ready, &lock);
    struct job *j = head;
    head = j->next;
    if (!head)
        tail = NULL;
    pthread_mutex_unlock(&lock);
    return j;
}

static void *printer(void *arg)
{
    (void)arg;
    for (int n = 0; n < NJOBS; n++) {
        struct job *j = take();
#ifdef ASSERT
        assert(j->copies >= 1);
#else
        if (j->copies < 1) {
            fprintf(stderr, "spooljob: job %d has no copies\n", j->id);
            exit(1);
        }
#endif
        pages += j->copies;
        free(j);
    }
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, printer, NULL);
    for (int i = 0; i < NJOBS; i++) {
        struct job *j = calloc(1, sizeof *j);
        if (!j)
            abort();
        j->id = i;
#ifdef FIXED
        j->copies = 1 + i % 3;
        submit(j);
#else
        submit(j);
        j->copies = 1 + i % 3;
#endif
    }
    pthread_join(t, NULL);
    printf("spooljob: %d jobs, %d pages\n", NJOBS, pages);
    return 0;
}
