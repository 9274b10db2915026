/* cb_instrument.c: VEX instrumentation, the walk over a superblock.
 *
 * Each memory access of watched code emits a READ or WRITE record with its
 * value (cb_emit.c), unless it can be proved at translation time never to
 * be shared (cb_classify.c): addresses computed from the stack pointer
 * (until some thread's stack memory is shared: cb_stacks.c), and constant
 * addresses in read-only data, the GOT or the PLT.  Accesses to the
 * running thread's own stack are dropped at run time, unless the line
 * escaped to another thread.  Function entries, calls and returns feed the
 * shadow stack of cb_blocks.c.  In replay mode each instruction that may
 * produce a counted event is preceded by a gate.  In functions with
 * inlined code, the inline chain is checked before each instruction's
 * first event (cb_inline.c).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_machine.h"
#include "libvex_guest_amd64.h"
#include "cb_global.h"
#include "cb_ir.h"

/* A function entry: the frame is pushed here, with the stack pointer of
 * the entry (whatever path led here: a call, a PLT stub, a chased call). */
static void cb_emit_enter(CbEmit *em, const VexGuestLayout *layout)
{
   UInt loc = cb_loc_for_fn(em->insn);
   IRTemp sp = newIRTemp(em->sb->tyenv, Ity_I64);
   addStmtToIRSB(em->sb, IRStmt_WrTmp(sp, IRExpr_Get(layout->offset_SP,
                                                     Ity_I64)));
   IRDirty *d = unsafeIRDirty_0_N(
      3, "cb_enter", VG_(fnptr_to_fnentry)(cb_enter),
      mkIRExprVec_3(mkIRExpr_HWord(em->insn), IRExpr_RdTmp(sp),
                    mkIRExpr_HWord(loc)));
   addStmtToIRSB(em->sb, IRStmt_Dirty(d));
}

/* Appends the shadow-stack helper of a superblock that ends in a call or a
 * return (the stack pointer read at the end is the one after the push or
 * the pop). */
static void cb_add_call_ret(IRSB *sb, const VexGuestLayout *layout)
{
   if (sb->jumpkind != Ijk_Call && sb->jumpkind != Ijk_Ret)
      return;
   if (sb->jumpkind == Ijk_Call && sb->next->tag == Iex_Const &&
       !cb_call_target_watched((Addr)sb->next->Iex.Const.con->Ico.U64))
      return;
   IRTemp sp = newIRTemp(sb->tyenv, Ity_I64);
   addStmtToIRSB(sb, IRStmt_WrTmp(sp, IRExpr_Get(layout->offset_SP, Ity_I64)));
   IRDirty *d =
      sb->jumpkind == Ijk_Call
         ? unsafeIRDirty_0_N(2, "cb_call", VG_(fnptr_to_fnentry)(cb_call),
                             mkIRExprVec_2(sb->next, IRExpr_RdTmp(sp)))
         : unsafeIRDirty_0_N(1, "cb_ret", VG_(fnptr_to_fnentry)(cb_ret),
                             mkIRExprVec_1(IRExpr_RdTmp(sp)));
   addStmtToIRSB(sb, IRStmt_Dirty(d));
}

/* The instruction being walked: what its accesses need to know besides
 * the emitter's state. */
typedef struct {
   CbEmit  em;
   CbScan  sc;
   UChar  *gate;      /* per statement, CB_GATE_* (cb_classify.c) */
   UChar  *sole;      /* per statement: its instruction's only access */
   const VexGuestLayout *layout;
   IRSB   *bb;        /* the superblock as it came, and the statement */
   Int     at;        /* being walked (cb_rmw.c reads around it) */
   UInt    insn_len;
   /* Loaded addresses of this instruction, so a CAS after a load of the
    * same address (a lock-prefixed add) adds only its write. */
   IRExpr *loaded[4];
   Int     nloaded;
} CbWalk;

/* An IMark: a new instruction starts (and maybe a function, or an inlined
 * body). */
static void cb_walk_imark(CbWalk *w, IRStmt *st, Int i)
{
   CbEmit *em = &w->em;
   addStmtToIRSB(em->sb, st);
   em->insn = (Addr)st->Ist.IMark.addr;
   w->insn_len = st->Ist.IMark.len;
   em->loc = 0;
   em->first = True;
   em->split = False;
   w->nloaded = 0;
   if (cb_is_fn_entry(em->insn)) {
      cb_emit_enter(em, w->layout);
      em->known = CB_CHAIN_INVALID;
   }
   cb_emit_inline_entry(em);
   if (cb_replaying && w->gate[i] == CB_GATE_AFTER_IMARK)
      cb_emit_gate(em->sb, w->layout, em->insn, NULL, True, False, 0);
}

/* A compare-and-swap: its read (unless the instruction loaded the address
 * already) and its write, which happens only when it succeeds. */
static void cb_walk_cas(CbWalk *w, IRStmt *st, IRExpr *addr)
{
   CbEmit *em = &w->em;
   IRSB *sb = em->sb;
   IRCAS *cas = st->Ist.CAS.details;
   addStmtToIRSB(sb, st);
   Bool dbl = cas->oldHi != IRTemp_INVALID;
   IRType ty = typeOfIRExpr(sb->tyenv, cas->dataLo);
   UInt size = cb_type_size(ty) * (dbl ? 2 : 1);
   Bool seen = False;
   for (Int k = 0; k < w->nloaded; k++)
      if (eqIRAtom(w->loaded[k], addr))
         seen = True;
   if (!seen)
      cb_emit_mem(em, addr,
                  dbl ? mkIRExpr_HWord(0)
                      : cb_widen(sb, IRExpr_RdTmp(cas->oldLo)),
                  size, CB_EV_READ, NULL);
   IRExpr *guard = NULL;
   if (!dbl) {
      IRExpr *o = cb_widen(sb, IRExpr_RdTmp(cas->oldLo));
      IRExpr *e = cb_widen(sb, cas->expdLo);
      IRTemp g = newIRTemp(sb->tyenv, Ity_I1);
      addStmtToIRSB(sb, IRStmt_WrTmp(g, IRExpr_Binop(Iop_CmpEQ64, o, e)));
      guard = IRExpr_RdTmp(g);
   }
   em->first = False; /* the write is part of this instruction */
   em->rmw = cb_rmw_class(w->bb, w->at);
   cb_emit_mem(em, addr, dbl ? mkIRExpr_HWord(0) : cb_widen(sb, cas->dataLo),
               size, CB_EV_WRITE, guard);
   em->rmw = CB_RMW_NONE;
}

/* A helper call that touches memory (an x87/SSE state save, a cpuid…):
 * its footprint as a read and/or a write, without a value. */
static void cb_walk_dirty(CbWalk *w, IRStmt *st, IRExpr *addr)
{
   IRDirty *dd = st->Ist.Dirty.details;
   addStmtToIRSB(w->em.sb, st);
   UInt size = dd->mSize > 32 ? 32 : dd->mSize;
   IRExpr *g = dd->guard && !(dd->guard->tag == Iex_Const &&
                              dd->guard->Iex.Const.con->Ico.U1)
                  ? dd->guard : NULL;
   if (dd->mFx == Ifx_Read || dd->mFx == Ifx_Modify)
      cb_emit_mem(&w->em, addr, mkIRExpr_HWord(0), size, CB_EV_READ, g);
   if (dd->mFx == Ifx_Write || dd->mFx == Ifx_Modify)
      cb_emit_mem(&w->em, addr, mkIRExpr_HWord(0), size, CB_EV_WRITE, g);
}

/* An access that may be shared: the statement with its event record, a
 * read's after it (for its value), a write's before it. */
static void cb_walk_access(CbWalk *w, IRStmt *st, IRExpr *addr, Bool split)
{
   CbEmit *em = &w->em;
   IRSB *sb = em->sb;
   switch (st->tag) {
   case Ist_WrTmp: {
      if (split && cb_replaying)
         cb_split_emit_load(sb, st);
      else
         addStmtToIRSB(sb, st);
      IRType ty = st->Ist.WrTmp.data->Iex.Load.ty;
      cb_emit_mem(em, addr, cb_widen(sb, IRExpr_RdTmp(st->Ist.WrTmp.tmp)),
                  cb_type_size(ty), CB_EV_READ, NULL);
      if (w->nloaded < 4)
         w->loaded[w->nloaded++] = addr;
      break;
   }
   case Ist_LoadG: {
      IRLoadG *lg = st->Ist.LoadG.details;
      addStmtToIRSB(sb, st);
      IRType ty_data, ty_addr;
      typeOfIRLoadGOp(lg->cvt, &ty_data, &ty_addr);
      (void)ty_data;
      cb_emit_mem(em, addr, cb_widen(sb, IRExpr_RdTmp(lg->dst)),
                  cb_type_size(ty_addr), CB_EV_READ, lg->guard);
      break;
   }
   case Ist_Store: {
      IRExpr *data = st->Ist.Store.data;
      cb_emit_mem(em, addr, cb_widen(sb, data),
                  cb_type_size(typeOfIRExpr(sb->tyenv, data)) |
                     (em->split ? CB_SIZE_SPLIT : 0),
                  CB_EV_WRITE, NULL);
      addStmtToIRSB(sb, st);
      break;
   }
   case Ist_StoreG: {
      IRStoreG *sg = st->Ist.StoreG.details;
      cb_emit_mem(em, addr, cb_widen(sb, sg->data),
                  cb_type_size(typeOfIRExpr(sb->tyenv, sg->data)),
                  CB_EV_WRITE, sg->guard);
      addStmtToIRSB(sb, st);
      break;
   }
   case Ist_CAS:
      cb_walk_cas(w, st, addr);
      break;
   case Ist_Dirty:
      cb_walk_dirty(w, st, addr);
      break;
   default:
      addStmtToIRSB(sb, st);
      break;
   }
}

/* Any statement after the first IMark: the replay gate where the scan put
 * one, then the statement with its events. */
static void cb_walk_stmt(CbWalk *w, IRStmt *st, Int i)
{
   CbEmit *em = &w->em;
   Int n;
   w->at = i;
   IRExpr *addr = cb_stmt_access(st, &n);
   Bool instr = addr && cb_addr_needs_helper(&w->sc, addr);
   if (cb_inline_is_chased_call(st, em->insn, w->insn_len))
      cb_emit_inline_check(em);   /* a call is an event, see cb_instrument */
   Bool split = instr && w->gate[i] == CB_GATE_SPLIT;
   if (split) {
      em->split = True;
      if (em->loc == 0)
         em->loc = cb_loc_for(em->insn);
   }
   if (cb_replaying && instr &&
       (w->gate[i] == CB_GATE_BEFORE || w->gate[i] == CB_GATE_BEFORE_MULTI ||
        split))
      cb_emit_gate(em->sb, w->layout, em->insn, addr,
                   w->gate[i] == CB_GATE_BEFORE_MULTI, split,
                   CB_INFO(cb_type_size(st->tag == Ist_WrTmp
                              ? st->Ist.WrTmp.data->Iex.Load.ty : Ity_I64),
                           CB_EV_READ, True, em->loc));
   if (instr) {
      em->sole = w->sole[i];
      cb_walk_access(w, st, addr, split);
      em->sole = False;
   } else
      addStmtToIRSB(em->sb, st);
}

IRSB *cb_instrument(VgCallbackClosure *closure, IRSB *bb,
                    const VexGuestLayout *layout,
                    const VexGuestExtents *vge,
                    const VexArchInfo *archinfo_host,
                    IRType gWordTy, IRType hWordTy)
{
   if (gWordTy != hWordTy)
      VG_(tool_panic)("cbtools: host/guest word size mismatch");
   if (!cb_obj_instrumented((Addr)vge->base[0]) ||
       cb_code_is_runtime_glue((Addr)vge->base[0])) {
      /* Unwatched code (the C runtime) calling through a pointer may enter
       * watched code: a thread's start routine, main, a callback. */
      if (bb->jumpkind == Ijk_Call && bb->next->tag != Iex_Const)
         cb_add_call_ret(bb, layout);
      return bb;
   }

   IRSB *sb = deepCopyIRSBExceptStmts(bb);
   CbWalk w = { .em = { .sb = sb, .first = True, .stk_lo = IRTemp_INVALID,
                        .stk_len = IRTemp_INVALID, .tid32 = IRTemp_INVALID,
                        .has_ev = IRTemp_INVALID, .known = CB_CHAIN_INVALID },
                .layout = layout, .bb = bb };
   w.sc.ntmps = bb->tyenv->types_used;
   w.sc.rsp_derived = VG_(calloc)("cb.scan", w.sc.ntmps + 1, 1);
   w.gate = VG_(calloc)("cb.gate", bb->stmts_used + 1, 1);
   w.sole = VG_(calloc)("cb.sole", bb->stmts_used + 1, 1);
   cb_scan(bb, &w.sc, w.gate, w.sole, layout->offset_SP);

   Int i = 0;
   while (i < bb->stmts_used && bb->stmts[i]->tag != Ist_IMark)
      addStmtToIRSB(sb, bb->stmts[i++]);
   for (; i < bb->stmts_used; i++) {
      IRStmt *st = bb->stmts[i];
      if (!st || st->tag == Ist_NoOp)
         continue;
      if (st->tag == Ist_IMark)
         cb_walk_imark(&w, st, i);
      else
         cb_walk_stmt(&w, st, i);
   }

   /* Function activations: calls and returns end superblocks.  A call is
    * an event of its instruction's inlined activation (its callee's block
    * nests in it, a synchronisation call happens in it). */
   if (sb->jumpkind == Ijk_Call)
      cb_emit_inline_check(&w.em);
   cb_add_call_ret(sb, layout);

   VG_(free)(w.sc.rsp_derived);
   VG_(free)(w.gate);
   VG_(free)(w.sole);
   return sb;
}
