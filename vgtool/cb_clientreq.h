/* cb_clientreq.h: client request codes between the preload library (and the
 * public cbtools.h macros) and the tool.  Shared by both sides; no libc.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#ifndef CB_CLIENTREQ_H
#define CB_CLIENTREQ_H

#include "valgrind.h"

/* 'C','B' in the top bytes, as Valgrind's VG_USERREQ_TOOL_BASE does. */
#define CB_REQ_BASE (((unsigned int)'C' & 0xff) << 24 | ((unsigned int)'B' & 0xff) << 16)

typedef enum {
   CB_REQ_ATOMIC_BEGIN = CB_REQ_BASE + 1, /* public header: user markup */
   CB_REQ_ATOMIC_END,
   CB_REQ_MAY_I,        /* (caller): replay turn; returns 1 when it may run */
   CB_REQ_LOCK,         /* (obj, mode | trylock << 8, caller) after held */
   CB_REQ_UNLOCK,       /* (obj, mode, caller) before release; returns 1
                           when another thread waits to take obj */
   CB_REQ_COND_WAIT,    /* (cond, mutex, caller) after the wait returned */
   CB_REQ_COND_SIGNAL,  /* (cond, broadcast, caller) before the signal */
   CB_REQ_BARRIER_INIT, /* (barrier, count, pshared) */
   CB_REQ_BARRIER_ENTER,/* (barrier, caller) */
   CB_REQ_BARRIER_LEAVE,/* (barrier, caller) */
   CB_REQ_CREATED,      /* (pthread_t, detached, arg) after pthread_create
                           succeeded; detached: created detached; arg: the
                           start routine's argument */
   CB_REQ_JOINED,       /* (pthread_t, caller) after pthread_join succeeded */
   CB_REQ_ALLOC,        /* (block, size, caller) */
   CB_REQ_FREE,         /* (block, caller) before the free */
   CB_REQ_LOCK_MODE,    /* (obj): mode this thread holds a rwlock in */
   CB_REQ_MAY_I_HELD,   /* (caller, obj, depth, wait): 1 at once if this
                           thread holds obj at least depth deep, else as
                           MAY_I; wait 1 + CB_LOCK_*: a lock call that
                           blocks until it has the lock (0: unlock, try,
                           timed), about to be made when the answer is 1;
                           | CB_WAIT_SELF_BLOCKS: a lock that does not nest,
                           | CB_WAIT_ROBUST: a robust mutex */
   CB_REQ_LOCK_DEPTH,   /* (obj): how deep this thread holds obj, 0 = not */
   CB_REQ_SEM_INIT,     /* (sem, value, pshared) after sem_init succeeded */
   CB_REQ_SEM_POST,     /* (sem, caller) before the post */
   CB_REQ_SEM_WAIT,     /* (sem, try, caller) after a successful wait */
   CB_REQ_ONCE_ENTER,   /* (once, routine, caller) before pthread_once */
   CB_REQ_ONCE_TAKE,    /* (0) in the trampoline: returns the routine;
                           (1): the caller of the call it runs for */
   CB_REQ_ONCE_RAN,     /* () in the trampoline, after the routine */
   CB_REQ_ONCE_PASS,    /* (once, caller) after pthread_once returned 0 */
   CB_REQ_UNHANDLED,    /* (CB_CALL_* code, object, detail, caller) */
   CB_REQ_RELEASE,      /* (object, CB_SYNC_* class, caller) */
   CB_REQ_ACQUIRE,      /* (object, CB_SYNC_* class, caller) */
   /* Waits the deadlock check models (vgtool/cb_deadlock.c): the request
    * just before the real blocking call says what the thread waits for. */
   CB_REQ_MAY_I_WAIT,   /* (caller, CB_WAIT_* kind, object, user caller): as
                           MAY_I, and when the answer is 1 the thread is
                           about to wait (sem_wait, pthread_join) */
   CB_REQ_WAIT,         /* (CB_WAIT_COND, cond, mutex, caller): about to
                           wait, untimed, on a condition */
   CB_REQ_WAIT_END,     /* () a blocking call failed, or a signal's real
                           call returned: the thread runs */
   CB_REQ_COND_INIT,    /* (cond, pshared) after pthread_cond_init */
   CB_REQ_DETACHED,     /* (pthread_t) after pthread_detach succeeded */
   /* A wrapper whose call the tool models as one event (a GLib lock, in a
    * library the tool watches) runs the real call between these two: what
    * the thread does in between (memory accesses, calls, the requests of
    * other wrappers it reaches) is the primitive's own implementation, and
    * is neither recorded nor gated.  They nest. */
   CB_REQ_UNWATCHED_BEGIN, /* () */
   CB_REQ_UNWATCHED_END,   /* () */
   CB_REQ_LOCK_SLOT,    /* (cb_lock_slot *): the calling thread's slot,
                           once, before its first use (CB_MAY_I_SLOTS) */
   CB_REQ_EXIT_HOLD,    /* (at_exit_) in exit(): 1 while another thread
                           of the program may still run (cb_exit_may_wait);
                           in _exit() (1), only while a forced schedule
                           runs */
   CB_REQ_PARENT_FIRST, /* () in pthread_create: how many times a new
                           thread yields before its start routine
                           (--cb-parent-first; 0 in replay) */
   CB_REQ_LIBC_STATE,   /* (state, CB_EV_READ or CB_EV_WRITE | size << 8,
                           CB_LIBC_* id, caller, result): a non-thread-safe
                           C library call reads or writes the hidden state
                           it keeps (cb_preload_libc.c); state: the
                           preload's word that stands for it; result,
                           when not 0: the static result the call filled,
                           of size bytes, to name.  A counted event: the
                           wrapper asks for its turn just before */
   CB_REQ_LIBC_MEM,     /* (addr, CB_EV_READ or CB_EV_WRITE | len << 8,
                           caller): a C library string or memory function
                           reads or writes len bytes of the program's
                           memory at addr (cb_preload_strmem.c).  A counted
                           event: the wrapper asks for its turn just
                           before.  (0, 0): 1 when the tool takes them (not
                           with --instrument=all) */
   CB_REQ_TIMEOUT_MAY_FIRE /* () a timed wait's deadline passed: 1 (as
                           CB_REQ_MAY_I answers, CB_MAY_I_FREE with it)
                           once no thread is held back, 0 while the forced
                           schedule runs (cb_preload_cond.c, cb_cond_wait_on) */
} cb_client_request;

/* The hidden state of the C library that CB_REQ_LIBC_STATE names: one id
 * per piece of state, shared by the functions that use it (glibc's
 * localtime and gmtime fill the same struct tm).  The tool names each
 * (cb_sync.c, cb_libc_state_names). */
enum cb_libc_state {
   CB_LIBC_STRTOK = 0,  /* strtok's saved position */
   CB_LIBC_TM,          /* localtime's and gmtime's static struct tm */
   CB_LIBC_ASCTIME,     /* asctime's and ctime's static string */
   CB_LIBC_PASSWD,      /* getpwnam's and getpwuid's static struct passwd */
   CB_LIBC_GROUP,       /* getgrnam's and getgrgid's static struct group */
   CB_LIBC_HOSTENT,     /* gethostbyname's static struct hostent */
   CB_LIBC_TTYNAME,     /* ttyname's static string */
   CB_LIBC_TMPNAM,      /* tmpnam(NULL)'s static string */
   CB_LIBC_ENV,         /* the environment: getenv against setenv, ... */
   CB_LIBC_MBLEN,       /* mblen's shift state */
   CB_LIBC_MBTOWC,      /* mbtowc's shift state */
   CB_LIBC_WCTOMB,      /* wctomb's shift state */
   CB_LIBC_NSTATES
};

/* In the answer to CB_REQ_MAY_I, CB_REQ_MAY_I_HELD and CB_REQ_MAY_I_WAIT,
 * beside 1 (it may run): no turn will be refused again in this process
 * (record mode, a replay whose plan has released every thread, a forked
 * child), so the preload stops making the requests that only asked for a
 * turn.  Each request costs a return to Valgrind's scheduler, and in a
 * lock-heavy program they were a quarter of all. */
#define CB_MAY_I_FREE 2u

/* Beside CB_MAY_I_FREE, in record mode: a lock call that may block
 * (pthread_mutex_lock, an rwlock's rdlock and wrlock, mtx_lock) says what
 * it is about to wait for in its thread's slot instead of by a
 * CB_REQ_MAY_I_HELD, a store in place of a return to the scheduler, and
 * the tool reads the slot when the thread blocks in a futex wait, before
 * which the lock call cannot block (cb_sync_futex_wait).  Not spinlocks:
 * they spin, and a spinning thread is never seen to block.  Not replay
 * mode, whose deadlock check is left as it was. */
#define CB_MAY_I_SLOTS 4u
typedef struct {
   UWord wait;     /* as CB_REQ_MAY_I_HELD's; 0: no lock call under way */
   UWord lock;
   UWord caller;
} cb_lock_slot;

/* In CB_REQ_MAY_I_HELD's wait: the lock blocks its own holder when taken
 * again (a normal mutex, a spinlock), rather than nest or fail. */
#define CB_WAIT_SELF_BLOCKS 0x10u
/* ... and a robust mutex: when its holder dies the next lock call returns
 * EOWNERDEAD instead of blocking forever. */
#define CB_WAIT_ROBUST 0x20u

/* Lock mode values used by the preload for rwlock unlock: the tool knows
 * which mode the thread holds, so the preload passes this placeholder. */
#define CB_LOCK_MODE_HELD 0xffu

#endif /* CB_CLIENTREQ_H */
