/* replay_events: prints the counted events of a raw event stream (the file
 * `cbreplay --events-out FILE` writes, cb_wire.h), one a line:
 *     T<tid> <kind> <file:line>@<instruction address> <data address>
 * so that a test can compare the sequence of two forced runs with cmp.
 * Location ids are replaced by what they name, because ids are handed out
 * in translation order.  Exit 1 when the stream is damaged.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdlib.h>
#include <string.h>

#include "cbtrace.h"

typedef struct {
   unsigned long long address;
   char where[300];
} loc;

int main(int argc, char **argv)
{
   if (argc != 2) {
      fprintf(stderr, "usage: replay_events RAWFILE\n");
      return 2;
   }
   FILE *f = fopen(argv[1], "rb");
   if (!f) {
      perror(argv[1]);
      return 2;
   }
   loc *locs = NULL;
   size_t nlocs = 0;
   unsigned long long counted = 0;
   cb_wire_event e;
   while (fread(&e, sizeof e, 1, f) == 1) {
      /* Definitions (locations, symbols, variable names: a replay that
       * records names its data too) carry strings after their 32 bytes. */
      if (CB_WIRE_HAS_STRINGS(e.kind)) {
         cb_wire_locdef d;
         memcpy(&d, &e, sizeof d);
         char *s = malloc(d.strlen + 1u);
         if (!s || fread(s, 1, d.strlen, f) != d.strlen) {
            fprintf(stderr, "replay_events: stream cut inside a definition\n");
            return 1;
         }
         s[d.strlen] = 0;
         if (e.kind == CB_WIRE_LOCDEF) {
            if (d.id >= nlocs) {
               size_t n = d.id + 64;
               locs = realloc(locs, n * sizeof *locs);
               memset(locs + nlocs, 0, (n - nlocs) * sizeof *locs);
               nlocs = n;
            }
            /* Strings: object, function, file. */
            const char *obj = s, *fn = obj + strlen(obj) + 1;
            const char *file = fn + strlen(fn) + 1;
            locs[d.id].address = d.address;
            if (*file && d.line)
               snprintf(locs[d.id].where, sizeof locs[d.id].where, "%s:%u",
                        file, d.line);
            else
               snprintf(locs[d.id].where, sizeof locs[d.id].where, "0x%llx",
                        d.address);
         }
         free(s);
         continue;
      }
      if (e.kind >= CB_EV_KIND_COUNT || !CB_IS_COUNTED(e.kind))
         continue;
      const char *where = e.loc < nlocs && locs[e.loc].where[0]
                             ? locs[e.loc].where : "?";
      printf("T%u %s %s@0x%llx 0x%llx\n", e.tid, cb_event_kind_name(e.kind),
             where, e.loc < nlocs ? locs[e.loc].address : 0ull, e.addr);
      counted++;
   }
   fclose(f);
   free(locs);
   fprintf(stderr, "replay_events: %llu counted events\n", counted);
   return 0;
}
