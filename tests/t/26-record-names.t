#!/bin/sh
# Source-level names (vgtool/cb_names.c, trace/names.c): the trace names
# each shared address as the source does, from the program's debug
# information: a member of a global struct (st.count), an element of a
# global array (slots[3]), a member of main's local struct that the
# workers reach through a pointer (job.done), a lock inside a struct
# (st.lock); heap memory by its block (size, allocation site, offset),
# after the field the source lines of its accesses write (e->value).
# cbtrace dump, the cbpredict table and --json (with the raw address
# beside the name) and cbreplay's bug report all use the names.  And at
# the wire level: VARDEF records become names, and a stream without them
# (an older tool) is named by symbol and offset as before.  The bug report
# quotes each event's source line, unless the source is newer than the
# program.
. "$(dirname "$0")/../tap.sh"

src=$TMP/names.c
cat >"$src" <<'EOF'
/* names.c: two workers update shared data of every kind, each with a read
 * and then a write and no lock between: an RWW on each.  Exit 1 when an
 * update was lost. */
#include <pthread.h>
#include <stdlib.h>

struct stats { pthread_mutex_t lock; long hits; long count; };
struct entry { long key; long value; long spare; };
struct job { int id; int done; struct entry *entry; };

struct stats st = { PTHREAD_MUTEX_INITIALIZER, 0, 0 };
int slots[8];

__attribute__((noinline, noclone)) static void work(volatile struct job *j)
{
   volatile struct stats *s = &st;
   volatile int *sl = slots;
   pthread_mutex_lock(&st.lock);
   s->hits++;                           /* hits */
   pthread_mutex_unlock(&st.lock);
   long c = s->count;                   /* read count */
   s->count = c + 1;                    /* write count */
   int v = sl[3];                       /* read slot */
   sl[3] = v + 1;                       /* write slot */
   int d = j->done;                     /* read done */
   j->done = d + 1;                     /* write done */
   volatile struct entry *e = j->entry;
   long x = e->value;                   /* read value */
   e->value = x + 1;                    /* write value */
}

static void *worker(void *arg)
{
   work(arg);
   return NULL;
}

int main(void)
{
   struct job job = { 1, 0, NULL };     /* the job */
   job.entry = malloc(sizeof *job.entry);  /* the entry */
   job.entry->value = 0;
   pthread_t t[2];
   for (int i = 0; i < 2; i++)
      pthread_create(&t[i], NULL, worker, &job);
   for (int i = 0; i < 2; i++)
      pthread_join(t[i], NULL);
   int lost = st.count != 2 || slots[3] != 2 || job.done != 2 ||
              job.entry->value != 2;
   free(job.entry);
   return lost;
}
EOF
line_of() { grep -n "$1" "$src" | head -1 | cut -d: -f1; }
prog=$TMP/names
if ! cc -O1 -g -pthread -o "$prog" "$src" 2>"$TMP/cc.err"; then
   ok "the test program builds" false
   sed 's/^/#   /' "$TMP/cc.err"
   done_testing
fi

# ---- record: the dump names every kind of variable ---------------------------
tr=$TMP/names.pb
s=0
timeout -k 5 120 cbtrace record -o "$tr" -- "$prog" >"$tr.out" 2>"$tr.err" || s=$?
is "$s" 0 "recorded run exits 0"
cbtrace dump --header "$tr" >"$tr.dump" 2>"$tr.dump.err"
d=$(cat "$tr.dump")
at() { echo "@ names.c:$(line_of "$1") in"; }
like "$d" "^[0-9]+ T2 write st\.count size 8 = 1 $(at 'write count')" \
   "a member of a global struct: st.count"
like "$d" "^[0-9]+ T2 write slots\[3\] size 4 = 1 $(at 'write slot')" \
   "an element of a global array: slots[3]"
like "$d" "^[0-9]+ T2 write job\.done size 4 = 1 $(at 'write done')" \
   "a member of main's local struct, reached through a pointer: job.done"
heap="heap block of 24 bytes from names.c:$(line_of 'the entry')"
like "$d" "^[0-9]+ T2 write $heap, offset 8 size 8 = 1 $(at 'write value')" \
   "a heap field: its block's size and allocation site, and the offset"
like "$d" "^[0-9]+ T2 lock st\.lock mutex $(at 'pthread_mutex_lock')" \
   "a lock inside a struct: st.lock (not the C library's insides)"
like "$d" "^# variable: 0x[0-9a-f]+ job\.done \(local, declared at names\.c:$(line_of 'the job')\)" \
   "the header says where the local is declared"
like "$d" "^# variable: 0x[0-9a-f]+ st\.count \(global, declared at names\.c:[0-9]+\)" \
   "the header names the global member"
unlike "$d" "^[0-9]+ T[0-9]+ (read|write|lock) 0x" "no access or lock on a raw address"
st_addr=$(printf '%s\n' "$d" | awk '/^# variable: .* st\.count / { print $3; exit }')

# ---- cbpredict: the table and --json name them too ---------------------------
cbpredict -o "$TMP/s" "$tr" >"$TMP/table" 2>"$TMP/perr"
t=$(cat "$TMP/table")
# A heap field has no name in the debug information: the source lines of
# its accesses give it (trace/source_expr.c), before the block's name.
for v in st.count 'slots[3]' job.done "e->value ($heap, offset 8)"; do
   rv=$(printf '%s' "$v" | sed 's/[].[()]/\\&/g')
   like "$t" "^s[0-9]+ +RWW +$rv +names\.c:[0-9]+ " "cbpredict table: an RWW on $v"
done
cbpredict --json -o "$TMP/sj" "$tr" >"$TMP/json" 2>>"$TMP/perr"
want=$(printf '%d' "$st_addr")
like "$(cat "$TMP/json")" "\"variable\":\"st\.count\",\"address\":$want," \
   "cbpredict --json: the name, and the raw address beside it ($want)"

# ---- cbreplay: the bug report names the variable -----------------------------
sch=$(awk '$2 == "RWW" && $3 == "st.count" { print $1; exit }' "$TMP/table")
if [ -n "$sch" ]; then
   out=$(cd "$TMP" && cbreplay --timeout 10 --schedule "$TMP/s/$sch.pb" -- "$prog" 2>&1)
   like "$out" "BUG \($sch\): RWW atomicity violation on st\.count" \
      "cbreplay: the bug is on st.count"
   like "$out" "e1 +T[0-9]+ read +st\.count = 0( \(recorded run: [0-9]+\))? +at .*names\.c:$(line_of 'read count')" \
      "cbreplay: its events name st.count"
   cbreplay --json --timeout 10 --schedule "$TMP/s/$sch.pb" -- "$prog" \
      >"$TMP/rjson" 2>/dev/null
   like "$(cat "$TMP/rjson")" "\"variable\": \"st\.count\", \"address\": $want" \
      "cbreplay --json: the name and the raw address"
   # A forced run that is recorded (cbreplay --record: every explored run
   # of cbtest) names the data as the recording does, so what exploration
   # reports is named alike (slots[3], not slots+12).
   cbreplay --timeout 10 --schedule "$TMP/s/$sch.pb" --record "$TMP/rr.pb" -- "$prog" \
      >/dev/null 2>&1
   rd=$(cbtrace dump "$TMP/rr.pb" 2>&1)
   like "$rd" " write slots\[3\] " "cbreplay --record: the forced run's trace names slots[3]"
   like "$rd" " write st\.count " "cbreplay --record: and st.count"
   # The report quotes each event's source line (the trace keeps the
   # source's folder; trace/source.c), in text and --json; not once the
   # source is newer than the program: it may not be the line that ran.
   like "$out" "^ +$(line_of 'read count') \| long c = s->count; +/\* read count \*/\$" \
      "cbreplay: e1's source line quoted under it"
   like "$(cat "$TMP/rjson")" "\"source\": \"s->count = c \+ 1; +/\* write count \*/\"" \
      "cbreplay --json: e2's source line"
   touch -d '+1 hour' "$src"
   out=$(cd "$TMP" && cbreplay --timeout 10 --schedule "$TMP/s/$sch.pb" -- "$prog" 2>&1)
   unlike "$out" "\| long c = s->count;" \
      "cbreplay: a source edited after the build is not quoted"
else
   ok "cbpredict wrote an RWW schedule on st.count" false
fi

# ---- the wire: VARDEF records, and streams without them ----------------------
. "$TOP/tests/lib/rawwire.sh"   # raw RECORDS...
events="L 1 401136 14 /t/bank get_balance bank.c S 404040 0 checking
        V 3 0 1 1 404040 0 V 1 8 1 1 404068 200 V 1 2 1 1 40406a 0 V 4 0 1 1 404040 0"
raw H $events E >"$TMP/old.raw"
raw H D 404068 0 29 0 checking.balance bank.c D 40406a 2 29 0 checking.balance bank.c \
    D 404040 0 29 0 checking.lock bank.c $events E >"$TMP/new.raw"
cbtrace encode -o "$TMP/old.pb" "$TMP/old.raw" 2>/dev/null
cbtrace encode -o "$TMP/new.pb" "$TMP/new.raw" 2>/dev/null
is "$(cbtrace dump "$TMP/old.pb" | cut -d' ' -f3-4 | tr '\n' ' ')" \
   "lock checking read checking+40 read checking+42 unlock checking " \
   "a stream without VARDEF (an older tool) is named by symbol and offset"
is "$(cbtrace dump "$TMP/new.pb" | cut -d' ' -f3-4 | tr '\n' ' ')" \
   "lock checking.lock read checking.balance read checking.balance+2 unlock checking.lock " \
   "VARDEF records name the addresses as the source does (+2: inside it)"
like "$(cbtrace dump --header "$TMP/new.pb")" \
   "^# variable: 0x404068 checking\.balance \(global, declared at bank\.c:29\)" \
   "the names survive the trace file, with their declarations"

# A function gcc cloned (a constant argument propagated: bump.constprop.0)
# is named as the source names it, in every event of the trace.
cat >"$TMP/clone.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
static long totals[4];
__attribute__((noinline)) static void bump(long *t, int slot, long by)
{
    long v = t[slot];
    t[slot] = v + by;
}
static void *worker(void *arg)
{
    for (int i = 0; i < 3; i++)
        bump(totals, 2, (long)arg);
    return NULL;
}
int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, worker, (void *)1L);
    pthread_create(&b, NULL, worker, (void *)2L);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("%ld\n", totals[2]);
    return 0;
}
EOF
cc -O2 -g -pthread -o "$TMP/clone" "$TMP/clone.c"
like "$(nm "$TMP/clone")" "bump\.constprop\." "gcc cloned bump (bump.constprop.N)"
cbtrace record -o "$TMP/clone.pb" -- "$TMP/clone" >/dev/null 2>&1
D=$(cbtrace dump "$TMP/clone.pb")
like "$D" "write totals\[2\] size 8 = [0-9]+ @ clone.c:7 in bump" "its accesses are in bump"
unlike "$D" "constprop" "the clone's suffix is named nowhere"
# A function's static buffer (a formatter's result) has no variable
# description in Valgrind's reading of the debug information, and at -O0
# it is reached through a pointer: its symbol (buf.0) names it.
cat >"$TMP/fmt.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
static const char *fmt(unsigned x)
{
    static char buf[16];
    char *p = buf + sizeof buf - 1;
    *p = 0;
    do { *--p = (char)('0' + x % 10); x /= 10; } while (x);
    return p;
}
static void *worker(void *arg)
{
    for (unsigned i = 0; i < 20; i++)
        fputs(fmt(i + (unsigned)(long)arg), stdout);
    return NULL;
}
int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, worker, (void *)100L);
    pthread_create(&b, NULL, worker, (void *)200L);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}
EOF
cc -O0 -g -pthread -o "$TMP/fmt" "$TMP/fmt.c"
cbtrace record -o "$TMP/fmt.pb" -- "$TMP/fmt" >/dev/null 2>&1
D=$(cbtrace dump "$TMP/fmt.pb")
like "$D" "write buf\+1[0-9] size 1 = [0-9]+ @ fmt.c:8 in fmt" \
   "a function's static buffer is named by its symbol"
unlike "$D" "write 0x[0-9a-f]+ size 1 = [0-9]+ @ fmt.c:8" "no access to it by address"

# An array whose elements are first touched by the thousand: each flush of
# the buffer names them all, more than the buffer and its overflow hold
# (blind trial 21's timer wheel kept the names of four runs of about 70
# of its 1,500 timers; the rest were raw addresses).
cat > "$TMP/many.c" <<'EOF'
#include <pthread.h>
struct timer { int expires; struct timer *next; };
static struct timer timers[1500];
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static void *tick(void *a)
{
   long s = 0;
   for (int i = 0; i < 1500; i++) {
      pthread_mutex_lock(&m);
      s += timers[i].expires;
      pthread_mutex_unlock(&m);
   }
   return a;
}
int main(void)
{
   pthread_t t;
   pthread_create(&t, NULL, tick, NULL);
   for (int i = 0; i < 1500; i++) {
      pthread_mutex_lock(&m);
      timers[i].expires = i;
      timers[i].next = 0;
      pthread_mutex_unlock(&m);
   }
   pthread_join(t, NULL);
   return 0;
}
EOF
cc -O0 -g -pthread -o "$TMP/many" "$TMP/many.c"
cbtrace record -o "$TMP/many.pb" -- "$TMP/many" >/dev/null 2>&1
D=$(cbtrace dump "$TMP/many.pb")
unlike "$D" " write 0x[0-9a-f]+ size [48] = [0-9]+ @ many.c" "many: no element written by address"
like "$D" " write timers\[1499\]\.next size 8 = 0 @ many.c" "many: the last element by its name"
done_testing
