#!/bin/sh
# A thread held at a gate resumes exactly where it was (trace/launch.c,
# --px-default=allregs-at-each-insn).  tests/data/napflag.c is a correct
# hand-off; a hand-made plan runs main's two creates, then four events of
# the logger (its spin on the flag), then the probe: the probe reaches
# the call after its `sub $8,%rsp` while the logger's step holds it.  At
# -O2 the optimiser had folded that `sub` into the call's own update of
# %rsp, the gate's retry ran the call with %rsp 8 bytes too high, and the
# probe returned to address 0: SIGSEGV in every run, a correct program
# reported as a bug (blind trial 19).  Every run must pass.
. "$(dirname "$0")/../tap.sh"

if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || ! command -v cbreplay >/dev/null; then
   echo "Bail out! the tool or cbreplay is not built (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi
. "$TOP/tests/lib/pipeline.sh"
MK=$TOP/build/tests/replay_mkschedule

cb_build_data napflag.c napflag
cb_build_data napflag.c napflag_O0 -O0
for v in napflag napflag_O0; do
   "$MK" -o "$TMP/$v.pb" --program "$TMP/$v" --prefix 0,0,0 --tail 1:2,2:4,3:out ||
      { echo "Bail out! replay_mkschedule failed"; exit 1; }
   codes=
   for i in 1 2 3; do
      out=$(cbreplay --schedule "$TMP/$v.pb" --confirm 0 --timeout 10 -- "$TMP/$v" 2>&1)
      codes="$codes$?"
      case $out in *SIGSEGV*) printf '%s\n' "$out" | sed 's/^/#   /' | head -12 >&2 ;; esac
   done
   is "$codes" 000 "$v: the held probe resumes where it was, 3 forced runs pass"
done

done_testing
