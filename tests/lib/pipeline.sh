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
