/* cb_stacks.c: which stack memory is shared between threads.
 *
 * A thread's accesses to its own stack are dropped (most events are), but
 * only while no other thread has touched that memory: a thread that passes
 * the address of a local to others (`pthread_create(&t, 0, worker, &job)`)
 * shares it.  When a thread accesses a 16-byte line of another live
 * thread's stack, the line escapes, and from then on its owner's accesses
 * to it are recorded too, until the owner exits.
 *
 * The record path pays nothing for this.  Escapes are found by scanning the
 * records buffered since the last scan, at every thread switch and before
 * every write of the buffer: Valgrind runs one thread at a time, so an
 * escape is always known before its owner runs again.  Inline code drops
 * what lies below the owner's lowest escaped line (cb_stk_len is that
 * length); what lies above reaches the buffer, and the scan removes the
 * records of lines that did not escape.  Replay mode's helpers ask
 * cb_stacks_keep_own instead, per access, so that events are counted as
 * the record path keeps them.
 *
 * An escaped local is often accessed RSP-relative by its owner (gcc -O1 and
 * up), and those accesses are not instrumented at all (cb_instrument.c).  At
 * the first escape of the run every translation is discarded and from then
 * on RSP-relative accesses go through the same run-time filter: programs
 * that never share stack memory keep the cheaper code.
 *
 * The owner's accesses before the escape are not recorded: the line was
 * thread-local until then, and the usual way an address reaches another
 * thread (pthread_create's argument, a store to a global then read by the
 * other thread) orders those accesses before the other thread's first one.
 * But not the owner's accesses after it: a forced run may well put them
 * before the child's first touch, and then replay would not count what the
 * recorded run counted.  So pthread_create's argument, when it is a local
 * of the creator, escapes at the create, in both modes alike: the lines of
 * the whole local, as the debug information of the creator's frames
 * describes it (both modes read variable information), else of its first
 * CB_SHARE_ARG bytes (cb_stacks_share_arg); lines beyond escape as
 * before, when the child first touches them.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_machine.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_transtab.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_xarray.h"
#include "libvex_guest_amd64.h"
#include "cb_global.h"

/* Not in the tool headers (pub_core_transtab.h): the tool-facing
 * VG_(discard_translations_safely) may only be called from a client
 * request, and an escape is found at a thread switch. */
extern void VG_(discard_translations)(Addr guest_start, ULong range,
                                      const HChar *who);

#define CB_LINE_SHIFT 4
#define CB_PAGE_SHIFT 12

Bool cb_stacks_watch_rsp;      /* translation time: see the head comment */
static Bool cb_discard_pending;
static UWord cb_scan_pos;      /* cb_buf bytes already scanned */

/* Live threads whose stack is known. */
static CbThread **cb_stk_threads;   /* VG_N_THREADS of them */
static UInt cb_nstk;

/* Page -> the thread whose stack holds the whole page, NULL when no stack
 * touches it, CB_MIXED when the exact address must be looked up.  Heap
 * and global pages answer in one load and compare. */
#define CB_MIXED ((CbThread *)1)
#define CB_PC_SIZE 1024
typedef struct { UWord page; CbThread *owner; } CbPageEnt;
static CbPageEnt cb_pc[CB_PC_SIZE];

typedef struct { struct _VgHashNode *next; UWord key; } CbLineNode;

/* Counts the changes of the set of stacks (cb_names.c caches by it). */
UInt cb_stacks_gen;

static void cb_pc_invalidate(void)
{
   cb_stacks_gen++;
   for (UInt i = 0; i < CB_PC_SIZE; i++)
      cb_pc[i].page = ~(UWord)0;
}

static CbThread *cb_exact_owner(Addr a)
{
   for (UInt i = 0; i < cb_nstk; i++) {
      CbThread *t = cb_stk_threads[i];
      if (a - t->stk_lo < t->stk_len)
         return t;
   }
   return NULL;
}

static CbThread *cb_page_owner(UWord page)
{
   Addr lo = page << CB_PAGE_SHIFT, hi = lo + (1ul << CB_PAGE_SHIFT);
   CbThread *owner = NULL;
   for (UInt i = 0; i < cb_nstk; i++) {
      CbThread *t = cb_stk_threads[i];
      Addr slo = t->stk_lo, shi = t->stk_lo + t->stk_len;
      if (shi <= lo || hi <= slo)
         continue;
      if (owner || slo > lo || shi < hi)
         return CB_MIXED;
      owner = t;
   }
   return owner;
}

/* The live thread whose stack holds a, or NULL. */
static inline CbThread *cb_stack_owner(Addr a)
{
   UWord page = a >> CB_PAGE_SHIFT;
   CbPageEnt *e = &cb_pc[page & (CB_PC_SIZE - 1)];
   if (UNLIKELY(e->page != page)) {
      e->page = page;
      e->owner = cb_page_owner(page);
   }
   return e->owner == CB_MIXED ? cb_exact_owner(a) : e->owner;
}

static Bool cb_line_escaped(const CbThread *t, Addr a)
{
   return t->esc && VG_(HT_lookup)(t->esc, a >> CB_LINE_SHIFT) != NULL;
}

/* Length of the part of t's stack dropped by the inline filter: all of it
 * below its lowest escaped line. */
static SizeT cb_filter_len(const CbThread *t)
{
   return t->esc ? t->esc_lo - t->stk_lo : t->stk_len;
}

/* While t runs a modelled call's real code (CbThread.unwatched), the
 * filter drops every address: the one way to silence the inline record
 * path, which reads nothing else per access. */
void cb_stacks_filter(const CbThread *t)
{
   if (t != cb_cur)
      return;
   if (t->unwatched) {
      cb_stk_lo = 0;
      cb_stk_len = ~(SizeT)0;
   } else if (t->stk_known) {
      cb_stk_lo = t->stk_lo;
      cb_stk_len = cb_filter_len(t);
   } else {
      cb_stk_lo = 0;   /* unknown stack: nothing is dropped as local */
      cb_stk_len = 0;
   }
}

static void cb_escape_line(CbThread *o, Addr a)
{
   UWord line = a >> CB_LINE_SHIFT;
   if (!o->esc)
      o->esc = VG_(HT_construct)("cb.esc");
   else if (VG_(HT_lookup)(o->esc, line))
      return;
   CbLineNode *n = VG_(malloc)("cb.escline", sizeof *n);
   n->key = line;
   VG_(HT_add_node)(o->esc, n);
   Addr lo = line << CB_LINE_SHIFT;
   if (VG_(HT_count_nodes)(o->esc) == 1 || lo < o->esc_lo)
      o->esc_lo = lo < o->stk_lo ? o->stk_lo : lo;
   cb_stacks_filter(o);
   if (!cb_stacks_watch_rsp) {
      cb_stacks_watch_rsp = True;
      cb_discard_pending = True;
   }
}

/* The same-instruction flag of the records after a dropped one: the first
 * kept record of an instruction must not carry it.  carry: no record of
 * the current instruction has been kept yet. */
static Bool cb_fix_same_insn(cb_wire_event *e, Bool dropped, Bool carry)
{
   Bool same = (e->size & CB_SIZE_SAME_INSN) != 0;
   if (dropped)
      return same ? carry : True;
   if (same && carry)
      e->size &= (UChar)~CB_SIZE_SAME_INSN;
   return False;
}

static inline Bool cb_is_access(const UChar *p)
{
   return *p == CB_EV_READ || *p == CB_EV_WRITE;
}

/* The scan from the first access that a stack holds: marks escapes, and
 * drops (compacting the buffer) an owner's accesses to its own lines that
 * did not escape.  Returns the new end of the buffer. */
static UChar *cb_scan_slow(UChar *p, UChar *end)
{
   UChar *w = p;
   Bool carry = False;
   while (p < end) {
      UInt n = cb_record_len(p);
      Bool drop = False;
      if (cb_is_access(p)) {
         cb_wire_event *e = (cb_wire_event *)p;
         CbThread *o = cb_stack_owner((Addr)e->addr);
         Addr last = (Addr)e->addr + CB_SIZE_BYTES(e->size) - 1;
         if (o && o->wid == e->tid) {
            drop = !cb_line_escaped(o, (Addr)e->addr);
         } else if (o) {
            cb_escape_line(o, (Addr)e->addr);
            if (cb_stack_owner(last) == o)   /* an access across lines */
               cb_escape_line(o, last);
         }
         carry = cb_fix_same_insn(e, drop, carry);
      }
      if (!drop) {
         if (w != p)
            VG_(memmove)(w, p, n);
         w += n;
      }
      p += n;
   }
   return w;
}

/* Looks at the records buffered since the last scan.  Most accesses are to
 * heap and globals, which no stack holds: a page-cache hit each. */
void cb_stacks_scan(void)
{
   UWord from = cb_scan_pos;
   UChar *p = cb_buf + cb_scan_pos, *end = cb_buf + cb_buf_used;
   if (cb_nstk > 0) {
      while (p < end) {
         if (cb_is_access(p) &&
             cb_stack_owner((Addr)((cb_wire_event *)p)->addr) != NULL)
            break;
         p += cb_record_len(p);
      }
      if (p < end)
         cb_buf_used = (UWord)(cb_scan_slow(p, end) - cb_buf);
   }
   /* A spinner's repeated reads go next (cb_repeat.c; replay mode never
    * put them in). */
   if (!cb_replaying)
      cb_buf_used = (UWord)(cb_repeat_scan(cb_buf + from, cb_buf + cb_buf_used) -
                            cb_buf);
   /* The records that stay, while the frames of shared locals exist. */
   cb_names_scan(cb_buf + from, cb_buf + cb_buf_used);
   cb_scan_pos = cb_buf_used;
}

void cb_stacks_flushed(void)
{
   cb_scan_pos = 0;
}

/* Replay mode, for an address the inline filter's part does not hold: is
 * it in the running thread's own stack, on a line that did not escape?  The
 * same decision as the scan's, made per access so that events are counted
 * as the record path keeps them. */
Bool cb_stacks_own_local(Addr a)
{
   CbThread *t = cb_cur;
   return t && a - t->stk_lo < t->stk_len && !cb_line_escaped(t, a);
}

Bool cb_stacks_holds(Addr a)
{
   return cb_stack_owner(a) != NULL;
}

Bool cb_stacks_touch_page(UWord page)
{
   return cb_page_owner(page) != NULL;
}

static void cb_free_line(void *n)
{
   VG_(free)(n);
}

static void cb_clear_escapes(CbThread *t)
{
   if (t->esc) {
      VG_(HT_destruct)(t->esc, cb_free_line);
      t->esc = NULL;
   }
}

static void cb_stk_add(CbThread *t)
{
   for (UInt i = 0; i < cb_nstk; i++)
      if (cb_stk_threads[i] == t)
         return;
   tl_assert(cb_nstk < VG_N_THREADS);
   cb_stk_threads[cb_nstk++] = t;
}

/* t, about to run (tid), has its stack at [lo, lo + len).  Sets the inline
 * filter's globals; discards translations made before the first escape. */
void cb_stacks_thread_runs(ThreadId tid, CbThread *t, Addr lo, SizeT len)
{
   if (lo != t->stk_lo || len != t->stk_len || !t->stk_known) {
      cb_clear_escapes(t);   /* a stack that moved (never seen) */
      t->stk_lo = lo;
      t->stk_len = len;
      t->stk_known = True;
      cb_stk_add(t);
      cb_pc_invalidate();
   }
   cb_stacks_filter(t);
   cb_stacks_runs_on(tid);
}

/* The running thread runs on (or t, in cb_stacks_thread_runs): an escape
 * found meanwhile by a scan of a full buffer may have left translations to
 * discard. */
void cb_stacks_runs_on(ThreadId tid)
{
   if (UNLIKELY(cb_discard_pending)) {
      /* The block this thread is about to enter was looked up already: it
       * runs once as it was translated (the discarded code stays in place,
       * and Valgrind does not chain from it), and an event counter of 1
       * then sends the thread back to the scheduler, whose next lookup
       * translates afresh.  Not 0: when the block is a wrapper's call of
       * the real function (run without redirection, the scheduler's
       * handle_noredir_jump), it must run now, and an exhausted counter
       * fails Valgrind's assertion "trc[0] != VG_TRC_INNER_COUNTERZERO"
       * (trial 7: 5 recordings in 6 of a program whose threads end while
       * another is busy).  One block's accesses to a line that escaped
       * meanwhile may go unrecorded. */
      cb_discard_pending = False;
      VG_(discard_translations)(0, 1ull << 47, "cbtools: stack escaped");
      Int offset = __builtin_offsetof(VexGuestAMD64State, host_EvC_COUNTER);
      Int count = 0, one = 1;
      VG_(get_shadow_regs_area)(tid, (UChar *)&count, 0, offset, sizeof count);
      if (count > 1)
         VG_(set_shadow_regs_area)(tid, 0, offset, sizeof one,
                                   (const UChar *)&one);
   }
}

/* How much of the argument's object one create shares when the debug
 * information does not describe it: its first word (a counter, a struct
 * of flags), so that the creator's other locals on the next line stay its
 * own.  At most CB_SHARE_MAX of a described one. */
#define CB_SHARE_ARG 8
#define CB_SHARE_MAX 4096
#define CB_SHARE_FRAMES 8

/* The end of the local that holds arg, from the debug information of the
 * frames of the running thread (the creator, in its client request), or 0
 * when none describes it.  A struct of a worker's options whose later
 * fields main fills in after the create (blind trial 17's image scaler:
 * its gain, 24 bytes in) is shared whole, not its first word. */
static Addr cb_local_end(Addr arg)
{
   Addr ips[CB_SHARE_FRAMES], sps[CB_SHARE_FRAMES], fps[CB_SHARE_FRAMES];
   UInt n = VG_(get_StackTrace)(VG_(get_running_tid)(), ips, CB_SHARE_FRAMES, sps, fps, 0);
   for (UInt j = 0; j < n; j++) {
      if (sps[j] > arg)
         break; /* frames further out lie above arg */
      /* A caller's ip is a return address: the call is just before it. */
      XArray *blocks = VG_(di_get_stack_blocks_at_ip)(j ? ips[j] - 1 : ips[j], False);
      Addr end = 0;
      for (Word k = 0; blocks && k < VG_(sizeXA)(blocks) && !end; k++) {
         const StackBlock *b = VG_(indexXA)(blocks, k);
         Addr lo = (b->spRel ? sps[j] : fps[j]) + b->base;
         if (arg >= lo && arg - lo < b->szB)
            end = lo + b->szB;
      }
      if (blocks)
         VG_(deleteXA)(blocks);
      if (end)
         return end;
   }
   return 0;
}

void cb_stacks_share_arg(CbThread *t, Addr arg)
{
   if (!t || !t->stk_known || arg - t->stk_lo >= t->stk_len)
      return;
   /* Not past the frame that holds arg: the innermost one whose entry
    * stack pointer lies above it. */
   Addr top = t->stk_lo + t->stk_len;
   for (UInt k = 0; k < t->nframes; k++)
      if (t->frames[k].sp > arg && t->frames[k].sp < top)
         top = t->frames[k].sp;
   Addr end = cb_local_end(arg);
   if (!end || end - arg > CB_SHARE_MAX)
      end = arg + (end ? CB_SHARE_MAX : CB_SHARE_ARG);
   if (end < top)
      top = end;
   for (Addr a = arg & ~(Addr)((1 << CB_LINE_SHIFT) - 1); a < top;
        a += 1 << CB_LINE_SHIFT)
      cb_escape_line(t, a);
   /* From a client request the translations can go at once, before the
    * creator runs on: its RSP-relative accesses to these lines count from
    * here in both modes. */
   if (cb_discard_pending) {
      cb_discard_pending = False;
      VG_(discard_translations_safely)(0, 1ull << 47,
                                       "cbtools: a local shared at create");
   }
}

/* t ends: its stack may be reused by a new thread, which starts with no
 * escaped line. */
void cb_stacks_thread_gone(CbThread *t)
{
   cb_stacks_scan();
   cb_clear_escapes(t);
   for (UInt i = 0; i < cb_nstk; i++)
      if (cb_stk_threads[i] == t) {
         cb_stk_threads[i] = cb_stk_threads[--cb_nstk];
         cb_pc_invalidate();
         break;
      }
   t->stk_known = False;
}

void cb_stacks_init(void)
{
   cb_stk_threads = VG_(calloc)("cb.stacks", VG_N_THREADS,
                                sizeof *cb_stk_threads);
   cb_pc_invalidate();
}
