/* devstop_fixed.c: the device of devstop.c, whose I/O request checks the
 * stopping flag under the lock it counts itself under: the correct twin.
 *
 * The stopper sets the flag under the same lock, so a request either sees
 * the flag set, or has counted itself in the pending I/O before the
 * stopper drops the device's own reference; then the stopper waits for
 * the request to end before it declares the device stopped.  No forced
 * run may find the device stopped under a running request.
 *
 * cbtools-expect: correct
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
   pthread_mutex_lock(&dev_lock);
   if (dev->stopping) {                     // cb: read dev.stopping
      pthread_mutex_unlock(&dev_lock);
      return -1;
   }
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
   pthread_mutex_lock(&dev_lock);
   dev->stopping = true;                    // cb: write dev.stopping
   pthread_mutex_unlock(&dev_lock);
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
         fprintf(stderr, "devstop_fixed: I/O started on a stopped device\n");
         abort();
      }
      io_end(&dev);
   }
   pthread_join(t, NULL);
   return 0;
}
