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
 * An exchange is STORE when nothing reads the old value it puts in its
 * register before that register is written again within the superblock
 * (or the optimiser dropped the put): gcc compiles a sequentially
 * consistent `atomic_store(&busy, 1)` to `xchg`, and such a store tells
 * the thread nothing (trace/spinlocks.c must not take it for a lock's
 * acquire).  A register left unread only for an instruction or two
 * before the superblock ends or exits keeps the answer EXCHANGE.
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
#define CB_RMW_TMPS 32

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

/* A property of one expression node (expr_any looks for it). */
typedef Bool (*CbExprTest)(const IRExpr *e, const void *ctx);

/* Whether e or an expression inside it has the property (flat IR: a level
 * or two). */
static Bool expr_any(const IRExpr *e, CbExprTest test, const void *ctx)
{
   if (!e)
      return False;
   if (test(e, ctx))
      return True;
   switch (e->tag) {
   case Iex_GetI:
      return expr_any(e->Iex.GetI.ix, test, ctx);
   case Iex_Qop:
      return expr_any(e->Iex.Qop.details->arg1, test, ctx) ||
             expr_any(e->Iex.Qop.details->arg2, test, ctx) ||
             expr_any(e->Iex.Qop.details->arg3, test, ctx) ||
             expr_any(e->Iex.Qop.details->arg4, test, ctx);
   case Iex_Triop:
      return expr_any(e->Iex.Triop.details->arg1, test, ctx) ||
             expr_any(e->Iex.Triop.details->arg2, test, ctx) ||
             expr_any(e->Iex.Triop.details->arg3, test, ctx);
   case Iex_Binop:
      return expr_any(e->Iex.Binop.arg1, test, ctx) || expr_any(e->Iex.Binop.arg2, test, ctx);
   case Iex_Unop:
      return expr_any(e->Iex.Unop.arg, test, ctx);
   case Iex_Load:
      return expr_any(e->Iex.Load.addr, test, ctx);
   case Iex_ITE:
      return expr_any(e->Iex.ITE.cond, test, ctx) || expr_any(e->Iex.ITE.iftrue, test, ctx) ||
             expr_any(e->Iex.ITE.iffalse, test, ctx);
   case Iex_CCall:
      for (Int k = 0; e->Iex.CCall.args[k]; k++)
         if (expr_any(e->Iex.CCall.args[k], test, ctx))
            return True;
      return False;
   default:
      return False;
   }
}

static Bool is_tmp_of(const IRExpr *e, const void *s)
{
   return e->tag == Iex_RdTmp && set_has(s, e->Iex.RdTmp.tmp);
}

/* Whether expression e reads a temporary of s. */
static Bool expr_uses(const IRExpr *e, const CbTmpSet *s)
{
   return expr_any(e, is_tmp_of, s);
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

/* A conversion that keeps the value's low bits: the front end widens and
 * narrows the old value around the CAS (a 32-bit bts works on 64 bits). */
static Bool is_conversion(IROp op)
{
   switch (op) {
   case Iop_8Uto16: case Iop_8Uto32: case Iop_8Uto64: case Iop_16Uto32:
   case Iop_16Uto64: case Iop_32Uto64: case Iop_8Sto16: case Iop_8Sto32:
   case Iop_8Sto64: case Iop_16Sto32: case Iop_16Sto64: case Iop_32Sto64:
   case Iop_64to32: case Iop_64to16: case Iop_64to8: case Iop_32to16:
   case Iop_32to8: case Iop_16to8:
      return True;
   default:
      return False;
   }
}

/* The temporary e copies or converts, or IRTemp_INVALID. */
static IRTemp copied(const IRExpr *e)
{
   if (e->tag == Iex_RdTmp)
      return e->Iex.RdTmp.tmp;
   if (e->tag == Iex_Unop && is_conversion(e->Iex.Unop.op) &&
       e->Iex.Unop.arg->tag == Iex_RdTmp)
      return e->Iex.Unop.arg->Iex.RdTmp.tmp;
   return IRTemp_INVALID;
}

/* The statement in [from, at) that defines t, or -1. */
static Int def_of(IRSB *bb, Int from, Int at, IRTemp t)
{
   for (Int j = at - 1; j >= from; j--) {
      const IRStmt *st = bb->stmts[j];
      if (st && st->tag == Ist_WrTmp && st->Ist.WrTmp.tmp == t)
         return j;
   }
   return -1;
}

/* Whether e is a CAS's retry comparison (the old value against the
 * expected one). */
static Bool is_cas_retry_test(const IRExpr *e)
{
   return e->tag == Iex_Binop &&
          (e->Iex.Binop.op == Iop_CasCmpNE8 || e->Iex.Binop.op == Iop_CasCmpNE16 ||
           e->Iex.Binop.op == Iop_CasCmpNE32 || e->Iex.Binop.op == Iop_CasCmpNE64);
}

/* Whether a use of the old value (a temporary of old) by st leaves it
 * with nothing the program could test: the new value's computation (a
 * temporary of inputs), the CAS itself and its retry comparison, a copy
 * (already in old), or the flags thunk. */
static Bool use_hidden(const IRStmt *st, const CbTmpSet *old,
                       const CbTmpSet *inputs, const IRStmt *cas)
{
   if (st == cas)
      return True;
   if (st->tag == Ist_Put)
      return is_flags_operand(st->Ist.Put.offset) && atom_in(st->Ist.Put.data, old);
   if (st->tag != Ist_WrTmp)
      return False;
   const IRExpr *e = st->Ist.WrTmp.data;
   if (set_has(inputs, st->Ist.WrTmp.tmp) || set_has(old, st->Ist.WrTmp.tmp))
      return True;
   return is_cas_retry_test(e);
}

typedef struct { Int off, len; } CbGuestRange;

/* A GET of guest state overlapping the range (a GetI, an indexed
 * register file, is taken to). */
static Bool gets_range(const IRExpr *e, const void *ctx)
{
   const CbGuestRange *r = ctx;
   if (e->tag == Iex_GetI)
      return True;
   return e->tag == Iex_Get && e->Iex.Get.offset < r->off + r->len &&
          r->off < e->Iex.Get.offset + (Int)sizeofIRType(e->Iex.Get.ty);
}

/* Whether expression e reads guest state in [off, off + len). */
static Bool expr_gets(const IRExpr *e, Int off, Int len)
{
   CbGuestRange r = { off, len };
   return expr_any(e, gets_range, &r);
}

/* Instructions after an exchange that leave its old value's register
 * unread, where the superblock ends or leaves by a side exit, for the
 * value to count as thrown away: a program that wants the old value tests
 * or copies it at once (-O2: `xchg; test %eax,%eax`; -O0: `xchg; mov
 * %edx,%eax`), where gcc -O0's `atomic_store` goes on to the next
 * statement with the register untouched. */
#define CB_RMW_UNREAD_INSNS 3

/* Whether the side exit at `at` is a CAS's retry (its guard the CAS's
 * retry test, defined from `from` on): it runs that same instruction
 * again, whose reads the scan below has looked at already, so it is no
 * way out of the superblock for a register. */
static Bool cas_retry_exit(IRSB *bb, Int from, Int at)
{
   const IRExpr *g = bb->stmts[at]->Ist.Exit.guard;
   Int d = g->tag == Iex_RdTmp ? def_of(bb, from, at, g->Iex.RdTmp.tmp) : -1;
   return d >= 0 && is_cas_retry_test(bb->stmts[d]->Ist.WrTmp.data);
}

/* Whether the register a PUT at index `put` writes ([off, off + len)) is
 * dead: written again before anything could read it (a later PUT covering
 * it, with no GET of it, side exit or helper reading guest state on the
 * way), or left unread for CB_RMW_UNREAD_INSNS instructions up to where
 * the superblock ends or exits. */
static Bool put_dead(IRSB *bb, Int put, Int off, Int len)
{
   Int insns = 0;
   for (Int j = put + 1; j < bb->stmts_used; j++) {
      const IRStmt *st = bb->stmts[j];
      if (!st)
         continue;
      switch (st->tag) {
      case Ist_IMark:
         insns++;
         continue;
      case Ist_NoOp: case Ist_MBE: case Ist_AbiHint:
         continue;
      case Ist_CAS: case Ist_LoadG: case Ist_StoreG:
         /* Flat IR: their operands are temporaries and constants, so they
          * read no register themselves (a GET feeding them is a WrTmp,
          * looked at on its own).  -O2 puts an atomic_store (an xchg whose
          * old value is thrown away) right before the next atomic's `lock
          * xadd` (blind trial 20's slot limiter): stopping there, or at
          * that CAS's retry exit, kept the store an exchange, a lock
          * word's acquire. */
         continue;
      case Ist_Exit:
         if (cas_retry_exit(bb, put + 1, j))
            continue;
         return insns >= CB_RMW_UNREAD_INSNS && !expr_gets(st->Ist.Exit.guard, off, len);
      case Ist_PutI: case Ist_LLSC:
         return False;
      case Ist_Dirty:
         if (st->Ist.Dirty.details->nFxState > 0)
            return False;
         break;
      default:
         break;
      }
      /* Any expression of the statement reading the register keeps it. */
      if ((st->tag == Ist_Put && expr_gets(st->Ist.Put.data, off, len)) ||
          (st->tag == Ist_WrTmp && expr_gets(st->Ist.WrTmp.data, off, len)) ||
          (st->tag == Ist_Store && (expr_gets(st->Ist.Store.addr, off, len) ||
                                    expr_gets(st->Ist.Store.data, off, len))))
         return False;
      if (st->tag == Ist_Put) {
         Int o = st->Ist.Put.offset;
         Int n = (Int)sizeofIRType(typeOfIRExpr(bb->tyenv, st->Ist.Put.data));
         if (o <= off && off + len <= o + n)
            return True;
         continue;
      }
      if (st->tag != Ist_WrTmp && st->tag != Ist_Store && st->tag != Ist_Dirty)
         return False; /* anything else: not followed */
   }
   /* Where the superblock ends its next block may read the register. */
   return insns >= CB_RMW_UNREAD_INSNS && !expr_gets(bb->next, off, len);
}

/* Whether an exchange's old value (old, loaded at load_at) reaches
 * nothing but its own CAS, the CAS's retry test and registers written
 * again before they are read. */
static Bool old_dropped(IRSB *bb, Int load_at, const IRStmt *cas, const CbTmpSet *old)
{
   for (Int j = load_at + 1; j < bb->stmts_used; j++) {
      const IRStmt *st = bb->stmts[j];
      if (!st || st == cas || !stmt_uses(st, old))
         continue;
      if (st->tag == Ist_WrTmp) {
         const IRExpr *e = st->Ist.WrTmp.data;
         if (set_has(old, st->Ist.WrTmp.tmp))
            continue; /* a copy, followed itself */
         if (is_cas_retry_test(e))
            continue;
         return False;
      }
      if (st->tag != Ist_Put || !atom_in(st->Ist.Put.data, old))
         return False;
      Int len = (Int)sizeofIRType(typeOfIRExpr(bb->tyenv, st->Ist.Put.data));
      if (!put_dead(bb, j, st->Ist.Put.offset, len))
         return False;
   }
   return True;
}

/* The new value's inputs back to the instruction's start (from), through
 * every operand; whether one of them is computed from the old value by
 * more than a copy. */
static Bool inputs_of(IRSB *bb, Int from, Int at, IRTemp data,
                      const CbTmpSet *old, CbTmpSet *inputs)
{
   Bool computed = False;
   set_add(inputs, data);
   for (Int j = at - 1; j >= from; j--) {
      const IRStmt *st = bb->stmts[j];
      if (!st || st->tag != Ist_WrTmp || !set_has(inputs, st->Ist.WrTmp.tmp) ||
          set_has(old, st->Ist.WrTmp.tmp))
         continue;
      const IRExpr *e = st->Ist.WrTmp.data;
      const IRExpr *args[3] = {NULL, NULL, NULL};
      if (e->tag == Iex_RdTmp)
         args[0] = e;
      else if (e->tag == Iex_Unop)
         args[0] = e->Iex.Unop.arg;
      else if (e->tag == Iex_Binop) {
         args[0] = e->Iex.Binop.arg1;
         args[1] = e->Iex.Binop.arg2;
      } else if (e->tag == Iex_Triop) {
         args[0] = e->Iex.Triop.details->arg1;
         args[1] = e->Iex.Triop.details->arg2;
         args[2] = e->Iex.Triop.details->arg3;
      }
      if (copied(e) == IRTemp_INVALID && expr_uses(e, old))
         computed = True;
      for (Int k = 0; k < 3; k++)
         if (args[k] && args[k]->tag == Iex_RdTmp)
            set_add(inputs, args[k]->Iex.RdTmp.tmp);
   }
   return computed;
}

UChar cb_rmw_class(IRSB *bb, Int at)
{
   const IRStmt *cas = bb->stmts[at];
   tl_assert(cas->tag == Ist_CAS);
   const IRCAS *c = cas->Ist.CAS.details;
   /* A constant new value (the optimiser knew the register: `mov $1,%ecx;
    * xchg %ecx,(%rdx)`) is an exchange's or a store's. */
   if (c->oldHi != IRTemp_INVALID || c->expdLo->tag != Iex_RdTmp ||
       (c->dataLo->tag != Iex_RdTmp && c->dataLo->tag != Iex_Const))
      return CB_RMW_EXCHANGE;      /* cmpxchg16b */
   Int from = at;
   while (from > 0 && !(bb->stmts[from - 1] && bb->stmts[from - 1]->tag == Ist_IMark))
      from--;
   /* The expected value, back through copies to this instruction's load
    * of the address.  A cmpxchg's comes from a register, even when the
    * optimiser forwarded an earlier instruction's load into it: that CAS
    * can fail, and the program learns whether it did. */
   IRTemp t = c->expdLo->Iex.RdTmp.tmp;
   Int load_at = -1;
   for (Int hops = 0; hops < CB_RMW_TMPS && load_at < 0; hops++) {
      Int j = def_of(bb, from, at, t);
      if (j < 0)
         return CB_RMW_EXCHANGE;
      const IRExpr *e = bb->stmts[j]->Ist.WrTmp.data;
      if (e->tag == Iex_Load && eqIRAtom(e->Iex.Load.addr, c->addr))
         load_at = j;
      else if ((t = copied(e)) == IRTemp_INVALID)
         return CB_RMW_EXCHANGE;
   }
   if (load_at < 0)
      return CB_RMW_EXCHANGE;
   /* The old value and its copies, forwards (the superblock is SSA). */
   CbTmpSet old = { .n = 0 }, inputs = { .n = 0 };
   set_add(&old, bb->stmts[load_at]->Ist.WrTmp.tmp);
   for (Int j = load_at + 1; j < bb->stmts_used; j++) {
      const IRStmt *st = bb->stmts[j];
      if (st && st->tag == Ist_WrTmp && copied(st->Ist.WrTmp.data) != IRTemp_INVALID &&
          set_has(&old, copied(st->Ist.WrTmp.data)))
         set_add(&old, st->Ist.WrTmp.tmp);
   }
   Bool computed = c->dataLo->tag == Iex_RdTmp &&
                   inputs_of(bb, from, at, c->dataLo->Iex.RdTmp.tmp, &old, &inputs);
   if (!computed && !old.full && old_dropped(bb, load_at, cas, &old))
      return CB_RMW_STORE;
   if (!computed || old.full || inputs.full)
      return CB_RMW_EXCHANGE;
   for (Int j = load_at + 1; j < bb->stmts_used; j++) {
      const IRStmt *st = bb->stmts[j];
      if (st && stmt_uses(st, &old) && !use_hidden(st, &old, &inputs, cas))
         return CB_RMW_FETCH_OP;
   }
   return CB_RMW_OP;
}
