/* napflag.c: a correct hand-off.  A probe thread naps (the measurement),
 * fills a sample and only then raises a flag with a release store; the
 * logger spins on an acquire load, yielding, then checks the sample.  The
 * program never fails.  Its forced runs once did, of SIGSEGV at address 0
 * (test 47-replay-precise): the probe held at the call after its nap, a
 * gate's retry with %rsp 8 bytes off (trace/launch.c). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct sample {
    char name[8];
    int value;
    unsigned sum;
};

static struct sample slot;
static atomic_int published;

static unsigned sum_of(const struct sample *s)
{
    unsigned h = 5;
    for (const char *p = s->name; *p; p++)
        h = h * 33 + (unsigned char)*p;
    return h * 33 + (unsigned)s->value;
}

static void *probe(void *arg)
{
    (void)arg;
    usleep(2000);
    strcpy(slot.name, "temp");
    slot.value = 215;
    slot.sum = sum_of(&slot);
    atomic_store_explicit(&published, 1, memory_order_release);
    return NULL;
}

static void *logger(void *arg)
{
    int *bad = arg;
    while (!atomic_load_explicit(&published, memory_order_acquire))
        sched_yield();
    struct sample s = slot;
    if (s.sum != sum_of(&s) || s.name[0] == '\0') {
        *bad = 1;
        return NULL;
    }
    printf("%s %d\n", s.name, s.value);
    return NULL;
}

int main(void)
{
    pthread_t p, l;
    int bad = 0;
    pthread_create(&l, NULL, logger, &bad);
    pthread_create(&p, NULL, probe, NULL);
    pthread_join(p, NULL);
    pthread_join(l, NULL);
    if (bad) {
        fprintf(stderr, "napflag: the logger read a sample not filled in\n");
        return 1;
    }
    return 0;
}
