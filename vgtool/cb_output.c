/* cb_output.c: the raw record stream (cb_wire.h) and the location and symbol
 * definitions it carries.  Records are buffered and written as whole
 * buffers: one write per 64 KiB keeps the per-event cost to a few stores, and
 * a program killed mid-run leaves every buffer written before.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "pub_tool_machine.h"
#include "pub_tool_threadstate.h"
#include "libvex_guest_amd64.h"
#include "cb_global.h"

/* Not in the tool headers, but exported by libcoregrind: moves a descriptor
 * above the client's range so that a program closing all its descriptors
 * cannot close ours. */
extern Int VG_(safe_fd)(Int oldfd);
/* Nor this (pub_core_threadstate.h): threads that hold or wait for the
 * big lock, the running one included; not those blocked in system calls. */
extern Int VG_(count_runnable_threads)(void);

UChar cb_buf[CB_BUF_BYTES + CB_BUF_SLACK] __attribute__((aligned(64)));
UWord cb_buf_used;
Int   cb_out_fd = -1;

static VgHashTable *cb_locs;  /* code address -> location id */
static VgHashTable *cb_syms;  /* data symbol start -> already defined */
static UInt cb_next_loc = 1;
/* Code address of each location id, for replay's expected-event check. */
static Addr *cb_loc_addrs;
static UInt cb_loc_cap;

static void cb_loc_remember(UInt id, Addr a)
{
   if (id >= cb_loc_cap) {
      UInt cap = cb_loc_cap ? cb_loc_cap : 1024;
      while (cap <= id)
         cap *= 2;
      cb_loc_addrs = VG_(realloc)("cb.locaddr", cb_loc_addrs, cap * sizeof(Addr));
      VG_(memset)(cb_loc_addrs + cb_loc_cap, 0, (cap - cb_loc_cap) * sizeof(Addr));
      cb_loc_cap = cap;
   }
   cb_loc_addrs[id] = a;
}

Addr cb_loc_address(UInt id)
{
   return id < cb_loc_cap ? cb_loc_addrs[id] : 0;
}

typedef struct { struct _VgHashNode *next; UWord key; UInt id; } CbLocNode;
typedef struct { struct _VgHashNode *next; UWord key; } CbSymNode;

/* VARDEFs made while the buffer was full (cb_out_vardef): the start of
 * the next buffer.  One that does not fit here either is lost (the
 * address is then named by symbol, as without debug info). */
static UChar cb_pend[8192];
static UInt cb_pend_used;

static void cb_write_all(const UChar *p, UInt n)
{
   while (n > 0 && cb_out_fd >= 0) {
      Int w = VG_(write)(cb_out_fd, p, n);
      if (w <= 0) {
         /* The reader went away: stop writing rather than fail the run. */
         cb_out_fd = -1;
         return;
      }
      p += w;
      n -= (UInt)w;
   }
}

void cb_out_flush(void)
{
   cb_stacks_scan();   /* may drop records, and must see every one */
   cb_write_all(cb_buf, (UInt)cb_buf_used);
   cb_buf_used = 0;
   cb_stacks_flushed();
   if (cb_pend_used) {
      VG_(memcpy)(cb_buf, cb_pend, cb_pend_used);
      cb_buf_used = cb_pend_used;
      cb_pend_used = 0;
   }
}

/* The inline record path's slow path: the buffer has no room for the next
 * record.  When the running thread filled it by spinning (its repeated
 * reads, dropped by the scan: cb_repeat.c), its time slice ends here, so
 * that the thread it waits for runs: else it spins on for the whole slice,
 * about 100,000 blocks, at every wait.  When its last yield handed the big
 * lock to nobody (the other thread's kernel thread was not queued for it),
 * the kernel is asked to run another thread first, as replay does.  The
 * event counter is written in the thread's guest state, where the next
 * block's entry looks (no IR reads it; declaring the write to VEX made
 * every event's IR dearer: 10 % more recording time). */
VG_REGPARM(0) void cb_out_flush_full(void)
{
   cb_out_flush();
   if (cb_repeat_spun && cb_cur) {
      UInt zero = 0;
      VG_(set_shadow_regs_area)(VG_(get_running_tid)(), 0,
                                __builtin_offsetof(VexGuestAMD64State,
                                                   host_EvC_COUNTER),
                                sizeof zero, (UChar *)&zero);
      if (cb_repeat_in_vain(cb_cur->wid))
         cb_kernel_yield();
   }
}

/* Called each time the scheduler enters client code, not per event.
 * Reading the clock is a system call under Valgrind, and the scheduler
 * enters client code after every client request and system call: the
 * clock is read only once the program has run CB_FLUSH_BLOCKS blocks
 * since it was last read.  Records are only made while client code runs,
 * and the last thread to block writes them (cb_out_before_syscall), so the
 * age of buffered records stays bounded. */
void cb_out_flush_if_old(ULong blocks)
{
   static UInt last_flush_ms;
   static ULong last_look;
   UInt now;
   if (cb_buf_used == 0 || blocks - last_look < CB_FLUSH_BLOCKS)
      return;
   last_look = blocks;
   /* Nobody reads the records (a forced run that keeps no trace): they
    * are only scanned and dropped, and age does not matter.  A forced
    * switch empties the time slice, so the block count jumps past
    * CB_FLUSH_BLOCKS at nearly every one, and the clock cost a system
    * call per switch. */
   if (cb_out_fd < 0) {
      cb_out_flush();
      return;
   }
   now = VG_(read_millisecond_timer)();
   if (now - last_flush_ms >= CB_FLUSH_MS) {
      cb_out_flush();
      last_flush_ms = now;
   }
}

/* Before a system call, the buffer is written when the call may block
 * and no other thread of the process can run: the program may then be
 * killed while it waits (a hang, a timeout), and what it did must be in
 * the trace.  Not when the call cannot block (a futex wake: a switch-heavy
 * program makes one per hand-off), nor while another thread can run: it
 * writes the buffer itself before it blocks, and while it runs the buffer
 * is written at least every CB_FLUSH_MS.  Threads that a wake has woken
 * can run, though Valgrind shows them blocked until each has the big lock
 * back: cb_woken counts them, from the wakes' results (private futexes
 * only, whose waiters are this process's threads; not requeues, whose
 * count includes threads moved to another futex, still asleep) down to
 * the waits that returned.  Replay mode writes before every call, as it
 * always did. */
static UInt cb_woken;

/* The futex operation of a futex call, without its flags. */
static UWord cb_futex_op(const UWord *args)
{
   return args[1] & ~(UWord)(VKI_FUTEX_PRIVATE_FLAG | VKI_FUTEX_CLOCK_REALTIME);
}

Bool cb_futex_blocks(const UWord *args)
{
   switch (cb_futex_op(args)) {
   case VKI_FUTEX_WAIT: case VKI_FUTEX_WAIT_BITSET: case VKI_FUTEX_LOCK_PI:
   case VKI_FUTEX_WAIT_REQUEUE_PI:
      return True;
   default:
      return False;
   }
}

void cb_out_before_syscall(UInt sysno, const UWord *args)
{
   if (cb_buf_used == 0)
      return;
   if (!cb_replaying) {
      if (sysno == __NR_sched_yield ||
          (sysno == __NR_futex && !cb_futex_blocks(args)))
         return;
      if (cb_woken > 0 || VG_(count_runnable_threads)() > 1)
         return;
   }
   cb_out_flush();
}

void cb_out_after_syscall(UInt sysno, const UWord *args, SysRes res)
{
   if (sysno != __NR_futex || sr_isError(res))
      return;
   UWord op = cb_futex_op(args);
   if (op == VKI_FUTEX_WAKE || op == VKI_FUTEX_WAKE_BITSET ||
       op == VKI_FUTEX_WAKE_OP) {
      if (args[1] & VKI_FUTEX_PRIVATE_FLAG)
         cb_woken = (UInt)VG_MIN((UWord)cb_nlive, cb_woken + sr_Res(res));
   } else if (cb_futex_blocks(args) && cb_woken > 0) {
      cb_woken--;   /* one woken thread runs (or a spurious wake-up) */
   }
}

void cb_out_init(Int fd)
{
   cb_locs = VG_(HT_construct)("cb_locs");
   cb_syms = VG_(HT_construct)("cb_syms");
   if (fd >= 0) {
      Int safe = VG_(safe_fd)(fd);
      cb_out_fd = safe >= 0 ? safe : fd;
   }
   /* HELLO: wire version in addr, instrumentation mode and replay flag in
    * value (bits 0-1: --cb-instrument, bit 8: replay mode). */
   cb_put(CB_WIRE_HELLO, 0, 0, 0, CB_WIRE_VERSION,
          (ULong)cb_instr | (cb_replaying ? 0x100ull : 0));
}

void cb_out_end(void)
{
   cb_out_flush();   /* names its last records' data before END */
   cb_put(CB_WIRE_END, 0, 0, 0, 0, 0);
   cb_out_flush();
}

/* After fork the child must not write: the parent owns the stream, and
 * the replay status channel, which the child would otherwise fill with its
 * own verdicts on a plan it cannot follow (the other threads are not in
 * it).  The child runs unforced: its wrappers stop asking for turns.  (Its
 * instruction gates still ask cb_replay.c until the stall limit releases
 * them; cb_replay.c should release a forked child at once.) */
void cb_out_forked_child(ThreadId tid)
{
   cb_out_fd = -1;
   cb_buf_used = 0;
   cb_pend_used = 0;
   cb_status_fd = -1;
   cb_replaying = False;
   cb_stacks_flushed();
}

/* A LOCDEF, SYMDEF or VARDEF: the header and NUL-terminated strings. */
typedef struct {
   UChar kind, pad;
   UInt id, line;
   Addr address;
   const HChar *strs[4];
   Int nstrs;
} CbDef;

/* Its length in the stream; fills lens[]. */
static UInt cb_def_len(const CbDef *def, UInt *lens)
{
   enum { MAXS = 512 };
   UInt total = 0;
   for (Int i = 0; i < def->nstrs; i++) {
      lens[i] = def->strs[i] ? VG_(strlen)(def->strs[i]) : 0;
      if (lens[i] > MAXS - 1)
         lens[i] = MAXS - 1;
      total += lens[i] + 1;
   }
   return (UInt)sizeof(cb_wire_locdef) + ((total + 7) & ~7u);
}

static void cb_def_write(UChar *to, const CbDef *def, const UInt *lens,
                         UInt len)
{
   cb_wire_locdef *d = (cb_wire_locdef *)to;
   VG_(memset)(to, 0, len);
   d->kind = def->kind;
   d->pad = def->pad;
   d->strlen = (UShort)(len - sizeof *d);
   d->id = def->id;
   d->address = def->address;
   d->line = def->line;
   UChar *p = to + sizeof *d;
   for (Int i = 0; i < def->nstrs; i++) {
      if (lens[i])
         VG_(memcpy)(p, def->strs[i], lens[i]);
      p += lens[i] + 1;
   }
}

static void cb_put_def(const CbDef *def)
{
   UInt lens[4], len = cb_def_len(def, lens);
   if (cb_buf_used + len > CB_BUF_BYTES)
      cb_out_flush();
   cb_def_write(cb_buf + cb_buf_used, def, lens, len);
   cb_buf_used += len;
}

void cb_out_vardef(Addr a, UInt offset, UInt line, Bool local,
                   const HChar *name, const HChar *file)
{
   CbDef def = { CB_WIRE_VARDEF, local ? 1 : 0, offset, line, a,
                 { name, file }, 2 };
   UInt lens[4], len = cb_def_len(&def, lens);
   if (cb_buf_used + len <= CB_BUF_BYTES) {
      cb_def_write(cb_buf + cb_buf_used, &def, lens, len);
      cb_buf_used += len;
   } else {
      /* The scan that names a buffer's accesses runs as it is written out:
       * when the buffer and cb_pend are both full (an array's elements
       * named at once: blind trial 21's 1,500 timers kept the names of
       * four runs of about 70), the definitions waiting go out now, ahead
       * of the buffer; a definition may come before the records that use
       * it, and a name dropped here was never asked for again. */
      if (cb_pend_used + len > sizeof cb_pend) {
         cb_write_all(cb_pend, cb_pend_used);
         cb_pend_used = 0;
      }
      cb_def_write(cb_pend + cb_pend_used, &def, lens, len);
      cb_pend_used += len;
   }
}

/* The function's name as its source spells it: gcc's clones and split
 * parts (`mq_send.constprop.0`, `f.isra.0`, `f.part.0`, `f.cold`,
 * `f.lto_priv.0`; C++'s demangled `f() [clone .constprop.0]`) are the
 * function the user wrote, and one report named both spellings. */
static void cb_plain_fnname(HChar *fn)
{
   static const HChar *const marks[] = {".constprop.", ".isra.", ".part.", ".cold",
                                        ".lto_priv.", " [clone ."};
   for (UInt i = 0; i < sizeof marks / sizeof marks[0]; i++) {
      HChar *m = VG_(strstr)(fn, marks[i]);
      if (m && m != fn)
         *m = 0;
   }
}

/* A LOCDEF for code address a, under id, naming function name if given,
 * else (fn_entry) the function whose symbol holds a, even when a is inside
 * code inlined into it, else the innermost function, inlined or not. */
static void cb_put_locdef(UInt id, Addr a, Bool fn_entry, const HChar *name)
{
   /* The debug info strings are only valid until the next query: copy. */
   DiEpoch ep = VG_(current_DiEpoch)();
   HChar obj[256], fn[256], file[256], dirc[256];
   const HChar *s, *dir;
   UInt line = 0;
   obj[0] = fn[0] = file[0] = dirc[0] = 0;
   if (VG_(get_objname)(ep, a, &s))
      VG_(strncpy)(obj, s, sizeof obj - 1), obj[sizeof obj - 1] = 0;
   if (name)
      VG_(strncpy)(fn, name, sizeof fn - 1), fn[sizeof fn - 1] = 0;
   else if ((fn_entry || !cb_inline_innermost(a, fn, sizeof fn)) &&
            VG_(get_fnname)(ep, a, &s))
      VG_(strncpy)(fn, s, sizeof fn - 1), fn[sizeof fn - 1] = 0;
   cb_plain_fnname(fn);
   if (VG_(get_filename_linenum)(ep, a, &s, &dir, &line)) {
      VG_(strncpy)(file, s, sizeof file - 1), file[sizeof file - 1] = 0;
      /* The folder too: reports quote the source line from it. */
      if (dir)
         VG_(strncpy)(dirc, dir, sizeof dirc - 1), dirc[sizeof dirc - 1] = 0;
   } else
      line = 0;
   CbDef def = { CB_WIRE_LOCDEF, 0, id, line, a, { obj, fn, file, dirc }, 4 };
   cb_loc_remember(id, a);
   cb_put_def(&def);
}

/* Locations are keyed by code address; a function entry's own location
 * (cb_loc_for_fn) by the address with the top bit set, which no user-space
 * code address has. */
#define CB_LOC_FN_KEY(a) ((UWord)(a) | (1ul << 63))

static UInt cb_loc_lookup(UWord key, Addr a, Bool fn_entry)
{
   CbLocNode *n = VG_(HT_lookup)(cb_locs, key);
   if (n)
      return n->id;
   n = VG_(malloc)("cb.loc", sizeof *n);
   n->key = key;
   n->id = cb_next_loc++;
   VG_(HT_add_node)(cb_locs, n);
   cb_put_locdef(n->id, a, fn_entry, NULL);
   return n->id;
}

/* The location of an instruction: its file and line, and the innermost
 * function it belongs to, inlined or not. */
UInt cb_loc_for(Addr a)
{
   return cb_loc_lookup((UWord)a, a, False);
}

/* The location of a function's entry, named after the function itself: a
 * block's name.  The same location as cb_loc_for(a) unless the entry
 * instruction already belongs to inlined code. */
UInt cb_loc_for_fn(Addr a)
{
   CbLocNode *n = VG_(HT_lookup)(cb_locs, CB_LOC_FN_KEY(a));
   if (n)
      return n->id;
   HChar fn[8];
   if (cb_inline_innermost(a, fn, sizeof fn))
      return cb_loc_lookup(CB_LOC_FN_KEY(a), a, True);
   n = VG_(malloc)("cb.loc", sizeof *n);
   n->key = CB_LOC_FN_KEY(a);
   n->id = cb_loc_for(a);
   VG_(HT_add_node)(cb_locs, n);
   return n->id;
}

UInt cb_caller_loc(Addr caller)
{
   /* The call instruction, whose line is the user's, lies just before the
    * return address. */
   return caller ? cb_loc_for(caller - 1) : 0;
}

void cb_where(Addr a, HChar *buf, Int len)
{
   const HChar *file, *dir;
   UInt line;
   if (a && VG_(get_filename_linenum)(VG_(current_DiEpoch)(), a, &file, &dir,
                                      &line))
      VG_(snprintf)(buf, len, "%s:%u", file, line);
   else
      VG_(snprintf)(buf, len, "?");
}

/* A new location at a's file and line, named after function fn (an
 * inlined function's block: cb_inline.c). */
UInt cb_loc_named(Addr a, const HChar *fn)
{
   UInt id = cb_next_loc++;
   cb_put_locdef(id, a, False, fn);
   return id;
}

/* A SYMDEF the tool makes up for memory no symbol of the program's
 * names (a C library function's static result, cb_sync.c): once per
 * start address, and cb_symdef_for leaves the block to it. */
void cb_symdef_named(Addr start, UInt size, const HChar *name)
{
   if (VG_(HT_lookup)(cb_syms, start))
      return;
   CbSymNode *n = VG_(malloc)("cb.sym", sizeof *n);
   n->key = start;
   VG_(HT_add_node)(cb_syms, n);
   CbDef def = { CB_WIRE_SYMDEF, 0, 0, size, start, { name }, 1 };
   cb_put_def(&def);
}

void cb_symdef_for(Addr a)
{
   const HChar *name;
   PtrdiffT off;
   if (VG_(HT_lookup)(cb_syms, a))
      return;
   cb_names_sync_object(a);
   CbSymNode *n = VG_(malloc)("cb.sym", sizeof *n);
   n->key = a;          /* remember the address itself: asked once */
   VG_(HT_add_node)(cb_syms, n);
   if (!VG_(get_datasym_and_offset)(VG_(current_DiEpoch)(), a, &name, &off))
      return;
   Addr start = a - off;
   if (start != a) {
      if (VG_(HT_lookup)(cb_syms, start))
         return;
      n = VG_(malloc)("cb.sym", sizeof *n);
      n->key = start;
      VG_(HT_add_node)(cb_syms, n);
   }
   /* The tool API gives no symbol size: 0 means unknown. */
   CbDef def = { CB_WIRE_SYMDEF, 0, 0, 0, start, { name }, 1 };
   cb_put_def(&def);
}
