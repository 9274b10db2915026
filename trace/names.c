/* names.c: events, locations and variables in words, for dump, reports and
 * tests.  The dump line format is documented at cb_event_print in cbtrace.h
 * and other tests grep it: change it only together with that comment.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "trace_internal.h"

static const char *const kind_names[CB_EV_KIND_COUNT] = {
    [CB_EV_NONE] = "none",
    [CB_EV_READ] = "read",
    [CB_EV_WRITE] = "write",
    [CB_EV_LOCK] = "lock",
    [CB_EV_UNLOCK] = "unlock",
    [CB_EV_COND_WAIT] = "wait",
    [CB_EV_COND_SIGNAL] = "signal",
    [CB_EV_BARRIER_ENTER] = "barrier-enter",
    [CB_EV_BARRIER_LEAVE] = "barrier-leave",
    [CB_EV_THREAD_CREATE] = "create",
    [CB_EV_THREAD_START] = "start",
    [CB_EV_THREAD_JOIN] = "join",
    [CB_EV_THREAD_EXIT] = "exit",
    [CB_EV_BLOCK_BEGIN] = "begin",
    [CB_EV_BLOCK_END] = "end",
    [CB_EV_ATOMIC_BEGIN] = "atomic-begin",
    [CB_EV_ATOMIC_END] = "atomic-end",
    [CB_EV_ALLOC] = "alloc",
    [CB_EV_FREE] = "free",
    [CB_EV_SEM_POST] = "sem-post",
    [CB_EV_SEM_WAIT] = "sem-wait",
    [CB_EV_RELEASE] = "release",
    [CB_EV_ACQUIRE] = "acquire",
    [CB_EV_UNHANDLED] = "unhandled",
};

static const char *const call_names[CB_CALL_COUNT] = {
    [CB_CALL_FUTEX] = "futex",
    [CB_CALL_PTHREAD_CANCEL] = "pthread_cancel",
    [CB_CALL_FORK] = "fork",
};

const char *cb_call_name(unsigned code)
{
   return code < CB_CALL_COUNT && call_names[code] ? call_names[code] : "?";
}

int cb_call_from_name(const char *name)
{
   for (unsigned c = 1; name && c < CB_CALL_COUNT; c++)
      if (call_names[c] && strcmp(name, call_names[c]) == 0)
         return (int)c;
   return -1;
}

static const char *sync_class(unsigned size)
{
   return size == CB_SYNC_ONCE ? "once" : size == CB_SYNC_SIGNAL ? "signal" : "object";
}

int cb_is_lost_wakeup(const char *pattern, int e1_kind, int f_kind)
{
   /* A waiter forced after the signal (orders.c), or, a cure, a signal
    * that came first forced after the wait (cure_wake.c). */
   return pattern && strcmp(pattern, "ORD") == 0 &&
          ((e1_kind == CB_EV_UNLOCK && f_kind == CB_EV_COND_SIGNAL) ||
           (e1_kind == CB_EV_COND_SIGNAL && f_kind == CB_EV_UNLOCK));
}

const char *cb_pattern_kind_word(const char *pattern, const char *role,
                                 const char *kind)
{
   int at = !role ? -1 : !strcmp(role, "e1") ? 0 : !strcmp(role, "f") ? 1
          : !strcmp(role, "e2") ? 2 : -1;
   if (at < 0 || !kind || strcmp(kind, "read") || !pattern || strlen(pattern) != 3)
      return kind;
   for (int i = 0; i < 3; i++)
      if (pattern[i] != 'R' && pattern[i] != 'W')
         return kind; /* ORD, DLK: no letters */
   return pattern[at] == 'W' ? "update" : kind;
}

const char *cb_event_kind_name(unsigned kind)
{
   return kind < CB_EV_KIND_COUNT ? kind_names[kind] : "?";
}

int cb_event_kind_from_name(const char *name)
{
   if (!name)
      return -1;
   for (unsigned k = 1; k < CB_EV_KIND_COUNT; k++)
      if (strcmp(name, kind_names[k]) == 0)
         return (int)k;
   if (strcmp(name, "broadcast") == 0)
      return CB_EV_COND_SIGNAL;
   return -1;
}

static const char *const rmw_names[CB_RMW_COUNT] = {"", "exchange", "fetch-op",
                                                    "op", "store"};

const char *cb_rmw_name(unsigned rmw)
{
   return rmw < CB_RMW_COUNT ? rmw_names[rmw] : "";
}

int cb_rmw_from_name(const char *name)
{
   for (unsigned k = 1; name && k < CB_RMW_COUNT; k++)
      if (strcmp(name, rmw_names[k]) == 0)
         return (int)k;
   return -1;
}

static const char *base_name(const char *path)
{
   const char *s = strrchr(path, '/');
   return s ? s + 1 : path;
}

const char *cb_location_str(const cb_trace *t, uint32_t loc, char *buf,
                            size_t len)
{
   if (len == 0)
      return buf;
   if (loc == 0 || loc >= t->nlocs) {
      snprintf(buf, len, "?");
      return buf;
   }
   const cb_location *l = &t->locs[loc];
   if (l->file && l->file[0]) {
      if (l->line)
         snprintf(buf, len, "%s:%u", l->file, l->line);
      else
         snprintf(buf, len, "%s", l->file);
   } else if (l->object && l->object[0]) {
      /* No debug information: the object and the instruction address. */
      snprintf(buf, len, "%s@0x%" PRIx64, base_name(l->object), l->address);
   } else if (l->address) {
      snprintf(buf, len, "0x%" PRIx64, l->address);
   } else {
      snprintf(buf, len, "?");
   }
   return buf;
}

/* How far back cb_user_loc looks, in trace events of any thread. */
#define USER_LOC_SCAN 4096

static int has_line(const cb_trace *t, uint32_t loc)
{
   return loc > 0 && loc < t->nlocs && t->locs[loc].file &&
          t->locs[loc].file[0] && t->locs[loc].line;
}

uint32_t cb_user_loc(const cb_trace *t, size_t tidx)
{
   if (tidx >= t->nevents || has_line(t, t->events[tidx].loc))
      return 0;
   uint32_t tid = t->events[tidx].tid;
   for (size_t i = tidx, n = 0; i-- > 0 && n < USER_LOC_SCAN; n++)
      if (t->events[i].tid == tid && has_line(t, t->events[i].loc))
         return t->events[i].loc;
   return 0;
}

/* ---- Heap blocks: which allocation covers an address at an event -------- */
struct cb_alloc_span {
   uint64_t addr, end; /* [addr, end) */
   size_t index;       /* the ALLOC event */
   size_t freed;       /* the FREE event, SIZE_MAX while live */
};

static int span_cmp(const void *a, const void *b)
{
   const cb_alloc_span *x = a, *y = b;
   if (x->addr != y->addr)
      return x->addr < y->addr ? -1 : 1;
   return x->index < y->index ? -1 : x->index > y->index;
}

static cb_trace_priv *alloc_index(const cb_trace *ct)
{
   cb_trace *t = (cb_trace *)ct; /* the index is a cache, not content */
   cb_trace_priv *p = cb_trace_priv_get(t, NULL);
   if (!p)
      return NULL;
   if (p->allocs_for_nevents == t->nevents)
      return p;
   free(p->allocs);
   p->allocs = NULL;
   p->nallocs = 0;
   size_t n = 0;
   for (size_t i = 0; i < t->nevents; i++)
      n += t->events[i].kind == CB_EV_ALLOC;
   if (n) {
      p->allocs = malloc(n * sizeof *p->allocs);
      if (!p->allocs)
         return NULL;
      for (size_t i = 0; i < t->nevents; i++) {
         const cb_event *e = &t->events[i];
         if (e->kind == CB_EV_ALLOC)
            p->allocs[p->nallocs++] = (cb_alloc_span){
                e->addr, e->addr + (e->value ? e->value : 1), i, SIZE_MAX};
      }
      qsort(p->allocs, p->nallocs, sizeof *p->allocs, span_cmp);
      /* Mark frees: the latest allocation at that address before the free. */
      for (size_t i = 0; i < t->nevents; i++) {
         const cb_event *e = &t->events[i];
         if (e->kind != CB_EV_FREE)
            continue;
         size_t lo = 0, hi = p->nallocs;
         while (lo < hi) { /* first span with addr > e->addr */
            size_t mid = (lo + hi) / 2;
            if (p->allocs[mid].addr <= e->addr)
               lo = mid + 1;
            else
               hi = mid;
         }
         while (lo > 0 && p->allocs[lo - 1].addr == e->addr) {
            cb_alloc_span *s = &p->allocs[--lo];
            if (s->index < i && s->freed == SIZE_MAX) {
               s->freed = i;
               break;
            }
         }
      }
   }
   p->allocs_for_nevents = t->nevents;
   return p;
}

/* The allocation covering addr, live at event `at` (SIZE_MAX: the last one
 * that covered it).  Heap blocks do not overlap while live, so looking at
 * the spans that start at or below addr, nearest first, suffices; a bound
 * on the scan keeps it cheap on traces with huge numbers of blocks. */
static const cb_alloc_span *find_alloc(const cb_trace *t, uint64_t addr,
                                       size_t at)
{
   cb_trace_priv *p = alloc_index(t);
   if (!p || p->nallocs == 0)
      return NULL;
   size_t lo = 0, hi = p->nallocs;
   while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (p->allocs[mid].addr <= addr)
         lo = mid + 1;
      else
         hi = mid;
   }
   const cb_alloc_span *best = NULL;
   for (size_t k = lo, scanned = 0; k > 0 && scanned < 4096; scanned++) {
      const cb_alloc_span *s = &p->allocs[--k];
      if (addr >= s->end)
         continue;
      if (at == SIZE_MAX) {
         if (!best || s->index > best->index)
            best = s;
      } else if (s->index <= at && (s->freed == SIZE_MAX || s->freed >= at)) {
         if (!best || s->index > best->index)
            best = s;
      }
   }
   return best;
}

/* How far past its start an unsized symbol may name addresses. */
#define CB_UNSIZED_SYMBOL_SPAN 65536u

/* The address of the first variable the debug information named after
 * sym, when its name is another's (`timers[0].expires` after the
 * condition `wheel_cond`), else UINT64_MAX: an unsized symbol ends there
 * (blind trial 21's timer wheel had `timers[64]` onwards, which the tool
 * did not describe, named `wheel_cond+1088`). */
static uint64_t next_other_variable(const cb_trace *t, const cb_symbol *sym)
{
   size_t lo = 0, hi = t->nvars;
   while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (t->vars[mid].address <= sym->address)
         lo = mid + 1;
      else
         hi = mid;
   }
   size_t n = strlen(sym->name);
   for (; lo < t->nvars; lo++) {
      const char *v = t->vars[lo].name;
      if (!v[0])
         continue;
      if (strncmp(v, sym->name, n) != 0 || (v[n] && !strchr(".[+-", v[n])))
         return t->vars[lo].address;
      return UINT64_MAX; /* the symbol's own member */
   }
   return UINT64_MAX;
}

const cb_symbol *cb_symbol_at(const cb_trace *t, uint64_t addr)
{
   size_t lo = 0, hi = t->nsyms;
   while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (t->syms[mid].address <= addr)
         lo = mid + 1;
      else
         hi = mid;
   }
   /* Symbols are sorted by address; the nearest few below may cover it.
    * The tool cannot learn a symbol's size (size 0): such a symbol covers
    * addresses up to the next symbol, within CB_UNSIZED_SYMBOL_SPAN, so a
    * field of a global struct is named "checking+40", not a raw address. */
   for (size_t k = lo, n = 0; k > 0 && n < 8; n++) {
      const cb_symbol *s = &t->syms[--k];
      uint64_t end;
      if (s->size) {
         end = s->address + s->size;
      } else {
         end = s->address + CB_UNSIZED_SYMBOL_SPAN;
         if (k + 1 < t->nsyms && t->syms[k + 1].address < end)
            end = t->syms[k + 1].address;
         uint64_t other = s->name ? next_other_variable(t, s) : UINT64_MAX;
         if (other < end)
            end = other;
         if (end == s->address)
            end = s->address + 1;
      }
      if (addr < end)
         return s;
   }
   return NULL;
}

/* The length of a symbol's name as the source spells it.  GCC names a
 * static variable of a function `count.0`, `l.1` (the number tells apart
 * the statics of one name in one file), and Valgrind's debug information
 * describes only variables at file scope, so such a variable is known by
 * its symbol alone: `l.0` would read as a member `0` of `l`. */
static int static_local_len(const char *name)
{
   const char *dot = strrchr(name, '.');
   if (!dot || dot == name || !dot[1] || dot[1 + strspn(dot + 1, "0123456789")])
      return (int)strlen(name);
   for (const char *p = name; p < dot; p++)
      if (!(isalnum((unsigned char)*p) || *p == '_'))
         return (int)strlen(name);
   return (int)(dot - name);
}

/* The name the debug information gave addr, if the tool asked. */
static const cb_variable *find_variable(const cb_trace *t, uint64_t addr)
{
   size_t lo = 0, hi = t->nvars;
   while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (t->vars[mid].address < addr)
         lo = mid + 1;
      else
         hi = mid;
   }
   return lo < t->nvars && t->vars[lo].address == addr && t->vars[lo].name[0]
              ? &t->vars[lo]
              : NULL;
}

const char *cb_variable_str_at(const cb_trace *t, uint64_t addr, size_t index,
                               char *buf, size_t len)
{
   if (len == 0)
      return buf;
   const cb_variable *v = find_variable(t, addr);
   if (v) {
      if (v->offset)
         snprintf(buf, len, "%s+%" PRIu32, v->name, v->offset);
      else
         snprintf(buf, len, "%s", v->name);
      return buf;
   }
   const cb_symbol *s = cb_symbol_at(t, addr);
   if (s && s->name && s->name[0]) {
      int n = static_local_len(s->name);
      if (addr == s->address)
         snprintf(buf, len, "%.*s", n, s->name);
      else
         snprintf(buf, len, "%.*s+%" PRIu64, n, s->name, addr - s->address);
      return buf;
   }
   const cb_alloc_span *a = find_alloc(t, addr, index);
   if (a) {
      /* The debug information gives no type to a block (malloc returns
       * void *): its size, allocation site and the offset in it. */
      char where[300], near[300];
      uint32_t aloc = t->events[a->index].loc, user = cb_user_loc(t, a->index);
      const char *fn = aloc < t->nlocs ? t->locs[aloc].function : NULL;
      if (user && fn && fn[0])
         snprintf(where, sizeof where, "%s", fn); /* a library's g_malloc */
      else
         cb_location_str(t, aloc, where, sizeof where);
      if (user)
         cb_location_str(t, user, near, sizeof near);
      int n = snprintf(buf, len, "heap block of %" PRIu64 " bytes from %s%s%s",
                       a->end - a->addr, where, user ? " near " : "",
                       user ? near : "");
      if (addr != a->addr && n >= 0 && (size_t)n < len)
         snprintf(buf + n, len - (size_t)n, ", offset %" PRIu64, addr - a->addr);
      return buf;
   }
   snprintf(buf, len, "0x%" PRIx64, addr);
   return buf;
}

const char *cb_access_name(const cb_trace *t, uint64_t addr, size_t index,
                           const size_t *events, size_t n, char *buf,
                           size_t len)
{
   cb_variable_str_at(t, addr, index, buf, len);
   const cb_variable *v = find_variable(t, addr);
   const cb_symbol *s = v ? NULL : cb_symbol_at(t, addr);
   /* Inside a variable: at an offset (at 0 a line's `items[i]` may be an
    * element of what a pointer variable points to, not the variable; the
    * tool records symbols without a size, so a struct's first member
    * cannot be told from the whole variable either). */
   int inside = (v && v->offset) || (s && addr != s->address);
   const cb_alloc_span *a = inside || v || s ? NULL : find_alloc(t, addr, index);
   if ((!inside && !a) || n > 8)
      return buf;
   const char *lines[8];
   size_t quoted = 0;
   for (size_t i = 0; i < n; i++) {
      lines[i] = events[i] < t->nevents
                     ? cb_location_source(t, t->events[events[i]].loc)
                     : NULL;
      quoted += lines[i] != NULL;
   }
   if (!quoted) /* no source here: nothing to read a name from */
      return buf;
   char expr[128], block[400];
   char sym[256];
   if (s)
      snprintf(sym, sizeof sym, "%.*s", static_local_len(s->name), s->name);
   if (!(inside ? cb_source_expr_of(lines, n, v ? v->name : sym, expr, sizeof expr) ||
                      (s && cb_source_member_of(lines, n, sym, expr, sizeof expr))
                : cb_source_expr_in(lines, n,
                                    cb_location_source(t, t->events[a->index].loc),
                                    expr, sizeof expr)))
      return buf;
   snprintf(block, sizeof block, "%s", buf);
   snprintf(buf, len, "%s (%s)", expr, block);
   return buf;
}

const char *cb_variable_str(const cb_trace *t, uint64_t addr, char *buf,
                            size_t len)
{
   return cb_variable_str_at(t, addr, SIZE_MAX, buf, len);
}

static const char *lock_mode(unsigned size)
{
   return size == CB_LOCK_RD ? "rd" : size == CB_LOCK_WR ? "wr" : "mutex";
}

/* What an event acts on, after its kind: the variable and size of an
 * access, a lock and its mode, the thread created... */
static void print_operands(FILE *out, const cb_trace *t, const cb_event *e,
                           size_t index)
{
   char v[400], w[400];
   switch (e->kind) {
   case CB_EV_READ:
   case CB_EV_WRITE:
      fprintf(out, " %s size %u",
              cb_variable_str_at(t, e->addr, index, v, sizeof v),
              CB_SIZE_BYTES(e->size));
      if (cb_event_has_value(e->kind, e->size))
         fprintf(out, " = %" PRIu64, e->value);
      if (e->rmw)
         fprintf(out, " rmw-%s", cb_rmw_name(e->rmw));
      break;
   case CB_EV_LOCK:
   case CB_EV_UNLOCK:
      fprintf(out, " %s %s%s", cb_variable_str_at(t, e->addr, index, v, sizeof v),
              lock_mode(e->size), e->value == 1 ? " try" : "");
      break;
   case CB_EV_COND_WAIT:
      fprintf(out, " %s %s", cb_variable_str_at(t, e->addr, index, v, sizeof v),
              cb_variable_str_at(t, e->value, index, w, sizeof w));
      break;
   case CB_EV_COND_SIGNAL:
   case CB_EV_FREE:
      fprintf(out, " %s", cb_variable_str_at(t, e->addr, index, v, sizeof v));
      break;
   case CB_EV_BARRIER_ENTER:
   case CB_EV_BARRIER_LEAVE:
      fprintf(out, " %s count %" PRIu64,
              cb_variable_str_at(t, e->addr, index, v, sizeof v), e->value);
      break;
   case CB_EV_THREAD_CREATE:
   case CB_EV_THREAD_JOIN:
      fprintf(out, " T%" PRIu64, e->value);
      break;
   case CB_EV_THREAD_START:
      fprintf(out, " from T%" PRIu64, e->value);
      break;
   case CB_EV_BLOCK_BEGIN:
   case CB_EV_BLOCK_END: {
      /* The function by its entry address: its location when the tool gave
       * the entry instruction one, else the address. */
      const char *fn = NULL;
      if (e->loc && e->loc < t->nlocs && t->locs[e->loc].function[0])
         fn = t->locs[e->loc].function;
      if (fn)
         fprintf(out, " %s", fn);
      else
         fprintf(out, " 0x%" PRIx64, e->addr);
      break;
   }
   case CB_EV_ALLOC:
      fprintf(out, " %s size %" PRIu64,
              cb_variable_str_at(t, e->addr, index, v, sizeof v), e->value);
      break;
   case CB_EV_SEM_POST:
   case CB_EV_SEM_WAIT:
      fprintf(out, " %s post %" PRIu64 "%s",
              cb_variable_str_at(t, e->addr, index, v, sizeof v), e->value,
              e->kind == CB_EV_SEM_WAIT && e->size == 1 ? " try" : "");
      break;
   case CB_EV_RELEASE:
   case CB_EV_ACQUIRE:
      fprintf(out, " %s %s", cb_variable_str_at(t, e->addr, index, v, sizeof v),
              sync_class(e->size));
      break;
   case CB_EV_UNHANDLED:
      fprintf(out, " %s", cb_call_name(e->size));
      if (e->addr)
         fprintf(out, " %s", cb_variable_str_at(t, e->addr, index, v, sizeof v));
      fprintf(out, " detail %" PRIu64, e->value);
      break;
   default:
      break;
   }
}

void cb_event_print(FILE *out, const cb_trace *t, size_t index)
{
   if (index >= t->nevents)
      return;
   const cb_event *e = &t->events[index];
   char v[400];
   const char *kind = cb_event_kind_name(e->kind);
   if (e->kind == CB_EV_COND_SIGNAL && e->size == 1)
      kind = "broadcast";
   fprintf(out, "%zu T%u %s", index, (unsigned)e->tid, kind);
   print_operands(out, t, e, index);
   if (e->loc && e->loc < t->nlocs) {
      cb_location_str(t, e->loc, v, sizeof v);
      if (strcmp(v, "?") != 0)
         fprintf(out, " @ %s", v);
      if (t->locs[e->loc].function[0])
         fprintf(out, " in %s", t->locs[e->loc].function);
   }
   fputc('\n', out);
}
