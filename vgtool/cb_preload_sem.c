/* cb_preload_sem.c: the preload library's wrappers of POSIX semaphores and
 * of pthread_once (which glibc's C11 call_once jumps to, so it is wrapped
 * too, with the user's return address).
 *
 * Semaphores: SEM_POST before the post, SEM_WAIT after a successful wait,
 * both gated in replay like a lock; the tool numbers posts and tells each
 * wait which post it consumed (cb_wire.h).  A failed trywait or timed wait
 * takes nothing and makes no event.
 *
 * pthread_once: the init routine's end happens before every return of
 * pthread_once on that control.  The wrapper hands glibc a trampoline that
 * runs the user's routine and then makes the RELEASE, before glibc marks
 * the control done and wakes the other callers; each successful return
 * makes an ACQUIRE.  The tool keeps the routine for the trampoline (a
 * client request), so nothing here needs thread-local storage.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <semaphore.h>
#include "cb_preload.h"

static int cb_sem_init(OrigFn fn, UWord c, sem_t *s, UWord pshared,
                       UWord value)
{
   int r;
   CALL_FN_W_WWW(r, fn, s, pshared, value);
   if (r == 0)
      REQ(CB_REQ_SEM_INIT, s, value, pshared != 0);
   return r;
}

static int cb_sem_post(OrigFn fn, UWord c, sem_t *s)
{
   int r;
   cb_turn(c);
   REQ(CB_REQ_SEM_POST, s, c, 0);
   CALL_FN_W_W(r, fn, s);
   return r;
}

/* nargs: the original's, 1 (sem), 2 (sem, ts) or 3 (sem, clock, ts).
 * try: sem_trywait, which never blocks. */
static int cb_sem_wait_any(OrigFn fn, UWord c, sem_t *s, UWord nargs,
                           UWord clock, const void *ts, UWord try)
{
   int r;
   int blocks = nargs == 1 && !try; /* until a post: the deadlock check's */
   if (blocks)
      cb_turn_wait(c, CB_WAIT_SEM, (UWord)s, c);
   else
      cb_turn(c);
   if (nargs == 3)
      CALL_FN_W_WWW(r, fn, s, clock, ts);
   else if (nargs == 2)
      CALL_FN_W_WW(r, fn, s, ts);
   else
      CALL_FN_W_W(r, fn, s);
   if (r == 0) {
      cb_turn(c);
      REQ(CB_REQ_SEM_WAIT, s, try, c);
   } else if (blocks) {
      cb_wait_failed();
   }
   return r;
}

static int cb_sem_wait(OrigFn fn, UWord c, sem_t *s)
{ return cb_sem_wait_any(fn, c, s, 1, 0, NULL, 0); }
static int cb_sem_trywait(OrigFn fn, UWord c, sem_t *s)
{ return cb_sem_wait_any(fn, c, s, 1, 0, NULL, 1); }
static int cb_sem_timedwait(OrigFn fn, UWord c, sem_t *s, const void *ts)
{ return cb_sem_wait_any(fn, c, s, 2, 0, ts, 0); }
static int cb_sem_clockwait(OrigFn fn, UWord c, sem_t *s, UWord clk,
                            const void *ts)
{ return cb_sem_wait_any(fn, c, s, 3, clk, ts, 0); }

CB_WRAP(int, semZuinit, cb_sem_init, (sem_t *s, UWord p, UWord v), s, p, v)
CB_WRAP(int, semZupost, cb_sem_post, (sem_t *s), s)
CB_WRAP(int, semZuwait, cb_sem_wait, (sem_t *s), s)
CB_WRAP(int, semZutrywait, cb_sem_trywait, (sem_t *s), s)
CB_WRAP(int, semZutimedwait, cb_sem_timedwait, (sem_t *s, const void *ts),
        s, ts)
CB_WRAP(int, semZuclockwait, cb_sem_clockwait,
        (sem_t *s, UWord clk, const void *ts), s, clk, ts)

/* ---- pthread_once / call_once ---- */

static void cb_once_trampoline(void)
{
   void (*routine)(void) = (void (*)(void))REQ_EXPR(CB_REQ_ONCE_TAKE, 0, 0);
   if (routine)
      routine();
   cb_turn(REQ_EXPR(CB_REQ_ONCE_TAKE, 1, 0)); /* the pthread_once caller */
   REQ(CB_REQ_ONCE_RAN, 0, 0, 0);
}

static int cb_once(OrigFn fn, UWord c, pthread_once_t *once,
                   void (*init)(void))
{
   int r;
   REQ(CB_REQ_ONCE_ENTER, once, init, c);
   CALL_FN_W_WW(r, fn, once, cb_once_trampoline);
   if (r == 0) {
      cb_turn(c);
      REQ(CB_REQ_ONCE_PASS, once, c, 0);
   }
   return r;
}

CB_WRAP(int, pthreadZuonce, cb_once,
        (pthread_once_t *once, void (*init)(void)), once, init)
