/* cb_ir.h: what the instrumentation's files share (private to
 * cb_instrument.c, cb_classify.c and cb_emit.c): the per-superblock scan
 * of accesses, the state of the instruction being instrumented, and the
 * IR emitters.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CB_IR_H
#define CB_IR_H

/* The info word of a memory helper: size, kind, first-in-instruction and
 * the location id, packed so that the helper takes three arguments. */
#define CB_INFO_FIRST (1ul << 16)
/* A read that is its instruction's only access, of 8 bytes at most: a
 * spinner's repeated one is dropped (cb_repeat.c).  Record mode's inline
 * path marks it in the record's pad2 word instead. */
#define CB_INFO_SOLE (1ul << 17)
/* Replay mode: a locked instruction's store, enum cb_rmw_class (3 bits). */
#define CB_INFO_RMW_SHIFT 18
#define CB_INFO(size, kind, first, loc)                                      \
   ((UWord)(size) | ((UWord)(kind) << 8) | ((first) ? CB_INFO_FIRST : 0) |   \
    ((UWord)(loc) << 32))

typedef struct {
   UChar *rsp_derived;  /* per original tmp: GET(RSP) +/- constant */
   Int    ntmps;
} CbScan;

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
   Bool   sole;       /* the access being emitted is its instruction's only
                         one (a read of it may be a spinner's: cb_repeat.c) */
   UChar  rmw;        /* the access being emitted is a locked instruction's
                         store of this enum cb_rmw_class (cb_rmw.c), else 0 */
} CbEmit;

/* Where the replay gate of each instruction goes: before the first access
 * when nothing before it in the instruction changed guest state (so the
 * instruction can be restarted there, with the address known), else right
 * after the IMark, conservatively. */
enum { CB_GATE_NONE = 0, CB_GATE_BEFORE = 1, CB_GATE_BEFORE_MULTI = 2,
       CB_GATE_AFTER_IMARK = 3, CB_GATE_SPLIT = 4 };

/* ---- classification (cb_classify.c) ---- */
Bool cb_addr_needs_helper(const CbScan *sc, IRExpr *addr);
IRExpr *cb_stmt_access(IRStmt *st, Int *nacc);
void cb_scan(IRSB *bb, CbScan *sc, UChar *gate, UChar *sole, Int offset_sp);

/* ---- locked read-modify-writes (cb_rmw.c) ---- */
UChar cb_rmw_class(IRSB *bb, Int at);

/* ---- emitters (cb_emit.c) ---- */
IRExpr *cb_widen(IRSB *sb, IRExpr *e);
UInt cb_type_size(IRType ty);
void cb_emit_inline_entry(CbEmit *em);
void cb_emit_inline_check(CbEmit *em);
void cb_emit_mem(CbEmit *em, IRExpr *addr, IRExpr *value, UInt size,
                 UChar kind, IRExpr *guard);
void cb_emit_gate(IRSB *sb, const VexGuestLayout *layout, Addr insn,
                  IRExpr *addr, Bool multi, Bool split, UWord info);

#endif
