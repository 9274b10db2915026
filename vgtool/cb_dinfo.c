/* cb_dinfo.c: how much debug information Valgrind reads, object by object.
 *
 * Variable info (--read-var-info=yes, recorded runs: cb_names.c names data
 * with it) and inline info (--read-inline-info=yes: locations name the
 * innermost inlined function, cb_inline.c) are read when an object is
 * loaded, and only the objects the tool watches need them.  The C runtime's
 * are large (Debian's libc6-dbg): ld.so's variables alone took 0.3 s of
 * every run's start-up, the tool's own binary's another 0.05 s, and no
 * event ever names them.  Valgrind reads an object's debug info when the
 * object is mapped, with the options as they are then, so:
 *
 *  - the objects mapped while the program runs: before each mmap the
 *    options are set for the object about to be mapped (cb_dinfo_before_map),
 *    and put back after it (cb_dinfo_after_map).  Put back, because the
 *    option is also read by every lookup: VG_(new_IIPC) finds no inlined
 *    function at all while --read-inline-info is off;
 *  - the objects Valgrind maps itself at start-up (the main executable,
 *    ld.so, the tool's binary) are read right after cb_dinfo_init with both
 *    options off, and before the program's first instruction the ones the
 *    tool watches (the main executable) are read again with what they need
 *    (cb_dinfo_first_run): nothing has been translated or looked up yet.
 *
 * With --cb-instrument=all every object is watched, the C runtime too:
 * inline info is then read for all of them, as the options say; variable
 * info never for the C runtime (its data is named by symbol).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_aspacemgr.h"
#include "cb_global.h"

/* Not in the tool headers (pub_core_options.h, pub_core_debuginfo.h). */
extern Bool VG_(clo_read_var_info);
extern Bool VG_(clo_read_inline_info);
extern ULong VG_(di_notify_mmap)(Addr a, Bool allow_SkFileV, Int use_fd);
extern void VG_(di_notify_munmap)(Addr a, SizeT len);

static Bool cb_want_var;      /* --read-var-info=yes: a recorded run */
static Bool cb_want_inline;   /* --read-inline-info=yes */
static Bool cb_started;       /* cb_dinfo_first_run has run */
/* The choice for the object mapped last: an mprotect may complete it (the
 * reader waits for both its code and its data to be mapped). */
static Bool cb_last_var, cb_last_inline;

/* What to read for the object at path; initial: mapped at start-up (then
 * the one object that is not the C runtime is the main executable). */
static void cb_dinfo_choose(const HChar *path, Bool initial)
{
   Bool user = !cb_path_is_c_runtime(path) &&
               (initial || cb_instr != CB_INSTR_MAIN);
   VG_(clo_read_var_info) = cb_want_var && user;
   VG_(clo_read_inline_info) = cb_want_inline &&
                               (user || cb_instr == CB_INSTR_ALL);
}

/* Between reads: what lookups need (variable info is only read). */
static void cb_dinfo_between(void)
{
   VG_(clo_read_var_info) = False;
   VG_(clo_read_inline_info) = cb_want_inline;
}

/* After the options, before Valgrind reads the start-up objects. */
void cb_dinfo_init(void)
{
   /* Asked for by the launcher when recording, or replaying with
    * records going out (cbreplay --record). */
   cb_want_var = VG_(clo_read_var_info);
   cb_want_inline = VG_(clo_read_inline_info);
   VG_(clo_read_var_info) = False;
   VG_(clo_read_inline_info) = cb_want_inline && cb_instr == CB_INSTR_ALL;
}

/* An object may be about to be mapped from fd (an mmap), or, fd < 0,
 * completed by an mprotect of the one mapped last. */
void cb_dinfo_before_map(Int fd)
{
   HChar link[64], path[512];
   if (!cb_started)
      return;
   if (fd >= 0) {
      VG_(snprintf)(link, sizeof link, "/proc/self/fd/%d", fd);
      SSizeT n = VG_(readlink)(link, path, sizeof path - 1);
      if (n <= 0)
         return;
      path[n] = 0;
      cb_dinfo_choose(path, False);
      cb_last_var = VG_(clo_read_var_info);
      cb_last_inline = VG_(clo_read_inline_info);
   } else {
      VG_(clo_read_var_info) = cb_last_var;
      VG_(clo_read_inline_info) = cb_last_inline;
   }
}

/* The mmap or mprotect is over: Valgrind has read what it would. */
void cb_dinfo_after_map(void)
{
   if (cb_started)
      cb_dinfo_between();
}

/* Reads again the object of the start-up file segments starts[from..]
 * that share starts[from]'s file, with what it needs; returns the index
 * past its last segment. */
static Int cb_dinfo_reread(const Addr *starts, Int from, Int n)
{
   NSegment const *first = VG_(am_find_nsegment)(starts[from]);
   const HChar *name = first ? VG_(am_get_filename)(first) : NULL;
   Int to = from + 1;
   if (!name)
      return to;
   HChar path[512];
   VG_(strncpy)(path, name, sizeof path - 1);
   path[sizeof path - 1] = 0;
   Addr hi = first->end;
   for (; to < n; to++) {
      NSegment const *s = VG_(am_find_nsegment)(starts[to]);
      const HChar *f = s ? VG_(am_get_filename)(s) : NULL;
      if (!f || VG_(strcmp)(f, path) != 0)
         break;
      hi = s->end;
   }
   Bool var = VG_(clo_read_var_info), inl = VG_(clo_read_inline_info);
   cb_dinfo_choose(path, True);   /* as read at start-up: var, inl */
   if (VG_(clo_read_var_info) != var || VG_(clo_read_inline_info) != inl) {
      VG_(di_notify_munmap)(first->start, hi + 1 - first->start);
      for (Int i = from; i < to; i++)
         (void)VG_(di_notify_mmap)(starts[i], False, -1);
   }
   VG_(clo_read_var_info) = var;
   VG_(clo_read_inline_info) = inl;
   return to;
}

/* The program is about to run its first instruction. */
void cb_dinfo_first_run(void)
{
   enum { MAXSEGS = 64 };
   Addr starts[MAXSEGS];
   if (cb_started)
      return;
   cb_started = True;
   Int n = VG_(am_get_segment_starts)(SkFileC, starts, MAXSEGS);
   for (Int i = 0; i < n; )
      i = cb_dinfo_reread(starts, i, n);
   cb_dinfo_between();
}
