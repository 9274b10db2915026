#!/bin/sh
# Records each atomicity-bug program of tests/programs/ (the five PENELOPE
# patterns and the user-markup one) under the real Valgrind tool and checks
# that `cbtrace dump` shows exactly what the source says (tests/lib/README.md).
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/lib/programs.sh"

for p in rwr rww wrw wwr www markup; do
   check_recorded_program "$p"
done

# Values: the trace carries what each access read or wrote.
d=$TMP/rww.pb.dump
if [ -s "$d" ]; then
   like "$(cat "$d")" "^[0-9]+ T[23] read balance size 4 = 100 " "rww: a teller read the opening balance 100"
   like "$(cat "$d")" "^[0-9]+ T1 read balance size 4 = 130 .*in main" "rww: main read the final balance 130"
   is "$(awk '$3 == "write" && $4 == "balance" { print $8 }' "$d" | sort -n | tr '\n' ' ')" \
      "$(awk '$3 == "write" && $4 == "balance" { print $8 }' "$d" | sort -n | grep -Ex '110|120|130' | tr '\n' ' ')" \
      "rww: every write of balance is 110, 120 or 130"
fi
d=$TMP/www.pb.dump
if [ -s "$d" ]; then
   is "$(awk '$3 == "write" && $4 == "state" { print $2, $8 }' "$d" | tr '\n' ',')" \
      "T2 1,T2 2,T3 3," "www: the worker writes RUNNING then DONE, then the canceller CANCELLED"
fi
d=$TMP/markup.pb.dump
if [ -s "$d" ]; then
   for t in T2 T3; do
      is "$(awk -v t=$t '$2 == t && ($3 ~ /^atomic-/ || $4 == "hits") { print $3 }' "$d" | tr '\n' ',')" \
         "atomic-begin,read,write,atomic-end," "markup: $t reads and writes hits inside its marked block"
   done
fi
done_testing
