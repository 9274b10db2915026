# tap.sh: a tiny TAP producer for the shell tests in tests/t/.
# Source it, call plan N (or done_testing at the end), then ok/is/like.
# Runs from the top of the source tree; bin/ holds the commands.
cd "$(dirname "$0")/../.." || exit 1
TOP=$(pwd)
PATH="$TOP/bin:$PATH"
_tap_n=0
_tap_failed=0
plan() { echo "1..$1"; }
done_testing() { echo "1..$_tap_n"; [ "$_tap_failed" = 0 ]; exit $?; }
_tap_report() { # status description
    _tap_n=$((_tap_n + 1))
    if [ "$1" = 0 ]; then echo "ok $_tap_n - $2"
    else echo "not ok $_tap_n - $2"; _tap_failed=$((_tap_failed + 1))
         echo "#   Failed test $_tap_n - $2" >&2; fi
}
ok() { # ok "description" command...  (passes when the command succeeds)
    _d=$1; shift
    if "$@"; then _tap_report 0 "$_d"; else _tap_report 1 "$_d"; fi
}
is() { # is GOT EXPECTED "description"
    if [ "$1" = "$2" ]; then _tap_report 0 "$3"
    else _tap_report 1 "$3"; { echo "#   got: '$1'"; echo "#   expected: '$2'"; } >&2; fi
}
like() { # like TEXT REGEX "description"   (grep -E on the text)
    if printf '%s\n' "$1" | grep -Eq -- "$2"; then _tap_report 0 "$3"
    else _tap_report 1 "$3"
         { echo "#   '$2' not found in:"; printf '%s\n' "$1" | head -20 | sed 's/^/#     /'; } >&2; fi
}
unlike() { # unlike TEXT REGEX "description"
    if printf '%s\n' "$1" | grep -Eq -- "$2"; then _tap_report 1 "$3"; echo "#   '$2' was found" >&2
    else _tap_report 0 "$3"; fi
}
skip() { # skip "description: why"   (an ok line with TAP's SKIP directive)
    _tap_n=$((_tap_n + 1)); echo "ok $_tap_n # skip $1"
}
# Diagnostics and a failure's details go to stderr, as Test::More's do:
# prove shows them without -v, so a failure in CI's log says why.
diag() { echo "# $*" >&2; }
# A scratch folder removed at exit.
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cbtest.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
