# rawwire.sh: the tool's raw record stream (proto/cb_wire.h, wire version 2:
# 32-byte records), written by hand for tests that need no tool.  The one
# place the tests spell that layout out.  Source after tests/tap.sh.
#
# raw RECORDS...: writes raw tool records to stdout.
#   H                              HELLO (wire version 2)
#   E                              END
#   L id addr line obj fn file     LOCDEF
#   S addr size name               SYMDEF
#   D addr offset line local name file   VARDEF (a name from debug info)
#   V kind size tid loc addr value an event
#   N count                        count events: 2 threads writing 2 counters
raw() {
    perl -e '
        binmode STDOUT;
        sub rec { my ($k, $s, $t, $l, $a, $v) = @_;
                  print pack("CCvVVVQ<Q<", $k, $s, 0, $t, $l, 0, $a, $v) }
        sub strs { my $s = join("", map { "$_\0" } @_);
                   $s .= "\0" x ((8 - length($s) % 8) % 8); $s }
        sub def { my ($kind, $pad, $id, $addr, $line, @s) = @_;
                  my $t = strs(@s);
                  print pack("CCvVQ<VVQ<", $kind, $pad, length($t), $id, hex($addr),
                             $line, 0, 0), $t }
        my @a = @ARGV;
        while (@a) {
            my $op = shift @a;
            if ($op eq "H") { rec(0xF1, 0, 0, 0, 2, 0) }
            elsif ($op eq "E") { rec(0xF2, 0, 0, 0, 0, 0) }
            elsif ($op eq "L") {
                my ($id, $addr, $line, @s) = splice(@a, 0, 6);
                def(0xF0, 0, $id, $addr, $line, @s);
            } elsif ($op eq "S") {
                my ($addr, $size, $name) = splice(@a, 0, 3);
                def(0xF3, 0, 0, $addr, $size, $name);
            } elsif ($op eq "D") {
                my ($addr, $off, $line, $local, @s) = splice(@a, 0, 6);
                def(0xF4, $local, $off, $addr, $line, @s);
            } elsif ($op eq "V") {
                my ($k, $s, $tid, $loc, $addr, $v) = splice(@a, 0, 6);
                rec($k, $s, $tid, $loc, hex($addr), $v);
            } elsif ($op eq "N") {
                my $n = shift @a;
                for my $i (0 .. $n - 1) {
                    my $tid = 1 + int($i / 1000) % 2;
                    rec(2, 4, $tid, 1, 0x404040 + 8 * ($i % 2), $i);
                }
            }
        }' -- "$@"
}
