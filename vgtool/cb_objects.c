/* cb_objects.c: which code is watched and which constant addresses can be
 * shared.  Decided once per page of code (objects are mapped page by page)
 * and once per constant address at translation time, so the run-time
 * helpers never consult debug info.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_clientstate.h"
#include "cb_global.h"

typedef struct { struct _VgHashNode *next; UWord key; Bool instr; } CbPageNode;
static VgHashTable *cb_pages;

static const HChar *cb_basename(const HChar *path)
{
   const HChar *b = path;
   for (const HChar *p = path; *p; p++)
      if (*p == '/')
         b = p + 1;
   return b;
}

static Bool cb_prefix(const HChar *s, const HChar *pre)
{
   return VG_(strncmp)(s, pre, VG_(strlen)(pre)) == 0;
}

/* The C runtime: its internals (malloc's bookkeeping, stdio locks, the
 * dynamic linker) are noise for a race finder, and Valgrind's own preload
 * libraries are ours. */
static Bool cb_is_c_runtime(const HChar *base)
{
   static const HChar *const names[] = {
      "libc.so", "libc-", "ld-linux", "ld.so", "ld64.so", "libgcc_s",
      "libstdc++", "libm.so", "libm-", "libmvec", "libpthread", "libdl.so",
      "librt.so", "vgpreload_", NULL
   };
   for (Int i = 0; names[i]; i++)
      if (cb_prefix(base, names[i]))
         return True;
   return False;
}

Bool cb_path_is_c_runtime(const HChar *path)
{
   return cb_is_c_runtime(cb_basename(path));
}

static Bool cb_classify(Addr a)
{
   if (cb_instr == CB_INSTR_ALL)
      return True;
   const HChar *file = NULL;
   DebugInfo *di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), a);
   if (di)
      file = VG_(DebugInfo_get_filename)(di);
   if (!file) {
      NSegment const *seg = VG_(am_find_nsegment)(a);
      if (seg)
         file = VG_(am_get_filename)(seg);
   }
   if (!file)
      return False; /* anonymous code: Valgrind's trampolines, the vdso */
   const HChar *base = cb_basename(file);
   if (cb_instr == CB_INSTR_MAIN)
      return VG_(args_the_exename) &&
             VG_(strcmp)(base, cb_basename(VG_(args_the_exename))) == 0;
   return !cb_is_c_runtime(base);
}

Bool cb_obj_instrumented(Addr a)
{
   if (!cb_pages)
      cb_pages = VG_(HT_construct)("cb_pages");
   UWord page = a >> 12;
   CbPageNode *n = VG_(HT_lookup)(cb_pages, page);
   if (!n) {
      n = VG_(malloc)("cb.page", sizeof *n);
      n->key = page;
      n->instr = cb_classify(a);
      VG_(HT_add_node)(cb_pages, n);
   }
   return n->instr;
}

/* The start-up glue the linker puts into every program and library
 * (crti.o's _init and _fini, crtbegin.o's frame_dummy and
 * __do_global_dtors_aux): C runtime too, but inside a watched object.  It
 * has neither a sized symbol nor line info, which Valgrind then cannot name,
 * and no call frame information either (crtstuff is built without unwind
 * tables).  A static function of a stripped library (Debian's libglib:
 * g_hash_table_insert_node) has no name or line either, but it has its
 * frame information, like all compiled code on amd64: it is the user's
 * code, and a check-then-insert on a GHashTable races there.  Asked at
 * translation time only. */
Bool cb_code_is_runtime_glue(Addr a)
{
   const HChar *s, *dir;
   UInt line;
   if (cb_instr == CB_INSTR_ALL)
      return False;
   DiEpoch ep = VG_(current_DiEpoch)();
   return !VG_(get_fnname)(ep, a, &s) &&
          !VG_(get_filename_linenum)(ep, a, &s, &dir, &line) &&
          !VG_(has_CF_info)(a);
}

Bool cb_addr_is_plt(Addr a)
{
   return VG_(DebugInfo_sect_kind)(NULL, a) == Vg_SectPLT;
}

Bool cb_const_addr_shared(Addr a)
{
   switch (VG_(DebugInfo_sect_kind)(NULL, a)) {
   case Vg_SectGOT: case Vg_SectGOTPLT: case Vg_SectPLT: case Vg_SectText:
   case Vg_SectOPD:
      return False;
   default:
      break;
   }
   NSegment const *seg = VG_(am_find_nsegment)(a);
   /* Read-only data (.rodata, a RELRO GOT) is never written: no race. */
   return seg != NULL && seg->hasW;
}
