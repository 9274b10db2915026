/* devstop.c: a device whose stop routine races with a new I/O request;
 * the device's state is a local of main, handed to the stopper thread.
 *
 * main keeps the device state in a local and passes its address to the
 * thread that stops the device, as drivers and their tests do.  An I/O
 * request first checks the stopping flag and then counts itself in the
 * pending I/O under the lock; the stopper sets the flag, drops the
 * device's own reference and waits for the pending count to reach zero
 * before it declares the device stopped.  The check and the count are not
 * one step: if the stopper runs between them, it sees no pending I/O,
 * declares the device stopped, and the request then runs on a stopped
 * device (its check of `stopped` fails, the run aborts).
 *
 * The request arrives a moment after the stopper starts, so in the
 * recorded run the stopper runs first and the request sees the flag set.  Forcing the request's check of the flag (f) before the
 * stopper sets it (e1 = e2: it ran first in the recorded run), and the
 * stopper on to the end, makes the request find the device stopped every
 * time.  main's accesses to its own local count from the create on, in
 * the recorded run and in the forced one alike.
 *
 * cbtools-expect: bug ORD dev.stopping
 * cbtools-threads: 2
 * cbtools-blocks: stopper
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct device {
   int pending_io;
   bool stopping;
   bool idle;
};

static bool stopped;
static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;

static int io_begin(struct device *dev)
{
   if (dev->stopping)                       // cb: read dev.stopping [f]
      return -1;
   pthread_mutex_lock(&dev_lock);
   dev->pending_io++;
   pthread_mutex_unlock(&dev_lock);
   return 0;
}

static void io_end(struct device *dev)
{
   pthread_mutex_lock(&dev_lock);
   int left = --dev->pending_io;
   pthread_mutex_unlock(&dev_lock);
   if (left == 0)
      dev->idle = true;
}

static void *stopper(void *arg)
{
   struct device *dev = arg;
   dev->stopping = true;                    // cb: write dev.stopping [e1 e2]
   io_end(dev);                             /* the device's own reference */
   while (!__atomic_load_n(&dev->idle, __ATOMIC_ACQUIRE))
      ;
   stopped = true;
   return NULL;
}

int main(void)
{
   struct device dev = { .pending_io = 1 };
   pthread_t t;
   pthread_create(&t, NULL, stopper, &dev);
   usleep(20000);                           /* a request arrives a moment later */
   if (io_begin(&dev) == 0) {
      if (stopped) {
         fprintf(stderr, "devstop: I/O started on a stopped device\n");
         abort();
      }
      io_end(&dev);
   }
   pthread_join(t, NULL);
   return 0;
}
