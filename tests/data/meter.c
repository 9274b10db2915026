/* A traffic meter: workers account each packet's bytes and count, and a
 * monitor checks that the bytes are always PKT times the packets.  Each
 * variable is always under the meter's lock, but account() takes the lock
 * twice, once for the bytes and once for the count: the monitor's check
 * can fall between the two and see bytes without their packet.  At -O2
 * account() is inlined into the start routine.
 * -DFIXED: one critical section for both.
 * -DSPLIT_READER: the workers update both in one section, and the
 * monitor reads the bytes in one section and the packets in the next (a
 * worker's update between them makes the pair inconsistent); with -DFIXED
 * too, it reads both in one section. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define WORKERS 2
#define PACKETS 400
#define CHECKS 300
#define PKT 64

static pthread_mutex_t meter_lock = PTHREAD_MUTEX_INITIALIZER;
static long bytes, packets;
static int done_workers, bad;

static void account(long n)
{
#if defined(FIXED) || defined(SPLIT_READER)
   pthread_mutex_lock(&meter_lock);
   bytes += n;
   packets++;
   pthread_mutex_unlock(&meter_lock);
#else
   pthread_mutex_lock(&meter_lock);
   bytes += n;
   pthread_mutex_unlock(&meter_lock);
   pthread_mutex_lock(&meter_lock);
   packets++;
   pthread_mutex_unlock(&meter_lock);
#endif
}

static void *worker(void *arg)
{
   (void)arg;
   for (int i = 0; i < PACKETS; i++)
      account(PKT);
   pthread_mutex_lock(&meter_lock);
   done_workers++;
   pthread_mutex_unlock(&meter_lock);
   return NULL;
}

static void *monitor(void *arg)
{
   (void)arg;
   for (int i = 0; i < CHECKS; i++) {
      long b, p;
      pthread_mutex_lock(&meter_lock);
      b = bytes;
#if defined(SPLIT_READER) && !defined(FIXED)
      pthread_mutex_unlock(&meter_lock);
      pthread_mutex_lock(&meter_lock);
#endif
      p = packets;
      pthread_mutex_unlock(&meter_lock);
      if (b != p * PKT) {
         fprintf(stderr, "meter: %ld bytes in %ld packets\n", b, p);
         bad++;
      }
   }
   return NULL;
}

int main(void)
{
   pthread_t w[WORKERS], m;
   pthread_create(&m, NULL, monitor, NULL);
   for (int i = 0; i < WORKERS; i++)
      pthread_create(&w[i], NULL, worker, NULL);
   for (int i = 0; i < WORKERS; i++)
      pthread_join(w[i], NULL);
   pthread_join(m, NULL);
   printf("meter: %ld packets, %ld bytes\n", packets, bytes);
   return bad ? 1 : 0;
}
