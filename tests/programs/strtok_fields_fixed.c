/* strtok_fields_fixed.c: the parsers of strtok_fields.c with strtok_r(),
 * whose position is the caller's own variable: the correct twin.
 *
 * Each thread's position is a local of its own, so no interleaving of the
 * two parsers can mix their lines; no forced run may fail.
 *
 * cbtools-expect: correct
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
   char line[64], *save;
   strcpy(line, opts);
   int n = 0;
   long sum = 0;
   char *tok = strtok_r(line, ",", &save);
   while (tok) {
      char *eq = strchr(tok, '=');
      if (!eq || tok < line || tok >= line + sizeof line) {
         fprintf(stderr, "strtok_fields_fixed: a token from another line in %s\n", opts);
         exit(1);
      }
      sum += atol(eq + 1);
      n++;
      tok = strtok_r(NULL, ",", &save);
   }
   if (n != 3 || sum != 6) {
      fprintf(stderr, "strtok_fields_fixed: %s parsed as %d options, sum %ld\n", opts, n, sum);
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
   printf("strtok_fields_fixed: ok\n");
   return 0;
}
