/* cb_classify.c: translation-time classification of a superblock's
 * statements: which ones access memory, which addresses may be shared
 * (stack-pointer-relative ones are not, until a stack is shared:
 * cb_stacks.c), and where each instruction's replay gate goes.
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

Bool cb_addr_needs_helper(const CbScan *sc, IRExpr *addr)
{
   if (addr->tag == Iex_RdTmp) {
      IRTemp t = addr->Iex.RdTmp.tmp;
      /* Stack-pointer-relative: the thread's own stack, instrumented only
       * once some stack memory was shared (cb_stacks.c). */
      return cb_stacks_watch_rsp ||
             !(t < (IRTemp)sc->ntmps && sc->rsp_derived[t]);
   }
   if (addr->tag == Iex_Const) {
      IRConst *c = addr->Iex.Const.con;
      Addr a = c->tag == Ico_U64 ? (Addr)c->Ico.U64 : (Addr)c->Ico.U32;
      return cb_const_addr_shared(a);
   }
   return True;
}

static Bool cb_is_rsp_expr(const CbScan *sc, IRExpr *e, Int offset_sp)
{
   if (e->tag == Iex_Get)
      return e->Iex.Get.offset == offset_sp && e->Iex.Get.ty == Ity_I64;
   if (e->tag == Iex_RdTmp)
      return e->Iex.RdTmp.tmp < (IRTemp)sc->ntmps &&
             sc->rsp_derived[e->Iex.RdTmp.tmp];
   if (e->tag == Iex_Binop &&
       (e->Iex.Binop.op == Iop_Add64 || e->Iex.Binop.op == Iop_Sub64))
      return cb_is_rsp_expr(sc, e->Iex.Binop.arg1, offset_sp) &&
             e->Iex.Binop.arg2->tag == Iex_Const;
   return False;
}

/* The address an access statement uses, and how many events it can make;
 * NULL when the statement is no access. */
IRExpr *cb_stmt_access(IRStmt *st, Int *nacc)
{
   *nacc = 1;
   switch (st->tag) {
   case Ist_WrTmp:
      if (st->Ist.WrTmp.data->tag == Iex_Load)
         return st->Ist.WrTmp.data->Iex.Load.addr;
      return NULL;
   case Ist_Store: return st->Ist.Store.addr;
   case Ist_StoreG: return st->Ist.StoreG.details->addr;
   case Ist_LoadG: return st->Ist.LoadG.details->addr;
   case Ist_CAS: *nacc = 2; return st->Ist.CAS.details->addr;
   case Ist_Dirty:
      if (st->Ist.Dirty.details->mFx == Ifx_None)
         return NULL;
      if (st->Ist.Dirty.details->mFx == Ifx_Modify)
         *nacc = 2;
      return st->Ist.Dirty.details->mAddr;
   default:
      return NULL;
   }
}

static Bool cb_stmt_side_effect(IRStmt *st)
{
   switch (st->tag) {
   case Ist_Put: case Ist_PutI: case Ist_Store: case Ist_StoreG:
   case Ist_CAS: case Ist_LLSC: case Ist_Dirty:
      return True;
   default:
      return False;
   }
}

/* Marks in gate[] where each instruction's replay gate goes (cb_ir.h),
 * and in sole[] the load that is its instruction's only memory access of
 * any kind (a spinner's read: cb_repeat.c).  sole[] counts every access,
 * watched or not, so that it is the same in every translation, record
 * and replay alike: the event counts depend on it. */
void cb_scan(IRSB *bb, CbScan *sc, UChar *gate, UChar *sole, Int offset_sp)
{
   Int imark = -1, first_acc = -1, second_acc = -1, nacc = 0;
   Int any_acc = -1, nany = 0;
   Bool side = False, side_before_first = False, atomic = False;
   for (Int i = 0; i <= bb->stmts_used; i++) {
      IRStmt *st = i < bb->stmts_used ? bb->stmts[i] : NULL;
      if (!st || st->tag == Ist_IMark) {
         if (imark >= 0 && nacc > 0) {
            if (side_before_first)
               gate[imark] = CB_GATE_AFTER_IMARK;
            else if (nacc == 2 && !atomic && second_acc >= 0 &&
                     cb_split_pair(bb->tyenv, bb->stmts[first_acc],
                                   bb->stmts[second_acc]))
               gate[first_acc] = CB_GATE_SPLIT;
            else
               gate[first_acc] = nacc > 1 ? CB_GATE_BEFORE_MULTI : CB_GATE_BEFORE;
         }
         if (imark >= 0 && nany == 1 && bb->stmts[any_acc]->tag == Ist_WrTmp)
            sole[any_acc] = 1;
         if (!st)
            break;
         imark = i;
         first_acc = second_acc = any_acc = -1;
         nacc = nany = 0;
         side = atomic = False;
         continue;
      }
      if (st->tag == Ist_CAS || st->tag == Ist_LLSC || st->tag == Ist_Dirty ||
          st->tag == Ist_MBE)
         atomic = True;
      if (st->tag == Ist_WrTmp && st->Ist.WrTmp.tmp < (IRTemp)sc->ntmps &&
          cb_is_rsp_expr(sc, st->Ist.WrTmp.data, offset_sp))
         sc->rsp_derived[st->Ist.WrTmp.tmp] = 1;
      Int n;
      IRExpr *addr = cb_stmt_access(st, &n);
      if (addr) {
         any_acc = i;
         nany += n;
      }
      if (addr && imark >= 0 && cb_addr_needs_helper(sc, addr)) {
         if (first_acc < 0) {
            first_acc = i;
            side_before_first = side;
         } else if (second_acc < 0) {
            second_acc = i;
         }
         nacc += n;
      }
      if (cb_stmt_side_effect(st))
         side = True;
   }
}

