/* text_form.c: a trace written by hand, one event a line, for tests (the
 * forms are listed in cbtrace.h).  Each distinct name gets its own address
 * (0x10000 apart) and becomes a symbol of the trace, so reports name it;
 * each distinct @file:line gets its own location, whose function is the
 * innermost open `begin` of that thread.  Extra words are accepted after a
 * read or write: `size N` (bytes, default 4), `same-insn` (the access
 * belongs to the same machine instruction as the thread's previous event,
 * CB_SIZE_SAME_INSN) and `split` (that instruction is a plain
 * read-modify-write replay can cut, CB_SIZE_SPLIT), and on a write
 * `rmw-exchange`, `rmw-fetch-op`, `rmw-op` or `rmw-store` (the store of a locked
 * instruction, enum cb_rmw_class).
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cbtrace.h"

#define NAME_BASE 0x10000ull
#define NAME_STEP 0x10000ull
#define MAX_WORDS 16
#define MAX_DEPTH 64

typedef struct {
   char **names; uint64_t *size; uint8_t *is_var; size_t n, cap;
   char **locs; size_t nlocs, caplocs;
   /* per thread: stack of open functions (indexes into names) */
   size_t (*stack)[MAX_DEPTH]; uint32_t *depth; size_t nthr;
} tf_state;

static void tf_free(tf_state *s) {
   for (size_t i = 0; i < s->n; i++) free(s->names[i]);
   for (size_t i = 0; i < s->nlocs; i++) free(s->locs[i]);
   free(s->names); free(s->size); free(s->is_var); free(s->locs);
   free(s->stack); free(s->depth);
}

static int grow(void **p, size_t *cap, size_t n, size_t item) {
   if (n < *cap) return 0;
   size_t nc = *cap ? *cap * 2 : 16;
   void *q = realloc(*p, nc * item);
   if (!q) return -1;
   *p = q; *cap = nc;
   return 0;
}

/* Address of a name; is_var marks names that should become symbols. */
static long name_id(tf_state *s, const char *w, int is_var) {
   for (size_t i = 0; i < s->n; i++)
      if (!strcmp(s->names[i], w)) { if (is_var) s->is_var[i] = 1; return (long)i; }
   size_t c = s->cap;
   if (grow((void **)&s->names, &c, s->n, sizeof *s->names)) return -1;
   c = s->cap;
   if (grow((void **)&s->size, &c, s->n, sizeof *s->size)) return -1;
   if (grow((void **)&s->is_var, &s->cap, s->n, sizeof *s->is_var)) return -1;
   s->names[s->n] = strdup(w);
   if (!s->names[s->n]) return -1;
   s->size[s->n] = 8;
   s->is_var[s->n] = (uint8_t)is_var;
   return (long)s->n++;
}

static int parse_u64(const char *w, uint64_t *v) {
   char *end;
   if (!*w) return -1;
   *v = strtoull(w, &end, 0);
   return *end ? -1 : 0;
}

/* Thread ids are 32 bits in traces; the text form keeps per-thread state in
 * arrays, so it takes ids up to 2^24. */
static int parse_tid(const char *w, uint32_t *tid) {
   uint64_t v;
   if ((w[0] != 'T' && w[0] != 't') || parse_u64(w + 1, &v) || v == 0 || v > (1u << 24))
      return -1;
   *tid = (uint32_t)v;
   return 0;
}

static int thread_slot(tf_state *s, uint32_t tid) {
   if (tid < s->nthr) return 0;
   size_t n = (size_t)tid + 1;
   void *a = realloc(s->stack, n * sizeof *s->stack);
   if (!a) return -1;
   s->stack = a;
   uint32_t *d = realloc(s->depth, n * sizeof *d);
   if (!d) return -1;
   s->depth = d;
   for (size_t i = s->nthr; i < n; i++) d[i] = 0;
   s->nthr = n;
   return 0;
}

/* One line's words, the optional ones taken out. */
typedef struct {
   char *w[MAX_WORDS];
   int nw, blank;             /* blank: no word at all */
   const char *at;            /* @file:line, or NULL */
   int has_value, same, split, rmw;
   uint64_t value, size;
} tf_line;

/* line's words into L, the optional @file:line, =VALUE, size N, same-insn
 * and split taken out; 0, or -1 (said in err). */
static int split_words(char *line, size_t lineno, tf_line *L, cb_error *err) {
   memset(L, 0, sizeof *L);
   L->size = 4;
   char **w = L->w;
   int nw = 0;
   for (char *tok = strtok(line, " \t\r"); tok; tok = strtok(NULL, " \t\r")) {
      if (nw == MAX_WORDS) return cb_fail(err, "line %zu: too many words", lineno);
      w[nw++] = tok;
   }
   L->blank = nw == 0;
   /* Compacted in place: w[1] is the kind once two words are kept. */
   int k = 0;
   for (int i = 0; i < nw; i++) {
      if (w[i][0] == '@') L->at = w[i] + 1;
      else if (w[i][0] == '=') {
         const char *v = w[i][1] ? w[i] + 1 : (i + 1 < nw ? w[++i] : "");
         if (parse_u64(v, &L->value)) return cb_fail(err, "line %zu: bad value '%s'", lineno, v);
         L->has_value = 1;
      } else if (!strcmp(w[i], "same-insn")) L->same = 1;
      else if (!strcmp(w[i], "split")) L->split = 1;
      else if (!strncmp(w[i], "rmw-", 4) && cb_rmw_from_name(w[i] + 4) > 0)
         L->rmw = cb_rmw_from_name(w[i] + 4);
      else if (!strcmp(w[i], "size") && i >= 3 && i + 1 < nw &&
               (!strcmp(w[1], "read") || !strcmp(w[1], "write"))) {
         if (parse_u64(w[++i], &L->size) || L->size == 0 || L->size > 32)
            return cb_fail(err, "line %zu: bad size '%s'", lineno, w[i]);
      } else w[k++] = w[i];
   }
   L->nw = k;
   return 0;
}

/* The kind of L's second word into e (its size and value bytes for the
 * lock modes, signals and accesses); the number of operands it wants, or
 * -1 (said in err).  Kind names are cb_event_kind_from_name's (the one
 * table, names.c); the lock modes and "broadcast" add only a byte. */
static int line_kind(const tf_line *L, size_t lineno, cb_event *e, cb_error *err) {
   const char *kw = L->w[1];
   int kind = cb_event_kind_from_name(kw);
   if (!strcmp(kw, "rdlock") || !strcmp(kw, "wrlock") || !strcmp(kw, "trylock"))
      kind = CB_EV_LOCK;
   if (kind <= CB_EV_NONE) return cb_fail(err, "line %zu: unknown kind '%s'", lineno, kw);
   e->kind = (uint8_t)kind;
   switch (e->kind) {
   case CB_EV_READ: case CB_EV_WRITE:
      e->size = (uint8_t)(L->size | (L->same ? CB_SIZE_SAME_INSN : 0) |
                          (L->split ? CB_SIZE_SPLIT : 0));
      if (L->has_value) e->value = L->value;
      if (L->rmw && e->kind != CB_EV_WRITE)
         return cb_fail(err, "line %zu: rmw- on a read", lineno);
      e->rmw = (uint8_t)L->rmw;
      return 1;
   case CB_EV_LOCK:
      e->size = kw[0] == 'r' ? CB_LOCK_RD : kw[0] == 'w' ? CB_LOCK_WR : CB_LOCK_MUTEX;
      e->value = kw[0] == 't';
      return 1;
   case CB_EV_COND_SIGNAL:
      e->size = kw[0] == 'b';
      return 1;
   case CB_EV_COND_WAIT: case CB_EV_BARRIER_ENTER: case CB_EV_BARRIER_LEAVE:
   case CB_EV_ALLOC: case CB_EV_SEM_POST: case CB_EV_SEM_WAIT:
      return 2;
   case CB_EV_THREAD_EXIT: case CB_EV_ATOMIC_BEGIN: case CB_EV_ATOMIC_END:
      return 0;
   default: /* unlock, create, join, start, begin, end, free */
      return 1;
   }
}

/* The named object's address of a name operand (is_var: a symbol too). */
static int name_addr(tf_state *s, const char *w, int is_var, long *id, uint64_t *addr) {
   *id = name_id(s, w, is_var);
   if (*id < 0) return -1;
   *addr = NAME_BASE + (uint64_t)*id * NAME_STEP;
   return 0;
}

/* L's operands into e; 0, or -1 (said in err). */
static int line_operands(tf_state *s, const tf_line *L, size_t lineno, cb_event *e,
                         cb_error *err) {
   const char *kw = L->w[1], *const *w = (const char *const *)L->w;
   long id;
   uint32_t other = 0;
   uint64_t v, a2;
   switch (e->kind) {
   case CB_EV_THREAD_CREATE: case CB_EV_THREAD_JOIN: case CB_EV_THREAD_START:
      if (parse_tid(w[2], &other)) return cb_fail(err, "line %zu: '%s' is not a thread", lineno, w[2]);
      e->value = other;
      return 0;
   case CB_EV_THREAD_EXIT: case CB_EV_ATOMIC_BEGIN: case CB_EV_ATOMIC_END:
      return 0;
   case CB_EV_UNHANDLED: {
      int code = cb_call_from_name(w[2]);
      if (code < 0) return cb_fail(err, "line %zu: unknown call '%s'", lineno, w[2]);
      e->size = (uint8_t)code;
      return 0;
   }
   case CB_EV_BARRIER_ENTER: case CB_EV_BARRIER_LEAVE:
   case CB_EV_SEM_POST: case CB_EV_SEM_WAIT:
      if (name_addr(s, w[2], 1, &id, &e->addr) || parse_u64(w[3], &e->value))
         return cb_fail(err, "line %zu: want '%s NAME N'", lineno, kw);
      return 0;
   case CB_EV_ALLOC:
      if (name_addr(s, w[2], 1, &id, &e->addr) || parse_u64(w[3], &v))
         return cb_fail(err, "line %zu: want 'alloc X SIZE'", lineno);
      s->size[id] = v ? v : 1;
      e->value = v;
      return 0;
   case CB_EV_COND_WAIT:
      if (name_addr(s, w[2], 1, &id, &e->addr) || name_addr(s, w[3], 1, &id, &a2))
         return cb_fail(err, "out of memory");
      e->value = a2;
      return 0;
   case CB_EV_RELEASE: case CB_EV_ACQUIRE:
      if (name_addr(s, w[2], 1, &id, &e->addr)) return cb_fail(err, "out of memory");
      e->size = CB_SYNC_ONCE;
      return 0;
   case CB_EV_BLOCK_BEGIN: case CB_EV_BLOCK_END:
      if (name_addr(s, w[2], 0, &id, &e->addr)) return cb_fail(err, "out of memory");
      if (e->kind == CB_EV_BLOCK_BEGIN) {
         if (s->depth[e->tid] < MAX_DEPTH) s->stack[e->tid][s->depth[e->tid]] = (size_t)id;
         s->depth[e->tid]++;
      }
      return 0;
   default:
      if (name_addr(s, w[2], 1, &id, &e->addr)) return cb_fail(err, "out of memory");
      return 0;
   }
}

/* e's location from @file:line at, a new one of t the first time; its
 * function is the thread's innermost open `begin`. */
static int line_location(tf_state *s, const char *at, size_t lineno, cb_trace *t,
                         cb_event *e, cb_error *err) {
   const char *colon = strrchr(at, ':');
   uint64_t ln = 0;
   if (!colon || colon == at || parse_u64(colon + 1, &ln) || ln > 0xffffffffu)
      return cb_fail(err, "line %zu: want @file:line, got '@%s'", lineno, at);
   size_t li;
   for (li = 0; li < s->nlocs; li++) if (!strcmp(s->locs[li], at)) break;
   if (li == s->nlocs) {
      if (grow((void **)&s->locs, &s->caplocs, s->nlocs, sizeof *s->locs) ||
          !(s->locs[s->nlocs] = strdup(at)))
         return cb_fail(err, "out of memory");
      s->nlocs++;
      char file[1024];
      size_t fl = (size_t)(colon - at);
      memcpy(file, at, fl);
      file[fl] = 0;
      uint32_t d = s->depth[e->tid];
      const char *fn = d && d <= MAX_DEPTH ? s->names[s->stack[e->tid][d - 1]] : "";
      cb_location L = {0x400000 + 16 * (uint64_t)(li + 1), "text", fn, file, (uint32_t)ln, ""};
      if (cb_trace_set_location(t, (uint32_t)(li + 1), &L, err)) return -1;
   }
   e->loc = (uint32_t)(li + 1);
   return 0;
}

/* One line of the text (comments cut) as an event of t; 0 (also for a
 * blank line), or -1 (said in err). */
static int one_line(tf_state *s, char *line, size_t lineno, cb_trace *t, cb_error *err) {
   char *hash = strchr(line, '#');
   if (hash) *hash = 0;
   tf_line L;
   if (split_words(line, lineno, &L, err)) return -1;
   if (L.blank) return 0;
   cb_event e = {0};
   if (L.nw < 2 || parse_tid(L.w[0], &e.tid))
      return cb_fail(err, "line %zu: expected 'T<n> KIND ...'", lineno);
   if (thread_slot(s, e.tid)) return cb_fail(err, "out of memory");
   int need = line_kind(&L, lineno, &e, err);
   if (need < 0) return -1;
   if (L.nw != 2 + need)
      return cb_fail(err, "line %zu: '%s' wants %d operand%s", lineno, L.w[1], need,
                     need == 1 ? "" : "s");
   if (line_operands(s, &L, lineno, &e, err)) return -1;
   if (L.at && line_location(s, L.at, lineno, t, &e, err)) return -1;
   if (e.kind == CB_EV_BLOCK_END && s->depth[e.tid]) s->depth[e.tid]--;
   return cb_trace_add_event(t, &e, err) ? -1 : 0;
}

int cb_trace_from_text(const char *text, cb_trace *t, cb_error *err) {
   tf_state s;
   memset(&s, 0, sizeof s);
   memset(t, 0, sizeof *t);
   t->header.format_version = 1;
   t->header.program = "text";
   t->header.tool_version = "text form";
   t->header.instrumented = "written by hand";
   uint64_t h = 1469598103934665603ull;
   for (const char *p = text; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
   t->header.trace_id = h;
   size_t lineno = 0;
   const char *p = text;
   int rc = 0;
   char line[1024];
   while (*p && !rc) {
      const char *nl = strchr(p, '\n');
      size_t len = nl ? (size_t)(nl - p) : strlen(p);
      lineno++;
      if (len >= sizeof line) { rc = cb_fail(err, "line %zu: too long", lineno); break; }
      memcpy(line, p, len);
      line[len] = 0;
      p += len + (nl ? 1 : 0);
      rc = one_line(&s, line, lineno, t, err);
   }
   for (size_t i = 0; i < s.n && !rc; i++) {
      if (!s.is_var[i]) continue;
      cb_symbol sym = {NAME_BASE + (uint64_t)i * NAME_STEP, s.size[i], s.names[i]};
      if (cb_trace_add_symbol(t, &sym, err)) rc = -1;
   }
   tf_free(&s);
   if (rc) { cb_trace_free(t); memset(t, 0, sizeof *t); return -1; }
   cb_trace_finish(t);
   return 0;
}
