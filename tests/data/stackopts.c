/* stackopts.c: main hands a worker the address of its options, a struct
 * on main's stack, and fills in the scale factor only after
 * pthread_create (the options come from a slow config lookup): the
 * worker may read the factor before it is set.  An order violation on a
 * field past the struct's first word.  -DFIXED sets every option before
 * the create.  Built by tests/t/49-stack-arg.t.  GPL-2.0-or-later. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define N 64

struct opts {
    int rows, cols;
    const int *in;
    long *out;
    int scale;                  /* multiplier, from the config */
    int bias;
};

static int input[N];
static long output[N];

static int config_int(const char *cfg, const char *key)
{
    const char *p = strstr(cfg, key);
    int v = 0;
    if (p)
        for (p += strlen(key); *p >= '0' && *p <= '9'; p++)
            v = v * 10 + (*p - '0');
    return v;
}

static void *worker(void *arg)
{
    const struct opts *o = arg;
    int scale = o->scale, bias = o->bias;
    for (int i = 0; i < o->rows * o->cols; i++)
        output[i] = (long)o->in[i] * scale + bias;
    return NULL;
}

int main(void)
{
    static const char cfg[] = "scale=3 bias=2";
    struct opts o;
    pthread_t t;
    for (int i = 0; i < N; i++)
        input[i] = i + 1;
    memset(&o, 0, sizeof o);
    o.rows = 8;
    o.cols = N / 8;
    o.in = input;
    o.out = output;
#ifdef FIXED
    o.scale = config_int(cfg, "scale=");
    o.bias = config_int(cfg, "bias=");
#endif
    if (pthread_create(&t, NULL, worker, &o) != 0)
        return 2;
#ifndef FIXED
    o.scale = config_int(cfg, "scale=");
    o.bias = config_int(cfg, "bias=");
#endif
    pthread_join(t, NULL);
    for (int i = 0; i < N; i++)
        if (output[i] != (long)input[i] * 3 + 2) {
            fprintf(stderr, "stackopts: output[%d] = %ld, want %ld\n", i, output[i],
                    (long)input[i] * 3 + 2);
            return 1;
        }
    printf("stackopts: ok\n");
    return 0;
}
