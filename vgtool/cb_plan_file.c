/* cb_plan_file.c: reads the replay plan's file (cb_wire.h, "The replay
 * plan") into memory as 64-bit words and checks them: the header, each
 * thread's prefix count, the tail's steps, then the parts other files
 * keep (the pattern, cb_pattern.c; thread paths and expected events,
 * cb_ident.c; the prefix's recorded order, cb_porder.c; a hunt, cb_hunt.c).  cb_replay.c
 * follows what it finds.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"
#include "cb_global.h"

/* The whole file, or False when it cannot be read or is no whole number
 * of words (the caller says which plan was bad). */
static Bool cb_plan_file_read(const HChar *path, ULong **words, ULong *nwords)
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

static Bool cb_plan_bad(const HChar *path, const HChar *why)
{
   VG_(umsg)("cbtools: bad replay plan %s: %s\n", path, why);
   return False;
}

/* The plan at path into *p, or False after saying what was wrong. */
Bool cb_plan_load(const HChar *path, CbPlan *p)
{
   ULong *w, nw, i = 0;
   if (!cb_plan_file_read(path, &w, &nw))
      return cb_plan_bad(path, "cannot read it");
#define NEED(k) do { if (i + (k) > nw) return cb_plan_bad(path, "truncated"); } while (0)
   NEED(4);
   if (w[0] != CB_PLAN_MAGIC)
      return cb_plan_bad(path, "not a plan (bad magic)");
   if (w[1] != CB_WIRE_VERSION)
      return cb_plan_bad(path, "another wire version");
   if (w[2] != CB_COUNTED_MASK)
      return cb_plan_bad(path, "events counted differently");
   p->nthreads = w[3];
   i = 4;
   if (p->nthreads > CB_PLAN_MAX_THREADS)
      return cb_plan_bad(path, "too many threads");
   NEED(p->nthreads + 1);
   p->prefix = VG_(calloc)("cb.plan", p->nthreads + 2, sizeof(ULong));
   for (ULong t = 1; t <= p->nthreads; t++)
      p->prefix[t] = w[i++];
   p->ntail = w[i++];
   if (p->ntail > (nw - i) / 2)
      return cb_plan_bad(path, "truncated");
   p->tail = &w[i];
   i += 2 * p->ntail;
   NEED(7);
   cb_pattern_load(&w[i]);
   i += 6;
   p->stall_ms = w[i++];
   if (p->stall_ms == 0)
      p->stall_ms = 1;
   if (!cb_ident_load(w, nw, &i, p->nthreads))
      return cb_plan_bad(path, "bad thread paths or expected events");
   if (!cb_porder_load(w, nw, &i, p->nthreads))
      return cb_plan_bad(path, "bad prefix order");
   if (!cb_hunt_load(w, nw, &i))
      return cb_plan_bad(path, "bad hunt");
#undef NEED
   return True;
}
