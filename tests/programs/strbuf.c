/* strbuf.c: an RWR atomicity violation, a string buffer's length read twice.
 *
 * RWR (PENELOPE section 3.1), as in Java's StringBuffer.append(other): the
 * append reads the other buffer's length once to make room for the copy and
 * again to copy, without holding anything across the two reads.  The editor
 * truncates the title between them: the copy no longer has the length the
 * room was made for (append() returns 1, where a real buffer would copy
 * past its end or leave garbage).
 *
 * Natively the two reads are a few instructions apart and the editor
 * truncates once, so the program almost always passes.  Forcing the
 * truncation (f) between the sizing read (e1) and the copying read (e2)
 * makes the check fail (exit 1).
 *
 * cbtools-expect: bug RWR title.len
 * cbtools-threads: 3
 * cbtools-blocks: append set_length copier editor
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>

#define CAP 64

struct strbuf {
   char data[CAP];
   volatile int len;
};

struct strbuf title = {"hello", 5};
static struct strbuf out;

/* Appends src to dst; returns 1 when the copy's length is not the one the
 * room was made for. */
__attribute__((noinline, noclone)) int append(struct strbuf *dst, const struct strbuf *src)
{
   int room = src->len;             // cb: read title.len [e1]
   if (dst->len + room > CAP)
      return 0;
   int n = src->len;                // cb: read title.len [e2]
   for (int i = 0; i < n; i++)
      dst->data[dst->len + i] = src->data[i];
   dst->len += n;
   return n != room;
}

__attribute__((noinline, noclone)) void set_length(struct strbuf *b, int len)
{
   b->len = len;                    // cb: write title.len [f]
}

void *copier(void *arg)
{
   (void)arg;
   return (void *)(long)append(&out, &title);
}

void *editor(void *arg)
{
   (void)arg;
   set_length(&title, 3);
   return NULL;
}

int main(void)
{
   pthread_t c, e;
   void *bad;
   pthread_create(&c, NULL, copier, NULL);
   pthread_create(&e, NULL, editor, NULL);
   pthread_join(c, &bad);
   pthread_join(e, NULL);
   if (bad) {
      fprintf(stderr, "strbuf: the copy's length was not the one made room for\n");
      return 1;
   }
   return 0;
}
