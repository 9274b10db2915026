/* cb_blocks.c: function activations as BLOCK_BEGIN / BLOCK_END pairs.
 *
 * A per-thread shadow stack of (function entry, stack pointer at entry).
 * Calls into watched code push; a return pops every frame whose entry stack
 * pointer lies below the new one, which also closes frames that a longjmp
 * skipped.  A tail call (jmp) stays in its caller's activation.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_hashtable.h"
#include "cb_global.h"

typedef struct { struct _VgHashNode *next; UWord key; Bool ok; } CbTargetNode;
static VgHashTable *cb_targets;

/* A call starts an activation when its target is watched code and not a PLT
 * stub (the stub's jump to the real function is no call).  Cached per
 * target: section lookups walk every object. */
Bool cb_call_target_watched(Addr target)
{
   if (UNLIKELY(!cb_targets))
      cb_targets = VG_(HT_construct)("cb_targets");
   CbTargetNode *n = VG_(HT_lookup)(cb_targets, target);
   if (UNLIKELY(!n)) {
      n = VG_(malloc)("cb.target", sizeof *n);
      n->key = target;
      n->ok = cb_obj_instrumented(target) && !cb_addr_is_plt(target);
      VG_(HT_add_node)(cb_targets, n);
   }
   return n->ok;
}

static void cb_pop(CbThread *t)
{
   CbFrame *f = &t->frames[--t->nframes];
   cb_event(t, CB_EV_BLOCK_END, 0, f->loc, f->fn, 0);
}

/* target: the called address; sp: the stack pointer after the call pushed
 * its return address, i.e. at the function's entry. */
VG_REGPARM(2) void cb_call(Addr target, Addr sp)
{
   CbThread *t = cb_cur;
   if (UNLIKELY(!t))
      return;
   if (!cb_call_target_watched(target))
      return;
   /* Frames at or below the new entry are dead (longjmp skipped them). */
   while (t->nframes > 0 && t->frames[t->nframes - 1].sp <= sp)
      cb_pop(t);
   if (t->nframes == t->capframes) {
      t->capframes = t->capframes ? 2 * t->capframes : 64;
      t->frames = VG_(realloc)("cb.frames", t->frames,
                               t->capframes * sizeof(CbFrame));
   }
   CbFrame *f = &t->frames[t->nframes++];
   f->fn = target;
   f->sp = sp;
   f->loc = cb_loc_for(target);
   cb_event(t, CB_EV_BLOCK_BEGIN, 0, f->loc, target, 0);
}

/* sp: the stack pointer after the return popped its address. */
VG_REGPARM(1) void cb_ret(Addr sp)
{
   CbThread *t = cb_cur;
   if (UNLIKELY(!t))
      return;
   while (t->nframes > 0 && t->frames[t->nframes - 1].sp < sp)
      cb_pop(t);
}

void cb_blocks_close_all(CbThread *t)
{
   while (t->nframes > 0)
      cb_pop(t);
}
