/* cb_main.c: the cbtools tool's options, start-up and shut-down.
 *
 * cbtools records the events a predictive atomicity-violation finder needs
 * (memory accesses with values, synchronisation, threads, function
 * activations) as the raw record stream of cb_wire.h, and in replay mode
 * forces a schedule given as a plan file.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_options.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "cb_global.h"

CbMode  cb_mode = CB_MODE_RECORD;
CbInstr cb_instr = CB_INSTR_DEFAULT;
Bool    cb_replaying = False;
static Int cb_opt_out_fd = -1;
static const HChar *cb_opt_mode = "record";
static const HChar *cb_opt_instr = "default";
Long cb_opt_parent_first;

static Bool cb_process_cmd_line_option(const HChar *arg)
{
   const HChar *tmp_str;
   if VG_STR_CLO (arg, "--cb-mode", cb_opt_mode) {
   } else if VG_INT_CLO (arg, "--cb-out-fd", cb_opt_out_fd) {
   } else if VG_STR_CLO (arg, "--cb-plan", cb_plan_path) {
   } else if VG_INT_CLO (arg, "--cb-status-fd", cb_status_fd) {
   } else if VG_STR_CLO (arg, "--cb-instrument", cb_opt_instr) {
   } else if VG_BINT_CLO (arg, "--cb-parent-first", cb_opt_parent_first, 0,
                          1000) {
   } else
      return False;
   (void)tmp_str;
   return True;
}

static void cb_print_usage(void)
{
   VG_(printf)(
      "    --cb-mode=record|replay   record events, or force a plan [record]\n"
      "    --cb-out-fd=N             write raw records (cb_wire.h) to fd N\n"
      "    --cb-instrument=default|main|all  objects whose code is watched:\n"
      "                              all but the C runtime, only the main\n"
      "                              executable, or everything [default]\n"
      "    --cb-plan=FILE            replay: the plan to force\n"
      "    --cb-status-fd=N          replay: status lines go to fd N\n"
      "    --cb-parent-first=N       record: a new thread yields N times\n"
      "                              before its start routine [0]\n");
}

static void cb_print_debug_usage(void)
{
   VG_(printf)("    (none)\n");
}

static void cb_post_clo_init(void)
{
   if (VG_(strcmp)(cb_opt_mode, "record") == 0)
      cb_mode = CB_MODE_RECORD;
   else if (VG_(strcmp)(cb_opt_mode, "replay") == 0)
      cb_mode = CB_MODE_REPLAY;
   else
      VG_(fmsg_bad_option)("--cb-mode", "must be record or replay\n");

   if (VG_(strcmp)(cb_opt_instr, "default") == 0)
      cb_instr = CB_INSTR_DEFAULT;
   else if (VG_(strcmp)(cb_opt_instr, "main") == 0)
      cb_instr = CB_INSTR_MAIN;
   else if (VG_(strcmp)(cb_opt_instr, "all") == 0)
      cb_instr = CB_INSTR_ALL;
   else
      VG_(fmsg_bad_option)("--cb-instrument", "must be default, main or all\n");

   cb_replaying = cb_mode == CB_MODE_REPLAY;
   if (cb_replaying && !cb_plan_path)
      VG_(fmsg_bad_option)("--cb-mode=replay", "needs --cb-plan=FILE\n");

   cb_out_init(cb_opt_out_fd);
   cb_names_init(!cb_replaying || cb_opt_out_fd >= 0);
   cb_dinfo_init();
   cb_threads_init();
   if (cb_replaying && !cb_replay_init())
      VG_(exit)(2);
}

void cb_end_run(void)
{
   if (cb_replaying)
      cb_replay_ending();
   cb_threads_fini();
   if (cb_replaying)
      cb_replay_fini();
   cb_out_end();
   if (cb_replaying)
      cb_replay_end();
}

/* exitcode is always 0 (Valgrind passes none); replay mode learns the
 * program's exit code from its exit system call (cb_pre_syscall). */
static void cb_fini(Int exitcode)
{
   cb_deadlock_off();
   cb_end_run();
}

/* A thread that ended by its own exit system call may have been the last
 * one running (cb_deadlock.c); one torn down as the process ends (a fatal
 * signal) says nothing. */
static void cb_ll_exit(ThreadId tid)
{
   Bool own = cb_thread(tid)->exit_called;
   cb_thread_ll_exit(tid);
   if (own)
      cb_deadlock_check();
}

static void cb_forked_child(ThreadId tid)
{
   cb_deadlock_off();
   cb_out_forked_child(tid);
   if (cb_replaying)
      cb_replay_forked_child();
}

/* Thread switches: the helpers read the running thread from globals.  It is
 * also a cheap place to bound how old buffered records get: a program that
 * runs for a long time with few events, then is killed, must still leave
 * what it did in the trace. */
static void cb_start_client_code(ThreadId tid, ULong blocks)
{
   cb_dinfo_first_run();
   cb_thread_start_client(tid, blocks);
   cb_out_flush_if_old(blocks);
}

/* A thread about to block in the kernel (sleep, read, futex) may be the
 * last thing the program does before it is killed: its records go out
 * first, unless another thread will write them (cb_out_before_syscall). */
static void cb_pre_syscall(ThreadId tid, UInt syscallno, UWord *args,
                           UInt nArgs)
{
   if (syscallno == __NR_futex && !cb_replaying && cb_futex_blocks(args))
      cb_sync_futex_wait(tid);
   cb_out_before_syscall(syscallno, args);
   if (syscallno == __NR_mmap)
      cb_dinfo_before_map((Int)args[4]);
   if (syscallno == __NR_mprotect)
      cb_dinfo_before_map(-1);
   if (syscallno == __NR_exit)
      cb_thread(tid)->exit_called = True;
   if (syscallno == __NR_exit_group || syscallno == __NR_execve ||
       syscallno == __NR_execveat)
      cb_deadlock_off();   /* threads now end without their own exit */
   if (syscallno == __NR_rt_sigaction)
      cb_deadlock_sigaction(tid, (Int)args[0], args[1]);
   /* cb_nlive counts the caller: <= 1, the last thread exits. */
   if (cb_replaying && (syscallno == __NR_exit_group ||
                        (syscallno == __NR_exit && cb_nlive <= 1)))
      cb_replay_exit_called(cb_thread(tid), (Int)args[0]);
   /* abort() (a failed assert) raises SIGABRT in its own thread: the
    * thread that ends the run, as exit's caller is. */
   if (cb_replaying && ((syscallno == __NR_tgkill && args[2] == VKI_SIGABRT) ||
                        (syscallno == __NR_tkill && args[1] == VKI_SIGABRT)))
      cb_replay_abort_raised(cb_thread(tid));
   if (cb_replaying && (syscallno == __NR_execve ||
                        syscallno == __NR_execveat))
      cb_replay_exec_called();
}

static void cb_post_syscall(ThreadId tid, UInt syscallno, UWord *args,
                            UInt nArgs, SysRes res)
{
   cb_out_after_syscall(syscallno, args, res);
   if (syscallno == __NR_mmap || syscallno == __NR_mprotect)
      cb_dinfo_after_map();
}

static void cb_pre_clo_init(void)
{
   VG_(details_name)("cbtools");
   VG_(details_version)("0.1");
   VG_(details_description)("a predictive concurrency-bug finder");
   VG_(details_copyright_author)(
      "Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.");
   VG_(details_bug_reports_to)("the cbtools developers");
   VG_(details_avg_translation_sizeB)(400);

   VG_(basic_tool_funcs)(cb_post_clo_init, cb_instrument_all, cb_fini);
   VG_(needs_command_line_options)(cb_process_cmd_line_option,
                                   cb_print_usage, cb_print_debug_usage);
   VG_(needs_client_requests)(cb_handle_client_request);

   VG_(track_pre_thread_ll_create)(cb_thread_ll_create);
   VG_(track_pre_thread_ll_exit)(cb_ll_exit);
   VG_(track_start_client_code)(cb_start_client_code);
   VG_(needs_syscall_wrapper)(cb_pre_syscall, cb_post_syscall);
   VG_(atfork)(NULL, NULL, cb_forked_child);
}

VG_DETERMINE_INTERFACE_VERSION(cb_pre_clo_init)
