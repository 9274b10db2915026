#!/bin/sh
# An atexit handler that tears down what a detached thread still uses.
# A stats sink is closed by its atexit handler (it marks itself closed
# under its mutex); a detached sampler thread keeps writing samples and
# ends the process with status 3 when it finds the sink closed.  At -O2.
# The order violation (the handler's close before the sampler's check) is
# predicted, but the forced run passed on the build before: after the
# close, main had no event left to stop at before exit_group, which ended
# the sampler before its turn.  In a forced run whose plan still has steps
# for other threads, _exit now waits for them as exit() does
# (vgtool/cb_preload_misc.c, cb__exit): the forced run must fail with the
# sampler's status 3.  The twin (main waits for the sampler to finish
# before it returns) must pass every forced run.
. "$(dirname "$0")/../tap.sh"

if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || ! command -v cbpredict >/dev/null; then
   echo "Bail out! the tool or cbpredict is not built (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi

cat > "$TMP/sink.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static struct {
   pthread_mutex_t m;
   pthread_cond_t idle;
   int open, samples, sampler_done;
} sink = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};
static void sink_close(void)
{
   pthread_mutex_lock(&sink.m);
   sink.open = 0;
   pthread_mutex_unlock(&sink.m);
}
static void *sampler(void *arg)
{
   (void)arg;
   for (int i = 0; i < 3; i++) {
      pthread_mutex_lock(&sink.m);
      if (!sink.open) {
         fprintf(stderr, "sink: sample %d after the sink closed\n", i);
         _exit(3);
      }
      sink.samples++;
      pthread_mutex_unlock(&sink.m);
   }
   pthread_mutex_lock(&sink.m);
   sink.sampler_done = 1;
   pthread_cond_signal(&sink.idle);
   pthread_mutex_unlock(&sink.m);
   return NULL;
}
int main(void)
{
   sink.open = 1;
   atexit(sink_close);
   pthread_attr_t a;
   pthread_attr_init(&a);
   pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
   pthread_t t;
   pthread_create(&t, &a, sampler, NULL);
#ifdef FIXED
   pthread_mutex_lock(&sink.m);
   while (!sink.sampler_done)
      pthread_cond_wait(&sink.idle, &sink.m);
   pthread_mutex_unlock(&sink.m);
#endif
   return 0;
}
EOF
cc -O2 -g -pthread -o "$TMP/sink" "$TMP/sink.c" &&
cc -O2 -g -pthread -DFIXED -o "$TMP/sink_fixed" "$TMP/sink.c" ||
   { echo "Bail out! cannot build sink.c"; exit 1; }

. "$(dirname "$0")/../lib/pipeline.sh"

close_line=$(grep -n 'sink.open = 0;' "$TMP/sink.c" | cut -d: -f1)
cb_pipeline sink
like "$TABLE" "^s[0-9]+ +ORD +sink\.open +sink\.c:[0-9]+ +sink\.c:$close_line " \
   "sink: the handler's close (sink.c:$close_line) forced before the sampler's check"
is "$RC" 1 "sink: cbreplay --all reports the bug (exit 1)"
like "$OUT" "^s[0-9]+ +ORD +sink\.open .*failed \(exit 3\)" \
   "sink: that forced run fails with the sampler's status 3"
[ "$RC" = 1 ] || printf '%s\n' "$OUT" | grep -E '^s[0-9]+ ' | sed 's/^/#   /'
cb_pipeline sink_fixed
is "$RC" 0 "sink_fixed: every forced run passes (no false positive)"

done_testing
