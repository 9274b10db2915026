/* cb_preload_libc.c: the C library's non-thread-safe functions, whose
 * hidden state (strtok's saved position, localtime's static struct tm)
 * two threads share without knowing it.  The tool watches the program's
 * own code, not libc's, so their races would be invisible: each call is
 * recorded as accesses, at the caller's line, to a word of this library
 * that stands for the state (cb_libc_state), which the tool names in the
 * program's terms ("strtok's saved position (libc)", cb_sync.c).  Those
 * are ordinary counted READ and WRITE events: the prediction finds the
 * patterns between two threads' calls, and replay gates each of them.
 *
 * The events per call, and where the real call runs among them: always
 * just after the turn of the event that stands for its effect, so that in
 * a forced run the real call happens where the schedule put that event
 * (another thread's event scheduled before it ran its real call first;
 * one scheduled after it, after).
 *   strtok(s, d)         WRITE: it sets the position
 *   strtok(NULL, d)      READ, then the real call and WRITE: it continues
 *                        from the position and moves it
 *   localtime, gmtime, ctime, asctime, getpwnam, getpwuid, getgrnam,
 *   getgrgid, gethostbyname, ttyname, tmpnam(NULL)
 *                        the real call and WRITE (it fills the static
 *                        result), then READ (the caller takes it): a
 *                        second thread's call between the two is the
 *                        classic WRW, one thread getting the other's
 *                        result.  The caller's later reads of the struct
 *                        are its own reads of libc's memory, recorded as
 *                        any access, but nothing records libc's writes to
 *                        it, so the READ here is the caller's use.
 *                        ctime also WRITEs the struct tm (it calls
 *                        localtime).
 *   getenv, secure_getenv                      READ of the environment
 *   setenv, unsetenv, putenv, clearenv         WRITE of it
 *   mblen, mbtowc, wctomb   READ then WRITE of their shift state; with a
 *                        NULL string (a reset) WRITE only
 * Each event asks for its turn first (cb_turn, as every counted event of
 * the preload does), in record mode as in replay, so both number them the
 * same way.  The tool drops calls whose caller is not watched code (libc
 * calling its own localtime from ctime), in both modes alike.
 *
 * Left out, and why: rand/srand (glibc's random() takes a lock: two
 * threads only get each other's numbers in another order, a determinism
 * matter, and every program that draws numbers in two threads would get
 * predictions that no forced run can fail); strerror, strsignal and
 * inet_ntoa (glibc 2.32 and later give each thread its own buffer:
 * checked on this glibc 2.36); readdir (its state is the DIR stream, a
 * heap block whose address the program may later reuse for its own data,
 * which the name would then mislabel); ecvt and fcvt (their double
 * argument travels in an SSE register that Valgrind's CALL_FN macros do
 * not pass).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <grp.h>
#include <netdb.h>
#include <pwd.h>
#include <time.h>
#include "cb_preload.h"

/* The words that stand for the hidden state: never read nor written,
 * only their addresses are recorded.  A word each, so that no two
 * overlap as 8-byte accesses. */
static UWord cb_libc_state[CB_LIBC_NSTATES];

/* One event on state id; its turn was asked for just before (cb_turn). */
static void cb_state_ev(UWord c, UWord id, UWord kind)
{
   REQ4(CB_REQ_LIBC_STATE, &cb_libc_state[id], kind, id, c);
}

/* The size of each static result (a string's: 0, measured per call). */
static const UWord cb_result_size[CB_LIBC_NSTATES] = {
   [CB_LIBC_TM] = sizeof(struct tm),
   [CB_LIBC_PASSWD] = sizeof(struct passwd),
   [CB_LIBC_GROUP] = sizeof(struct group),
   [CB_LIBC_HOSTENT] = sizeof(struct hostent),
};

/* The WRITE of a call that fills its static result r: r is named too (a
 * SYMDEF of its size), so that the caller's own reads of it, which are
 * recorded as any access, say what they read instead of a raw address of
 * libc's. */
static void cb_state_filled(UWord c, UWord id, UWord r)
{
   UWord size = cb_result_size[id];
   if (size == 0 && r != 0)
      while (((const char *)r)[size++] != 0)
         ;
   VALGRIND_DO_CLIENT_REQUEST_STMT(CB_REQ_LIBC_STATE, &cb_libc_state[id],
                                   CB_EV_WRITE | size << 8, id, c, r);
}

/* The caller takes a static result: a READ at its own turn. */
static void cb_state_read(UWord c, UWord id)
{
   cb_turn(c);
   cb_state_ev(c, id, CB_EV_READ);
}

static UWord cb_strtok(OrigFn fn, UWord c, UWord s, UWord delim)
{
   UWord r;
   if (s == 0)
      cb_state_read(c, CB_LIBC_STRTOK);
   cb_turn(c);
   CALL_FN_W_WW(r, fn, s, delim);
   cb_state_ev(c, CB_LIBC_STRTOK, CB_EV_WRITE);
   return r;
}

/* A function of one argument that returns its static result. */
static UWord cb_static1(OrigFn fn, UWord c, UWord a, UWord id)
{
   UWord r;
   cb_turn(c);
   CALL_FN_W_W(r, fn, a);
   cb_state_filled(c, id, r);
   cb_state_read(c, id);
   return r;
}

/* ctime(t) is asctime(localtime(t)): it fills both. */
static UWord cb_ctime(OrigFn fn, UWord c, UWord t)
{
   UWord r;
   cb_turn(c);
   CALL_FN_W_W(r, fn, t);
   cb_state_ev(c, CB_LIBC_TM, CB_EV_WRITE);
   cb_turn(c);
   cb_state_filled(c, CB_LIBC_ASCTIME, r);
   cb_state_read(c, CB_LIBC_ASCTIME);
   return r;
}

/* tmpnam(buf) with a buffer of the caller's leaves the static one alone. */
static UWord cb_tmpnam(OrigFn fn, UWord c, UWord buf)
{
   UWord r;
   if (buf != 0) {
      CALL_FN_W_W(r, fn, buf);
      return r;
   }
   return cb_static1(fn, c, buf, CB_LIBC_TMPNAM);
}

/* getenv, secure_getenv: a READ of the environment after the call. */
static UWord cb_getenv(OrigFn fn, UWord c, UWord name)
{
   UWord r;
   cb_turn(c);
   CALL_FN_W_W(r, fn, name);
   cb_state_ev(c, CB_LIBC_ENV, CB_EV_READ);
   return r;
}

/* setenv (3 arguments), unsetenv and putenv (1), clearenv (0): a WRITE
 * of the environment. */
static UWord cb_setenv(OrigFn fn, UWord c, UWord a, UWord b, UWord d,
                       UWord nargs)
{
   UWord r;
   cb_turn(c);
   if (nargs == 3)
      CALL_FN_W_WWW(r, fn, a, b, d);
   else if (nargs == 1)
      CALL_FN_W_W(r, fn, a);
   else
      CALL_FN_W_v(r, fn);
   cb_state_ev(c, CB_LIBC_ENV, CB_EV_WRITE);
   return r;
}

/* mblen (s, n), mbtowc (pwc, s, n), wctomb (s, wc): s NULL resets the
 * shift state (a WRITE), else the call reads and moves it. */
static UWord cb_shift(OrigFn fn, UWord c, UWord a, UWord b, UWord d,
                      UWord s, UWord id)
{
   UWord r;
   if (s != 0)
      cb_state_read(c, id);
   cb_turn(c);
   if (id == CB_LIBC_MBTOWC)
      CALL_FN_W_WWW(r, fn, a, b, d);
   else
      CALL_FN_W_WW(r, fn, a, b);
   cb_state_ev(c, id, CB_EV_WRITE);
   return r;
}

CB_WRAP_LIBC(UWord, strtok, cb_strtok, (UWord s, UWord d), s, d)
CB_WRAP_LIBC(UWord, localtime, cb_static1, (UWord t), t, CB_LIBC_TM)
CB_WRAP_LIBC(UWord, gmtime, cb_static1, (UWord t), t, CB_LIBC_TM)
CB_WRAP_LIBC(UWord, asctime, cb_static1, (UWord tm), tm, CB_LIBC_ASCTIME)
CB_WRAP_LIBC(UWord, ctime, cb_ctime, (UWord t), t)
CB_WRAP_LIBC(UWord, getpwnam, cb_static1, (UWord n), n, CB_LIBC_PASSWD)
CB_WRAP_LIBC(UWord, getpwuid, cb_static1, (UWord u), u, CB_LIBC_PASSWD)
CB_WRAP_LIBC(UWord, getgrnam, cb_static1, (UWord n), n, CB_LIBC_GROUP)
CB_WRAP_LIBC(UWord, getgrgid, cb_static1, (UWord g), g, CB_LIBC_GROUP)
CB_WRAP_LIBC(UWord, gethostbyname, cb_static1, (UWord n), n,
             CB_LIBC_HOSTENT)
CB_WRAP_LIBC(UWord, ttyname, cb_static1, (UWord fd), fd, CB_LIBC_TTYNAME)
CB_WRAP_LIBC(UWord, tmpnam, cb_tmpnam, (UWord buf), buf)
CB_WRAP_LIBC(UWord, getenv, cb_getenv, (UWord n), n)
CB_WRAP_LIBC(UWord, secureZugetenv, cb_getenv, (UWord n), n)
CB_WRAP_LIBC(UWord, setenv, cb_setenv, (UWord n, UWord v, UWord o), n, v, o,
             3)
CB_WRAP_LIBC(UWord, unsetenv, cb_setenv, (UWord n), n, 0, 0, 1)
CB_WRAP_LIBC(UWord, putenv, cb_setenv, (UWord s), s, 0, 0, 1)
CB_WRAP_LIBC(UWord, clearenv, cb_setenv, (void), 0, 0, 0, 0)
CB_WRAP_LIBC(UWord, mblen, cb_shift, (UWord s, UWord n), s, n, 0, s,
             CB_LIBC_MBLEN)
CB_WRAP_LIBC(UWord, mbtowc, cb_shift, (UWord pwc, UWord s, UWord n), pwc, s,
             n, s, CB_LIBC_MBTOWC)
CB_WRAP_LIBC(UWord, wctomb, cb_shift, (UWord s, UWord wc), s, wc, 0, s,
             CB_LIBC_WCTOMB)
