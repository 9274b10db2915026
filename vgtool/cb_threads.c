/* cb_threads.c: thread identities and per-thread state.
 *
 * Valgrind's ThreadId slots and pthread_t values are both reused, so the
 * trace names threads by creation order (main = 1).  A replay gives each
 * thread the recorded id of its path (creator, creator's count of creates:
 * cb_ident.c), which global order would not when unrelated threads start
 * in another order.  THREAD_CREATE is emitted in the parent at low-level creation,
 * before the child can run anything, with the child's THREAD_START after it.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_machine.h"
#include "pub_tool_threadstate.h"
#include "cb_global.h"

CbThread *cb_threads;
CbThread *cb_cur;
Addr      cb_stk_lo;
SizeT     cb_stk_len;
ULong     cb_cur_tid32;
UInt      cb_nlive;
ThreadId  cb_max_tid;

static UInt cb_next_wid;

/* pthread_t -> wid, as the create wrapper reports it after pthread_create. */
typedef struct { UWord pthread; UInt wid; } CbPthreadMap;
static CbPthreadMap *cb_pmap;
static UInt cb_npmap, cb_cappmap;

CbThread *cb_thread(ThreadId tid)
{
   tl_assert(tid > 0 && tid < VG_N_THREADS);
   return &cb_threads[tid];
}

void cb_event(CbThread *t, UChar kind, UChar size, UInt loc, ULong addr,
              ULong value)
{
   if (CB_IS_COUNTED(kind)) {
      if (cb_replaying) {
         cb_repeat_reset(t->wid); /* record mode: at the buffer's scan */
         cb_replay_counted(t, kind, loc, (Addr)addr, value);
      }
      t->counted++;
   }
   cb_put(kind, size, t->wid, loc, addr, value);
}

/* A new thread's id, p its creator or NULL.  Replay names it by its path
 * when the plan has them (cb_ident.c: the recorded id of that path, or a
 * fresh one above the plan's); record mode by global creation order. */
static UInt cb_new_wid(CbThread *p)
{
   UInt wid = 0;
   if (p)
      p->nchildren++;
   if (cb_replaying)
      wid = cb_ident_child_wid(p ? p->wid : 0, p ? p->nchildren : 0);
   return wid ? wid : ++cb_next_wid;
}

static void cb_thread_reset(CbThread *t, UInt wid)
{
   ThreadId tid = (ThreadId)(t - cb_threads);
   if (tid > cb_max_tid)
      cb_max_tid = tid;
   if (!t->live)
      cb_nlive++;
   t->live = True;
   t->wid = wid;
   t->last_child = 0;
   t->nchildren = 0;
   t->stk_lo = 0;
   t->stk_len = 0;
   t->stk_known = False;
   t->esc = NULL;
   t->esc_lo = 0;
   t->inl_entered = 0;
   t->nframes = 0;
   t->counted = 0;
   VG_(memset)(&t->wait, 0, sizeof t->wait);
   t->signalling = 0;
   t->signal_all = False;
   t->signal_spent = False;
   t->exit_called = False;
   t->cancelled = False;
   t->exiting = False;
   t->unwatched = 0;
   t->lock_slot = 0;
}

void cb_threads_init(void)
{
   cb_threads = VG_(calloc)("cb.threads", VG_N_THREADS, sizeof(CbThread));
   cb_stacks_init();
   /* The main thread exists before the tool sees any creation. */
   cb_thread_reset(&cb_threads[1], ++cb_next_wid);
   cb_event(&cb_threads[1], CB_EV_THREAD_START, 0, 0, 0, 0);
}

void cb_thread_ll_create(ThreadId parent, ThreadId child)
{
   CbThread *c = cb_thread(child);
   /* The core announces the main thread too, which already exists. */
   if (parent == VG_INVALID_THREADID && c->live)
      return;
   CbThread *p = parent != VG_INVALID_THREADID && cb_threads[parent].live
                    ? &cb_threads[parent] : NULL;
   cb_thread_reset(c, cb_new_wid(p));
   if (p) {
      p->last_child = c->wid;
      cb_event(p, CB_EV_THREAD_CREATE, 0, 0, 0, c->wid);
      cb_event(c, CB_EV_THREAD_START, 0, 0, 0, p->wid);
   } else {
      cb_event(c, CB_EV_THREAD_START, 0, 0, 0, 0);
   }
}

static void cb_thread_finish(CbThread *t)
{
   if (!t->live)
      return;
   cb_blocks_close_all(t);
   cb_event(t, CB_EV_THREAD_EXIT, 0, 0, 0, 0);
   if (cb_replaying)
      cb_replay_thread_exit(t);
   cb_stacks_thread_gone(t);
   cb_wait_end(t);
   t->live = False;
   tl_assert(cb_nlive > 0);
   cb_nlive--;
   /* The threads left may all wait now, for what only it could give. */
   cb_deadlock_check();
}

void cb_thread_ll_exit(ThreadId tid)
{
   CbThread *t = cb_thread(tid);
   cb_thread_finish(t);
   if (cb_cur == t) {
      cb_cur = NULL;
      cb_cur_chain = 0;
      cb_entered = 0;
      cb_stk_lo = 0;
      cb_stk_len = 0;
      cb_cur_tid32 = 0;
   }
}

/* The scheduler enters client code: the helpers find the running thread
 * and its stack in globals, refreshed here at a thread switch instead of
 * looked up per access.  Most entries are no switch: the core comes back
 * to the scheduler after every client request, system call, call of a
 * wrapped function's original and time slice, and a lock-heavy program
 * makes millions of them, so the same thread entering again costs a
 * compare. */
void cb_thread_start_client(ThreadId tid, ULong blocks)
{
   CbThread *t = cb_thread(tid);
   if (t == cb_cur && t->live && t->stk_known) {
      cb_stacks_runs_on(tid);
      return;
   }
   /* Escapes by the thread that ran so far, before t runs. */
   cb_stacks_scan();
   if (!t->live)
      cb_thread_reset(t, cb_new_wid(NULL));
   Addr max = VG_(thread_get_stack_max)(tid);
   SizeT size = VG_(thread_get_stack_size)(tid);
   if (cb_cur)
      cb_cur->inl_entered = cb_entered;
   cb_entered = t->inl_entered;
   cb_cur = t;
   cb_cur_tid32 = (ULong)t->wid << 32;
   cb_blocks_resume(t);
   if (max != 0 && size != 0) {
      /* [max - size, max]: the whole stack, plus the red zone below it. */
      cb_stacks_thread_runs(tid, t, max + 1 - size - 256, size + 256);
   } else {
      cb_stk_lo = 0;   /* unknown stack: nothing is dropped as local */
      cb_stk_len = t->unwatched ? ~(SizeT)0 : 0;
   }
}

void cb_thread_created(ThreadId tid, UWord pthread)
{
   CbThread *t = cb_thread(tid);
   if (t->last_child == 0)
      return;
   for (UInt i = 0; i < cb_npmap; i++)
      if (cb_pmap[i].pthread == pthread) {
         cb_pmap[i].wid = t->last_child;
         return;
      }
   if (cb_npmap == cb_cappmap) {
      cb_cappmap = cb_cappmap ? 2 * cb_cappmap : 16;
      cb_pmap = VG_(realloc)("cb.pmap", cb_pmap, cb_cappmap * sizeof *cb_pmap);
   }
   cb_pmap[cb_npmap].pthread = pthread;
   cb_pmap[cb_npmap].wid = t->last_child;
   cb_npmap++;
}

/* The wid of a pthread_t, 0 if unknown. */
UInt cb_thread_wid_of(UWord pthread)
{
   for (UInt i = 0; i < cb_npmap; i++)
      if (cb_pmap[i].pthread == pthread)
         return cb_pmap[i].wid;
   return 0;
}

/* The wid of a joined pthread_t, 0 if unknown; the entry goes, since the
 * pthread_t may now be reused. */
UInt cb_thread_joined(UWord pthread)
{
   for (UInt i = 0; i < cb_npmap; i++)
      if (cb_pmap[i].pthread == pthread) {
         UInt wid = cb_pmap[i].wid;
         cb_pmap[i] = cb_pmap[--cb_npmap];
         return wid;
      }
   return 0;
}

/* At the end of the process: every thread still alive ends here, so that
 * each BLOCK_BEGIN has its BLOCK_END and each thread its THREAD_EXIT. */
void cb_threads_fini(void)
{
   for (ThreadId tid = VG_N_THREADS - 1; tid >= 1; tid--)
      cb_thread_finish(&cb_threads[tid]);
}
