# json.sh: sourced by the tests that read cbtest's and cbreplay's JSON.
#
# jget FILE PERL-EXPR: evaluates EXPR on the parsed JSON document $d;
# prints the value ("undef" when it has none), or "PARSE-ERROR" when the
# file is missing or not JSON.
jget() {
   perl -MJSON::PP -e '
      local $/; open my $f, "<", $ARGV[0] or do { print "PARSE-ERROR\n"; exit };
      my $d = eval { JSON::PP->new->utf8->decode(<$f>) };
      if (!$d) { print "PARSE-ERROR\n"; exit }
      my $v = eval $ARGV[1]; print defined $v ? "$v\n" : "undef\n";' "$1" "$2"
}
