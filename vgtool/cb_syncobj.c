/* cb_syncobj.c: what the tool remembers about locks, semaphores and once
 * controls between the client requests that report on them.
 *
 * Locks: a depth per (thread, lock), so that a recursive mutex (or a read
 * lock taken twice) is recorded once, LOCK at the first acquisition and
 * UNLOCK at the last release, and so that the spinlock wrapper can tell
 * pthread_spin_unlock from pthread_spin_init (one function in glibc).
 * The mode kept is what an rwlock unlock reports.
 *
 * Semaphores: posts are numbered in the order the tool sees them; a wait
 * takes the sem_init tokens first, then the posts in order (cb_wire.h).
 * A semaphore the tool never saw initialised (sem_open, a static one)
 * starts with no known tokens; a wait that finds no post left is taken to
 * have consumed an initial token.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_threadstate.h"
#include "cb_syncobj.h"

/* ---- locks ---- */

typedef struct {
   struct _VgHashNode *next;
   UWord key;     /* hash of (lock, wid); equality is on both */
   Addr  lock;
   UInt  wid;
   UInt  depth;
   UChar mode;
} CbHeld;
static VgHashTable *cb_held;

/* Thread ids are 32 bits: the key only spreads (lock, thread) pairs, and
 * cb_held_cmp tells colliding ones apart. */
static UWord cb_held_key(const CbThread *t, Addr lock)
{
   return lock ^ ((UWord)t->wid * 0x9e3779b97f4a7c15ul);
}

static Word cb_held_cmp(const void *a, const void *b)
{
   const CbHeld *x = a, *y = b;
   return x->lock == y->lock && x->wid == y->wid ? 0 : 1;
}

static CbHeld *cb_held_find(const CbThread *t, Addr lock)
{
   if (!cb_held)
      return NULL;
   CbHeld k;
   k.key = cb_held_key(t, lock);
   k.lock = lock;
   k.wid = t->wid;
   return VG_(HT_gen_lookup)(cb_held, &k, cb_held_cmp);
}

UInt cb_lock_depth(const CbThread *t, Addr lock)
{
   CbHeld *h = cb_held_find(t, lock);
   return h ? h->depth : 0;
}

Bool cb_lock_acquired(const CbThread *t, Addr lock, UChar mode)
{
   CbHeld *h = cb_held_find(t, lock);
   if (h) {
      h->depth++;
      return False;
   }
   if (!cb_held)
      cb_held = VG_(HT_construct)("cb.held");
   h = VG_(malloc)("cb.held", sizeof *h);
   h->key = cb_held_key(t, lock);
   h->lock = lock;
   h->wid = t->wid;
   h->depth = 1;
   h->mode = mode;
   VG_(HT_add_node)(cb_held, h);
   return True;
}

Bool cb_lock_releasing(const CbThread *t, Addr lock, UChar *mode)
{
   CbHeld *h = cb_held_find(t, lock);
   if (!h)
      return True; /* taken where the tool did not see it: report it */
   *mode = h->mode;
   if (--h->depth > 0)
      return False;
   VG_(free)(VG_(HT_gen_remove)(cb_held, h, cb_held_cmp));
   return True;
}

/* ---- semaphores ---- */

typedef struct {
   struct _VgHashNode *next;
   UWord key;        /* semaphore address */
   ULong initial;    /* sem_init tokens not yet taken */
   ULong posts;      /* posts so far */
   ULong taken;      /* posts consumed by waits so far */
} CbSem;
static VgHashTable *cb_sems;

static CbSem *cb_sem(Addr sem)
{
   if (!cb_sems)
      cb_sems = VG_(HT_construct)("cb.sems");
   CbSem *s = VG_(HT_lookup)(cb_sems, sem);
   if (!s) {
      s = VG_(calloc)("cb.sem", 1, sizeof *s);
      s->key = sem;
      VG_(HT_add_node)(cb_sems, s);
   }
   return s;
}

/* sem_init starts the semaphore afresh (it may be a destroyed one's). */
void cb_sem_init(Addr sem, UWord value)
{
   CbSem *s = cb_sem(sem);
   s->initial = value;
   s->posts = 0;
   s->taken = 0;
}

ULong cb_sem_post(Addr sem)
{
   return ++cb_sem(sem)->posts;
}

ULong cb_sem_take(Addr sem)
{
   CbSem *s = cb_sem(sem);
   if (s->initial > 0) {
      s->initial--;
      return 0;
   }
   if (s->taken < s->posts)
      return ++s->taken;
   return 0;
}

/* ---- pthread_once ---- */

#define CB_ONCE_NEST 4
typedef struct {
   Addr once, routine, caller;       /* the call about to run a routine */
   Addr run_once[CB_ONCE_NEST];      /* routines running, innermost last */
   Addr run_caller[CB_ONCE_NEST];
   UInt nrun;                        /* may exceed CB_ONCE_NEST: not kept */
} CbOnce;
static CbOnce *cb_onces; /* by ThreadId */

static CbOnce *cb_once_of(ThreadId tid)
{
   tl_assert(tid > 0 && tid < VG_N_THREADS);
   if (!cb_onces)
      cb_onces = VG_(calloc)("cb.once", VG_N_THREADS, sizeof *cb_onces);
   return &cb_onces[tid];
}

void cb_once_enter(ThreadId tid, Addr once, Addr routine, Addr caller)
{
   CbOnce *o = cb_once_of(tid);
   o->once = once;
   o->routine = routine;
   o->caller = caller;
}

Addr cb_once_take(ThreadId tid)
{
   CbOnce *o = cb_once_of(tid);
   if (o->nrun < CB_ONCE_NEST) {
      o->run_once[o->nrun] = o->once;
      o->run_caller[o->nrun] = o->caller;
   }
   o->nrun++;
   Addr r = o->routine;
   o->routine = 0;
   return r;
}

Addr cb_once_caller(ThreadId tid)
{
   CbOnce *o = cb_once_of(tid);
   if (o->nrun == 0 || o->nrun > CB_ONCE_NEST)
      return 0;
   return o->run_caller[o->nrun - 1];
}

Bool cb_once_ran(ThreadId tid, Addr *once, Addr *caller)
{
   CbOnce *o = cb_once_of(tid);
   if (o->nrun == 0)
      return False;
   o->nrun--;
   if (o->nrun >= CB_ONCE_NEST)
      return False;
   *once = o->run_once[o->nrun];
   *caller = o->run_caller[o->nrun];
   return True;
}
