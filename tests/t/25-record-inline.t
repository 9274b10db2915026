#!/bin/sh
# Optimised builds (issue 9, point 2): a `static` helper that gcc -O2
# inlines into the thread's start routine, called in a loop.  Its accesses
# and lock calls must be reported `in deposit` (the innermost inlined
# function, from Valgrind's inline info), the start routine's own code `in
# teller`; each inlined call must be a block of its own (begin deposit ..
# end deposit, nested in teller's), as a real call would be.
. "$(dirname "$0")/../tap.sh"

cat >"$TMP/inlined.c" <<'EOF'
/* inlined.c: two tellers deposit three times into one balance through a
 * static helper that gcc -O2 inlines into the start routine. */
#include <pthread.h>
#include <stdio.h>
static int balance = 100;
static int served;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void deposit(int amount)
{
   pthread_mutex_lock(&lock);        /* lock in deposit */
   int seen = balance;               /* read in deposit */
   pthread_mutex_unlock(&lock);
   pthread_mutex_lock(&lock);
   balance = seen + amount;          /* write in deposit */
   pthread_mutex_unlock(&lock);
}
static void *teller(void *arg)
{
   for (int i = 0; i < 3; i++)
      deposit((int)(long)arg);
   __atomic_fetch_add(&served, 1, __ATOMIC_SEQ_CST);  /* teller's own */
   return NULL;
}
int main(void)
{
   pthread_t a, b;
   pthread_create(&a, NULL, teller, (void *)10);
   pthread_create(&b, NULL, teller, (void *)20);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   printf("%d %d\n", balance, served);
   return balance != 190;
}
EOF
src=$TMP/inlined.c
line_of() { grep -n "$1" "$src" | head -1 | cut -d: -f1; }
prog=$TMP/inlined
if ! cc -O2 -g -pthread -o "$prog" "$src" 2>"$TMP/cc.err"; then
   ok "the test program builds at -O2" false
   sed 's/^/#   /' "$TMP/cc.err"
   done_testing
fi
# The premise: deposit really is inlined (no symbol of its own).
unlike "$(nm "$prog")" " [tT] deposit" "gcc -O2 inlined deposit (no symbol of its own)"

tr=$TMP/inlined.pb
s=0
timeout -k 5 120 cbtrace record -o "$tr" -- "$prog" >"$tr.out" 2>"$tr.err" || s=$?
is "$s" 0 "recorded run exits 0"
is "$(cat "$tr.out")" "190 2" "the program ran as natively"
cbtrace dump "$tr" >"$tr.dump" 2>"$tr.dump.err"
d=$tr.dump
for t in T2 T3; do
   like "$(grep -E "^[0-9]+ $t read balance " "$d")" "@ ([^ ]*/)?inlined.c:$(line_of 'read in deposit') in deposit$" \
      "$t: the read of balance is in deposit"
   like "$(grep -E "^[0-9]+ $t write balance " "$d")" "@ ([^ ]*/)?inlined.c:$(line_of 'write in deposit') in deposit$" \
      "$t: the write of balance is in deposit"
   like "$(grep -E "^[0-9]+ $t lock lock " "$d" | head -1)" "@ ([^ ]*/)?inlined.c:$(line_of 'lock in deposit') in deposit$" \
      "$t: the first lock is in deposit"
   like "$(grep -E "^[0-9]+ $t (read|write) served " "$d" | head -1)" "@ ([^ ]*/)?inlined.c:$(line_of "teller's own") in teller$" \
      "$t: the start routine's own access is in teller"
   like "$(grep -E "^[0-9]+ $t begin " "$d" | head -1)" "^[0-9]+ $t begin teller @ .* in teller$" \
      "$t: its first block is teller, named teller"
done
unlike "$(grep -E ' (read|write) balance ' "$d")" " in teller$" "no access of balance is attributed to teller"

# Blocks: each inlined call opens and closes its own block inside teller's.
for t in T2 T3; do
   is "$(awk -v t=$t '$2 == t && ($3 == "begin" || $3 == "end" || $4 == "balance" || $4 == "served") { print $3, $4 }' "$d" | tr '\n' ',')" \
      "begin teller,$(printf 'begin deposit,read balance,write balance,end deposit,%.0s' 1 2 3)read served,write served,end teller," \
      "$t: teller's block holds three deposit blocks, each with its read and write"
done
done_testing
