/* cb_rmw.c: what kind of locked read-modify-write a CAS statement is
 * (enum cb_rmw_class, proto/cb_wire.h), decided at translation time.
 *
 * Valgrind's amd64 front end gives every locked instruction one shape, a
 * CAS, so the trace alone cannot tell `lock or` from `xchg`.  The IR
 * around the CAS can:
 *   lock or/and/add/xadd/bts...  t_old = LD(a); t_new = Or64(t_old, x);
 *                                 CAS(a, t_old -> t_new)
 *   xchg                          t_old = LD(a); CAS(a, t_old -> GET(reg))
 *   lock cmpxchg                  CAS(a, GET(rax) -> GET(reg)), no load
 * A computed new value (EXCHANGE otherwise) is then FETCH_OP when the old
 * value reaches the program (a register for xadd and xchg, the carry flag
 * for bts, through a temporary the superblock goes on to use) and OP when
 * it reaches nothing but the new value, the CAS's own retry test and the
 * flags thunk as it is (lock add's thunk holds the old value and the
 * addend, whose flags describe the sum).  A superblock is SSA: every use
 * of the old value is in it.
 *
 * amd64 has no load-linked/store-conditional (Ist_LLSC): nothing to do.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_libcassert.h"
#include "libvex_guest_amd64.h"
#include "cb_global.h"
#include "cb_ir.h"

/* Temporaries followed: the new value's inputs, the old value's copies.
 * An instruction has a handful; beyond this the answer is conservative. */
#define CB_RMW_TMPS 16

typedef struct {
   IRTemp t[CB_RMW_TMPS];
   Int n;
   Bool full;   /* a temporary did not fit */
} CbTmpSet;

static Bool set_has(const CbTmpSet *s, IRTemp t)
{
   for (Int k = 0; k < s->n; k++)
      if (s->t[k] == t)
         return True;
   return False;
}

static void set_add(CbTmpSet *s, IRTemp t)
{
   if (set_has(s, t))
      return;
   if (s->n == CB_RMW_TMPS)
      s->full = True;
   else
      s->t[s->n++] = t;
}

static Bool atom_in(const IRExpr *e, const CbTmpSet *s)
{
   return e && e->tag == Iex_RdTmp && set_has(s, e->Iex.RdTmp.tmp);
}

/* Whether expression e reads a temporary of s (flat IR: a level or two). */
static Bool expr_uses(const IRExpr *e, const CbTmpSet *s)
{
   if (!e)
      return False;
   switch (e->tag) {
   case Iex_RdTmp:
      return set_has(s, e->Iex.RdTmp.tmp);
   case Iex_GetI:
      return expr_uses(e->Iex.GetI.ix, s);
   case Iex_Qop:
      return expr_uses(e->Iex.Qop.details->arg1, s) ||
             expr_uses(e->Iex.Qop.details->arg2, s) ||
             expr_uses(e->Iex.Qop.details->arg3, s) ||
             expr_uses(e->Iex.Qop.details->arg4, s);
   case Iex_Triop:
      return expr_uses(e->Iex.Triop.details->arg1, s) ||
             expr_uses(e->Iex.Triop.details->arg2, s) ||
             expr_uses(e->Iex.Triop.details->arg3, s);
   case Iex_Binop:
      return expr_uses(e->Iex.Binop.arg1, s) || expr_uses(e->Iex.Binop.arg2, s);
   case Iex_Unop:
      return expr_uses(e->Iex.Unop.arg, s);
   case Iex_Load:
      return expr_uses(e->Iex.Load.addr, s);
   case Iex_ITE:
      return expr_uses(e->Iex.ITE.cond, s) || expr_uses(e->Iex.ITE.iftrue, s) ||
             expr_uses(e->Iex.ITE.iffalse, s);
   case Iex_CCall:
      for (Int k = 0; e->Iex.CCall.args[k]; k++)
         if (expr_uses(e->Iex.CCall.args[k], s))
            return True;
      return False;
   default:
      return False;
   }
}

/* Whether statement st reads a temporary of s; anything unknown does. */
static Bool stmt_uses(const IRStmt *st, const CbTmpSet *s)
{
   switch (st->tag) {
   case Ist_NoOp: case Ist_IMark: case Ist_MBE:
      return False;
   case Ist_AbiHint:
      return expr_uses(st->Ist.AbiHint.base, s) || expr_uses(st->Ist.AbiHint.nia, s);
   case Ist_Put:
      return expr_uses(st->Ist.Put.data, s);
   case Ist_PutI:
      return expr_uses(st->Ist.PutI.details->ix, s) ||
             expr_uses(st->Ist.PutI.details->data, s);
   case Ist_WrTmp:
      return expr_uses(st->Ist.WrTmp.data, s);
   case Ist_Store:
      return expr_uses(st->Ist.Store.addr, s) || expr_uses(st->Ist.Store.data, s);
   case Ist_StoreG: {
      const IRStoreG *g = st->Ist.StoreG.details;
      return expr_uses(g->addr, s) || expr_uses(g->data, s) || expr_uses(g->guard, s);
   }
   case Ist_LoadG: {
      const IRLoadG *g = st->Ist.LoadG.details;
      return expr_uses(g->addr, s) || expr_uses(g->alt, s) || expr_uses(g->guard, s);
   }
   case Ist_CAS: {
      const IRCAS *c = st->Ist.CAS.details;
      return expr_uses(c->addr, s) || expr_uses(c->expdHi, s) ||
             expr_uses(c->expdLo, s) || expr_uses(c->dataHi, s) ||
             expr_uses(c->dataLo, s);
   }
   case Ist_LLSC:
      return expr_uses(st->Ist.LLSC.addr, s) || expr_uses(st->Ist.LLSC.storedata, s);
   case Ist_Dirty: {
      const IRDirty *d = st->Ist.Dirty.details;
      if (expr_uses(d->guard, s) || expr_uses(d->mAddr, s))
         return True;
      for (Int k = 0; d->args[k]; k++)
         if (expr_uses(d->args[k], s))
            return True;
      return False;
   }
   case Ist_Exit:
      return expr_uses(st->Ist.Exit.guard, s);
   default:
      return True;
   }
}

/* Offsets of the flags thunk's operands. */
static Bool is_flags_operand(Int off)
{
   return off == __builtin_offsetof(VexGuestAMD64State, guest_CC_DEP1) ||
          off == __builtin_offsetof(VexGuestAMD64State, guest_CC_DEP2) ||
          off == __builtin_offsetof(VexGuestAMD64State, guest_CC_NDEP);
}

static Bool is_widening(IROp op)
{
   return op == Iop_8Uto64 || op == Iop_16Uto64 || op == Iop_32Uto64 ||
          op == Iop_8Uto32 || op == Iop_16Uto32 || op == Iop_8Uto16;
}

/* Whether a use of the old value (a temporary of old) by st leaves it
 * with nothing the program could test: the new value's computation (a
 * temporary of inputs), the CAS's retry comparison, a plain widening
 * (whose result joins old), or the flags thunk. */
static Bool use_hidden(const IRStmt *st, CbTmpSet *old, const CbTmpSet *inputs,
                       const IRStmt *cas)
{
   if (st == cas)
      return True;
   if (st->tag == Ist_Put)
      return is_flags_operand(st->Ist.Put.offset) && atom_in(st->Ist.Put.data, old);
   if (st->tag != Ist_WrTmp)
      return False;
   IRTemp t = st->Ist.WrTmp.tmp;
   const IRExpr *e = st->Ist.WrTmp.data;
   if (set_has(inputs, t))
      return True;
   if (e->tag == Iex_Binop &&
       (e->Iex.Binop.op == Iop_CasCmpNE8 || e->Iex.Binop.op == Iop_CasCmpNE16 ||
        e->Iex.Binop.op == Iop_CasCmpNE32 || e->Iex.Binop.op == Iop_CasCmpNE64))
      return True;
   if (e->tag == Iex_Unop && is_widening(e->Iex.Unop.op) && atom_in(e->Iex.Unop.arg, old)) {
      set_add(old, t);
      return !old->full;
   }
   return False;
}

UChar cb_rmw_class(IRSB *bb, Int at)
{
   const IRStmt *cas = bb->stmts[at];
   tl_assert(cas->tag == Ist_CAS);
   const IRCAS *c = cas->Ist.CAS.details;
   if (c->oldHi != IRTemp_INVALID || c->expdLo->tag != Iex_RdTmp)
      return CB_RMW_EXCHANGE;      /* cmpxchg16b, or a constant expected */
   IRTemp t_old = c->expdLo->Iex.RdTmp.tmp;
   /* The new value's inputs within this instruction, back to its IMark;
    * and where the expected value was loaded, if it was. */
   CbTmpSet inputs = { .n = 0 }, old = { .n = 0 };
   set_add(&old, t_old);
   if (c->dataLo->tag == Iex_RdTmp)
      set_add(&inputs, c->dataLo->Iex.RdTmp.tmp);
   Bool computed = False;
   Int load_at = -1;
   for (Int j = at - 1; j >= 0; j--) {
      const IRStmt *st = bb->stmts[j];
      if (st && st->tag == Ist_IMark)
         break;
      if (!st || st->tag != Ist_WrTmp)
         continue;
      IRTemp t = st->Ist.WrTmp.tmp;
      const IRExpr *e = st->Ist.WrTmp.data;
      if (t == t_old && e->tag == Iex_Load && eqIRAtom(e->Iex.Load.addr, c->addr))
         load_at = j;
      if (!set_has(&inputs, t) || e->tag == Iex_Load)
         continue;
      if (expr_uses(e, &old))
         computed = True;
      /* Flat IR: the operands are atoms. */
      if (e->tag == Iex_Binop) {
         if (e->Iex.Binop.arg1->tag == Iex_RdTmp) set_add(&inputs, e->Iex.Binop.arg1->Iex.RdTmp.tmp);
         if (e->Iex.Binop.arg2->tag == Iex_RdTmp) set_add(&inputs, e->Iex.Binop.arg2->Iex.RdTmp.tmp);
      } else if (e->tag == Iex_Unop && e->Iex.Unop.arg->tag == Iex_RdTmp) {
         set_add(&inputs, e->Iex.Unop.arg->Iex.RdTmp.tmp);
      }
   }
   /* A cmpxchg's expected value comes from a register, even when the
    * optimiser forwarded an earlier instruction's load into it: that CAS
    * can fail, and the program learns whether it did. */
   if (load_at < 0 || !computed || inputs.full)
      return CB_RMW_EXCHANGE;
   for (Int j = load_at + 1; j < bb->stmts_used; j++) {
      const IRStmt *st = bb->stmts[j];
      if (st && stmt_uses(st, &old) && !use_hidden(st, &old, &inputs, cas))
         return CB_RMW_FETCH_OP;
   }
   return CB_RMW_OP;
}
