/* cb_sync.c: client requests from the preload library's pthread and malloc
 * wrappers and from the public CB_ATOMIC_BEGIN/END markup.
 *
 * The wrappers also catch calls that glibc and ld.so make internally; an
 * event counts only when the wrapped function was called from watched code.
 * The location of a synchronisation event is the caller's, the user's line.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_machine.h"
#include "pub_tool_clreq.h"
#include "cb_global.h"
#include "cb_clientreq.h"

typedef struct { struct _VgHashNode *next; UWord key; UWord count; } CbBarNode;
static VgHashTable *cb_barriers;  /* barrier -> count from pthread_barrier_init */

/* A wrapper's caller is a return address: the call instruction, whose line
 * is the user's, lies just before it. */
static UInt cb_caller_loc(Addr caller)
{
   return caller ? cb_loc_for(caller - 1) : 0;
}

static Bool cb_from_user(Addr caller)
{
   return caller != 0 && cb_obj_instrumented(caller);
}

static UWord cb_barrier_count(Addr b)
{
   CbBarNode *n = cb_barriers ? VG_(HT_lookup)(cb_barriers, b) : NULL;
   return n ? n->count : 0;
}

static void cb_held_set(CbThread *t, Addr lock, UChar mode)
{
   for (UInt i = 0; i < t->nheld; i++)
      if (t->held_lock[i] == lock) {
         t->held_mode[i] = mode;
         return;
      }
   if (t->nheld < CB_MAX_HELD) {
      t->held_lock[t->nheld] = lock;
      t->held_mode[t->nheld++] = mode;
   }
}

/* The mode a rwlock is held in by t, forgotten as it is released. */
static UChar cb_held_take(CbThread *t, Addr lock)
{
   for (UInt i = 0; i < t->nheld; i++)
      if (t->held_lock[i] == lock) {
         UChar mode = t->held_mode[i];
         t->held_lock[i] = t->held_lock[t->nheld - 1];
         t->held_mode[i] = t->held_mode[t->nheld - 1];
         t->nheld--;
         return mode;
      }
   return CB_LOCK_WR;
}

Bool cb_handle_client_request(ThreadId tid, UWord *args, UWord *ret)
{
   if ((args[0] & 0xffff0000u) != CB_REQ_BASE)
      return False;
   CbThread *t = cb_thread(tid);
   *ret = 0;
   switch (args[0]) {
   case CB_REQ_ATOMIC_BEGIN:
   case CB_REQ_ATOMIC_END:
      cb_event(t, args[0] == CB_REQ_ATOMIC_BEGIN ? CB_EV_ATOMIC_BEGIN
                                                 : CB_EV_ATOMIC_END,
               0, cb_loc_for(VG_(get_IP)(tid)), 0, 0);
      break;
   case CB_REQ_MAY_I:
      /* args[1]: caller, or 0 for calls that always count (create). */
      if (!cb_replaying || (args[1] != 0 && !cb_from_user(args[1])))
         *ret = 1;
      else
         *ret = cb_replay_may_run(t) ? 1 : 0;
      break;
   case CB_REQ_LOCK: {
      if (!cb_from_user(args[3]))
         break;
      UChar mode = (UChar)(args[2] & 0xff);
      if (mode == CB_LOCK_RD || mode == CB_LOCK_WR)
         cb_held_set(t, args[1], mode);
      cb_symdef_for(args[1]);
      cb_event(t, CB_EV_LOCK, mode, cb_caller_loc(args[3]), args[1],
               (args[2] >> 8) & 1);
      break;
   }
   case CB_REQ_UNLOCK: {
      if (!cb_from_user(args[3]))
         break;
      UChar mode = (UChar)(args[2] & 0xff);
      if (mode == CB_LOCK_MODE_HELD)
         mode = cb_held_take(t, args[1]);
      cb_event(t, CB_EV_UNLOCK, mode, cb_caller_loc(args[3]), args[1], 0);
      break;
   }
   case CB_REQ_COND_WAIT:
      if (!cb_from_user(args[3]))
         break;
      cb_symdef_for(args[1]);
      cb_event(t, CB_EV_COND_WAIT, 0, cb_caller_loc(args[3]), args[1], args[2]);
      break;
   case CB_REQ_COND_SIGNAL:
      if (!cb_from_user(args[3]))
         break;
      cb_symdef_for(args[1]);
      cb_event(t, CB_EV_COND_SIGNAL, args[2] ? 1 : 0, cb_caller_loc(args[3]),
               args[1], 0);
      break;
   case CB_REQ_BARRIER_INIT: {
      if (!cb_barriers)
         cb_barriers = VG_(HT_construct)("cb_barriers");
      CbBarNode *n = VG_(HT_lookup)(cb_barriers, args[1]);
      if (!n) {
         n = VG_(malloc)("cb.barrier", sizeof *n);
         n->key = args[1];
         VG_(HT_add_node)(cb_barriers, n);
      }
      n->count = args[2];
      break;
   }
   case CB_REQ_BARRIER_ENTER:
   case CB_REQ_BARRIER_LEAVE:
      if (!cb_from_user(args[2]))
         break;
      cb_symdef_for(args[1]);
      cb_event(t, args[0] == CB_REQ_BARRIER_ENTER ? CB_EV_BARRIER_ENTER
                                                   : CB_EV_BARRIER_LEAVE,
               0, cb_caller_loc(args[2]), args[1], cb_barrier_count(args[1]));
      break;
   case CB_REQ_CREATED:
      cb_thread_created(tid, args[1]);
      break;
   case CB_REQ_JOINED: {
      UShort wid = cb_thread_joined(args[1]);
      /* THREAD_JOIN is counted whoever calls: the gate before the real
       * join did not filter by caller either. */
      cb_event(t, CB_EV_THREAD_JOIN, 0, cb_caller_loc(args[2]), 0, wid);
      break;
   }
   case CB_REQ_ALLOC:
      if (!cb_from_user(args[3]))
         break;
      cb_event(t, CB_EV_ALLOC, 0, cb_caller_loc(args[3]), args[1], args[2]);
      break;
   case CB_REQ_FREE:
      if (!cb_from_user(args[2]))
         break;
      cb_event(t, CB_EV_FREE, 0, cb_caller_loc(args[2]), args[1], 0);
      break;
   default:
      return False;
   }
   return True;
}
