/* cb_ident.c: replay mode's check that the run is the one the schedule
 * means (cb_wire.h, the plan's last two sections).
 *
 * Thread ids: a trace numbers threads by global creation order, which a
 * replay may change when unrelated threads start in another order (T2 and
 * T3 each create a child: whichever runs first makes T4).  The plan names
 * each thread by its creator and the creator's count of creates, and a new
 * thread gets the recorded id of that path; one the plan does not name
 * gets an id above every recorded one, so it never takes another's turns.
 *
 * Events: the plan names the event expected at each counted step's end and
 * at e1, f and e2.  When a thread runs that counted event, its kind, code
 * address and (for a global) data address are compared; a mismatch means
 * the forced run took another path than the prediction, and is said on the
 * status channel ("unexpected ...") for cbreplay to judge the run with.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_debuginfo.h"
#include "cb_global.h"

typedef struct {
   struct _VgHashNode *next;
   UWord key;       /* parent << 32 | index */
   UInt  wid;
} CbPath;

typedef struct {
   struct _VgHashNode *next;
   UWord key;       /* hash of (tid, index) */
   ULong tid, index, kindflags, code, data;
} CbExpect;

static VgHashTable *cb_paths;     /* NULL: the plan names no paths */
static VgHashTable *cb_expects;   /* NULL: nothing expected */
static UInt cb_fresh_wid;         /* the last id given to an unnamed thread */
static UInt cb_unexpected_said;

#define CB_UNEXPECTED_MAX 4       /* lines said at most: the first decides */

static UWord cb_expect_key(ULong tid, ULong index)
{
   return (UWord)(tid * 0x9e3779b97f4a7c15ull ^ index);
}

static Word cb_expect_cmp(const void *a, const void *b)
{
   const CbExpect *x = a, *y = b;
   return x->tid == y->tid && x->index == y->index ? 0 : 1;
}

Bool cb_ident_load(const ULong *w, ULong nw, ULong *at, ULong nthreads)
{
   ULong i = *at;
   if (i >= nw)
      return False;
   ULong npaths = w[i++];
   if (npaths > nthreads || npaths > (nw - i) / 2)
      return False;
   cb_fresh_wid = (UInt)nthreads;
   if (npaths > 0) {
      cb_paths = VG_(HT_construct)("cb.paths");
      for (ULong t = 1; t <= npaths; t++, i += 2) {
         if (w[i] == 0 || w[i + 1] == 0)
            continue;   /* main, or a thread created where none was seen */
         CbPath *p = VG_(malloc)("cb.path", sizeof *p);
         p->key = (UWord)(w[i] << 32 | (w[i + 1] & 0xffffffffull));
         p->wid = (UInt)t;
         if (VG_(HT_lookup)(cb_paths, p->key))
            VG_(free)(p);   /* two threads on one path: keep the first */
         else
            VG_(HT_add_node)(cb_paths, p);
      }
   }
   if (i >= nw)
      return False;
   ULong nexp = w[i++];
   if (nexp > (nw - i) / 5)
      return False;
   if (nexp > 0)
      cb_expects = VG_(HT_construct)("cb.expects");
   for (ULong k = 0; k < nexp; k++, i += 5) {
      CbExpect *e = VG_(malloc)("cb.expect", sizeof *e);
      e->tid = w[i];
      e->index = w[i + 1];
      e->kindflags = w[i + 2];
      e->code = w[i + 3];
      e->data = w[i + 4];
      e->key = cb_expect_key(e->tid, e->index);
      if (VG_(HT_gen_lookup)(cb_expects, e, cb_expect_cmp))
         VG_(free)(e);   /* e1 = e2 of an order violation */
      else
         VG_(HT_add_node)(cb_expects, e);
   }
   *at = i;
   return True;
}

UInt cb_ident_child_wid(UInt parent, UInt index)
{
   if (!cb_paths)
      return 0;
   CbPath *p = VG_(HT_lookup)(cb_paths, (UWord)parent << 32 | index);
   if (p)
      return p->wid;
   return ++cb_fresh_wid;
}

void cb_ident_check(const CbThread *t, UChar kind, UInt loc, Addr addr,
                    Bool forcing)
{
   if (!cb_expects || cb_unexpected_said >= CB_UNEXPECTED_MAX)
      return;
   CbExpect k;
   k.tid = t->wid;
   k.index = t->counted;
   k.key = cb_expect_key(k.tid, k.index);
   const CbExpect *e = VG_(HT_gen_lookup)(cb_expects, &k, cb_expect_cmp);
   if (!e)
      return;
   Addr code = cb_loc_address(loc);
   UInt flags = (UInt)(e->kindflags >> 8);
   Bool same = (UChar)e->kindflags == kind &&
               (!(flags & CB_EXPECT_CODE) || !code || code == e->code) &&
               (!(flags & CB_EXPECT_ADDR) || addr == e->data);
   if (same)
      return;
   HChar where[96], buf[200];
   cb_where(code, where, sizeof where);
   VG_(snprintf)(buf, sizeof buf, "unexpected %u %llu %u 0x%lx 0x%lx %s %d",
                 t->wid, (ULong)t->counted, (UInt)kind, (UWord)code,
                 (UWord)addr, where, forcing ? 1 : 0);
   cb_replay_status(buf);
   cb_unexpected_said++;
}
