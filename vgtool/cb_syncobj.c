/* cb_syncobj.c: what the tool remembers about locks, semaphores, once
 * controls, conditions and barriers between the client requests that
 * report on them.
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
 * The deadlock check (cb_deadlock.c) asks more: who surely holds a lock,
 * whether a semaphore surely has no token, how many signals a condition
 * has had, which round a barrier is in.  "Surely" leans one way only: a
 * lock is held from the LOCK request (after the acquisition) to the UNLOCK
 * request (before the release), a post counts from before it happens and
 * a wait's token from after it was taken, so the tool never believes a
 * lock held or a semaphore empty when it is not.
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

/* A node of a table keyed by an object's address: found, or made zeroed. */
static void *cb_node(VgHashTable **ht, Addr key, SizeT size, const HChar *cc)
{
   if (!*ht)
      *ht = VG_(HT_construct)(cc);
   VgHashNode *n = VG_(HT_lookup)(*ht, key);
   if (!n) {
      n = VG_(calloc)(cc, 1, size);
      n->key = key;
      VG_(HT_add_node)(*ht, n);
   }
   return n;
}

typedef struct {
   struct _VgHashNode *next;
   UWord key;     /* hash of (lock, wid); equality is on both */
   Addr  lock;
   UInt  wid;
   UInt  depth;
   UChar mode;
   Bool  unsure;  /* released, or maybe released, where not seen */
   Addr  caller;  /* of the first acquisition */
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

/* Nodes of released locks, kept for the next acquisition: a lock-heavy
 * program takes and releases a lock hundreds of thousands of times, and a
 * node from this list costs a load and a store where VG_(malloc) and
 * VG_(free) search and split the arena.  At most CB_HELD_SPARE are kept: as
 * many as the locks held at once, in practice. */
#define CB_HELD_SPARE 64
static CbHeld *cb_held_spare[CB_HELD_SPARE];
static UInt cb_held_nspare;

static CbHeld *cb_held_alloc(void)
{
   if (cb_held_nspare > 0)
      return cb_held_spare[--cb_held_nspare];
   return VG_(malloc)("cb.held", sizeof(CbHeld));
}

static void cb_held_recycle(CbHeld *h)
{
   if (cb_held_nspare < CB_HELD_SPARE)
      cb_held_spare[cb_held_nspare++] = h;
   else
      VG_(free)(h);
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

Bool cb_lock_acquired(const CbThread *t, Addr lock, UChar mode, Addr caller)
{
   CbHeld *h = cb_held_find(t, lock);
   if (h) {
      h->depth++;
      return False;
   }
   if (!cb_held)
      cb_held = VG_(HT_construct)("cb.held");
   h = cb_held_alloc();
   h->key = cb_held_key(t, lock);
   h->lock = lock;
   h->wid = t->wid;
   h->depth = 1;
   h->mode = mode;
   h->unsure = False;
   h->caller = caller;
   VG_(HT_add_node)(cb_held, h);
   return True;
}

/* A thread released a lock it did not hold: a mutex handed over (locked by
 * one thread, unlocked by another), or one taken where the tool did not
 * see.  Whoever the tool thinks holds it may not any more. */
static void cb_lock_unsure_all(Addr lock)
{
   VG_(HT_ResetIter)(cb_held);
   CbHeld *h;
   while ((h = VG_(HT_Next)(cb_held)))
      if (h->lock == lock)
         h->unsure = True;
}

Bool cb_lock_releasing(const CbThread *t, Addr lock, UChar *mode)
{
   CbHeld *h = cb_held_find(t, lock);
   if (!h) {
      if (cb_held)
         cb_lock_unsure_all(lock);
      return True; /* taken where the tool did not see it: report it */
   }
   *mode = h->mode;
   if (--h->depth > 0)
      return False;
   cb_held_recycle(VG_(HT_gen_remove)(cb_held, h, cb_held_cmp));
   return True;
}

void cb_lock_released_unseen(const CbThread *t, Addr lock)
{
   CbHeld *h = cb_held_find(t, lock);
   if (h)
      h->unsure = True;
}

Bool cb_lock_surely_held(const CbThread *t, Addr lock, UChar *mode,
                         Addr *caller)
{
   CbHeld *h = cb_held_find(t, lock);
   if (!h || h->unsure)
      return False;
   *mode = h->mode;
   *caller = h->caller;
   return True;
}

UInt cb_lock_dead_holder(Addr lock, UChar want, Bool (*alive)(UInt wid),
                         Addr *caller)
{
   if (!cb_held)
      return 0;
   VG_(HT_ResetIter)(cb_held);
   CbHeld *h;
   while ((h = VG_(HT_Next)(cb_held)))
      if (h->lock == lock && !h->unsure && !alive(h->wid) &&
          CB_LOCK_MODES_CONFLICT(want, h->mode)) {
         *caller = h->caller;
         return h->wid;
      }
   return 0;
}

/* ---- semaphores ---- */

typedef struct {
   struct _VgHashNode *next;
   UWord key;        /* semaphore address */
   ULong initial;    /* sem_init tokens not yet taken */
   ULong posts;      /* posts so far */
   ULong taken;      /* posts consumed by waits so far */
   Bool  counted;    /* sem_init seen, and every wait since had a token */
} CbSem;
static VgHashTable *cb_sems;

static CbSem *cb_sem(Addr sem)
{
   return cb_node(&cb_sems, sem, sizeof(CbSem), "cb.sem");
}

/* sem_init starts the semaphore afresh (it may be a destroyed one's). */
void cb_sem_init(Addr sem, UWord value)
{
   CbSem *s = cb_sem(sem);
   s->initial = value;
   s->posts = 0;
   s->taken = 0;
   s->counted = True;
}

Bool cb_sem_surely_empty(Addr sem)
{
   CbSem *s = cb_sem(sem);
   return s->counted && s->initial == 0 && s->taken >= s->posts &&
          !cb_obj_shared(sem);
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
   s->counted = False;   /* a token the tool did not see given */
   return 0;
}

/* ---- conditions, barriers, objects shared with other processes ---- */

typedef struct {
   struct _VgHashNode *next;
   UWord key;        /* condition variable */
   ULong signals;    /* signals and broadcasts so far */
   UInt  in_flight;  /* of them, maybe not yet delivered */
   UInt  waiters;    /* threads in an announced wait on it now */
   UInt  pending;    /* wakes owed to them: signals and broadcasts that
                        found a waiter not already due to wake, less the
                        waits that ended since */
} CbCond;
static VgHashTable *cb_conds;

static CbCond *cb_cond(Addr cv)
{
   return cb_node(&cb_conds, cv, sizeof(CbCond), "cb.cond");
}

ULong cb_cond_signalled(Addr cv, Bool broadcast)
{
   CbCond *c = cb_cond(cv);
   if (broadcast)
      c->pending = c->waiters;      /* every waiter wakes */
   else if (c->pending < c->waiters)
      c->pending++;                 /* one more does */
   return ++c->signals;
}

void cb_cond_wait_began(Addr cv)
{
   cb_cond(cv)->waiters++;
}

void cb_cond_wait_ended(Addr cv, ULong began_at)
{
   CbCond *c = cb_cond(cv);
   tl_assert(c->waiters > 0);
   c->waiters--;
   /* It took a wake, unless no signal came since it began (a wake-up
    * without one).  A spurious wake-up after a signal is taken for the
    * signal's: the wake still owed to another waiter is then missed, and
    * a run whose other threads all wait would be called deadlocked; glibc
    * wakes spuriously only when a signal races a waiter's start. */
   if (c->pending > 0 && c->signals != began_at)
      c->pending--;
   if (c->pending > c->waiters)
      c->pending = c->waiters;
}

Bool cb_cond_wakes_owed(Addr cv)
{
   return cb_cond(cv)->pending > 0;
}

ULong cb_cond_signals(Addr cv)
{
   return cb_cond(cv)->signals;
}

void cb_cond_in_flight(Addr cv, Int delta)
{
   CbCond *c = cb_cond(cv);
   tl_assert(delta > 0 || c->in_flight > 0);
   c->in_flight += delta;
}

Bool cb_cond_any_in_flight(Addr cv)
{
   return cb_cond(cv)->in_flight > 0;
}

typedef struct {
   struct _VgHashNode *next;
   UWord key;        /* barrier */
   UWord count;      /* from pthread_barrier_init, 0: not seen */
   UWord arrived;    /* threads in the current round */
   ULong round;      /* rounds completed */
} CbBar;
static VgHashTable *cb_bars;

static CbBar *cb_bar(Addr b)
{
   return cb_node(&cb_bars, b, sizeof(CbBar), "cb.barrier");
}

void cb_barrier_init(Addr b, UWord count)
{
   CbBar *r = cb_bar(b);
   r->count = count;
   r->arrived = 0;
}

UWord cb_barrier_count(Addr b)
{
   return cb_bar(b)->count;
}

ULong cb_barrier_enter(Addr b)
{
   CbBar *r = cb_bar(b);
   ULong round = r->round;
   if (r->count > 0 && ++r->arrived >= r->count) {
      r->arrived = 0;
      r->round++;
   }
   return round;
}

ULong cb_barrier_round(Addr b, UWord *arrived)
{
   CbBar *r = cb_bar(b);
   *arrived = r->arrived;
   return r->round;
}

typedef struct { struct _VgHashNode *next; UWord key; } CbShared;
static VgHashTable *cb_shared;

void cb_obj_set_shared(Addr obj, Bool shared)
{
   if (shared) {
      cb_node(&cb_shared, obj, sizeof(CbShared), "cb.shared");
   } else if (cb_shared) {
      CbShared *n = VG_(HT_remove)(cb_shared, obj);
      if (n)
         VG_(free)(n);
   }
}

Bool cb_obj_shared(Addr obj)
{
   return cb_shared && VG_(HT_lookup)(cb_shared, obj) != NULL;
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
