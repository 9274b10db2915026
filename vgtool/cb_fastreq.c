/* cb_fastreq.c: the client requests a lock call makes, answered by a call
 * from generated code instead of by a return to Valgrind's scheduler.
 *
 * A client request ends its superblock with jump kind Ijk_ClientReq: the
 * thread leaves generated code, the scheduler calls the tool's handler
 * and enters generated code again (run_thread_for_a_while, the start of
 * client code, a look-up of the next block).  After the preload's lock
 * and unlock calls stopped leaving generated code to reach the C
 * library's functions (cb_preload_interpose.c), the LOCK and UNLOCK
 * requests were the two returns to the scheduler left per lock/unlock
 * pair of a lock-heavy program, and half its recording cost (issue 13).
 *
 * Every superblock that ends in a client request gets, in record mode, a
 * dirty call of cb_fastreq with the request's argument block (guest RAX,
 * as the scheduler reads it).  For the requests it knows to be safe
 * there (below) it calls the same handler the scheduler would
 * (cb_handle_client_request), and the block puts the answer in RDX, as
 * the scheduler does, and goes on to the next instruction as an ordinary
 * jump, chained like any other.  For every other request (Valgrind's own,
 * and ours that may end the run, block, read the guest registers or need
 * replay's turns) it answers CB_FASTREQ_SLOW and the block takes a side
 * exit with the original Ijk_ClientReq: exactly the old path.  The order
 * of events is unchanged: the call happens where the request was, before
 * any later instruction of the thread.
 *
 * Not in replay mode: its requests are the turns, and turns need the
 * scheduler (a refused one yields).  This file is the tool's only
 * instrumentation pass after cb_instrument (cb_main.c registers
 * cb_instrument_all).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_machine.h"
#include "libvex_guest_amd64.h"
#include "cb_global.h"
#include "cb_clientreq.h"

/* No request answered here returns it. */
#define CB_FASTREQ_SLOW (~0ull)

/* Requests whose handling neither blocks, nor ends the run, nor reads the
 * guest state (a stack trace, the IP), nor waits for a turn: LOCK after
 * an acquisition, UNLOCK before a release.  Both answer 0. */
static Bool cb_fastreq_ok(UWord code)
{
   return code == CB_REQ_LOCK || code == CB_REQ_UNLOCK;
}

static VG_REGPARM(1) ULong cb_fastreq(UWord *args)
{
   UWord ret = 0;
   if (cb_replaying || !cb_fastreq_ok(args[0]))
      return CB_FASTREQ_SLOW;
   if (!cb_handle_client_request(VG_(get_running_tid)(), args, &ret))
      return CB_FASTREQ_SLOW;
   tl_assert(ret != CB_FASTREQ_SLOW);
   return ret;
}

/* sb ends in a client request to the constant address after it: call
 * cb_fastreq, leave by the request only when it answered SLOW. */
static void cb_fastreq_emit(IRSB *sb)
{
   IRTemp args = newIRTemp(sb->tyenv, Ity_I64);
   IRTemp res = newIRTemp(sb->tyenv, Ity_I64);
   IRTemp slow = newIRTemp(sb->tyenv, Ity_I1);
   addStmtToIRSB(sb, IRStmt_WrTmp(args, IRExpr_Get(
      offsetof(VexGuestAMD64State, guest_RAX), Ity_I64)));
   IRDirty *d = unsafeIRDirty_1_N(res, 1, "cb_fastreq",
                                  VG_(fnptr_to_fnentry)(cb_fastreq),
                                  mkIRExprVec_1(IRExpr_RdTmp(args)));
   addStmtToIRSB(sb, IRStmt_Dirty(d));
   addStmtToIRSB(sb, IRStmt_WrTmp(slow, IRExpr_Binop(
      Iop_CmpEQ64, IRExpr_RdTmp(res),
      IRExpr_Const(IRConst_U64(CB_FASTREQ_SLOW)))));
   addStmtToIRSB(sb, IRStmt_Exit(IRExpr_RdTmp(slow), Ijk_ClientReq,
                                 sb->next->Iex.Const.con, sb->offsIP));
   addStmtToIRSB(sb, IRStmt_Put(offsetof(VexGuestAMD64State, guest_RDX),
                                IRExpr_RdTmp(res)));
   sb->jumpkind = Ijk_Boring;
}

IRSB *cb_instrument_all(VgCallbackClosure *closure, IRSB *bb,
                        const VexGuestLayout *layout,
                        const VexGuestExtents *vge,
                        const VexArchInfo *archinfo_host,
                        IRType gWordTy, IRType hWordTy)
{
   IRSB *sb = cb_instrument(closure, bb, layout, vge, archinfo_host,
                            gWordTy, hWordTy);
   if (!cb_replaying && sb->jumpkind == Ijk_ClientReq &&
       sb->next->tag == Iex_Const &&
       sb->next->Iex.Const.con->tag == Ico_U64)
      cb_fastreq_emit(sb);
   return sb;
}
