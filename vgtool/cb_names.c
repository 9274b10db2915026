/* cb_names.c: source-level names of the data the program shares, from its
 * debug information: `checking.balance`, `slots[3]`, a local `job` shared
 * through a pointer.  Each distinct address is described once, with
 * Valgrind's VG_(get_data_description) (the text of Memcheck's and
 * Helgrind's "Location 0x... is 0 bytes inside ..." lines), and the name
 * goes into the record stream as a VARDEF (cb_wire.h) beside the address.
 *
 * When: the inline record path pays nothing.  The records buffered since
 * the last look are walked where cb_stacks.c walks them (at every thread
 * switch and before every write of the buffer), while the frame of a shared
 * local still exists: its owner waits in another thread.  Most accesses are
 * to the heap, which debug information does not describe (the trace
 * library names heap memory by its allocation): an address is only asked
 * about when its page holds an object's data or bss, or a thread's stack,
 * (a page-class cache answers for the heap in one load and two compares),
 * and a direct-mapped cache keeps the repeats of an address to one load
 * and compare.  Locks and other sync objects are named when the tool
 * first sees them (cb_symdef_for).
 *
 * Cost: --read-var-info=yes makes Valgrind read the DWARF of every object
 * it loads, and the C library's (Debian's libc6-dbg) alone costs seconds.
 * The launcher asks for variable info when the run is recorded (record
 * mode, and a replay whose records go out: cbreplay --record, an explored
 * run), never for a plain forced run; cb_dinfo.c has it read for the
 * objects the tool watches only.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_xarray.h"
#include "cb_global.h"

/* Not in the tool headers (pub_core_options.h): whether the debug info
 * reader reads variables and types.  Read when an object is loaded, so it
 * can be chosen per object. */
extern Bool VG_(clo_read_var_info);

/* At most this many addresses are described: a program that walks a huge
 * global array still records in bounded time and trace size (the rest are
 * named by symbol and offset, as without names). */
#define CB_NAMES_MAX (1u << 16)

static Bool cb_names_on;          /* a recorded run with variable info */
static VgHashTable *cb_named;     /* addresses already described */
static UInt cb_nnamed;
/* made_up: named by cb_names_define (whatever the debug info said). */
typedef struct { struct _VgHashNode *next; UWord key; Bool made_up; } CbNamedNode;

/* Addresses seen lately, whatever their kind: one compare for a repeat. */
#define CB_NC_SIZE 4096
static Addr cb_nc[CB_NC_SIZE];

/* Page -> whether it may hold a global (an object's data or bss) or a
 * thread's stack, as of stack generation gen: the heap answers here. */
#define CB_NPC_SIZE 1024
typedef struct { UWord page; UInt gen; Bool data, stack; } CbNamePage;
static CbNamePage cb_npc[CB_NPC_SIZE];

void cb_names_init(Bool records_out)
{
   /* Replays read variable information too (cb_stacks.c sizes a local
    * handed to pthread_create by it), but name data only when their
    * records go out.  See cb_dinfo_init. */
   cb_names_on = VG_(clo_read_var_info) && records_out;
   cb_named = VG_(HT_construct)("cb.named");
   for (UInt i = 0; i < CB_NC_SIZE; i++)
      cb_nc[i] = ~(Addr)0;
   for (UInt i = 0; i < CB_NPC_SIZE; i++)
      cb_npc[i].page = ~(UWord)0;
}

static CbNamePage *cb_page_class(Addr a)
{
   UWord page = a >> 12;
   CbNamePage *e = &cb_npc[page & (CB_NPC_SIZE - 1)];
   if (UNLIKELY(e->page != page)) {
      /* A writable file mapping is an object's data; bss beyond the file
       * is anonymous, and the first byte of each of its pages is bss. */
      Addr lo = page << 12;
      NSegment const *seg = VG_(am_find_nsegment)(lo);
      VgSectKind k = VG_(DebugInfo_sect_kind)(NULL, lo);
      e->page = page;
      e->data = (seg && seg->kind == SkFileC && seg->hasW) ||
                k == Vg_SectData || k == Vg_SectBSS;
      e->gen = cb_stacks_gen - 1;
   }
   if (UNLIKELY(e->gen != cb_stacks_gen)) {
      e->gen = cb_stacks_gen;
      e->stack = cb_stacks_touch_page(page);
   }
   return e;
}

Bool cb_names_is_data(Addr a)
{
   return cb_page_class(a)->data;
}

/* Skips `n` characters of s if s starts with `pre`. */
static const HChar *cb_after(const HChar *s, const HChar *pre)
{
   SizeT n = VG_(strlen)(pre);
   return VG_(strncmp)(s, pre, n) == 0 ? s + n : NULL;
}

/* The parts of a description, in `name` (at most len bytes):
 *   "Location 0x... is N bytes inside local var \"x\"[,]"
 *   "Location 0x... is N bytes inside global var \"x\""
 *   "Location 0x... is N bytes inside a[3].b,"   (or without the comma)
 * and the second line, "declared at f.c:12[, in frame #1 of thread 2]",
 * "a global variable declared at f.c:12", "a global variable", "in frame
 * #1 of thread 2" or nothing.  Members whose name starts with "__" are the
 * C library's insides (pthread_mutex_t's __data.__lock): the name stops
 * before them, so a lock is named as the program declares it. */
static Bool cb_parse(const HChar *d1, const HChar *d2, HChar *name,
                     SizeT len, UInt *offset, HChar *file, SizeT flen,
                     UInt *line, Bool *local)
{
   const HChar *p = VG_(strstr)(d1, " is ");
   if (!p)
      return False;
   *offset = (UInt)VG_(strtoull10)(p + 4, NULL);
   p = VG_(strstr)(p, " inside ");
   if (!p)
      return False;
   p += 8;
   const HChar *q;
   HChar stop = ',';
   *local = VG_(strstr)(d2, "in frame #") != NULL;
   if ((q = cb_after(p, "local var \"")) || (q = cb_after(p, "global var \""))) {
      p = q;
      stop = '"';
   }
   SizeT n = 0;
   while (p[n] && p[n] != stop && n + 1 < len) {
      if (p[n] == '.' && p[n + 1] == '_' && p[n + 2] == '_') {
         *offset = 0;   /* an offset into the insides means nothing here */
         break;
      }
      name[n] = p[n];
      n++;
   }
   name[n] = 0;
   if (n == 0)
      return False;
   file[0] = 0;
   *line = 0;
   const HChar *at = VG_(strstr)(d2, "declared at ");
   if (at) {
      at += 12;
      const HChar *colon = NULL;
      for (q = at; *q && *q != ','; q++)
         if (*q == ':')
            colon = q;
      if (colon) {
         SizeT fl = (SizeT)(colon - at) < flen - 1 ? (SizeT)(colon - at)
                                                   : flen - 1;
         VG_(memcpy)(file, at, fl);
         file[fl] = 0;
         *line = (UInt)VG_(strtoull10)(colon + 1, NULL);
      }
   }
   return True;
}

/* Describes a once: a VARDEF when the debug information knows it. */
static void cb_name_addr(Addr a)
{
   if (VG_(HT_lookup)(cb_named, a) || cb_nnamed >= CB_NAMES_MAX)
      return;
   CbNamedNode *n = VG_(malloc)("cb.named", sizeof *n);
   n->key = a;
   n->made_up = False;
   VG_(HT_add_node)(cb_named, n);
   cb_nnamed++;
   XArray *d1 = VG_(newXA)(VG_(malloc), "cb.descr1", VG_(free), sizeof(HChar));
   XArray *d2 = VG_(newXA)(VG_(malloc), "cb.descr2", VG_(free), sizeof(HChar));
   HChar name[256], file[256];
   UInt offset, line;
   Bool local;
   if (VG_(get_data_description)(d1, d2, VG_(current_DiEpoch)(), a) &&
       cb_parse(VG_(indexXA)(d1, 0), VG_(indexXA)(d2, 0), name, sizeof name,
                &offset, file, sizeof file, &line, &local))
      cb_out_vardef(a, offset, line, local, name, file);
   else if (cb_page_class(a)->data)
      /* Valgrind describes no function's static (`static char buf[32]`
       * in a formatter, reached through a pointer at -O0): its symbol
       * (buf.0) names it, as a constant address's does (cb_emit.c). */
      cb_symdef_for(a);
   VG_(deleteXA)(d1);
   VG_(deleteXA)(d2);
}

/* A name the tool makes up for an address that debug information cannot
 * describe (the word that stands for libc's hidden state, cb_sync.c):
 * a VARDEF once, whether or not variables are read, and the address is
 * never described again. */
void cb_names_define(Addr a, const HChar *name)
{
   CbNamedNode *n = VG_(HT_lookup)(cb_named, a);
   if (n && n->made_up)
      return;
   if (!n) {
      n = VG_(malloc)("cb.named", sizeof *n);
      n->key = a;
      VG_(HT_add_node)(cb_named, n);
      cb_nnamed++;
   }
   n->made_up = True;
   cb_out_vardef(a, 0, 0, False, name, "");
}

void cb_names_sync_object(Addr a)
{
   if (cb_names_on)
      cb_name_addr(a);
}

/* The records in [p, end), buffered since the last look (cb_stacks.c has
 * dropped the thread-local ones): names the addresses of the accesses. */
void cb_names_scan(const UChar *p, const UChar *end)
{
   if (!cb_names_on)
      return;
   for (; p < end; p += cb_record_len(p)) {
      if (*p != CB_EV_READ && *p != CB_EV_WRITE)
         continue;
      Addr a = (Addr)((const cb_wire_event *)p)->addr;
      CbNamePage *pc = cb_page_class(a);
      if (!pc->data && !pc->stack)
         continue;
      Addr *slot = &cb_nc[(a ^ (a >> 12)) & (CB_NC_SIZE - 1)];
      if (*slot == a)
         continue;
      *slot = a;
      if (pc->data || cb_stacks_holds(a))
         cb_name_addr(a);
   }
}
