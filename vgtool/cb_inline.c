/* cb_inline.c: activations of inlined functions as BLOCK_BEGIN / BLOCK_END.
 *
 * At -O2 a `static` helper has no call and no entry of its own: the code of
 * `deposit` sits inside `teller`.  Valgrind's inline info
 * (--read-inline-info=yes) says, per instruction, which inlined functions
 * it belongs to, outermost first: its static inline chain.  Chains form a
 * tree (a chain's parent is the chain without its innermost function) and
 * get small ids, 0 being "no inlined function".  A function with inlined
 * code is probed once, byte by byte: the chain of each instruction, and
 * each chain's entry, its lowest address (where the inlined body starts).
 *
 * At run time the shadow stack of cb_blocks.c holds, above each real frame,
 * one frame per open inlined activation; cb_cur_chain is the chain of the
 * running thread's top frame.  Only instructions that make events matter
 * (a recorded access, a call): before one, generated code compares
 * cb_cur_chain with the instruction's chain and calls cb_inline_switch when
 * they differ, which closes and opens activations.  An inlined body whose
 * code makes no event (arithmetic) opens no block.  A chain's entry
 * instruction stores the chain in cb_entered and invalidates cb_cur_chain,
 * so that the next event starts a new activation of it: one per call of
 * the helper in a loop, not one for the whole loop.
 *
 * Limits: activations end lazily, at the next event outside them or when
 * their real frame returns; only the latest entry between two events
 * counts, so an outer inlined activation re-entered together with an inner
 * one whose entry comes later is continued rather than reopened.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_machine.h"
#include "cb_global.h"

UInt cb_cur_chain;
UInt cb_entered;

typedef struct {
   UInt parent;   /* chain without the innermost function */
   UInt depth;    /* inlined functions in it */
   UInt loc;      /* the innermost function's location (its name) */
   Addr entry;    /* its lowest instruction address: the block's address */
} CbChain;
static CbChain *cb_chains;    /* [0] is the empty chain */
static UInt cb_nchains, cb_capchains;

typedef struct { struct _VgHashNode *next; UWord key; UInt id; } CbKeyNode;
static VgHashTable *cb_chain_ids;   /* identity hash -> chain id */
static VgHashTable *cb_fn_inl;      /* function start -> has inlined code */
static VgHashTable *cb_insn_chain;  /* inlined code address -> chain id */

#define CB_MAX_INL_DEPTH 32

static UWord cb_hash_str(UWord h, const HChar *s)
{
   for (; *s; s++)
      h = (h ^ (UChar)*s) * 0x100000001b3ull;
   return h;
}

/* The chain of parent extended by function fn inlined at site, in the
 * function starting at fn_start (a clone of a function is another one). */
static UInt cb_chain_child(UInt parent, Addr fn_start, const HChar *fn,
                           const HChar *site, Addr a)
{
   UWord key = cb_hash_str(cb_hash_str(0xcbf29ce484222325ull ^ parent ^
                                          (fn_start << 20), fn), site);
   CbKeyNode *n = VG_(HT_lookup)(cb_chain_ids, key);
   if (n)
      return n->id;
   if (cb_nchains == cb_capchains) {
      cb_capchains = 2 * cb_capchains;
      cb_chains = VG_(realloc)("cb.chains", cb_chains,
                               cb_capchains * sizeof *cb_chains);
   }
   UInt id = cb_nchains++;
   cb_chains[id].parent = parent;
   cb_chains[id].depth = cb_chains[parent].depth + 1;
   cb_chains[id].loc = cb_loc_named(a, fn);
   cb_chains[id].entry = a;   /* probed in address order: the lowest */
   n = VG_(malloc)("cb.chainid", sizeof *n);
   n->key = key;
   n->id = id;
   VG_(HT_add_node)(cb_chain_ids, n);
   return id;
}
/* Splits describe_IP's "0xADDR: FUNCTION (WHERE)" (WHERE is FILE:LINE or
 * "in OBJECT") into FUNCTION and WHERE, copied into fn and site (each len
 * bytes); False if it has another shape.  The tool API names inlined
 * functions only through this text. */
static Bool cb_split_descr(const HChar *d, HChar *fn, HChar *site, SizeT len)
{
   const HChar *s = VG_(strstr)(d, ": "), *e = NULL;
   for (const HChar *q = s; q && (q = VG_(strstr)(q, " (")) != NULL; q++)
      e = q;
   if (!s || !e || e <= s + 2)
      return False;
   SizeT n = (SizeT)(e - (s + 2));
   n = n < len - 1 ? n : len - 1;
   VG_(memcpy)(fn, s + 2, n);
   fn[n] = 0;
   VG_(strncpy)(site, e + 2, len - 1);
   site[len - 1] = 0;
   return True;
}

/* The innermost function inlined at a, copied into fn (len bytes); False
 * when a belongs to no inlined code. */
Bool cb_inline_innermost(Addr a, HChar *fn, SizeT len)
{
   DiEpoch ep = VG_(current_DiEpoch)();
   InlIPCursor *ic = VG_(new_IIPC)(ep, a);
   if (!ic)
      return False;
   HChar site[256];
   Bool ok = cb_split_descr(VG_(describe_IP)(ep, a, ic), fn, site,
                            len < sizeof site ? len : sizeof site);
   Bool inlined = VG_(next_IIPC)(ic);   /* an outer level: a is inlined */
   VG_(delete_IIPC)(ic);
   return ok && inlined;
}

static void cb_inline_init(void)
{
   cb_capchains = 64;
   cb_chains = VG_(malloc)("cb.chains", cb_capchains * sizeof *cb_chains);
   VG_(memset)(&cb_chains[0], 0, sizeof cb_chains[0]);
   cb_nchains = 1;
   cb_chain_ids = VG_(HT_construct)("cb_chain_ids");
   cb_fn_inl = VG_(HT_construct)("cb_fn_inl");
   cb_insn_chain = VG_(HT_construct)("cb_insn_chain");
}

/* The static inline chain of code address a in the function starting at
 * fn_start, from the debug info. */
static UInt cb_chain_probe(DiEpoch ep, Addr a, Addr fn_start)
{
   InlIPCursor *ic = VG_(new_IIPC)(ep, a);
   if (!ic)
      return 0;
   /* Innermost first: fn[i] was inlined at the site that level i + 1's
    * description gives; the last level is the real function. */
   static HChar fn[CB_MAX_INL_DEPTH + 1][128], site[CB_MAX_INL_DEPTH + 1][128];
   HChar junk[128];
   Int n = 0;
   do {
      const HChar *d = VG_(describe_IP)(ep, a, ic);
      if (n <= CB_MAX_INL_DEPTH &&
          cb_split_descr(d, fn[n], n > 0 ? site[n - 1] : junk, sizeof fn[n]))
         n++;
      else
         n = CB_MAX_INL_DEPTH + 2;   /* unexpected: no chain */
   } while (VG_(next_IIPC)(ic));
   VG_(delete_IIPC)(ic);
   if (n < 2 || n > CB_MAX_INL_DEPTH + 1)
      return 0;
   UInt id = 0;
   for (Int i = n - 2; i >= 0; i--)
      id = cb_chain_child(id, fn_start, fn[i], site[i], a);
   return id;
}

/* Probes the function starting at start, byte by byte up to where its
 * symbol ends: the chain of every address in inlined code.  Returns
 * whether it has any. */
static Bool cb_fn_probe(DiEpoch ep, Addr start)
{
   const HChar *s;
   HChar name[256];
   if (!VG_(get_fnname)(ep, start, &s))
      return False;
   VG_(strncpy)(name, s, sizeof name - 1);
   name[sizeof name - 1] = 0;
   Bool has = False;
   for (Addr p = start; p < start + (1 << 16); p++) {
      if (!VG_(get_fnname)(ep, p, &s) || VG_(strcmp)(s, name) != 0)
         break;
      UInt c = cb_chain_probe(ep, p, start);
      if (c == 0)
         continue;
      has = True;
      CbKeyNode *n = VG_(malloc)("cb.insnchain", sizeof *n);
      n->key = p;
      n->id = c;
      VG_(HT_add_node)(cb_insn_chain, n);
   }
   return has;
}

/* Translation time: False when the function holding insn has no inlined
 * code (nothing to check there).  Else *chain is insn's static chain and
 * *entry the outermost chain whose entry insn is (0: none). */
Bool cb_inline_at(Addr insn, UInt *chain, UInt *entry)
{
   if (UNLIKELY(!cb_chain_ids))
      cb_inline_init();
   DiEpoch ep = VG_(current_DiEpoch)();
   const HChar *s;
   if (!VG_(get_fnname_w_offset)(ep, insn, &s))
      return False;
   const HChar *plus = VG_(strrchr)(s, '+');
   Addr start = plus ? insn - (Addr)VG_(strtoll10)(plus + 1, NULL) : insn;
   CbKeyNode *n = VG_(HT_lookup)(cb_fn_inl, start);
   if (!n) {
      n = VG_(malloc)("cb.fninl", sizeof *n);
      n->key = start;
      n->id = cb_fn_probe(ep, start);
      VG_(HT_add_node)(cb_fn_inl, n);
   }
   if (!n->id)
      return False;
   CbKeyNode *c = VG_(HT_lookup)(cb_insn_chain, insn);
   *chain = c ? c->id : 0;
   *entry = 0;
   for (UInt a = *chain; a != 0; a = cb_chains[a].parent)
      if (cb_chains[a].entry == insn)
         *entry = a;
   return True;
}

static Bool cb_chain_within(UInt inner, UInt outer)
{
   while (cb_chains[inner].depth > cb_chains[outer].depth)
      inner = cb_chains[inner].parent;
   return inner == outer;
}

static UInt cb_chain_common(UInt a, UInt b)
{
   while (cb_chains[a].depth > cb_chains[b].depth)
      a = cb_chains[a].parent;
   while (cb_chains[b].depth > cb_chains[a].depth)
      b = cb_chains[b].parent;
   while (a != b) {
      a = cb_chains[a].parent;
      b = cb_chains[b].parent;
   }
   return a;
}

/* Run time: the running thread is about to make an event in code whose
 * static chain is target.  Closes the open inlined activations that target
 * does not continue (and the one whose entry ran since, to start it anew),
 * and opens the ones it adds. */
VG_REGPARM(1) void cb_inline_switch(UWord target)
{
   CbThread *t = cb_cur;
   UInt entered = cb_entered;
   cb_entered = 0;
   if (UNLIKELY(!t) || t->unwatched || target >= cb_nchains) {
      cb_cur_chain = t ? cb_blocks_top_chain(t) : 0;
      return;
   }
   UInt cur = cb_blocks_top_chain(t);
   UInt keep = cb_chain_common(cur, (UInt)target);
   if (entered && cb_chain_within((UInt)target, entered) &&
       cb_chain_within(cur, entered))
      keep = cb_chains[entered].parent;
   cb_blocks_pop_inlined(t, keep);
   UInt path[CB_MAX_INL_DEPTH], np = 0;
   for (UInt c = (UInt)target; c != keep && np < CB_MAX_INL_DEPTH;
        c = cb_chains[c].parent)
      path[np++] = c;
   while (np > 0) {
      UInt c = path[--np];
      cb_blocks_push_inlined(t, c, cb_chains[c].entry, cb_chains[c].loc);
   }
   cb_blocks_resume(t);
}

/* ---- IR for cb_instrument.c ---- */

/* At an inlined body's entry instruction: cb_entered = entry, and
 * cb_cur_chain made invalid so that the next check calls the helper. */
void cb_inline_emit_entry(IRSB *sb, UInt entry)
{
   addStmtToIRSB(sb, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&cb_entered),
                                  IRExpr_Const(IRConst_U32(entry))));
   addStmtToIRSB(sb, IRStmt_Store(Iend_LE,
                                  mkIRExpr_HWord((HWord)&cb_cur_chain),
                                  IRExpr_Const(IRConst_U32(CB_CHAIN_INVALID))));
}

/* A load and a compare; cb_inline_switch(chain) only when they differ. */
void cb_inline_emit_check(IRSB *sb, UInt chain)
{
   IRTemp cur = newIRTemp(sb->tyenv, Ity_I32);
   addStmtToIRSB(sb, IRStmt_WrTmp(cur, IRExpr_Load(Iend_LE, Ity_I32,
                                                   mkIRExpr_HWord(
                                                      (HWord)&cb_cur_chain))));
   IRTemp ne = newIRTemp(sb->tyenv, Ity_I1);
   addStmtToIRSB(sb, IRStmt_WrTmp(ne, IRExpr_Binop(Iop_CmpNE32,
                                                   IRExpr_RdTmp(cur),
                                                   IRExpr_Const(
                                                      IRConst_U32(chain)))));
   IRDirty *d = unsafeIRDirty_0_N(1, "cb_inline_switch",
                                  VG_(fnptr_to_fnentry)(cb_inline_switch),
                                  mkIRExprVec_1(mkIRExpr_HWord(chain)));
   d->guard = IRExpr_RdTmp(ne);
   addStmtToIRSB(sb, IRStmt_Dirty(d));
}

/* A call that VEX followed into its callee within the superblock (a call
 * is an event of the caller's inlined activation): the store of the return
 * address, the next instruction's. */
Bool cb_inline_is_chased_call(const IRStmt *st, Addr insn, UInt len)
{
   if (st->tag != Ist_Store || st->Ist.Store.data->tag != Iex_Const)
      return False;
   const IRConst *c = st->Ist.Store.data->Iex.Const.con;
   return c->tag == Ico_U64 && c->Ico.U64 == (ULong)insn + len;
}
