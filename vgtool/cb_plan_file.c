/* cb_plan_file.c: reads the replay plan's file (cb_wire.h, "The replay
 * plan") into memory as the 64-bit words cb_replay.c checks and follows.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"
#include "cb_global.h"

/* The whole file, or False when it cannot be read or is no whole number
 * of words (the caller says which plan was bad). */
Bool cb_plan_file_read(const HChar *path, ULong **words, ULong *nwords)
{
   SysRes r = VG_(open)(path, VKI_O_RDONLY, 0);
   if (sr_isError(r))
      return False;
   Int fd = sr_Res(r);
   UInt cap = 1024, n = 0;
   UChar *buf = VG_(malloc)("cb.plan", cap);
   for (;;) {
      if (n == cap) {
         cap *= 2;
         buf = VG_(realloc)("cb.plan", buf, cap);
      }
      Int got = VG_(read)(fd, buf + n, cap - n);
      if (got < 0) {
         VG_(close)(fd);
         VG_(free)(buf);
         return False;
      }
      if (got == 0)
         break;
      n += got;
   }
   VG_(close)(fd);
   if (n % 8 != 0) {
      VG_(free)(buf);
      return False;
   }
   *words = (ULong *)buf;
   *nwords = n / 8;
   return True;
}
