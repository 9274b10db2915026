# programs.sh: helpers for tests on the programs of tests/programs/.
# Source after tests/tap.sh (which sets TOP, TMP and the TAP functions).
# The markers these read are described in tests/lib/README.md.

CB_PROGRAM_SRC=$TOP/tests/programs
CB_PROGRAM_BIN=$TOP/build/programs
# Seconds a recorded run may take before it is killed (a deadlock must not
# hang the test suite).
CB_RECORD_TIMEOUT=${CB_RECORD_TIMEOUT:-120}

# cb_marker SRC KEY: the value of the header marker "cbtools-KEY:".
cb_marker() {
   sed -n "s/^.*cbtools-$2:[[:space:]]*//p" "$1" | head -n 1 | sed 's/[[:space:]]*$//'
}

# cb_program_missing SRC: why SRC's program is not built here (pkg-config
# knows no package of its cbtools-pkg marker), or nothing.  A test skips
# such a program and says why; every other missing program is a failure.
cb_program_missing() {
   _pkg=$(cb_marker "$1" pkg)
   [ -n "$_pkg" ] || return 0
   pkg-config --exists "$_pkg" 2>/dev/null ||
      echo "pkg-config knows no $_pkg (scripts/setup-deps.sh installs it)"
}

# cb_facts SRC: one fact of a "// cb:" line marker a line:
#   LINE KIND VARIABLE [ROLE...]     (VARIABLE is "-" when the kind has none)
cb_facts() {
   awk '
      index($0, "// cb:") {
         s = substr($0, index($0, "// cb:") + 6)
         n = split(s, facts, ";")
         for (i = 1; i <= n; i++) {
            f = facts[i]
            roles = ""
            if (match(f, /\[[^]]*\]/)) {
               roles = substr(f, RSTART + 1, RLENGTH - 2)
               f = substr(f, 1, RSTART - 1)
            }
            m = split(f, w, " ")
            if (m == 0) continue
            var = (m >= 2 ? w[2] : "-")
            print NR, w[1], var, roles
         }
      }' "$1"
}

# cb_role_lines SRC ROLE: the lines carrying ROLE (e1, f, e2), one a line.
cb_role_lines() {
   cb_facts "$1" | awk -v r="$2" '{ for (i = 4; i <= NF; i++) if ($i == r) print $1 }' | sort -un
}

# cb_expect_matches PATTERNS VARIABLE PATTERN VAR: succeeds when a found
# PATTERN on VAR is one that the marker "bug PATTERNS VARIABLE" allows:
# PATTERNS is one pattern or several joined by '|'; VARIABLE "-" (heap
# memory) matches any variable.
cb_expect_matches() {
   case "|$1|" in *"|$3|"*) ;; *) return 1 ;; esac
   [ "$2" = - ] || [ "$2" = "$4" ]
}

# cb_record NAME TRACE: records build/programs/NAME into TRACE; stderr goes
# to TRACE.err, the program's stdout to TRACE.out.  Sets CB_STATUS.
cb_record() {
   CB_STATUS=0
   timeout -k 5 "$CB_RECORD_TIMEOUT" \
      cbtrace record -o "$2" -- "$CB_PROGRAM_BIN/$1" >"$2.out" 2>"$2.err" ||
      CB_STATUS=$?
}

# cb_dump_check SRC DUMP: summary line, then one line per problem.  A
# program built against a package (cbtools-pkg: glib-2.0) may have events
# in its library (libglib-2.0.so...), which the tool watches too.
cb_dump_check() {
   _lib=$(cb_marker "$1" pkg)
   awk -v src="$(basename "$1")" -v lib="${_lib:+lib$_lib}" \
      -f "$TOP/tests/lib/dumpcheck.awk" "$2"
}

# cb_summary_field SUMMARY NAME: one count of the summary line.
cb_summary_field() {
   printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# cb_fact_regex FILE LINE KIND VAR: the dump line a line marker's fact
# (cb_facts) asks for: an event of KIND (on VAR, "-": any) at FILE:LINE.
cb_fact_regex() {
   if [ "$4" = - ]; then
      printf '%s' "^[0-9]+ T[0-9]+ $3( .*)? @ ([^ ]*/)?$1:$2( |\$)"
   else
      # The variable as the marker names it, or a part of it: `slot`
      # matches `slot[1]`, `st` matches `st.count`, `buf` `buf+4`.
      _rv=$(printf '%s' "$4" | sed 's/[][\.*^$+?(){}|]/\\&/g')
      printf '%s' "^[0-9]+ T[0-9]+ $3 $_rv([.[+][^ ]*)? .*@ ([^ ]*/)?$1:$2( |\$)"
   fi
}

# cb_missing_facts FILE FACTS DUMP: how many facts of FACTS DUMP lacks.
cb_missing_facts() {
   _m=0
   while read -r _l _k _v _r; do
      grep -Eq "$(cb_fact_regex "$1" "$_l" "$_k" "$_v")" "$3" || _m=$((_m + 1))
   done <"$2"
   echo "$_m"
}

# check_recorded_program NAME: records tests/programs/NAME.c and asserts that
# the dump shows what its source says.  TAP lines; returns nothing useful.
check_recorded_program() {
   _n=$1
   _src=$CB_PROGRAM_SRC/$_n.c
   _tr=$TMP/$_n.pb
   _file=$(basename "$_src")
   _why=$(cb_program_missing "$_src")
   if [ -n "$_why" ]; then
      skip "$_n: not built: $_why"
      return
   fi
   if [ ! -x "$CB_PROGRAM_BIN/$_n" ]; then
      ok "$_n: built (make programs)" false
      return
   fi
   _expect=$(cb_marker "$_src" expect)
   _threads=$(cb_marker "$_src" threads)
   _joins=$(cb_marker "$_src" joins)
   [ -n "$_joins" ] || _joins=$((_threads - 1))
   _exit=$(cb_marker "$_src" exit)
   _blocks=$(cb_marker "$_src" blocks)
   _abnormal=0
   case $_expect in crash*) _abnormal=1 ;; esac

   # Some line markers need an interleaving (samples' monitor reads the
   # items only once the sampler added one): on a loaded machine a thread
   # may start late, so up to three recordings until every line marker's
   # event is there (make check saw samples miss one in a run of 49 files).
   cb_facts "$_src" >"$_tr.facts"
   for _try in 1 2 3; do
      cb_record "$_n" "$_tr"
      [ -s "$_tr" ] && cbtrace dump "$_tr" >"$_tr.dump" 2>/dev/null &&
         [ "$(cb_missing_facts "$_file" "$_tr.facts" "$_tr.dump")" = 0 ] && break
   done
   is "$CB_STATUS" "$_exit" "$_n: cbtrace record passes the exit status through"
   if [ "$CB_STATUS" = 124 ] || [ "$CB_STATUS" = 137 ]; then
      diag "$_n: the recorded run was killed after ${CB_RECORD_TIMEOUT}s"
   fi
   if [ ! -s "$_tr" ]; then
      ok "$_n: a trace was written" false
      sed 's/^/#   /' "$_tr.err" | head -5
      return
   fi
   _dump_status=0
   cbtrace dump "$_tr" >"$_tr.dump" 2>"$_tr.dump.err" || _dump_status=$?
   is "$_dump_status" 0 "$_n: cbtrace dump reads the trace"
   if [ "$_abnormal" = 0 ]; then
      unlike "$(cat "$_tr.dump.err")" "truncat" "$_n: a normal end leaves a whole trace"
   fi

   _check=$(cb_dump_check "$_src" "$_tr.dump")
   _summary=$(printf '%s\n' "$_check" | head -n 1)
   diag "$_n: $_summary"
   _problems=$(printf '%s\n' "$_check" | sed -n 's/^problem: //p')
   is "$_problems" "" "$_n: threads, creates, starts, joins, lock order and blocks are consistent"
   _foreign=$(printf '%s\n' "$_check" | sed -n 's/^foreign: //p')
   is "$_foreign" "" "$_n: every access and sync event is in $_file, on a named variable"
   is "$(cb_summary_field "$_summary" threads)" "$_threads" "$_n: $_threads threads (T1..T$_threads)"
   is "$(cb_summary_field "$_summary" creates)" "$((_threads - 1))" "$_n: $((_threads - 1)) creates"
   is "$(cb_summary_field "$_summary" starts)" "$_threads" "$_n: $_threads starts (main's from T0)"
   is "$(cb_summary_field "$_summary" joins)" "$_joins" "$_n: $_joins joins"
   if [ "$_abnormal" = 0 ]; then
      is "$(cb_summary_field "$_summary" locks)" "$(cb_summary_field "$_summary" unlocks)" "$_n: as many unlocks as locks"
      is "$(cb_summary_field "$_summary" held)" 0 "$_n: no lock held at the end"
      is "$(cb_summary_field "$_summary" unclosed)" 0 "$_n: every block closed at the end"
   fi

   # Each block function begins and ends, as often as each other.
   for _f in $_blocks; do
      _b=$(grep -Ec "^[0-9]+ T[0-9]+ begin $_f( |\$)" "$_tr.dump")
      _e=$(grep -Ec "^[0-9]+ T[0-9]+ end $_f( |\$)" "$_tr.dump")
      ok "$_n: begin $_f appears ($_b)" test "$_b" -gt 0
      if [ "$_abnormal" = 0 ]; then
         is "$_e" "$_b" "$_n: end $_f pairs with begin $_f"
      fi
   done

   # Each line marker: an event of that kind (on that variable) at that line.
   while read -r _line _kind _var _roles; do
      _re=$(cb_fact_regex "$_file" "$_line" "$_kind" "$_var")
      _what="$_kind"
      [ "$_var" = - ] || _what="$_kind $_var"
      if grep -Eq "$_re" "$_tr.dump"; then
         ok "$_n: $_what at $_file:$_line" true
      else
         ok "$_n: $_what at $_file:$_line" false
         diag "  events at that line:"
         grep -E "@ ([^ ]*/)?$_file:$_line( |\$)" "$_tr.dump" | head -5 | sed 's/^/#     /'
      fi
   done <"$_tr.facts"
}
