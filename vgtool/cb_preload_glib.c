/* cb_preload_glib.c: the preload library's wrappers of GLib's own locks,
 * conditions and once controls (libglib-2.0.so.0), recorded and forced as
 * the pthread ones are (cb_preload.c): a GMutex is a mutex, a GRecMutex a
 * recursive one, a GRWLock a reader/writer lock, a GCond a condition,
 * g_bit_lock and g_pointer_bit_lock mutexes, g_once and
 * g_once_init_enter/leave once controls.
 *
 * GLib builds most of them from atomics and futex calls of its own, in a
 * library the tool watches: without these wrappers a GLib program records
 * no lock at all and each lock word looks like a racy variable.  So each
 * wrapper makes the real call unwatched (CB_REQ_UNWATCHED_BEGIN..END):
 * the lock word's accesses, the futex syscall() and the calls GLib makes
 * in there (g_cond_wait's own g_mutex_unlock and g_mutex_lock, GRecMutex's
 * pthread mutex) are the primitive's implementation, and the wrapper's
 * events, made outside that span at the user's call site, are the
 * primitive.  The events and the turns are those of the pthread wrappers:
 * LOCK after the lock is held, UNLOCK before it is released, a wait as
 * UNLOCK, COND_WAIT, LOCK (cb_cond_wait_enter/leave).
 *
 * A bit lock is named by the byte that holds its bit (bits of one byte are
 * one lock to the tool, so the deadlock check never takes a thread that
 * holds one of them and takes another for a self-deadlock).  A once
 * control: g_once's routine runs through a trampoline that makes the
 * RELEASE when it returns, as pthread_once's does (cb_preload_sem.c);
 * g_once_init_leave RELEASEs the location before it publishes the value,
 * and a g_once_init_enter that returns FALSE (another thread initialised
 * it) ACQUIREs it.  The macros g_once and g_once_init_enter first test
 * the control inline in the caller, and a caller that finds it done calls
 * nothing: that read is an ordinary READ event, which cbpredict takes for
 * the acquire (predict/vclock.c).
 *
 * No GLib header is needed: the types are opaque here (only addresses
 * pass through) and are declared as glib/gthread.h has them.  A program
 * that does not load libglib-2.0.so.0 never reaches these wrappers.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "cb_preload.h"

typedef int gboolean;
typedef long gint64;
typedef unsigned long gsize;
typedef void *gpointer;
typedef union { gpointer p; unsigned int i[2]; } GMutex;
typedef struct { gpointer p; unsigned int i[2]; } GRecMutex;
typedef struct { gpointer p; unsigned int i[2]; } GRWLock;
typedef struct { gpointer p; unsigned int i[2]; } GCond;
typedef struct { volatile int status; volatile gpointer retval; } GOnce;
typedef gpointer (*GThreadFunc)(gpointer);

/* Weak: this library is preloaded into programs without GLib too.  Only
 * called once a GLib wrapper ran, i.e. when GLib is there; a call from
 * here reaches the wrapper below as a call of no user's. */
extern void g_mutex_lock(GMutex *m) __attribute__((weak));
extern void g_mutex_unlock(GMutex *m) __attribute__((weak));

/* Z-encoded libglib-2.0.so.0 */
#define CB_Z_GLIB libglibZh2Zd0ZdsoZd0
#define CB_WRAP_GLIB(ret, zname, impl, params, ...)                          \
   CB_WRAP_ONE(CB_Z_GLIB, ret, zname, impl, params, __VA_ARGS__)
#define CB_WRAP_GLIB_VOID(zname, impl, params, ...)                          \
   CB_WRAP_ONE_VOID(CB_Z_GLIB, zname, impl, params, __VA_ARGS__)

/* The real call runs between these two: not recorded, not gated. */
static inline void cb_real_begin(void)
{
   REQ(CB_REQ_UNWATCHED_BEGIN, 0, 0, 0);
}
static inline void cb_real_end(void)
{
   REQ(CB_REQ_UNWATCHED_END, 0, 0, 0);
}

/* ---- locks: the turn, the real call, then LOCK; UNLOCK, then the call.
 * obj: the lock as the tool names it; mode: CB_LOCK_*; self_blocks: a
 * relock by the holder blocks forever (GMutex), rather than nest. ---- */

static inline void cb_glib_lock_turn(UWord c, void *obj, UWord mode,
                                     int self_blocks)
{
   cb_turn_unless_held(c, obj, 1,
                       (1 + mode) | (self_blocks ? CB_WAIT_SELF_BLOCKS : 0));
   cb_real_begin();
}

static inline void cb_glib_locked(UWord c, void *obj, UWord mode)
{
   cb_real_end();
   REQ(CB_REQ_LOCK, obj, mode, c);
}

/* A try: got is the call's gboolean. */
static inline gboolean cb_glib_tried(UWord c, void *obj, UWord mode,
                                     gboolean got)
{
   cb_real_end();
   if (got)
      REQ(CB_REQ_LOCK, obj, mode | 0x100u, c);
   return got;
}

static inline void cb_glib_unlock_turn(UWord c, void *obj, UWord mode)
{
   cb_turn_unless_held(c, obj, 2, 0);
   REQ(CB_REQ_UNLOCK, obj, mode, c);
   cb_real_begin();
}

/* One-argument locks: GMutex, GRecMutex, GRWLock.  (The Valgrind macros
 * want a plain OrigFn variable, hence one function per arity.) */
static void cb_lock1(OrigFn fn, UWord c, void *l, UWord mode, int self)
{
   cb_glib_lock_turn(c, l, mode, self);
   CALL_FN_v_W(fn, l);
   cb_glib_locked(c, l, mode);
}

static gboolean cb_trylock1(OrigFn fn, UWord c, void *l, UWord mode)
{
   gboolean r;
   cb_turn_unless_held(c, l, 1, 0);
   cb_real_begin();
   CALL_FN_W_W(r, fn, l);
   return cb_glib_tried(c, l, mode, r);
}

static void cb_unlock1(OrigFn fn, UWord c, void *l, UWord mode)
{
   cb_glib_unlock_turn(c, l, mode);
   CALL_FN_v_W(fn, l);
   cb_real_end();
}

/* A call that is no lock operation (init, clear): unwatched only. */
static void cb_unwatched1(OrigFn fn, UWord c, void *obj)
{
   cb_real_begin();
   CALL_FN_v_W(fn, obj);
   cb_real_end();
}

static void cb_g_mutex_lock(OrigFn fn, UWord c, GMutex *m)
{ cb_lock1(fn, c, m, CB_LOCK_MUTEX, 1); }
static gboolean cb_g_mutex_trylock(OrigFn fn, UWord c, GMutex *m)
{ return cb_trylock1(fn, c, m, CB_LOCK_MUTEX); }
static void cb_g_mutex_unlock(OrigFn fn, UWord c, GMutex *m)
{ cb_unlock1(fn, c, m, CB_LOCK_MUTEX); }
static void cb_g_rec_mutex_lock(OrigFn fn, UWord c, GRecMutex *m)
{ cb_lock1(fn, c, m, CB_LOCK_MUTEX, 0); }
static gboolean cb_g_rec_mutex_trylock(OrigFn fn, UWord c, GRecMutex *m)
{ return cb_trylock1(fn, c, m, CB_LOCK_MUTEX); }
static void cb_g_rec_mutex_unlock(OrigFn fn, UWord c, GRecMutex *m)
{ cb_unlock1(fn, c, m, CB_LOCK_MUTEX); }
static void cb_g_rw_writer_lock(OrigFn fn, UWord c, GRWLock *l)
{ cb_lock1(fn, c, l, CB_LOCK_WR, 0); }
static gboolean cb_g_rw_writer_trylock(OrigFn fn, UWord c, GRWLock *l)
{ return cb_trylock1(fn, c, l, CB_LOCK_WR); }
static void cb_g_rw_writer_unlock(OrigFn fn, UWord c, GRWLock *l)
{ cb_unlock1(fn, c, l, CB_LOCK_WR); }
static void cb_g_rw_reader_lock(OrigFn fn, UWord c, GRWLock *l)
{ cb_lock1(fn, c, l, CB_LOCK_RD, 0); }
static gboolean cb_g_rw_reader_trylock(OrigFn fn, UWord c, GRWLock *l)
{ return cb_trylock1(fn, c, l, CB_LOCK_RD); }
static void cb_g_rw_reader_unlock(OrigFn fn, UWord c, GRWLock *l)
{ cb_unlock1(fn, c, l, CB_LOCK_RD); }

CB_WRAP_GLIB_VOID(gZumutexZulock, cb_g_mutex_lock, (GMutex *m), m)
CB_WRAP_GLIB(gboolean, gZumutexZutrylock, cb_g_mutex_trylock, (GMutex *m), m)
CB_WRAP_GLIB_VOID(gZumutexZuunlock, cb_g_mutex_unlock, (GMutex *m), m)
CB_WRAP_GLIB_VOID(gZumutexZuinit, cb_unwatched1, (GMutex *m), m)
CB_WRAP_GLIB_VOID(gZumutexZuclear, cb_unwatched1, (GMutex *m), m)
CB_WRAP_GLIB_VOID(gZurecZumutexZulock, cb_g_rec_mutex_lock, (GRecMutex *m), m)
CB_WRAP_GLIB(gboolean, gZurecZumutexZutrylock, cb_g_rec_mutex_trylock,
             (GRecMutex *m), m)
CB_WRAP_GLIB_VOID(gZurecZumutexZuunlock, cb_g_rec_mutex_unlock,
                  (GRecMutex *m), m)
CB_WRAP_GLIB_VOID(gZurecZumutexZuinit, cb_unwatched1, (GRecMutex *m), m)
CB_WRAP_GLIB_VOID(gZurecZumutexZuclear, cb_unwatched1, (GRecMutex *m), m)
CB_WRAP_GLIB_VOID(gZurwZulockZuwriterZulock, cb_g_rw_writer_lock,
                  (GRWLock *l), l)
CB_WRAP_GLIB(gboolean, gZurwZulockZuwriterZutrylock, cb_g_rw_writer_trylock,
             (GRWLock *l), l)
CB_WRAP_GLIB_VOID(gZurwZulockZuwriterZuunlock, cb_g_rw_writer_unlock,
                  (GRWLock *l), l)
CB_WRAP_GLIB_VOID(gZurwZulockZureaderZulock, cb_g_rw_reader_lock,
                  (GRWLock *l), l)
CB_WRAP_GLIB(gboolean, gZurwZulockZureaderZutrylock, cb_g_rw_reader_trylock,
             (GRWLock *l), l)
CB_WRAP_GLIB_VOID(gZurwZulockZureaderZuunlock, cb_g_rw_reader_unlock,
                  (GRWLock *l), l)
CB_WRAP_GLIB_VOID(gZurwZulockZuinit, cb_unwatched1, (GRWLock *l), l)
CB_WRAP_GLIB_VOID(gZurwZulockZuclear, cb_unwatched1, (GRWLock *l), l)

/* ---- bit locks: (address, bit), named by the byte of the bit ---- */

static void *cb_bit_obj(volatile void *address, int bit)
{
   return (char *)address + ((unsigned)bit & 63) / 8;
}

static void cb_g_bit_lock(OrigFn fn, UWord c, volatile void *a, UWord bit)
{
   void *obj = cb_bit_obj(a, (int)bit);
   cb_glib_lock_turn(c, obj, CB_LOCK_MUTEX, 0);
   CALL_FN_v_WW(fn, a, bit);
   cb_glib_locked(c, obj, CB_LOCK_MUTEX);
}

static gboolean cb_g_bit_trylock(OrigFn fn, UWord c, volatile void *a,
                                 UWord bit)
{
   gboolean r;
   void *obj = cb_bit_obj(a, (int)bit);
   cb_turn_unless_held(c, obj, 1, 0);
   cb_real_begin();
   CALL_FN_W_WW(r, fn, a, bit);
   return cb_glib_tried(c, obj, CB_LOCK_MUTEX, r);
}

static void cb_g_bit_unlock(OrigFn fn, UWord c, volatile void *a, UWord bit)
{
   cb_glib_unlock_turn(c, cb_bit_obj(a, (int)bit), CB_LOCK_MUTEX);
   CALL_FN_v_WW(fn, a, bit);
   cb_real_end();
}

CB_WRAP_GLIB_VOID(gZubitZulock, cb_g_bit_lock,
                  (volatile void *a, UWord bit), a, bit)
CB_WRAP_GLIB(gboolean, gZubitZutrylock, cb_g_bit_trylock,
             (volatile void *a, UWord bit), a, bit)
CB_WRAP_GLIB_VOID(gZubitZuunlock, cb_g_bit_unlock,
                  (volatile void *a, UWord bit), a, bit)
CB_WRAP_GLIB_VOID(gZupointerZubitZulock, cb_g_bit_lock,
                  (volatile void *a, UWord bit), a, bit)
CB_WRAP_GLIB(gboolean, gZupointerZubitZutrylock, cb_g_bit_trylock,
             (volatile void *a, UWord bit), a, bit)
CB_WRAP_GLIB_VOID(gZupointerZubitZuunlock, cb_g_bit_unlock,
                  (volatile void *a, UWord bit), a, bit)

/* ---- conditions: as pthread_cond_wait (cb_cond_wait_enter/leave) ---- */

/* The give-back of a replayed wait (cb_cond_wait_leave). */
static void cb_g_release(void *m) { g_mutex_unlock(m); }
static void cb_g_retake(void *m) { g_mutex_lock(m); }

static void cb_g_cond_wait(OrigFn fn, UWord c, GCond *cv, GMutex *m)
{
   cb_cond_wait_enter(c, cv, m, 1);
   cb_real_begin();
   CALL_FN_v_WW(fn, cv, m);
   cb_real_end();
   cb_cond_wait_leave(c, cv, m, 1, cb_g_release, cb_g_retake);
}

/* TRUE: woken (a signal, or spuriously); FALSE: end_time passed. */
static gboolean cb_g_cond_wait_until(OrigFn fn, UWord c, GCond *cv,
                                     GMutex *m, gint64 end_time)
{
   gboolean r;
   cb_cond_wait_enter(c, cv, m, 0);
   cb_real_begin();
   CALL_FN_W_WWW(r, fn, cv, m, end_time);
   cb_real_end();
   cb_cond_wait_leave(c, cv, m, r, cb_g_release, cb_g_retake);
   return r;
}

static void cb_g_cond_signal_any(OrigFn fn, UWord c, GCond *cv,
                                 UWord broadcast)
{
   cb_turn(c);
   REQ(CB_REQ_COND_SIGNAL, cv, broadcast, c);
   cb_real_begin();
   CALL_FN_v_W(fn, cv);
   cb_real_end();
   REQ(CB_REQ_WAIT_END, 0, 0, 0); /* sent (cb_cond_signal_any) */
}

static void cb_g_cond_signal(OrigFn fn, UWord c, GCond *cv)
{ cb_g_cond_signal_any(fn, c, cv, 0); }
static void cb_g_cond_broadcast(OrigFn fn, UWord c, GCond *cv)
{ cb_g_cond_signal_any(fn, c, cv, 1); }

/* A GCond is private to the process (for the deadlock check). */
static void cb_g_cond_init(OrigFn fn, UWord c, GCond *cv)
{
   cb_unwatched1(fn, c, cv);
   REQ(CB_REQ_COND_INIT, cv, 0, 0);
}

CB_WRAP_GLIB_VOID(gZucondZuwait, cb_g_cond_wait, (GCond *cv, GMutex *m),
                  cv, m)
CB_WRAP_GLIB(gboolean, gZucondZuwaitZuuntil, cb_g_cond_wait_until,
             (GCond *cv, GMutex *m, gint64 end_time), cv, m, end_time)
CB_WRAP_GLIB_VOID(gZucondZusignal, cb_g_cond_signal, (GCond *cv), cv)
CB_WRAP_GLIB_VOID(gZucondZubroadcast, cb_g_cond_broadcast, (GCond *cv), cv)
CB_WRAP_GLIB_VOID(gZucondZuinit, cb_g_cond_init, (GCond *cv), cv)
CB_WRAP_GLIB_VOID(gZucondZuclear, cb_unwatched1, (GCond *cv), cv)

/* ---- once: as pthread_once (cb_preload_sem.c) ---- */

/* Runs inside g_once_impl's real call: the routine is the user's code. */
static gpointer cb_g_once_trampoline(gpointer arg)
{
   cb_real_end();
   GThreadFunc routine = (GThreadFunc)REQ_EXPR(CB_REQ_ONCE_TAKE, 0, 0);
   gpointer r = routine ? routine(arg) : NULL;
   cb_turn(REQ_EXPR(CB_REQ_ONCE_TAKE, 1, 0)); /* the g_once caller */
   REQ(CB_REQ_ONCE_RAN, 0, 0, 0);
   cb_real_begin();
   return r;
}

static gpointer cb_g_once_impl(OrigFn fn, UWord c, GOnce *once,
                               GThreadFunc func, gpointer arg)
{
   gpointer r;
   REQ(CB_REQ_ONCE_ENTER, once, func, c);
   cb_real_begin();
   CALL_FN_W_WWW(r, fn, once, cb_g_once_trampoline, arg);
   cb_real_end();
   cb_turn(c);
   REQ(CB_REQ_ONCE_PASS, once, c, 0);
   return r;
}

/* TRUE: this caller initialises *location; FALSE: another one did. */
static gboolean cb_g_once_init_enter(OrigFn fn, UWord c,
                                     volatile void *location)
{
   gboolean r;
   cb_real_begin();
   CALL_FN_W_W(r, fn, location);
   cb_real_end();
   if (!r) {
      cb_turn(c);
      REQ(CB_REQ_ACQUIRE, location, CB_SYNC_ONCE, c);
   }
   return r;
}

static void cb_g_once_init_leave(OrigFn fn, UWord c, volatile void *location,
                                 gsize result)
{
   cb_turn(c);
   REQ(CB_REQ_RELEASE, location, CB_SYNC_ONCE, c);
   cb_real_begin();
   CALL_FN_v_WW(fn, location, result);
   cb_real_end();
}

CB_WRAP_GLIB(gpointer, gZuonceZuimpl, cb_g_once_impl,
             (GOnce *once, GThreadFunc func, gpointer arg), once, func, arg)
CB_WRAP_GLIB(gboolean, gZuonceZuinitZuenter, cb_g_once_init_enter,
             (volatile void *location), location)
CB_WRAP_GLIB_VOID(gZuonceZuinitZuleave, cb_g_once_init_leave,
                  (volatile void *location, gsize result), location, result)
/* GLib 2.80 added pointer-typed twins, which its macros then use. */
CB_WRAP_GLIB(gboolean, gZuonceZuinitZuenterZupointer, cb_g_once_init_enter,
             (volatile void *location), location)
CB_WRAP_GLIB_VOID(gZuonceZuinitZuleaveZupointer, cb_g_once_init_leave,
                  (volatile void *location, gsize result), location, result)
