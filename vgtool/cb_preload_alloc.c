/* cb_preload_alloc.c: the preload library's allocation wrappers: malloc
 * and its relatives in libc, C++ operator new and delete in libstdc++.
 * ALLOC is emitted after the block exists, FREE before it goes (another
 * thread may get the same address as soon as it is freed), so that a
 * recycled block is a new variable to cbpredict, not the old one.
 *
 * Nested calls (operator new calling malloc, sized delete calling delete)
 * are made from the C runtime, which the tool does not watch, so only the
 * user's call makes an event.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "cb_preload.h"

static void *cb_malloc(OrigFn fn, UWord c, size_t n)
{
   void *p;
   CALL_FN_W_W(p, fn, n);
   if (p)
      REQ(CB_REQ_ALLOC, p, n, c);
   return p;
}

static void *cb_calloc(OrigFn fn, UWord c, size_t n, size_t size)
{
   void *p;
   CALL_FN_W_WW(p, fn, n, size);
   if (p)
      REQ(CB_REQ_ALLOC, p, n * size, c);
   return p;
}

static void *cb_realloc(OrigFn fn, UWord c, void *old, size_t n)
{
   void *p;
   if (old)
      REQ(CB_REQ_FREE, old, c, 0);
   CALL_FN_W_WW(p, fn, old, n);
   if (p)
      REQ(CB_REQ_ALLOC, p, n, c);
   return p;
}

static void cb_free(OrigFn fn, UWord c, void *p)
{
   if (p)
      REQ(CB_REQ_FREE, p, c, 0);
   CALL_FN_v_W(fn, p);
}

/* memalign(align, size); glibc's aligned_alloc is the same function. */
static void *cb_memalign(OrigFn fn, UWord c, size_t align, size_t n)
{
   void *p;
   CALL_FN_W_WW(p, fn, align, n);
   if (p)
      REQ(CB_REQ_ALLOC, p, n, c);
   return p;
}

static int cb_posix_memalign(OrigFn fn, UWord c, void **out, size_t align,
                             size_t n)
{
   int r;
   CALL_FN_W_WWW(r, fn, out, align, n);
   if (r == 0 && *out)
      REQ(CB_REQ_ALLOC, *out, n, c);
   return r;
}

CB_WRAP_LIBC(void *, malloc, cb_malloc, (size_t n), n)
CB_WRAP_LIBC(void *, calloc, cb_calloc, (size_t n, size_t s), n, s)
CB_WRAP_LIBC(void *, realloc, cb_realloc, (void *p, size_t n), p, n)
CB_WRAP_LIBC(void, free, cb_free, (void *p), p)
CB_WRAP_LIBC(void *, memalign, cb_memalign, (size_t a, size_t n), a, n)
CB_WRAP_LIBC(int, posixZumemalign, cb_posix_memalign,
             (void **p, size_t a, size_t n), p, a, n)

/* ---- C++: operator new/new[] (size [, align] [, nothrow]) and operator
 * delete/delete[] (pointer [, size] [, align] [, nothrow]).  Only the
 * first argument matters; the others pass through untouched. ---- */

static void *cb_new(OrigFn fn, UWord c, UWord n, UWord a2, UWord a3)
{
   void *p;
   CALL_FN_W_WWW(p, fn, n, a2, a3);
   if (p)
      REQ(CB_REQ_ALLOC, p, n, c);
   return p;
}

static void cb_delete(OrigFn fn, UWord c, void *p, UWord a2, UWord a3,
                      UWord a4)
{
   if (p)
      REQ(CB_REQ_FREE, p, c, 0);
   CALL_FN_v_WWWW(fn, p, a2, a3, a4);
}

/* The mangled names are written plainly (the _ZU form: soname Z-encoded,
 * function name not). */
#define CB_WRAP_CXX(ret, name, impl, params, ...)                            \
   ret I_WRAP_SONAME_FNNAME_ZU(VG_Z_LIBSTDCXX_SONAME, name) params;          \
   ret I_WRAP_SONAME_FNNAME_ZU(VG_Z_LIBSTDCXX_SONAME, name) params           \
   {                                                                         \
      OrigFn fn;                                                             \
      VALGRIND_GET_ORIG_FN(fn);                                              \
      return impl(fn, (UWord)__builtin_return_address(0), __VA_ARGS__);      \
   }
#define CB_NEW(name)                                                         \
   CB_WRAP_CXX(void *, name, cb_new, (UWord n, UWord a2, UWord a3), n, a2, a3)
#define CB_DELETE(name)                                                      \
   CB_WRAP_CXX(void, name, cb_delete, (void *p, UWord a2, UWord a3, UWord a4),\
               p, a2, a3, a4)

CB_NEW(_Znwm)
CB_NEW(_Znam)
CB_NEW(_ZnwmRKSt9nothrow_t)
CB_NEW(_ZnamRKSt9nothrow_t)
CB_NEW(_ZnwmSt11align_val_t)
CB_NEW(_ZnamSt11align_val_t)
CB_NEW(_ZnwmSt11align_val_tRKSt9nothrow_t)
CB_NEW(_ZnamSt11align_val_tRKSt9nothrow_t)

CB_DELETE(_ZdlPv)
CB_DELETE(_ZdaPv)
CB_DELETE(_ZdlPvm)
CB_DELETE(_ZdaPvm)
CB_DELETE(_ZdlPvRKSt9nothrow_t)
CB_DELETE(_ZdaPvRKSt9nothrow_t)
CB_DELETE(_ZdlPvSt11align_val_t)
CB_DELETE(_ZdaPvSt11align_val_t)
CB_DELETE(_ZdlPvmSt11align_val_t)
CB_DELETE(_ZdaPvmSt11align_val_t)
CB_DELETE(_ZdlPvSt11align_val_tRKSt9nothrow_t)
CB_DELETE(_ZdaPvSt11align_val_tRKSt9nothrow_t)
