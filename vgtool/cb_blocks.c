/* cb_blocks.c: function activations as BLOCK_BEGIN / BLOCK_END pairs.
 *
 * A per-thread shadow stack of (function entry, stack pointer at entry,
 * return address).  Activations are noticed in two places:
 *  - at a call site whose superblock ends in the call (cb_call), which also
 *    sees entries that debug info does not name (_init, stripped code);
 *  - at the entry instruction of a named function of watched code
 *    (cb_enter), which sees what call sites miss: a call through a PLT stub
 *    (the stub's jump is no call), a call that VEX chased into the caller's
 *    superblock, an indirect or tail jump into a function.
 * Both may see the same activation: an entry whose function, stack pointer
 * and return address are those of the top frame opens nothing new.
 * A return pops every frame whose entry stack pointer lies below the new
 * one, which also closes frames that a longjmp skipped.  A tail call (jmp to
 * another function, same stack pointer and return address) opens a frame
 * nested in its caller's; both end at the shared return.
 * Activations of inlined functions (cb_inline.c) are frames too, above
 * their real frame and with its stack pointer and return address, so that
 * whatever ends the real frame ends them; their chain field is nonzero.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_debuginfo.h"
#include "cb_global.h"

typedef struct { struct _VgHashNode *next; UWord key; Bool ok; } CbTargetNode;
static VgHashTable *cb_targets;

/* Not in the tool headers (pub_core_redir.h): what Valgrind runs in place
 * of the code at orig (orig itself when nothing). */
extern Addr VG_(redir_do_lookup)(Addr orig, Bool *isWrap);

/* A call starts an activation when its target is watched code and not a PLT
 * stub (the stub's jump to the real function is no call), nor a function
 * that Valgrind redirects to a wrapper of the preload library (GLib's
 * g_mutex_lock, called directly from inside GLib): the wrapper's code is
 * not watched, no return of the activation would be seen, and the call is
 * an event of its own.  Cached per target: section lookups walk every
 * object, and an object's redirections are set when it is loaded. */
Bool cb_call_target_watched(Addr target)
{
   if (UNLIKELY(!cb_targets))
      cb_targets = VG_(HT_construct)("cb_targets");
   CbTargetNode *n = VG_(HT_lookup)(cb_targets, target);
   if (UNLIKELY(!n)) {
      n = VG_(malloc)("cb.target", sizeof *n);
      n->key = target;
      n->ok = cb_obj_instrumented(target) && !cb_addr_is_plt(target) &&
              !cb_code_is_runtime_glue(target) &&
              VG_(redir_do_lookup)(target, NULL) == target;
      VG_(HT_add_node)(cb_targets, n);
   }
   return n->ok;
}

/* Translation time: is a (in watched code) the first instruction of a
 * function that should open a block?  Not a PLT stub; not what runs below
 * main (_start, which Valgrind names "(below main)": the kernel enters it
 * without a call, and a frame there would wrap main, the root activation
 * the predictor counts from); not a compiler's cold part
 * (f.cold), which f enters by a jump and which is still f. */
Bool cb_is_fn_entry(Addr a)
{
   const HChar *name;
   if (!VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), a, &name))
      return False;
   if (VG_(get_fnname_kind)(name) == Vg_FnNameBelowMain ||
       VG_(strcmp)(name, "(below main)") == 0 ||
       VG_(strcmp)(name, "_start") == 0 || VG_(strstr)(name, ".cold"))
      return False;
   return !cb_addr_is_plt(a);
}

/* The inline chain of t's top frame, kept in cb_cur_chain for generated
 * code while t runs. */
UInt cb_blocks_top_chain(const CbThread *t)
{
   return t->nframes > 0 ? t->frames[t->nframes - 1].chain : 0;
}

static void cb_sync_chain(CbThread *t)
{
   if (t == cb_cur)
      cb_cur_chain = cb_entered ? CB_CHAIN_INVALID : cb_blocks_top_chain(t);
}

static void cb_pop(CbThread *t)
{
   CbFrame *f = &t->frames[--t->nframes];
   cb_event(t, CB_EV_BLOCK_END, 0, f->loc, f->fn, 0);
   cb_sync_chain(t);
}

static void cb_push_frame(CbThread *t, Addr fn, Addr sp, Addr ret, UInt loc,
                          UInt chain)
{
   if (t->nframes == t->capframes) {
      t->capframes = t->capframes ? 2 * t->capframes : 64;
      t->frames = VG_(realloc)("cb.frames", t->frames,
                               t->capframes * sizeof(CbFrame));
   }
   CbFrame *f = &t->frames[t->nframes++];
   f->fn = fn;
   f->sp = sp;
   f->ret = ret;
   f->loc = loc;
   f->chain = chain;
   cb_event(t, CB_EV_BLOCK_BEGIN, 0, loc, fn, 0);
   cb_sync_chain(t);
}

static void cb_push(CbThread *t, Addr fn, Addr sp, Addr ret, UInt loc)
{
   cb_push_frame(t, fn, sp, ret, loc, 0);
}

/* Inlined activations live above their real frame, with its stack pointer
 * and return address, so that whatever closes the real frame closes them. */
void cb_blocks_push_inlined(CbThread *t, UInt chain, Addr fn, UInt loc)
{
   Addr sp = 0, ret = 0;
   if (t->nframes > 0) {
      sp = t->frames[t->nframes - 1].sp;
      ret = t->frames[t->nframes - 1].ret;
   }
   cb_push_frame(t, fn, sp, ret, loc, chain);
}

/* Closes t's open inlined activations down to the one of chain keep (or to
 * the real frame). */
void cb_blocks_pop_inlined(CbThread *t, UInt keep)
{
   while (t->nframes > 0 && t->frames[t->nframes - 1].chain != 0 &&
          t->frames[t->nframes - 1].chain != keep)
      cb_pop(t);
}

void cb_blocks_resume(CbThread *t)
{
   cb_sync_chain(t);
}

/* target: the called address; sp: the stack pointer after the call pushed
 * its return address, i.e. at the function's entry.  A call is certainly a
 * new activation: frames at or below its entry are dead (longjmp). */
VG_REGPARM(2) void cb_call(Addr target, Addr sp)
{
   CbThread *t = cb_cur;
   if (UNLIKELY(!t) || t->unwatched)
      return;
   if (!cb_call_target_watched(target))
      return;
   while (t->nframes > 0 && t->frames[t->nframes - 1].sp <= sp)
      cb_pop(t);
   cb_push(t, target, sp, *(Addr *)sp, cb_loc_for_fn(target));
}

/* fn: a function's entry, reached by any path; sp: the stack pointer there,
 * whose word is the return address; loc: fn's location id. */
VG_REGPARM(3) void cb_enter(Addr fn, Addr sp, UWord loc)
{
   CbThread *t = cb_cur;
   /* Unwatched (a modelled call's real code): no activation opens there;
    * the frames it would have had lie below the caller's, and no return
    * can close the caller's before the call returns. */
   if (UNLIKELY(!t) || t->unwatched)
      return;
   /* Frames below the entry are dead: a longjmp, or a return made by
    * unwatched code (a tail call into the C library). */
   while (t->nframes > 0 && t->frames[t->nframes - 1].sp < sp)
      cb_pop(t);
   Addr ret = *(Addr *)sp;
   UInt top = t->nframes;
   if (top > 0 && t->frames[top - 1].sp == sp) {
      if (t->frames[top - 1].ret != ret) {
         /* Same stack slot, another return address: those activations
          * ended (a longjmp) and this is a new call. */
         while (t->nframes > 0 && t->frames[t->nframes - 1].sp == sp)
            cb_pop(t);
      } else {
         /* The same activation seen again (its call site pushed it, a
          * retried instruction, a loop back to the entry), or a chain of
          * tail calls coming back to a function still open in it: close
          * what the chain opened after it, open nothing. */
         for (UInt i = top; i > 0 && t->frames[i - 1].sp == sp; i--)
            if (t->frames[i - 1].fn == fn && t->frames[i - 1].chain == 0) {
               while (t->nframes > i)
                  cb_pop(t);
               return;
            }
         /* A tail call: nested in the caller's activation. */
      }
   }
   cb_push(t, fn, sp, ret, (UInt)loc);
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
