/* fuzz_tests_file.c: libFuzzer harness of cbtest's tests-file parser
 * (reschedule/batch/cbtest_suite.c): the input is a tests file, read through the
 * real cbt_read_suite (from a memory file), and each of its lines is split
 * on its own too.  No crash, no leak; every command has words.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cbtest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd = -1;
static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   if (memfd < 0) {
      memfd = memfd_create("tests", 0);
      if (memfd < 0)
         abort();
      snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);
   }
   if (ftruncate(memfd, 0) != 0 || pwrite(memfd, data, size, 0) !=
                                       (ssize_t)size)
      abort();
   cbt_command *cmds;
   size_t n;
   char why[256];
   if (cbt_read_suite(path, &cmds, &n, why, sizeof why) == 0) {
      for (size_t i = 0; i < n; i++) {
         if (cmds[i].argc < 1 || !cmds[i].argv[0])
            abort();
         cbt_free_words(cmds[i].argv);
      }
      free(cmds);
   }
   /* The first line alone, as a string. */
   char *line = malloc(size + 1);
   memcpy(line, data, size);
   line[size] = 0;
   char **words;
   const char *bad;
   if (cbt_split_words(line, &words, &bad) >= 0)
      cbt_free_words(words);
   free(line);
   return 0;
}
