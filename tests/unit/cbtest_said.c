/* cbtest_said: comparing what failing programs said
 * (reschedule/batch/cbtest_lastline.c), TAP.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include "cbtest.h"
#include "tap_ok.h"

int main(void)
{
   ok(cbt_same_said("printq: job 66 printed twice", "printq: job 67 printed twice"),
      "the same words with other numbers: the same failure");
   ok(cbt_same_said("sum 74584, expected 41560", "sum 7, expected 41560"),
      "numbers of any length");
   ok(!cbt_same_said("printq: job 2 printed 0 times", "printq: job 1 printed twice"),
      "other words: another failure");
   ok(!cbt_same_said("job 1 lost", "job 1 lost twice") &&
         !cbt_same_said("job 1 lost twice", "job 1 lost"),
      "one a prefix of the other: another failure");
   ok(!cbt_same_said("item 7", "item x"), "a number is not a word");
   ok(cbt_same_said("", ""), "two empty lines");
   printf("1..%d\n", ntest);
   return nfail != 0;
}
