/* cb_instrument.c: VEX instrumentation.
 *
 * Each memory access of watched code emits a READ or WRITE record with its
 * value, unless it can be proved at translation time never to be shared:
 * addresses computed from the stack pointer (until some thread's stack
 * memory is shared: cb_stacks.c), and constant addresses in read-only
 * data, the GOT or the PLT.  Accesses to the running thread's own stack are
 * dropped at run time, unless the line escaped to another thread.  In record mode the record is written by
 * inline IR (no helper call: a call per access was most of the tool's cost);
 * replay mode calls cb_ev_mem, which also counts the event for the plan.
 * Both keep exactly the same events with the same fields.  Function entries,
 * calls and returns feed the shadow stack of cb_blocks.c.  In replay mode
 * each instruction that may
 * produce a counted event is preceded by a turn check and a guarded
 * Ijk_Yield exit back to the same instruction (DESIGN.md, "Forcing a
 * schedule").  In functions with inlined code, the inline chain is
 * checked before each instruction's first event (cb_inline.c).
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

/* The info word of a memory helper: size, kind, first-in-instruction and
 * the location id, packed so that the helper takes three arguments. */
#define CB_INFO_FIRST (1ul << 16)
#define CB_INFO(size, kind, first, loc)                                      \
   ((UWord)(size) | ((UWord)(kind) << 8) | ((first) ? CB_INFO_FIRST : 0) |   \
    ((UWord)(loc) << 32))

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
   if (cb_replaying)
      cb_replay_counted(t, (UChar)(info >> 8), (UInt)(info >> 32), a, value);
   t->counted++;
   cb_put((UChar)(info >> 8), size, t->wid, (UInt)(info >> 32), a, value);
}

/* Replay: may the running thread execute this instruction now?  Returns
 * non-zero to make it yield and retry.  multi: the instruction has more
 * than one access (or the address is unknown), so it cannot be skipped on
 * the strength of the first address being on the stack. */
static VG_REGPARM(2) UWord cb_gate(Addr a, UWord multi)
{
   if (!multi && (a - cb_stk_lo < cb_stk_len || cb_stacks_own_local(a)))
      return 0;
   if (UNLIKELY(!cb_cur) || cb_cur->unwatched)
      return 0;
   return cb_replay_may_run(cb_cur) ? 0 : 1;
}

/* ---- translation-time classification ---- */

typedef struct {
   UChar *rsp_derived;  /* per original tmp: GET(RSP) +/- constant */
   Int    ntmps;
} CbScan;

static Bool cb_addr_needs_helper(const CbScan *sc, IRExpr *addr)
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
static IRExpr *cb_stmt_access(IRStmt *st, Int *nacc)
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

/* ---- IR building ---- */

static IRExpr *cb_widen(IRSB *sb, IRExpr *e)
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

static UInt cb_type_size(IRType ty)
{
   Int s = sizeofIRType(ty);
   return s > 32 ? 32 : (UInt)s;
}

typedef struct {
   IRSB  *sb;
   Addr   insn;       /* current instruction address */
   UInt   loc;        /* its location id, 0 until first needed */
   Bool   first;      /* no helper yet in this instruction */
   /* Record mode, inline path: the running thread's stack bounds and tid
    * bits, loaded once per superblock (threads switch only between
    * superblocks), and whether this instruction already emitted. */
   IRTemp stk_lo, stk_len, tid32;
   IRTemp has_ev;     /* I64, 0 or 1 */
   /* Inlined activations (cb_inline.c): */
   Bool   inl;        /* the instruction's function has inlined code */
   UInt   ichain;     /* the instruction's static inline chain */
   Bool   ichecked;   /* already compared with the thread's */
   UInt   known;      /* what cb_cur_chain holds here, or CB_CHAIN_INVALID */
   Bool   split;      /* the instruction can be split (cb_split.c) */
} CbEmit;

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
static void cb_emit_inline_entry(CbEmit *em)
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
static void cb_emit_inline_check(CbEmit *em)
{
   if (!em->inl || em->ichecked)
      return;
   em->ichecked = True;
   if (em->ichain == em->known)
      return;
   em->known = em->ichain;
   cb_inline_emit_check(em->sb, em->ichain);
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
   /* first word: kind, size (| same-instruction flag), tid; second word:
    * the location */
   ULong w0 = (ULong)kind | ((ULong)size << 8);
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
                                  mkIRExpr_HWord((ULong)em->loc)));
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

static void cb_emit_mem(CbEmit *em, IRExpr *addr, IRExpr *value, UInt size,
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
                    mkIRExpr_HWord(CB_INFO(size, kind, em->first, em->loc))));
   if (guard)
      d->guard = guard;
   addStmtToIRSB(em->sb, IRStmt_Dirty(d));
   em->first = False;
}

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

/* The gate: split (cb_split.c) passes the read's event word, else
 * whether the instruction may make more than one event. */
static void cb_emit_gate(IRSB *sb, const VexGuestLayout *layout, Addr insn,
                         IRExpr *addr, Bool multi, Bool split, UWord info)
{
   IRTemp g = newIRTemp(sb->tyenv, Ity_I64);
   IRDirty *d =
      split ? unsafeIRDirty_1_N(
                 g, 2, "cb_gate_split", VG_(fnptr_to_fnentry)(cb_gate_split),
                 mkIRExprVec_2(addr, mkIRExpr_HWord(info)))
            : unsafeIRDirty_1_N(
                 g, 2, "cb_gate", VG_(fnptr_to_fnentry)(cb_gate),
                 mkIRExprVec_2(addr ? addr : mkIRExpr_HWord(0),
                               mkIRExpr_HWord(multi || !addr)));
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

/* Where the replay gate of each instruction goes: before the first access
 * when nothing before it in the instruction changed guest state (so the
 * instruction can be restarted there, with the address known), else right
 * after the IMark, conservatively. */
enum { CB_GATE_NONE = 0, CB_GATE_BEFORE = 1, CB_GATE_BEFORE_MULTI = 2,
       CB_GATE_AFTER_IMARK = 3, CB_GATE_SPLIT = 4 };

static void cb_scan(IRSB *bb, CbScan *sc, UChar *gate, Int offset_sp)
{
   Int imark = -1, first_acc = -1, second_acc = -1, nacc = 0;
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
         if (!st)
            break;
         imark = i;
         first_acc = second_acc = -1;
         nacc = 0;
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

   CbScan sc;
   sc.ntmps = bb->tyenv->types_used;
   sc.rsp_derived = VG_(calloc)("cb.scan", sc.ntmps + 1, 1);
   UChar *gate = VG_(calloc)("cb.gate", bb->stmts_used + 1, 1);
   cb_scan(bb, &sc, gate, layout->offset_SP);

   IRSB *sb = deepCopyIRSBExceptStmts(bb);
   CbEmit em = { sb, 0, 0, True, IRTemp_INVALID, IRTemp_INVALID,
                 IRTemp_INVALID, IRTemp_INVALID,
                 False, 0, False, CB_CHAIN_INVALID, False };
   Int i = 0;
   while (i < bb->stmts_used && bb->stmts[i]->tag != Ist_IMark)
      addStmtToIRSB(sb, bb->stmts[i++]);

   /* Loaded addresses of this instruction, so a CAS after a load of the
    * same address (a lock-prefixed add) adds only its write. */
   IRExpr *loaded[4];
   Int nloaded = 0;
   UInt insn_len = 0;

   for (; i < bb->stmts_used; i++) {
      IRStmt *st = bb->stmts[i];
      if (!st || st->tag == Ist_NoOp)
         continue;
      if (st->tag == Ist_IMark) {
         addStmtToIRSB(sb, st);
         em.insn = (Addr)st->Ist.IMark.addr;
         insn_len = st->Ist.IMark.len;
         em.loc = 0;
         em.first = True;
         em.split = False;
         nloaded = 0;
         if (cb_is_fn_entry(em.insn)) {
            cb_emit_enter(&em, layout);
            em.known = CB_CHAIN_INVALID;
         }
         cb_emit_inline_entry(&em);
         if (cb_replaying && gate[i] == CB_GATE_AFTER_IMARK)
            cb_emit_gate(sb, layout, em.insn, NULL, True, False, 0);
         continue;
      }
      Int n;
      IRExpr *addr = cb_stmt_access(st, &n);
      Bool instr = addr && cb_addr_needs_helper(&sc, addr);
      if (cb_inline_is_chased_call(st, em.insn, insn_len))
         cb_emit_inline_check(&em);   /* a call is an event, see below */
      Bool split = instr && gate[i] == CB_GATE_SPLIT;
      if (split) {
         em.split = True;
         if (em.loc == 0)
            em.loc = cb_loc_for(em.insn);
      }
      if (cb_replaying && instr &&
          (gate[i] == CB_GATE_BEFORE || gate[i] == CB_GATE_BEFORE_MULTI ||
           split))
         cb_emit_gate(sb, layout, em.insn, addr,
                      gate[i] == CB_GATE_BEFORE_MULTI, split,
                      CB_INFO(cb_type_size(st->tag == Ist_WrTmp
                                 ? st->Ist.WrTmp.data->Iex.Load.ty : Ity_I64),
                              CB_EV_READ, True, em.loc));
      if (!instr) {
         addStmtToIRSB(sb, st);
         continue;
      }
      switch (st->tag) {
      case Ist_WrTmp: {
         if (split && cb_replaying)
            cb_split_emit_load(sb, st);
         else
            addStmtToIRSB(sb, st);
         IRType ty = st->Ist.WrTmp.data->Iex.Load.ty;
         cb_emit_mem(&em, addr, cb_widen(sb, IRExpr_RdTmp(st->Ist.WrTmp.tmp)),
                     cb_type_size(ty), CB_EV_READ, NULL);
         if (nloaded < 4)
            loaded[nloaded++] = addr;
         break;
      }
      case Ist_LoadG: {
         IRLoadG *lg = st->Ist.LoadG.details;
         addStmtToIRSB(sb, st);
         IRType ty_data, ty_addr;
         typeOfIRLoadGOp(lg->cvt, &ty_data, &ty_addr);
         (void)ty_data;
         cb_emit_mem(&em, addr, cb_widen(sb, IRExpr_RdTmp(lg->dst)),
                     cb_type_size(ty_addr), CB_EV_READ, lg->guard);
         break;
      }
      case Ist_Store: {
         IRExpr *data = st->Ist.Store.data;
         cb_emit_mem(&em, addr, cb_widen(sb, data),
                     cb_type_size(typeOfIRExpr(sb->tyenv, data)) |
                        (em.split ? CB_SIZE_SPLIT : 0),
                     CB_EV_WRITE, NULL);
         addStmtToIRSB(sb, st);
         break;
      }
      case Ist_StoreG: {
         IRStoreG *sg = st->Ist.StoreG.details;
         cb_emit_mem(&em, addr, cb_widen(sb, sg->data),
                     cb_type_size(typeOfIRExpr(sb->tyenv, sg->data)),
                     CB_EV_WRITE, sg->guard);
         addStmtToIRSB(sb, st);
         break;
      }
      case Ist_CAS: {
         IRCAS *cas = st->Ist.CAS.details;
         addStmtToIRSB(sb, st);
         Bool dbl = cas->oldHi != IRTemp_INVALID;
         IRType ty = typeOfIRExpr(sb->tyenv, cas->dataLo);
         UInt size = cb_type_size(ty) * (dbl ? 2 : 1);
         Bool seen = False;
         for (Int k = 0; k < nloaded; k++)
            if (eqIRAtom(loaded[k], addr))
               seen = True;
         if (!seen)
            cb_emit_mem(&em, addr,
                        dbl ? mkIRExpr_HWord(0)
                            : cb_widen(sb, IRExpr_RdTmp(cas->oldLo)),
                        size, CB_EV_READ, NULL);
         IRExpr *guard = NULL;
         if (!dbl) {
            /* A CAS writes only when it succeeds. */
            IRExpr *o = cb_widen(sb, IRExpr_RdTmp(cas->oldLo));
            IRExpr *e = cb_widen(sb, cas->expdLo);
            IRTemp g = newIRTemp(sb->tyenv, Ity_I1);
            addStmtToIRSB(sb, IRStmt_WrTmp(g, IRExpr_Binop(Iop_CmpEQ64, o, e)));
            guard = IRExpr_RdTmp(g);
         }
         em.first = False; /* the write is part of this instruction */
         cb_emit_mem(&em, addr,
                     dbl ? mkIRExpr_HWord(0) : cb_widen(sb, cas->dataLo), size,
                     CB_EV_WRITE, guard);
         break;
      }
      case Ist_Dirty: {
         IRDirty *dd = st->Ist.Dirty.details;
         addStmtToIRSB(sb, st);
         UInt size = dd->mSize > 32 ? 32 : dd->mSize;
         IRExpr *g = dd->guard && !(dd->guard->tag == Iex_Const &&
                                    dd->guard->Iex.Const.con->Ico.U1)
                        ? dd->guard : NULL;
         if (dd->mFx == Ifx_Read || dd->mFx == Ifx_Modify)
            cb_emit_mem(&em, addr, mkIRExpr_HWord(0), size, CB_EV_READ, g);
         if (dd->mFx == Ifx_Write || dd->mFx == Ifx_Modify)
            cb_emit_mem(&em, addr, mkIRExpr_HWord(0), size, CB_EV_WRITE, g);
         break;
      }
      default:
         addStmtToIRSB(sb, st);
         break;
      }
   }

   /* Function activations: calls and returns end superblocks.  A call is
    * an event of its instruction's inlined activation (its callee's block
    * nests in it, a synchronisation call happens in it). */
   if (sb->jumpkind == Ijk_Call)
      cb_emit_inline_check(&em);
   cb_add_call_ret(sb, layout);

   VG_(free)(sc.rsp_derived);
   VG_(free)(gate);
   return sb;
}
