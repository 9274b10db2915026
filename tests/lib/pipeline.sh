# pipeline.sh: the whole pipeline on a program a test built in $TMP.
# Source after tests/tap.sh (which sets TMP and PATH).

# cb_pipeline NAME [RECORD-OPTION...]: records $TMP/NAME (cbtrace record
# with the options), predicts and forces every schedule (cbreplay --all,
# --timeout 20) in $TMP/NAME.d.  Sets D (that folder), TABLE (cbpredict's
# output, also in $D/predict.out), OUT (cbreplay's) and RC (its status).
cb_pipeline() {
   _n=$1; shift
   D=$TMP/$_n.d
   rm -rf "$D"; mkdir -p "$D"
   cbtrace record "$@" -o "$D/trace.pb" -- "$TMP/$_n" >"$D/record.out" 2>&1
   TABLE=$(cbpredict -o "$D/s" "$D/trace.pb" 2>&1)
   printf '%s\n' "$TABLE" >"$D/predict.out"
   OUT=$(cbreplay --all "$D/s" --timeout 20 -- "$TMP/$_n" 2>&1)
   RC=$?
}

# cb_build_data SRC NAME [CFLAG...]: builds tests/data/SRC into $TMP/NAME
# (-O2, as ordinary code is built, and the flags); bails out when it
# cannot.
cb_build_data() {
   _src=$1; _name=$2; shift 2
   cc -O2 -g -pthread "$@" -o "$TMP/$_name" "$TOP/tests/data/$_src" ||
      { echo "Bail out! cannot build $_name from tests/data/$_src"; exit 1; }
}

# cb_cbtest NAME [OPTION...]: `cbtest -j 1 OPTION... -o rep -- $TMP/NAME`
# run in $TMP/NAME.d (its summary in stdout, its reports in rep/); sets RC.
cb_cbtest() {
   _n=$1; shift
   mkdir -p "$TMP/$_n.d"
   (cd "$TMP/$_n.d" && "$TOP/bin/cbtest" -j 1 "$@" -o rep -- "$TMP/$_n" >stdout 2>stderr)
   RC=$?
}

# cb_bug_and_twin NAME SAID [BUG WHAT]: cbtest on $TMP/NAME and
# $TMP/NAME_O0 (--max-runs 25) and on $TMP/NAME_fixed (10): the first two
# confirm a bug (exit 1) whose summary says "said: SAID" (an ERE) and, when
# given, matches BUG (described by WHAT); the twin is clean (exit 0).
cb_bug_and_twin() {
   for _v in "$1" "$1_O0" "$1_fixed"; do
      cb_cbtest "$_v" --timeout 10 --max-runs $([ "$_v" = "$1_fixed" ] && echo 10 || echo 25)
      eval "_rc_$_v=\$RC"
   done
   for _v in "$1" "$1_O0"; do
      _out=$(cat "$TMP/$_v.d/stdout")
      eval "_rc=\$_rc_$_v"
      is "$_rc" 1 "$_v: a bug is confirmed (exit 1)"
      like "$_out" "said: +$2" "$_v: in the program's words"
      [ -z "$3" ] || like "$_out" "$3" "$_v: $4"
      [ "$_rc" = 1 ] || printf '%s\n' "$_out" | sed 's/^/#   /' | head -20 >&2
   done
   eval "_rc=\$_rc_$1_fixed"
   is "$_rc" 0 "$1_fixed: clean (exit 0)"
}
