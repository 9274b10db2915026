/* cb_emit.c: the IR of one event.  Record mode writes a memory access's
 * record with inline IR (no helper call: a call per access was most of the
 * tool's cost); replay mode calls cb_ev_mem, which also counts the event
 * for the plan.  Both keep exactly the same events with the same fields.
 * Here too: the inline-chain checks before an instruction's first event
 * (cb_inline.c) and replay's gate, a turn check with a guarded Ijk_Yield
 * exit back to the same instruction (DESIGN.md, "Forcing a schedule").
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

/* Whether the running instruction already emitted an event.  Valgrind never
 * switches threads inside a superblock, so one global is enough. */
static UInt cb_insn_has_ev;

/* Replay mode's memory event (record mode: cb_emit_mem_inline). */
VG_REGPARM(3) void cb_ev_mem(Addr a, ULong value, UWord info)
{
   if (UNLIKELY(cb_split_skip)) {
      /* the read of a split instruction, counted early (cb_split.c) */
      cb_split_skip = False;
      cb_insn_has_ev = 1;
      return;
   }
   if (a - cb_stk_lo < cb_stk_len || cb_stacks_own_local(a)) {
      /* the thread's own stack, not shared */
      if (info & CB_INFO_FIRST)
         cb_insn_has_ev = 0;
      return;
   }
   UChar size = (UChar)info;
   if (!(info & CB_INFO_FIRST) && cb_insn_has_ev)
      size |= CB_SIZE_SAME_INSN;
   cb_insn_has_ev = 1;
   CbThread *t = cb_cur;
   if (cb_replaying) {
      /* A spinner's repeated read: no event, as in the recording; its
       * spinning still makes it give way (cb_spin.c). */
      if (!(info & CB_INFO_SOLE))
         cb_repeat_reset(t->wid);
      else if (cb_repeat_drop(t->wid, a, value)) {
         cb_spin_repeat(t->wid);
         return;
      }
      cb_replay_counted(t, (UChar)(info >> 8), (UInt)(info >> 32), a, value);
   }
   t->counted++;
   _Static_assert(CB_RMW_COUNT <= 8, "an rmw class fits the info word's 3 bits");
   cb_put_rmw((UChar)(info >> 8), size, (UChar)((info >> CB_INFO_RMW_SHIFT) & 7),
              t->wid, (UInt)(info >> 32), a, value);
}

/* Replay: may the running thread execute this instruction now?  Returns
 * non-zero to make it yield and retry.  multi: the instruction has more
 * than one access (or the address is unknown), so it cannot be skipped on
 * the strength of the first address being on the stack. */
static VG_REGPARM(3) UWord cb_gate(Addr a, UWord multi, Addr insn)
{
   if (!multi && (a - cb_stk_lo < cb_stk_len || cb_stacks_own_local(a)))
      return 0;
   if (UNLIKELY(!cb_cur) || cb_cur->unwatched)
      return 0;
   if (UNLIKELY(cb_hunting)) /* a hunt holds before insn (cb_hunt.c) */
      cb_hunt_gate(cb_cur, insn, a);
   if (UNLIKELY(cb_spin_yield_now)) { /* it spun: another thread's turn */
      cb_spin_give_way();
      return 1;
   }
   return cb_replay_may_run(cb_cur) ? 0 : 1;
}

/* ---- IR building ---- */

IRExpr *cb_widen(IRSB *sb, IRExpr *e)
{
   IROp op;
   switch (typeOfIRExpr(sb->tyenv, e)) {
   case Ity_I64: return e;
   case Ity_I32: op = Iop_32Uto64; break;
   case Ity_I16: op = Iop_16Uto64; break;
   case Ity_I8:  op = Iop_8Uto64; break;
   case Ity_I1:  op = Iop_1Uto64; break;
   case Ity_F64: op = Iop_ReinterpF64asI64; break;
   case Ity_F32: {
      IRTemp t32 = newIRTemp(sb->tyenv, Ity_I32);
      addStmtToIRSB(sb, IRStmt_WrTmp(t32, IRExpr_Unop(Iop_ReinterpF32asI32, e)));
      e = IRExpr_RdTmp(t32);
      op = Iop_32Uto64;
      break;
   }
   default:
      return mkIRExpr_HWord(0); /* wider than 8 bytes: size only */
   }
   IRTemp t = newIRTemp(sb->tyenv, Ity_I64);
   addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Unop(op, e)));
   return IRExpr_RdTmp(t);
}

UInt cb_type_size(IRType ty)
{
   Int s = sizeofIRType(ty);
   return s > 32 ? 32 : (UInt)s;
}


static IRTemp cb_tmp(IRSB *sb, IRType ty, IRExpr *e)
{
   IRTemp t = newIRTemp(sb->tyenv, ty);
   addStmtToIRSB(sb, IRStmt_WrTmp(t, e));
   return t;
}

/* An atom for e (IR statements take atoms only). */
static IRExpr *cb_tmp_expr(IRSB *sb, IRExpr *e)
{
   if (e->tag == Iex_RdTmp || e->tag == Iex_Const)
      return e;
   return IRExpr_RdTmp(cb_tmp(sb, typeOfIRExpr(sb->tyenv, e), e));
}

static IRExpr *cb_hword_at(const void *p)
{
   return IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)p));
}

/* At an instruction's IMark: its inline chain, and if it is the entry of
 * an inlined body, the stores that make the next event start a new
 * activation of it (cb_inline.c). */
void cb_emit_inline_entry(CbEmit *em)
{
   UInt entry;
   em->ichecked = False;
   em->inl = cb_inline_at(em->insn, &em->ichain, &entry);
   if (!em->inl || entry == 0)
      return;
   cb_inline_emit_entry(em->sb, entry);
   em->known = CB_CHAIN_INVALID;
}

/* Before an instruction's first event (a recorded access, a call): the
 * thread's inline chain compared with the instruction's, unless this
 * superblock already made them equal. */
void cb_emit_inline_check(CbEmit *em)
{
   if (!em->inl || em->ichecked)
      return;
   em->ichecked = True;
   if (em->ichain == em->known)
      return;
   em->known = em->ichain;
   cb_inline_emit_check(em->sb, em->ichain);
}

/* Whether the access is a read that cb_repeat.c may drop: its
 * instruction's only access, with its value (8 bytes at most). */
static Bool cb_sole(const CbEmit *em, UInt size, UChar kind)
{
   return em->sole && kind == CB_EV_READ && CB_SIZE_BYTES(size) <= 8;
}

/* Record mode: the event as plain IR, no helper call.  The record is
 * always stored at cb_buf + cb_buf_used; the used count grows only when the
 * event is kept (not the thread's own stack, guard true), so a dropped
 * event's bytes are overwritten by the next record.  When the buffer has no
 * room left for another record, a guarded call flushes it.  Same filter,
 * same flag and same fields as cb_ev_mem, which replay mode keeps using for
 * its turn counting. */
static void cb_emit_mem_inline(CbEmit *em, IRExpr *addr, IRExpr *value,
                               UInt size, UChar kind, IRExpr *guard)
{
   IRSB *sb = em->sb;
   if (em->stk_lo == IRTemp_INVALID) {
      em->stk_lo = cb_tmp(sb, Ity_I64, cb_hword_at(&cb_stk_lo));
      em->stk_len = cb_tmp(sb, Ity_I64, cb_hword_at(&cb_stk_len));
      em->tid32 = cb_tmp(sb, Ity_I64, cb_hword_at(&cb_cur_tid32));
   }
   /* keep: the address is outside the thread's stack (and the guard holds) */
   IRTemp off = cb_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Sub64, addr,
                                                 IRExpr_RdTmp(em->stk_lo)));
   IRTemp keep1 = cb_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpLE64U,
                                                  IRExpr_RdTmp(em->stk_len),
                                                  IRExpr_RdTmp(off)));
   if (guard)
      keep1 = cb_tmp(sb, Ity_I1, IRExpr_Binop(Iop_And1, IRExpr_RdTmp(keep1),
                                              guard));
   IRTemp keep = cb_tmp(sb, Ity_I64, IRExpr_Unop(Iop_1Uto64,
                                                 IRExpr_RdTmp(keep1)));
   /* first word: kind, size (| same-instruction flag), rmw, tid; second
    * word: the location */
   ULong w0 = (ULong)kind | ((ULong)size << 8) | ((ULong)em->rmw << 16);
   IRExpr *word0 = IRExpr_Binop(Iop_Or64, mkIRExpr_HWord(w0),
                                IRExpr_RdTmp(em->tid32));
   if (em->first) {
      em->has_ev = keep;
   } else {
      IRTemp same = cb_tmp(sb, Ity_I64,
                           IRExpr_Binop(Iop_Shl64, IRExpr_RdTmp(em->has_ev),
                                        IRExpr_Const(IRConst_U8(15))));
      word0 = IRExpr_Binop(Iop_Or64, cb_tmp_expr(sb, word0),
                           IRExpr_RdTmp(same));
      em->has_ev = cb_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Or64,
                                                    IRExpr_RdTmp(em->has_ev),
                                                    IRExpr_RdTmp(keep)));
   }
   IRTemp w0t = cb_tmp(sb, Ity_I64, word0);
   IRTemp used = cb_tmp(sb, Ity_I64, cb_hword_at(&cb_buf_used));
   IRTemp p = cb_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64,
                                               mkIRExpr_HWord((HWord)cb_buf),
                                               IRExpr_RdTmp(used)));
   addStmtToIRSB(sb, IRStmt_Store(Iend_LE, IRExpr_RdTmp(p), IRExpr_RdTmp(w0t)));
   IRTemp p8 = cb_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(p),
                                                mkIRExpr_HWord(8)));
   addStmtToIRSB(sb, IRStmt_Store(Iend_LE, IRExpr_RdTmp(p8),
                                  mkIRExpr_HWord((ULong)em->loc |
                                                 (cb_sole(em, size, kind)
                                                     ? 1ull << 32 : 0))));
   IRTemp p16 = cb_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(p),
                                                 mkIRExpr_HWord(16)));
   addStmtToIRSB(sb, IRStmt_Store(Iend_LE, IRExpr_RdTmp(p16), addr));
   IRTemp p24 = cb_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(p),
                                                 mkIRExpr_HWord(24)));
   addStmtToIRSB(sb, IRStmt_Store(Iend_LE, IRExpr_RdTmp(p24),
                                  cb_tmp_expr(sb, value)));
   IRTemp grow = cb_tmp(sb, Ity_I64,
                        IRExpr_Binop(Iop_Mul64, IRExpr_RdTmp(keep),
                                     mkIRExpr_HWord(sizeof(cb_wire_event))));
   IRTemp nused = cb_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64,
                                                   IRExpr_RdTmp(used),
                                                   IRExpr_RdTmp(grow)));
   addStmtToIRSB(sb, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&cb_buf_used),
                                  IRExpr_RdTmp(nused)));
   IRTemp full = cb_tmp(sb, Ity_I1, IRExpr_Binop(
      Iop_CmpLT64U, mkIRExpr_HWord(CB_BUF_BYTES - sizeof(cb_wire_event)),
      IRExpr_RdTmp(nused)));
   IRDirty *d = unsafeIRDirty_0_N(0, "cb_out_flush_full",
                                  VG_(fnptr_to_fnentry)(cb_out_flush_full),
                                  mkIRExprVec_0());
   d->guard = IRExpr_RdTmp(full);
   addStmtToIRSB(sb, IRStmt_Dirty(d));
   em->first = False;
}

void cb_emit_mem(CbEmit *em, IRExpr *addr, IRExpr *value, UInt size,
                        UChar kind, IRExpr *guard)
{
   cb_emit_inline_check(em);
   if (em->loc == 0)
      em->loc = cb_loc_for(em->insn);
   if (addr->tag == Iex_Const) {
      IRConst *c = addr->Iex.Const.con;
      cb_symdef_for(c->tag == Ico_U64 ? (Addr)c->Ico.U64 : (Addr)c->Ico.U32);
   }
   if (!cb_replaying) {
      cb_emit_mem_inline(em, addr, value, size, kind, guard);
      return;
   }
   IRDirty *d = unsafeIRDirty_0_N(
      3, "cb_ev_mem", VG_(fnptr_to_fnentry)(cb_ev_mem),
      mkIRExprVec_3(addr, value,
                    mkIRExpr_HWord(CB_INFO(size, kind, em->first, em->loc) |
                                   (cb_sole(em, size, kind) ? CB_INFO_SOLE : 0) |
                                   ((UWord)em->rmw << CB_INFO_RMW_SHIFT))));
   if (guard)
      d->guard = guard;
   addStmtToIRSB(em->sb, IRStmt_Dirty(d));
   em->first = False;
}

/* The gate: split (cb_split.c) passes the read's event word, else
 * whether the instruction may make more than one event. */
void cb_emit_gate(IRSB *sb, const VexGuestLayout *layout, Addr insn,
                         IRExpr *addr, Bool multi, Bool split, UWord info)
{
   IRTemp g = newIRTemp(sb->tyenv, Ity_I64);
   IRDirty *d =
      split ? unsafeIRDirty_1_N(
                 g, 2, "cb_gate_split", VG_(fnptr_to_fnentry)(cb_gate_split),
                 mkIRExprVec_2(addr, mkIRExpr_HWord(info)))
            : unsafeIRDirty_1_N(
                 g, 3, "cb_gate", VG_(fnptr_to_fnentry)(cb_gate),
                 mkIRExprVec_3(addr ? addr : mkIRExpr_HWord(0),
                               mkIRExpr_HWord(multi || !addr),
                               mkIRExpr_HWord(insn)));
   addStmtToIRSB(sb, IRStmt_Dirty(d));
   IRTemp deny = newIRTemp(sb->tyenv, Ity_I1);
   addStmtToIRSB(sb, IRStmt_WrTmp(deny, IRExpr_Binop(Iop_CmpNE64,
                                                     IRExpr_RdTmp(g),
                                                     mkIRExpr_HWord(0))));
   /* Not our turn: empty the thread's time slice so that the scheduler
    * switches at once, and retry the instruction later. */
   Int evc = __builtin_offsetof(VexGuestAMD64State, host_EvC_COUNTER);
   IRTemp cnt = newIRTemp(sb->tyenv, Ity_I32);
   addStmtToIRSB(sb, IRStmt_WrTmp(cnt, IRExpr_Get(evc, Ity_I32)));
   IRTemp newcnt = newIRTemp(sb->tyenv, Ity_I32);
   addStmtToIRSB(sb, IRStmt_WrTmp(newcnt,
                                  IRExpr_ITE(IRExpr_RdTmp(deny),
                                             IRExpr_Const(IRConst_U32(0)),
                                             IRExpr_RdTmp(cnt))));
   addStmtToIRSB(sb, IRStmt_Put(evc, IRExpr_RdTmp(newcnt)));
   addStmtToIRSB(sb, IRStmt_Exit(IRExpr_RdTmp(deny), Ijk_Yield,
                                 IRConst_U64(insn), layout->offset_IP));
}

