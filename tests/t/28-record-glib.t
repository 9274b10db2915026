#!/bin/sh
# Records the GLib programs (tests/programs/glib_*.c) and checks that
# GLib's own locks are recorded as the locks they are (vgtool/
# cb_preload_glib.c): a GMutex, GRecMutex, GRWLock, bit lock lock and
# unlock at the user's line, in the right mode, a GRecMutex's nested locks
# not at all, a
# g_cond_wait as unlock, wait, lock; g_once and g_once_init_* as a release
# and acquires; and none of GLib's insides: no access to a lock word, no
# futex call, no block of g_mutex_lock.  Then cbpredict on each: no
# predicted violation names a lock or a condition, and the inline test of
# a once control orders what follows it (nothing predicted on the data it
# guards).
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/lib/programs.sh"

if ! pkg-config --exists glib-2.0 2>/dev/null; then
   echo "1..0 # SKIP GLib's development files are missing (pkg-config knows no glib-2.0; scripts/setup-deps.sh installs libglib2.0-dev)"
   exit 0
fi
if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || ! command -v cbpredict >/dev/null; then
   echo "Bail out! the tool or cbpredict is not built (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi

PROGS="glib_bank glib_bank_fixed glib_range glib_range_fixed glib_jobs glib_once glib_flags"
for p in $PROGS; do
   check_recorded_program "$p"
done

# seq DUMP THREAD: that thread's lock, unlock and wait events as
# "KIND VAR MODE," (a GRecMutex or GCond is named by its first field,
# `account_lock.p`; the ".p" is dropped).
seq() {
   awk -v t="$2" '$2 == t && ($3 == "lock" || $3 == "unlock" || $3 == "wait") {
      v = $4; sub(/\.p$/, "", v)
      m = ($3 == "wait" ? "" : " " $5)
      printf "%s %s%s,", $3, v, m }' "$1"
}

# The threads that ran a function (its `begin`), in order of their first event.
threads_in() {
   awk -v f="$2" '$3 == "begin" && $4 == f && !seen[$2]++ { print $2 }' "$1"
}

# ---- what every GLib program's trace must show, and must not
for p in $PROGS; do
   d=$TMP/$p.pb.dump
   [ -s "$d" ] || continue
   st=$(cbtrace stats "$TMP/$p.pb" 2>&1)
   nlocks=$(printf '%s\n' "$st" | sed -n 's/^locks: //p')
   ok "$p: cbtrace stats counts GLib's locks as locks ($nlocks)" test "${nlocks:-0}" -gt 0
   like "$st" "^unhandled calls: 0$" "$p: no unhandled call (GLib's futex calls are its locks' insides)"
   # The program's own locks and conditions (their events at its lines),
   # by name (a GRecMutex or GCond by its struct's, without the `.p` of its
   # first field).  None may be read or written, nor any part of it: their
   # insides are not watched.
   objs=$(awk -v src="$p.c" '($3 == "lock" || $3 == "unlock" || $3 == "wait" ||
             $3 == "signal" || $3 == "broadcast") && $0 ~ ("@ ([^ ]*/)?" src ":") {
             v = $4; sub(/\.p$/, "", v); print v }' "$d" | sort -u)
   onces=$(awk -v src="$p.c" '($3 == "release" || $3 == "acquire") &&
              $0 ~ ("@ ([^ ]*/)?" src ":") { print $4 }' "$d" | sort -u)
   ok "$p: its locks, conditions and once controls are named at its lines ($(echo $objs $onces))" \
      test -n "$objs$onces"
   bad=$(for o in $objs; do
            awk -v o="$o" '($3 == "read" || $3 == "write") && ($4 == o ||
               index($4, o ".") == 1 || index($4, o "[") == 1)' "$d"
         done)
   is "$bad" "" "$p: no lock or condition is read or written as a variable"
   unlike "$(cat "$d")" " begin g_(mutex|rec_mutex|rw_lock|cond|once|bit|pointer_bit)_" \
      "$p: no block of GLib's lock functions"
   # cbpredict: no violation on a lock's insides.  (A condition may have
   # an ORD, a signal forced before its wait: that is the condition's own
   # order, as with pthread_cond_t.)
   cbpredict -o "$TMP/$p.s" "$TMP/$p.pb" >"$TMP/$p.table" 2>"$TMP/$p.perr"
   on_objs=$(for o in $objs; do
                awk -v o="$o" '/^s[0-9]+ / && $2 != "ORD" && ($3 == o ||
                   index($3, o ".") == 1 || index($3, o "[") == 1)' "$TMP/$p.table"
             done)
   is "$on_objs" "" "$p: no predicted atomicity violation names a lock or a condition"
done

# ---- glib_bank: GMutex, a mutex, at the user's lines
d=$TMP/glib_bank.pb.dump
if [ -s "$d" ]; then
   # The first teller checks and debits, the second only checks.
   n=0
   for t in $(threads_in "$d" withdraw); do
      n=$((n + 1))
      like "$(seq "$d" "$t")" "^(lock account_lock mutex,unlock account_lock mutex,){1,2}$" \
         "glib_bank: $t takes account_lock, a mutex, and lets it go, once or twice"
   done
   is "$n" 2 "glib_bank: two tellers withdraw"
fi

# ---- glib_bank_fixed: a GRecMutex taken again by its holder makes no event
d=$TMP/glib_bank_fixed.pb.dump
if [ -s "$d" ]; then
   n=0
   for t in $(threads_in "$d" withdraw); do
      n=$((n + 1))
      is "$(seq "$d" "$t")" "lock account_lock mutex,unlock account_lock mutex," \
         "glib_bank_fixed: $t: one lock and one unlock (the nested ones counted, not recorded)"
   done
   is "$n" 2 "glib_bank_fixed: two tellers withdraw"
fi

# ---- glib_range: GRWLock, writer and reader modes
d=$TMP/glib_range.pb.dump
if [ -s "$d" ]; then
   t=$(threads_in "$d" tune)
   is "$(seq "$d" "$t")" "lock range_lock wr,unlock range_lock wr," "glib_range: the tuner holds range_lock as a writer"
   t=$(threads_in "$d" show)
   is "$(seq "$d" "$t")" "lock range_lock rd,unlock range_lock rd,lock range_lock rd,unlock range_lock rd," \
      "glib_range: the display takes range_lock twice as a reader"
fi

# ---- glib_jobs: g_cond_wait is unlock, wait, lock; signals name the cond
d=$TMP/glib_jobs.pb.dump
if [ -s "$d" ]; then
   like "$(grep -E ' wait ' "$d" | head -1)" " wait not_(empty|full)(\.p)? slot_lock( |$)" \
      "glib_jobs: a wait names its condition and its mutex"
   w=$(awk '$3 == "wait" { print $2; exit }' "$d")
   like "$(seq "$d" "$w")" "lock slot_lock mutex,unlock slot_lock mutex,wait not_(empty|full),lock slot_lock mutex," \
      "glib_jobs: the thread that waits unlocks, waits, locks again"
   ns=$(grep -c ' signal not_' "$d")
   ok "glib_jobs: every g_cond_signal is a signal event ($ns)" test "$ns" -ge 6
fi

# ---- glib_flags: g_bit_lock and g_pointer_bit_lock, mutexes named by the
# word that holds the bit
d=$TMP/glib_flags.pb.dump
if [ -s "$d" ]; then
   for t in $(threads_in "$d" worker); do
      is "$(seq "$d" "$t")" "lock entry.flags mutex,unlock entry.flags mutex,lock entry.flags mutex,unlock entry.flags mutex,lock head mutex,unlock head mutex," \
         "glib_flags: $t takes the entry's bit lock twice, then the list's"
   done
fi

# ---- glib_once: g_once_init_leave and g_once release; the other caller
# acquires (by the call, or by its inline test of the control)
d=$TMP/glib_once.pb.dump
if [ -s "$d" ]; then
   nrel=$(grep -Ec ' release (loaded|made)[.0-9]* once @ ([^ ]*/)?glib_once.c:' "$d")
   is "$nrel" 2 "glib_once: each once control is released once, at the user's line"
   t=$(threads_in "$d" request | tail -n 1)
   like "$(awk -v t="$t" '$2 == t && ($3 == "read" || $3 == "acquire") && $4 ~ /^(loaded|made)/' "$d")" \
      "(read (loaded|made)[.0-9]* size [0-9]+ = [1-9]|acquire (loaded|made))" \
      "glib_once: the second caller finds a control set, or acquires it"
   is "$(awk '/^s[0-9]+ / && $3 ~ /^the_(config|pool)/' "$TMP/glib_once.table")" "" \
      "glib_once: nothing is predicted on the data the once controls guard"
fi

# ---- GLib's static functions are watched: Debian's libglib is stripped,
# so g_hash_table_insert_node has neither a name nor a line, like the
# linker's start-up glue, which is not watched; but it has call frame
# information, which the glue has not.  A cache that looks up under its
# lock and inserts under it again, with the work between, builds twice when
# two threads miss: the insert's writes must be in the trace, and cbtest
# must confirm the race.
cat > "$TMP/gcache.c" <<'EOF2'
#include <glib.h>
#include <stdio.h>
static GHashTable *cache;
static GMutex cache_lock;
static int builds;
static gpointer worker(gpointer data)
{
   const char *key = data;
   g_mutex_lock(&cache_lock);
   const char *v = g_hash_table_lookup(cache, key);
   g_mutex_unlock(&cache_lock);
   if (!v) {
      g_atomic_int_inc(&builds);
      char *nv = g_strdup_printf("<%s>", key);
      g_mutex_lock(&cache_lock);
      g_hash_table_insert(cache, g_strdup(key), nv);
      g_mutex_unlock(&cache_lock);
   }
   return NULL;
}
int main(void)
{
   cache = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
   GThread *a = g_thread_new("a", worker, "alpha");
   GThread *b = g_thread_new("b", worker, "alpha");
   g_thread_join(a);
   g_thread_join(b);
   if (g_atomic_int_get(&builds) != 1) {
      fprintf(stderr, "built %d times\n", builds);
      return 1;
   }
   g_hash_table_destroy(cache);
   return 0;
}
EOF2
if cc -O2 -g -o "$TMP/gcache" "$TMP/gcache.c" $(pkg-config --cflags --libs glib-2.0); then
   cbtrace record -o "$TMP/gcache.pb" -- "$TMP/gcache" >/dev/null 2>&1
   nw=$(cbtrace dump "$TMP/gcache.pb" 2>/dev/null |
        awk '/ begin g_hash_table_insert /{ins[$2] = 1} / end g_hash_table_insert /{ins[$2] = 0}
             $3 == "write" && ins[$2] {n++} END {print n + 0}')
   ok "gcache: the writes of g_hash_table_insert's static helpers are recorded ($nw)" \
      test "$nw" -ge 2
   (cd "$TMP" && cbtest -j 2 --timeout 60 -o gcache.out -- "$TMP/gcache" \
      >"$TMP/gcache.txt" 2>&1); rc=$?
   is "$rc" 1 "gcache: cbtest confirms the check-then-insert race (exit 1)"
   [ "$rc" = 1 ] || sed 's/^/#   /' "$TMP/gcache.txt" | head -20
   # GLib has no line information: the report gives the user's lines
   # that called into it (the insert, the lookup) and the allocation's.
   ins=$(grep -n 'g_hash_table_insert(cache' "$TMP/gcache.c" | cut -d: -f1)
   look=$(grep -n 'g_hash_table_lookup(cache' "$TMP/gcache.c" | cut -d: -f1)
   like "$(cat "$TMP/gcache.txt")" "e1 write gcache\.c:$ins " \
      "gcache: e1 named by the line of the insert ($ins)"
   like "$(cat "$TMP/gcache.txt")" "f  read  gcache\.c:$look " \
      "gcache: f named by the line of the lookup ($look)"
   like "$(cat "$TMP/gcache.txt")" "BUG ORD on heap block of [0-9]+ bytes from g_malloc0? near gcache\.c:[0-9]+" \
      "gcache: the table's memory named by the user's line near its allocation"
else
   ok "gcache.c builds against GLib" false
fi

done_testing
