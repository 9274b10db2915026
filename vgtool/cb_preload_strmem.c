/* cb_preload_strmem.c: the C library's string and memory functions, which
 * read and write the program's own memory from inside libc.  The tool
 * watches the program's code, not libc's, so a buffer that two threads
 * fill with snprintf or strcpy and read with strcmp or a "%s" would show
 * no access at all, and its race no pattern.  Each call is recorded as
 * accesses, at the caller's line, to the start of each range it reads or
 * writes (CB_REQ_LIBC_MEM): the program's own accesses to the buffer's
 * first bytes, and other such calls on it, meet them (the tool tells
 * variables apart by their first address).  Ordinary counted READ and
 * WRITE events: prediction finds the patterns, replay gates each one.
 *
 * The events per call, one per range whatever its length (so that record
 * and replay count the same events when the length is the race's own
 * doing), each asking for its turn first:
 *   memcpy, memmove, strcpy, stpcpy, strncpy, strcat, strncat
 *                         READ of the source; then the real call just
 *                         after the turn of the WRITE of the destination
 *   memset                the real call and WRITE of the destination
 *   strlen, strnlen, strchr, strrchr, strstr, strdup, strndup
 *                         READ of the string, then the real call
 *   strcmp, strncmp, memcmp, strcasecmp, strncasecmp
 *                         READ of each, then the real call
 *   snprintf, sprintf, vsnprintf, vsprintf
 *                         READ of each "%s" argument (at most
 *                         CB_FMT_MAX_S), then the real call and WRITE of
 *                         the destination
 * The tool drops calls whose caller is not watched code (libc calling its
 * own memcpy does not go through these anyway), in both modes alike.
 *
 * snprintf and sprintf take "...": they are replaced, not wrapped, and
 * format through __vsnprintf_chk (the fortified entry, with no check
 * asked), which no wrapper here catches.  A program built with
 * _FORTIFY_SOURCE calls __snprintf_chk, __sprintf_chk, __memcpy_chk,
 * __memmove_chk, __memset_chk and __strcpy_chk instead: the same.  vsnprintf and vsprintf are
 * wrapped; their va_list is copied before the format is scanned.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <stdarg.h>
#include <stddef.h>
#include "cb_preload.h"

/* "%s" arguments of one format call that are recorded; the rest are not. */
#define CB_FMT_MAX_S 4

/* Whether the tool takes these events: not with --instrument=all, where
 * libc's own accesses are recorded, and where the wrappers' extra turns
 * in the middle of libc's thread start-up made record and replay count
 * libc's events differently.  Asked once, before the program runs, so
 * that every path through here is the same in both modes. */
static int cb_mem_on;

__attribute__((constructor)) static void cb_mem_init(void)
{
   cb_mem_on = REQ_EXPR(CB_REQ_LIBC_MEM, 0, 0) == 1;
}

/* The turn of an event here (none when they are off). */
static void cb_mem_turn(UWord c)
{
   if (cb_mem_on)
      cb_turn(c);
}

/* One access of len bytes at a (the tool keeps at most 8); its turn was
 * asked for just before. */
static void cb_mem_ev(UWord c, UWord a, UWord len, UWord kind)
{
   if (cb_mem_on)
      REQ(CB_REQ_LIBC_MEM, a, kind | (len > 0xffff ? 0xffff : len) << 8, c);
}

static void cb_mem_read(UWord c, UWord a, UWord len)
{
   cb_mem_turn(c);
   cb_mem_ev(c, a, len, CB_EV_READ);
}

/* A string's length with its NUL, up to 8 and to max bytes (a bounded
 * call's string need not end within the buffer): no call, strlen is
 * wrapped here. */
static UWord cb_strn8(UWord s, UWord max)
{
   UWord n = 0;
   if (s == 0)
      return 0;
   while (n < 8 && n < max && ((const char *)s)[n] != 0)
      n++;
   return n + (n < 8 && n < max);
}

static UWord cb_str8(UWord s)
{
   return cb_strn8(s, 8);
}

/* ---- copies: READ of src, then the call at the WRITE's turn -------------- */

static UWord cb_copy3(OrigFn fn, UWord c, UWord d, UWord s, UWord n,
                      UWord slen)
{
   UWord r;
   cb_mem_read(c, s, slen);
   cb_mem_turn(c);
   CALL_FN_W_WWW(r, fn, d, s, n);
   cb_mem_ev(c, d, slen, CB_EV_WRITE);
   return r;
}

static UWord cb_memcpy(OrigFn fn, UWord c, UWord d, UWord s, UWord n)
{
   return cb_copy3(fn, c, d, s, n, n);
}

static UWord cb_strncpy(OrigFn fn, UWord c, UWord d, UWord s, UWord n)
{
   return cb_copy3(fn, c, d, s, n, cb_strn8(s, n));
}

static UWord cb_strcpy(OrigFn fn, UWord c, UWord d, UWord s)
{
   UWord r, l = cb_str8(s);
   cb_mem_read(c, s, l);
   cb_mem_turn(c);
   CALL_FN_W_WW(r, fn, d, s);
   cb_mem_ev(c, d, l, CB_EV_WRITE);
   return r;
}

static UWord cb_memset(OrigFn fn, UWord c, UWord d, UWord v, UWord n)
{
   UWord r;
   cb_mem_turn(c);
   CALL_FN_W_WWW(r, fn, d, v, n);
   cb_mem_ev(c, d, n, CB_EV_WRITE);
   return r;
}

/* ---- readers: READ of each string, then the call -------------------------- */

/* strdup and strndup allocate their copy inside libc, where the malloc
 * wrapper's caller is not the program's: the copy is said allocated here,
 * at the caller's line, so that a free of it is a free of a known block
 * (an order violation against its readers, predict/orders.c). */
static void cb_dup_alloc(UWord c, UWord r)
{
   UWord n = 0;
   if (!cb_mem_on || r == 0)
      return;
   while (((const char *)r)[n] != 0)
      n++;
   REQ(CB_REQ_ALLOC, r, n + 1, c);
}

/* nargs 1: strlen (s); 2: strchr (s, b); 3: strnlen (s, b), b bounds s.
 * dup: strdup, strndup. */
static UWord cb_read1(OrigFn fn, UWord c, UWord s, UWord b, UWord nargs,
                      UWord dup)
{
   UWord r;
   cb_mem_read(c, s, cb_strn8(s, nargs == 3 ? b : 8));
   if (nargs == 1)
      CALL_FN_W_W(r, fn, s);
   else
      CALL_FN_W_WW(r, fn, s, b);
   if (dup)
      cb_dup_alloc(c, r);
   return r;
}

/* mode 0: strcmp (two arguments); 1: strncmp (n bounds the strings); 2:
 * memcmp (n bytes each). */
static UWord cb_read2(OrigFn fn, UWord c, UWord a, UWord b, UWord n,
                      UWord mode)
{
   UWord r, bound = mode == 1 ? n : 8;
   cb_mem_read(c, a, mode == 2 ? n : cb_strn8(a, bound));
   cb_mem_read(c, b, mode == 2 ? n : cb_strn8(b, bound));
   if (mode == 0)
      CALL_FN_W_WW(r, fn, a, b);
   else
      CALL_FN_W_WWW(r, fn, a, b, n);
   return r;
}

/* ---- formatting ----------------------------------------------------------- */

/* The "%s" arguments of fmt, as far as CB_FMT_MAX_S, and how many bytes
 * of each may be read (a precision bounds a string that need not end):
 * each conversion takes its arguments from ap (a copy), "*" widths and
 * precisions too.  A positional argument ("%2$s") ends the scan: the
 * arguments are no longer in order.  Returns how many were found. */
static int cb_fmt_strings(const char *fmt, va_list ap, UWord *out,
                          UWord *bound)
{
   int n = 0;
   for (const char *p = fmt; p && *p && n < CB_FMT_MAX_S; p++) {
      if (*p != '%')
         continue;
      p++;
      while (*p == '-' || *p == '+' || *p == ' ' || *p == '#' || *p == '0' ||
             *p == '\'' || *p == 'I')
         p++;
      int longs = 0, dbl_long = 0, in_prec = 0;
      UWord prec = 8;
      for (; *p; p++) {
         if (*p == '$')
            return n;
         if (*p == '*') {
            int v = va_arg(ap, int);
            if (in_prec && v >= 0)
               prec = (UWord)v;
         } else if (*p == '.') {
            in_prec = 1, prec = 0;
         } else if (in_prec && *p >= '0' && *p <= '9' && prec < 8) {
            prec = prec * 10 + (UWord)(*p - '0');
         } else if (*p == 'l')
            longs++;
         else if (*p == 'L' || *p == 'q')
            dbl_long = 1, longs = 2;
         else if (*p == 'j' || *p == 'z' || *p == 't')
            longs = 1;
         else if (!(*p == 'h' || (*p >= '0' && *p <= '9')))
            break;
      }
      switch (*p) {
      case 's':
         if (longs == 0) {
            bound[n] = prec < 8 ? prec : 8;
            out[n++] = (UWord)va_arg(ap, const char *);
         } else
            (void)va_arg(ap, void *);
         break;
      case 'p': case 'n': case 'S':
         (void)va_arg(ap, void *);
         break;
      case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a':
      case 'A':
         if (dbl_long)
            (void)va_arg(ap, long double);
         else
            (void)va_arg(ap, double);
         break;
      case 'd': case 'i': case 'o': case 'u': case 'x': case 'X': case 'c':
      case 'C':
         if (longs)
            (void)va_arg(ap, long);
         else
            (void)va_arg(ap, int);
         break;
      case 'm': case '%':
         break;
      default:
         return n; /* a conversion not known here: stop, take no more */
      }
      if (!*p)
         break;
   }
   return n;
}

/* Before a formatting call: READ of each "%s" argument. */
static void cb_fmt_reads(UWord c, const char *fmt, va_list ap)
{
   UWord s[CB_FMT_MAX_S], bound[CB_FMT_MAX_S];
   va_list cp;
   va_copy(cp, ap);
   int n = cb_fmt_strings(fmt, cp, s, bound);
   va_end(cp);
   for (int i = 0; i < n; i++)
      cb_mem_read(c, s[i], cb_strn8(s[i], bound[i]));
}

extern int __vsnprintf_chk(char *s, size_t maxlen, int flag, size_t slen,
                           const char *fmt, va_list ap);

/* snprintf and sprintf (n: (size_t)-1), replaced, and the fortified
 * __snprintf_chk and __sprintf_chk (n: their object size) that a program
 * built with _FORTIFY_SOURCE calls instead: their flag and object size go
 * to __vsnprintf_chk, which checks them (no check: 0, (size_t)-1). */
static int cb_vformat(UWord c, char *d, size_t n, int flag, size_t slen,
                      const char *fmt, va_list ap)
{
   cb_fmt_reads(c, fmt, ap);
   cb_mem_turn(c);
   int r = __vsnprintf_chk(d, n, flag, slen, fmt, ap);
   cb_mem_ev(c, (UWord)d, n == 0 ? 0 : r < 0 ? 1 : (UWord)r + 1, CB_EV_WRITE);
   return r;
}

/* A replaced formatting function of name zname and parameters params,
 * whose last named one is last: cb_vformat with the arguments args. */
#define CB_FORMAT_FN(zname, params, last, ...)                               \
   int VG_REPLACE_FUNCTION_ZU(VG_Z_LIBC_SONAME, zname) params;               \
   int VG_REPLACE_FUNCTION_ZU(VG_Z_LIBC_SONAME, zname) params                \
   {                                                                         \
      va_list ap;                                                            \
      va_start(ap, last);                                                    \
      int r = cb_vformat((UWord)__builtin_return_address(0), __VA_ARGS__,   \
                         ap);                                                \
      va_end(ap);                                                            \
      return r;                                                              \
   }

CB_FORMAT_FN(snprintf, (char *d, size_t n, const char *fmt, ...), fmt,
             d, n, 0, (size_t)-1, fmt)
CB_FORMAT_FN(sprintf, (char *d, const char *fmt, ...), fmt,
             d, (size_t)-1, 0, (size_t)-1, fmt)
CB_FORMAT_FN(__snprintf_chk,
             (char *d, size_t n, int flag, size_t slen, const char *fmt, ...),
             fmt, d, n, flag, slen, fmt)
CB_FORMAT_FN(__sprintf_chk, (char *d, int flag, size_t slen, const char *fmt,
                             ...),
             fmt, d, slen, flag, slen, fmt)

/* __memcpy_chk and the like: the call with its object size, one argument
 * more. */
static UWord cb_copy_chk(OrigFn fn, UWord c, UWord d, UWord s, UWord n,
                         UWord dlen)
{
   UWord r;
   cb_mem_read(c, s, n);
   cb_mem_turn(c);
   CALL_FN_W_WWWW(r, fn, d, s, n, dlen);
   cb_mem_ev(c, d, n, CB_EV_WRITE);
   return r;
}

static UWord cb_memset_chk(OrigFn fn, UWord c, UWord d, UWord v, UWord n,
                           UWord dlen)
{
   UWord r;
   cb_mem_turn(c);
   CALL_FN_W_WWWW(r, fn, d, v, n, dlen);
   cb_mem_ev(c, d, n, CB_EV_WRITE);
   return r;
}

static UWord cb_strcpy_chk(OrigFn fn, UWord c, UWord d, UWord s, UWord dlen)
{
   UWord r, l = cb_str8(s);
   cb_mem_read(c, s, l);
   cb_mem_turn(c);
   CALL_FN_W_WWW(r, fn, d, s, dlen);
   cb_mem_ev(c, d, l, CB_EV_WRITE);
   return r;
}

/* vsnprintf (n) and vsprintf (n: none): ap is the caller's va_list, a
 * pointer to its one record on amd64; copied before it is scanned. */
static UWord cb_vprintf(OrigFn fn, UWord c, UWord d, UWord n, UWord fmt,
                        UWord ap, UWord has_n)
{
   UWord r;
   va_list cp;
   __builtin_memcpy(cp, (const void *)ap, sizeof cp);
   cb_fmt_reads(c, (const char *)fmt, cp);
   cb_mem_turn(c);
   if (has_n)
      CALL_FN_W_WWWW(r, fn, d, n, fmt, ap);
   else
      CALL_FN_W_WWW(r, fn, d, fmt, ap);
   int len = (int)r;
   cb_mem_ev(c, d, has_n && n == 0 ? 0 : len < 0 ? 1 : (UWord)len + 1,
             CB_EV_WRITE);
   return r;
}

CB_WRAP_LIBC(UWord, memcpy, cb_memcpy, (UWord d, UWord s, UWord n), d, s, n)
CB_WRAP_LIBC(UWord, memmove, cb_memcpy, (UWord d, UWord s, UWord n), d, s, n)
CB_WRAP_LIBC(UWord, memset, cb_memset, (UWord d, UWord v, UWord n), d, v, n)
CB_WRAP_LIBC(UWord, strcpy, cb_strcpy, (UWord d, UWord s), d, s)
CB_WRAP_LIBC(UWord, stpcpy, cb_strcpy, (UWord d, UWord s), d, s)
CB_WRAP_LIBC(UWord, strcat, cb_strcpy, (UWord d, UWord s), d, s)
CB_WRAP_LIBC(UWord, strncpy, cb_strncpy, (UWord d, UWord s, UWord n), d, s, n)
CB_WRAP_LIBC(UWord, strncat, cb_strncpy, (UWord d, UWord s, UWord n), d, s, n)
CB_WRAP_LIBC(UWord, strlen, cb_read1, (UWord s), s, 0, 1, 0)
CB_WRAP_LIBC(UWord, strnlen, cb_read1, (UWord s, UWord n), s, n, 3, 0)
CB_WRAP_LIBC(UWord, strchr, cb_read1, (UWord s, UWord ch), s, ch, 2, 0)
CB_WRAP_LIBC(UWord, strrchr, cb_read1, (UWord s, UWord ch), s, ch, 2, 0)
CB_WRAP_LIBC(UWord, strstr, cb_read1, (UWord s, UWord t), s, t, 2, 0)
CB_WRAP_LIBC(UWord, strdup, cb_read1, (UWord s), s, 0, 1, 1)
CB_WRAP_LIBC(UWord, strndup, cb_read1, (UWord s, UWord n), s, n, 3, 1)
CB_WRAP_LIBC(UWord, strcmp, cb_read2, (UWord a, UWord b), a, b, 0, 0)
CB_WRAP_LIBC(UWord, strcasecmp, cb_read2, (UWord a, UWord b), a, b, 0, 0)
CB_WRAP_LIBC(UWord, strncmp, cb_read2, (UWord a, UWord b, UWord n), a, b, n, 1)
CB_WRAP_LIBC(UWord, strncasecmp, cb_read2, (UWord a, UWord b, UWord n), a, b,
             n, 1)
CB_WRAP_LIBC(UWord, memcmp, cb_read2, (UWord a, UWord b, UWord n), a, b, n, 2)
CB_WRAP_LIBC(UWord, vsnprintf, cb_vprintf,
             (UWord d, UWord n, UWord fmt, UWord ap), d, n, fmt, ap, 1)
CB_WRAP_LIBC(UWord, vsprintf, cb_vprintf, (UWord d, UWord fmt, UWord ap), d,
             0, fmt, ap, 0)
CB_WRAP_LIBC(UWord, ZuZumemcpyZuchk, cb_copy_chk,
             (UWord d, UWord s, UWord n, UWord l), d, s, n, l)
CB_WRAP_LIBC(UWord, ZuZumemmoveZuchk, cb_copy_chk,
             (UWord d, UWord s, UWord n, UWord l), d, s, n, l)
CB_WRAP_LIBC(UWord, ZuZumemsetZuchk, cb_memset_chk,
             (UWord d, UWord v, UWord n, UWord l), d, v, n, l)
CB_WRAP_LIBC(UWord, ZuZustrcpyZuchk, cb_strcpy_chk, (UWord d, UWord s, UWord l),
             d, s, l)
