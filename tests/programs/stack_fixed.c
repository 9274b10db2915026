/* stack_fixed.c: stack.c with the pop and the refresh of `empty` in one
 * critical section.  Correct.
 *
 * The flag is still a cheap first look, but a worker pops and refreshes the
 * flag while holding the lock, and checks `top` there before it pops: a
 * worker that believed a stale flag finds the stack empty and stops.
 *
 * cbtools-expect: correct
 * cbtools-threads: 3
 * cbtools-blocks: worker
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define TASKS 2
#define WORKERS 2

static int tasks[16];
static int top;                              /* tasks[0..top-1] wait */
static int empty = 1;
static int work_done;
static pthread_mutex_t stack_lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
   (void)arg;
   for (;;) {
      pthread_mutex_lock(&stack_lock);       // cb: lock stack_lock
      int more = !empty;                     // cb: read empty
      pthread_mutex_unlock(&stack_lock);     // cb: unlock stack_lock
      if (!more)
         break;

      pthread_mutex_lock(&stack_lock);
      if (top == 0) {                        // cb: read top
         pthread_mutex_unlock(&stack_lock);
         break;
      }
      int task = tasks[--top];               // cb: write top
      empty = top == 0;                      // cb: write empty
      work_done += task;
      pthread_mutex_unlock(&stack_lock);
   }
   return NULL;
}

int main(void)
{
   pthread_t t[WORKERS];
   for (int i = 1; i <= TASKS; i++) {
      tasks[top++] = i;
      empty = 0;
   }
   for (int i = 0; i < WORKERS; i++)
      pthread_create(&t[i], NULL, worker, NULL);
   for (int i = 0; i < WORKERS; i++)
      pthread_join(t[i], NULL);
   if (work_done != TASKS * (TASKS + 1) / 2) {
      fprintf(stderr, "stack_fixed: work done %d, expected %d\n", work_done,
              TASKS * (TASKS + 1) / 2);
      return 1;
   }
   return 0;
}
