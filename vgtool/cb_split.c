/* cb_split.c: cutting a plain read-modify-write instruction in two.
 *
 * `hits++` on a global, built -O2, is one instruction, `addq $1,hits(%rip)`:
 * a load and a store of the same address.  On a multi-core machine two
 * threads can both load before either stores, and an update is lost; under
 * Valgrind threads switch only between instructions, so the replay gate
 * (cb_instrument.c) could never put another thread between the two halves,
 * and the commonest data race of all could not be forced.
 *
 * A split-able instruction is exactly one integer load and one store of the
 * same address, nothing else touching memory and no lock prefix (a locked
 * instruction is a CAS in VEX IR and stays whole).  Record mode marks its
 * store CB_SIZE_SPLIT, so cbpredict knows that a cut after the load is one
 * replay can make.  Replay makes it by running the load early: when the
 * plan lets the thread run exactly one more event, the gate reads the
 * memory now, counts and records the read with that value, keeps the value
 * and makes the thread yield.  When the thread's turn comes back it runs
 * the instruction, whose load (cb_split_load, in place of the IR load)
 * returns the kept value, so the store writes what the early read saw plus
 * the update: exactly what the other thread's interleaved write would have
 * lost on real hardware.  Between the two halves the thread runs nothing,
 * so no other effect of it can be out of order.  A hunt (cb_hunt.c) whose
 * hold point is the load splits the same way, the thread then held.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_machine.h"
#include "cb_global.h"

/* ---- translation time ---- */

static Bool cb_split_int_type(IRType ty)
{
   return ty == Ity_I8 || ty == Ity_I16 || ty == Ity_I32 || ty == Ity_I64;
}

Bool cb_split_pair(IRTypeEnv *tyenv, const IRStmt *ld, const IRStmt *st)
{
   if (ld->tag != Ist_WrTmp || ld->Ist.WrTmp.data->tag != Iex_Load ||
       st->tag != Ist_Store)
      return False;
   const IRExpr *l = ld->Ist.WrTmp.data;
   IRType ty = l->Iex.Load.ty;
   return l->Iex.Load.end == Iend_LE && st->Ist.Store.end == Iend_LE &&
          cb_split_int_type(ty) &&
          typeOfIRExpr(tyenv, st->Ist.Store.data) == ty &&
          eqIRAtom(l->Iex.Load.addr, st->Ist.Store.addr);
}

/* The load of a split-able instruction, in replay mode: the value comes
 * from cb_split_load and is narrowed to the load's type. */
static VG_REGPARM(2) ULong cb_split_load(Addr a, UWord size);

void cb_split_emit_load(IRSB *sb, const IRStmt *ld)
{
   IRExpr *addr = ld->Ist.WrTmp.data->Iex.Load.addr;
   IRType ty = ld->Ist.WrTmp.data->Iex.Load.ty;
   Int size = sizeofIRType(ty);
   IRTemp wide = newIRTemp(sb->tyenv, Ity_I64);
   IRDirty *d = unsafeIRDirty_1_N(
      wide, 2, "cb_split_load", VG_(fnptr_to_fnentry)(cb_split_load),
      mkIRExprVec_2(addr, mkIRExpr_HWord((HWord)size)));
   d->mFx = Ifx_Read;
   d->mAddr = addr;
   d->mSize = size;
   addStmtToIRSB(sb, IRStmt_Dirty(d));
   IRExpr *v = IRExpr_RdTmp(wide);
   switch (ty) {
   case Ity_I32: v = IRExpr_Unop(Iop_64to32, v); break;
   case Ity_I16: v = IRExpr_Unop(Iop_64to16, v); break;
   case Ity_I8:  v = IRExpr_Unop(Iop_64to8, v); break;
   default: break;
   }
   addStmtToIRSB(sb, IRStmt_WrTmp(ld->Ist.WrTmp.tmp, v));
}

/* ---- run time (replay mode) ---- */

/* The load just returned a kept value: the read event that follows it in
 * the same instruction was counted at the gate.  One global, as Valgrind
 * never switches threads inside an instruction. */
Bool cb_split_skip;

static ULong cb_split_read_mem(Addr a, UWord size)
{
   switch (size) {
   case 1: return *(volatile UChar *)a;
   case 2: return *(volatile UShort *)a;
   case 4: return *(volatile UInt *)a;
   default: return *(volatile ULong *)a;
   }
}

static VG_REGPARM(2) ULong cb_split_load(Addr a, UWord size)
{
   CbThread *t = cb_cur;
   if (t && t->split_held) {
      t->split_held = False;
      if (t->split_addr == a) {
         cb_split_skip = True; /* its read event was counted at the gate */
         return t->split_val;
      }
   }
   return cb_split_read_mem(a, size);
}

/* The gate of a split-able instruction (cb_gate's job, plus the early
 * read).  info: the read's event word (cb_instrument.c, CB_INFO). */
VG_REGPARM(2) UWord cb_gate_split(Addr a, UWord info)
{
   CbThread *t = cb_cur;
   if (a - cb_stk_lo < cb_stk_len || cb_stacks_own_local(a) || UNLIKELY(!t))
      return 0;
   if (t->split_held)                 /* the read ran: this is the write */
      return cb_replay_may_run(t) ? 0 : 1;
   if (!cb_replay_may_run(t))
      return 1;
   if (cb_replay_allowance(t) != 1 &&
       !(UNLIKELY(cb_hunting) && cb_hunt_splits(a, info)))
      return 0;
   /* The read may run now, the write may not: run the read alone. */
   ULong v = cb_split_read_mem(a, CB_SIZE_BYTES((UChar)info));
   t->split_held = True;
   t->split_addr = a;
   t->split_val = v;
   cb_ev_mem(a, v, info);
   return 1;
}
