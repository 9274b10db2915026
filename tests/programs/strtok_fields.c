/* strtok_fields.c: two threads split their own option strings with
 * strtok(), whose position between calls is one static variable inside
 * the C library: a bug of hidden state in libc.
 *
 * Each parser calls strtok(line, ",") and then strtok(NULL, ",") until
 * the end of its own line.  When the other thread's strtok runs between
 * two of them, the next strtok(NULL) goes on from the other thread's
 * position: a token outside this thread's line, or too few tokens.  The
 * tool records each call as accesses to "strtok's saved position (libc)"
 * (vgtool/cb_preload_libc.c): strtok(line) writes it, strtok(NULL) reads
 * it then writes it.  Forcing the other thread's write (f) between a
 * parser's write (e1) and its next strtok(NULL) (e2: its read, WWR; or
 * the other thread's read between two writes, WRW; or the write landing
 * inside one strtok(NULL), RWW) fails the check (exit 1).  Natively each
 * parse takes microseconds and the threads rarely overlap.
 *
 * cbtools-expect: bug WWR|WRW|RWW strtok's saved position (libc)
 * cbtools-threads: 3
 * cbtools-blocks: parser
 * cbtools-exit: 0
 * cbtools-cflags: -O2
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *parser(void *arg)
{
   const char *opts = arg;
   char line[64];
   strcpy(line, opts);
   int n = 0;
   long sum = 0;
   char *tok = strtok(line, ",");        // cb: write strtok's [e1 f]
   while (tok) {
      char *eq = strchr(tok, '=');
      if (!eq || tok < line || tok >= line + sizeof line) {
         fprintf(stderr, "strtok_fields: a token from another line in %s\n", opts);
         exit(1);
      }
      sum += atol(eq + 1);
      n++;
      tok = strtok(NULL, ",");           // cb: read strtok's [e1 f e2]; write strtok's [e1 f e2]
   }
   if (n != 3 || sum != 6) {
      fprintf(stderr, "strtok_fields: %s parsed as %d options, sum %ld\n", opts, n, sum);
      exit(1);
   }
   return NULL;
}

int main(void)
{
   pthread_t a, b;
   pthread_create(&a, NULL, parser, "depth=1,width=2,height=3");
   pthread_create(&b, NULL, parser, "x=3,y=2,z=1");
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   printf("strtok_fields: ok\n");
   return 0;
}
