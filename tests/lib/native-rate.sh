#!/bin/sh
# native-rate.sh [N] [PROGRAM...]: runs each test program (default: all of
# build/programs/) N times natively (default 200) and prints how many runs
# exited non-zero, next to the program's expected verdict.  A buggy program
# should almost never fail natively, a correct one never; crash.c always
# crashes.  A measurement for people, not a test (it depends on timing).
cd "$(dirname "$0")/../.." || exit 2
n=${1:-200}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- build/programs/*
for p in "$@"; do
   name=$(basename "$p")
   expect=$(sed -n 's/^.*cbtools-expect:[[:space:]]*//p' "tests/programs/$name.c" | head -1)
   fails=0
   codes=""
   i=0
   while [ $i -lt "$n" ]; do
      timeout 10 "$p" >/dev/null 2>&1
      rc=$?
      if [ $rc != 0 ]; then
         fails=$((fails + 1))
         case " $codes " in *" $rc "*) ;; *) codes="$codes $rc" ;; esac
      fi
      i=$((i + 1))
   done
   printf '%-12s %-22s %4d/%d runs failed%s\n' "$name" "($expect)" "$fails" "$n" \
      "${codes:+ (exit$codes)}"
done
