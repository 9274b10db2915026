#!/bin/sh
# cbtest's ranking, thread flows and pictures on a program with one real
# fault and several benign candidates (every schedule forced, --all-bugs):
#  - ranking after Falcon: the real fault (RWW on stock) is first in the
#    summary, report.json (bugs and patterns) and report.sarif, ahead of the
#    order violations that fail only because they force the same lost sale,
#    and of the benign candidates on visits, whose forced runs pass;
#  - report.sarif validates against the SARIF 2.1.0 schema (tests/data), and
#    the real bug's thread flows hold e1, f, e2 in the forced order, with
#    the lock calls between them and file:line;
#  - report.html is one self-contained page with a lane per thread and the
#    source lines.
. "$(dirname "$0")/../tap.sh"

CBTEST=$TOP/bin/cbtest
if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ]; then
   ok "the tool is built (make check builds it)" false
   done_testing
fi
cat >"$TMP/shop.c" <<'EOF2'
/* Two clerks each sell once.  stock is read in one critical section and
 * written back in another: a sale in between is lost and main's check
 * fails (the real fault).  visits is racy too, but nothing checks it. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
volatile int stock = 10;
volatile int visits;

__attribute__((noinline)) void note_visit(void)
{
   int v = visits;
   visits = v + 1;
}

__attribute__((noinline)) void sell(int n)
{
   pthread_mutex_lock(&m);
   int left = stock;            /* e1 */
   pthread_mutex_unlock(&m);
   pthread_mutex_lock(&m);
   stock = left - n;            /* e2, f */
   pthread_mutex_unlock(&m);
}

static void *clerk(void *arg)
{
   note_visit();
   sell((int)(long)arg);
   return NULL;
}

int main(void)
{
   pthread_t a, b;
   pthread_create(&a, NULL, clerk, (void *)1L);
   pthread_create(&b, NULL, clerk, (void *)2L);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   if (stock != 7) {
      fprintf(stderr, "shop: a sale was lost: stock %d, expected 7\n", stock);
      return 1;
   }
   return 0;
}
EOF2
E1=$(grep -n '/\* e1 \*/' "$TMP/shop.c" | cut -d: -f1)
E2=$(grep -n '/\* e2, f \*/' "$TMP/shop.c" | cut -d: -f1)
(cd "$TMP" && cc -O1 -g -pthread -o shop shop.c) || { ok "shop.c compiles" false; done_testing; }
# Racy: natively it may lose a sale too, now and then (on a loaded machine
# more often); it must pass in most runs.
npass=0
for i in 1 2 3 4 5; do (cd "$TMP" && ./shop 2>/dev/null) && npass=$((npass + 1)); done
ok "shop passes natively in most runs ($npass of 5)" test "$npass" -ge 3

(cd "$TMP" && "$CBTEST" --all-bugs --timeout 5 -o out -- ./shop >sum.out 2>sum.err); RC=$?
SUM=$(cat "$TMP/sum.out")
is "$RC" 1 "cbtest --all-bugs: a bug confirmed"
J=$TMP/out/report.json
. "$TOP/tests/lib/json.sh"

# ---- Ranking --------------------------------------------------------------
FIRST_SCHED=$(jget "$J" '$d->{tests}[0]{schedules}[0]{variable}')
diag "cbpredict's first schedule is on $FIRST_SCHED; ranking must not follow prediction order"
is "$(jget "$J" 'my $b = $d->{bugs}[0]; "$b->{rank} $b->{pattern} $b->{variable} $b->{e1}{line} $b->{e2}{line}"')" \
   "1 RWW stock $E1 $E2" "report.json: bug rank 1 is the real fault, RWW on stock at shop.c:$E1/$E2"
is "$(jget "$J" 'my @b = @{$d->{bugs}}; scalar grep { $_->{score} >= $b[0]{score} } @b[1..$#b]')" 0 \
   "report.json: every other bug scores lower"
is "$(jget "$J" 'join ",", map { $_->{rank} } @{$d->{bugs}}')" \
   "$(jget "$J" 'join ",", 1..scalar @{$d->{bugs}}')" "report.json: bugs listed in order of rank"
is "$(jget "$J" 'my $p = $d->{patterns}[0]; "$p->{pattern} $p->{variable} $p->{failed}"')" "RWW stock 2" \
   "report.json: pattern rank 1 is RWW on stock, failed in both thread orders"
is "$(jget "$J" 'my @p = grep { $_->{variable} eq "visits" } @{$d->{patterns}}; (scalar @p) . " " . (scalar grep { $_->{score} == 0 && $_->{passed} > 0 } @p)')" \
   "$(jget "$J" 'my @p = grep { $_->{variable} eq "visits" } @{$d->{patterns}}; my $n = @p; "$n $n"')" \
   "report.json: the benign candidates on visits passed when forced and score 0"
ok "report.json: several benign candidates were forced" \
   test "$(jget "$J" 'scalar grep { $_->{variable} eq "visits" } @{$d->{patterns}}')" -ge 2
like "$(printf '%s\n' "$SUM" | sed -n '/^Bugs by rank/{n;p}')" "#1 +[0-9.]+ +RWW on stock +e1 shop.c:$E1" \
   "summary: the bugs by rank, RWW on stock first"

# ---- SARIF: the schema, the rank, the thread flows ------------------------
S=$TMP/out/report.sarif
is "$(jget "$S" 'my $r = $d->{runs}[0]{results}[0]; "$r->{properties}{rank} $r->{ruleId} $r->{properties}{variable}"')" \
   "1 RWW stock" "report.sarif: the first result is rank 1, RWW on stock"
ok "report.sarif: SARIF's rank is the score in 0..100" \
   test "$(jget "$S" 'my $r = $d->{runs}[0]{results}[0]; ($r->{rank} > 0 && $r->{rank} <= 100) ? 1 : 0')" = 1
SCHEMA=$TOP/tests/data/sarif-schema-2.1.0.json
# Debian's python3 (with python3-jsonschema) first, else the one on PATH.
PY=python3
/usr/bin/python3 -c 'import jsonschema' 2>/dev/null && PY=/usr/bin/python3
if "$PY" -c 'import jsonschema' 2>/dev/null && [ -f "$SCHEMA" ]; then
   validate() { "$PY" -c '
import json, sys, jsonschema
schema = json.load(open(sys.argv[1])); doc = json.load(open(sys.argv[2]))
errors = list(jsonschema.Draft4Validator(schema).iter_errors(doc))
for e in errors[:5]: print("# ", list(e.path), e.message[:200])
sys.exit(1 if errors else 0)' "$SCHEMA" "$1"; }
   ok "report.sarif validates against the SARIF 2.1.0 schema" validate "$S"
   # The validation can fail: a thread flow without locations does not pass.
   perl -MJSON::PP -0777 -e 'local $/; my $d = decode_json(<STDIN>); $d->{runs}[0]{results}[0]{codeFlows}[0]{threadFlows}[0]{locations} = []; print encode_json($d)' <"$S" >"$TMP/broken.sarif"
   ok "a broken report.sarif does not validate" sh -c "! $PY -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])), cls=jsonschema.Draft4Validator)' '$SCHEMA' '$TMP/broken.sarif' 2>/dev/null"
else
   ok "# SKIP python3-jsonschema or the schema is missing (scripts/setup-deps.sh installs it)" true
   ok "# SKIP python3-jsonschema or the schema is missing" true
fi
# The flows of rank 1: "ROLE:THREAD:ORDER:FILE:LINE" for e1, f, e2 by order.
FLOW=$(jget "$S" 'my @l; my $tf = $d->{runs}[0]{results}[0]{codeFlows}[0]{threadFlows};
   for my $f (@$tf) { for my $x (@{$f->{locations}}) { my $m = $x->{location}{message}{text};
      my $p = $x->{location}{physicalLocation};
      push @l, [$x->{executionOrder}, $f->{id}, $m, $p ? "$p->{artifactLocation}{uri}:$p->{region}{startLine}" : "?"] } }
   join " ", map { "$_->[1]:$_->[2]:$_->[3]" =~ s/ /_/gr } sort { $a->[0] <=> $b->[0] } @l')
is "$(printf '%s\n' "$FLOW" | tr ' ' '\n' | grep -oE ':(e1|f|e2):' | tr -d ':' | tr '\n' ' ')" "e1 f e2 " \
   "thread flows: e1, f, e2 in that forced order"
like "$FLOW" "(T[0-9]+):e1:_read_stock[^ ]*:shop.c:$E1 .*(T[0-9]+):f:_write_stock[^ ]*:shop.c:$E2 .*:e2:_write_stock[^ ]*:shop.c:$E2" \
   "thread flows: each with its file:line"
T_E1=$(printf '%s\n' "$FLOW" | tr ' ' '\n' | grep ':e1:' | cut -d: -f1)
T_F=$(printf '%s\n' "$FLOW" | tr ' ' '\n' | grep ':f:' | cut -d: -f1)
T_E2=$(printf '%s\n' "$FLOW" | tr ' ' '\n' | grep ':e2:' | cut -d: -f1)
ok "thread flows: e1 and e2 in one thread's flow, f in another's ($T_E1 $T_F $T_E2)" \
   test "$T_E1" = "$T_E2" -a "$T_E1" != "$T_F"
like "$FLOW" ":e1:.* $T_E1:unlock_m[^ ]* .*$T_F:lock_m.*:f:.*$T_E1:lock_m.*:e2:" \
   "thread flows: the lock calls between e1, f and e2"
is "$(jget "$S" 'scalar @{$d->{runs}[0]{results}[0]{codeFlows}[0]{threadFlows}}')" 2 "thread flows: one per thread"

# ---- report.html -----------------------------------------------------------
H=$TMP/out/report.html
ok "report.html written" test -s "$H"
HTML=$(cat "$H")
unlike "$HTML" "<script|<link|src=|https?:" "report.html: self-contained (no script, no outside file)"
like "$HTML" "<th>rank</th>" "report.html: the summary table on top"
like "$HTML" "<th>thread $T_E1</th><th>thread $T_F</th>|<th>thread $T_F</th><th>thread $T_E1</th>" \
   "report.html: a lane per thread"
like "$(printf '%s\n' "$HTML" | tr '\n' ' ')" "<b>e1</b>.*int left = stock;.*<b>f</b>.*stock = left - n;.*<b>e2</b>" \
   "report.html: e1, f, e2 down the page, with their source lines"

# Built into a folder two below the sources and tested from there: only
# the folder the debug information names finds shop.c, for report.html as
# for the summary.
mkdir -p "$TMP/b/c"
(cd "$TMP" && cc -O1 -g -pthread -o b/c/shop shop.c) &&
   (cd "$TMP/b/c" && "$CBTEST" --no-explore --timeout 5 -o out -- ./shop >sum.out 2>&1)
like "$(tr '\n' ' ' <"$TMP/b/c/out/report.html" 2>/dev/null)" "<b>e1</b>.*int left = stock;" \
   "report.html from a build folder: the source line found through the debug information's folder"

done_testing
