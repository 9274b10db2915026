#!/bin/sh
# Records the bug-shape programs of issue 9 (a check-then-act in a start
# routine, the same in static helpers built -O2, a two-field update read
# half done, a use before init, a mailbox read ahead, a stack popped below
# empty, a lazy initialiser run twice, a use after free, a counter updated
# under an rwlock's read lock, a pointer a realloc moves under a reader)
# and their fixed twins, and checks that `cbtrace dump` shows what each source says
# (tests/lib/README.md).
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/lib/programs.sh"

for p in pool garage transfer config mailbox stack lazy session rwcache samples; do
   check_recorded_program "$p"
   check_recorded_program "${p}_fixed"
done

# cbtools-cflags: a program that asks for -O2 is built -O2 (the compiler
# writes its flags into the debug info), the others -O1.
for p in garage garage_fixed pool; do
   want=$(cb_marker "$CB_PROGRAM_SRC/$p.c" cflags)
   [ -n "$want" ] || want=-O1
   producer=$(readelf --debug-dump=info "$CB_PROGRAM_BIN/$p" 2>/dev/null |
              grep -m 1 DW_AT_producer)
   like "$producer" " $want( |\$)" "$p: built with $want"
done

# session: the heap block main hands to the worker is one allocation that
# both threads touch, and main frees it.
# (A missing dump is a failure here, not a reason to skip.)
d=$TMP/session.pb.dump
ok "session: its dump exists" test -s "$d"
like "$(grep ' T1 free heap ' "$d" 2>/dev/null)" "free heap block of [0-9]+ bytes from session.c:[0-9]+" \
   "session: main frees the session block"
like "$(grep ' T2 read heap ' "$d" 2>/dev/null)" "read heap block of [0-9]+ bytes from session.c:[0-9]+" \
   "session: the worker reads the session block"
done_testing
