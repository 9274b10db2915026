/* stack.c: a task stack popped below empty because its `empty` flag still
 * says "not empty".
 *
 * main pushes two tasks, then starts two workers that drain the stack.  A
 * worker looks at the `empty` flag, pops a task under the lock, and
 * refreshes the flag in a second critical section.  Between the pop of the
 * last task and the refresh, the flag still says "not empty": the other
 * worker believes it and pops from an empty stack (the check before the
 * pop aborts).
 *
 * Natively the first worker drains both tasks long before the second one
 * starts.  Forcing the second worker's look at the flag (f) before the
 * first worker's refresh after the last pop (e1 = e2: it ran first in the
 * recorded run) pops below empty every time.
 *
 * cbtools-expect: bug ORD empty
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
      int more = !empty;                     // cb: read empty [f]
      pthread_mutex_unlock(&stack_lock);     // cb: unlock stack_lock
      if (!more)
         break;

      pthread_mutex_lock(&stack_lock);
      if (top == 0) {                        // cb: read top
         fprintf(stderr, "stack: pop from an empty stack\n");
         abort();
      }
      int task = tasks[--top];               // cb: write top
      pthread_mutex_unlock(&stack_lock);

      pthread_mutex_lock(&stack_lock);
      empty = top == 0;                      // cb: write empty [e1 e2]
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
      fprintf(stderr, "stack: work done %d, expected %d\n", work_done,
              TASKS * (TASKS + 1) / 2);
      return 1;
   }
   return 0;
}
