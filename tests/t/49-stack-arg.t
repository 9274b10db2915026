#!/bin/sh
# A struct of options on main's stack, handed to a worker by
# pthread_create, whose later fields main fills in after the create
# (tests/data/stackopts.c; blind trial 17's image scaler).  A local handed
# to pthread_create is shared from the create on (vgtool/cb_stacks.c); on
# the build before only its first 8 bytes were, the other lines when the
# worker first touched them: main's write of the scale, 24 bytes in, was
# not in the trace, the order violation was never predicted, and the bug
# was confirmed only by exploration, at an unrelated line.  Now the whole
# local, as the debug information of main's frame describes it, is shared
# at the create, in recorded and forced runs alike (both read variable
# information): main's writes are recorded, and cbtest names the order
# violation on the scale at -O2 and -O0.  The twin sets every option
# before the create: clean.
. "$(dirname "$0")/../tap.sh"

if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || [ ! -x "$TOP/bin/cbtest" ]; then
   echo "Bail out! the tool or cbtest is not built (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi
. "$TOP/tests/lib/pipeline.sh"

cb_build_data stackopts.c stackopts
cb_build_data stackopts.c stackopts_O0 -O0
cb_build_data stackopts.c stackopts_fixed -DFIXED
line=$(grep -n 'o.scale = config_int' "$TOP/tests/data/stackopts.c" | tail -1 | cut -d: -f1)

for v in stackopts stackopts_O0; do
   cbtrace record -o "$TMP/$v.pb" -- "$TMP/$v" >/dev/null 2>&1
   like "$(cbtrace dump "$TMP/$v.pb")" "T1 write o\\.scale size 4 = 3 @ stackopts\\.c:$line in main" \
      "$v: main's write of the scale after the create is recorded"
done

cb_bug_and_twin stackopts "stackopts: output\\[[0-9]+\\] = [0-9]+, want [0-9]+" \
   "BUG ORD on o\\.(scale|bias)" "the order violation on the options main sets late"

done_testing
