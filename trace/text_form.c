/* text_form.c: a trace written by hand, one event a line, for tests (the
 * forms are listed in cbtrace.h).  Each distinct name gets its own address
 * (0x10000 apart) and becomes a symbol of the trace, so reports name it;
 * each distinct @file:line gets its own location, whose function is the
 * innermost open `begin` of that thread.  Extra words are accepted after a
 * read or write: `size N` (bytes, default 4), `same-insn` (the access
 * belongs to the same machine instruction as the thread's previous event,
 * CB_SIZE_SAME_INSN) and `split` (that instruction is a plain
 * read-modify-write replay can cut, CB_SIZE_SPLIT).
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
      char *hash = strchr(line, '#');
      if (hash) *hash = 0;
      char *w[MAX_WORDS];
      int nw = 0;
      for (char *tok = strtok(line, " \t\r"); tok; tok = strtok(NULL, " \t\r")) {
         if (nw == MAX_WORDS) { rc = cb_fail(err, "line %zu: too many words", lineno); break; }
         w[nw++] = tok;
      }
      if (rc || nw == 0) continue;
      /* Pull out the optional @file:line, =VALUE, size N, same-insn. */
      const char *at = NULL;
      int has_value = 0, same = 0, split = 0;
      uint64_t value = 0, size = 4;
      int k = 0;
      for (int i = 0; i < nw && !rc; i++) {
         if (w[i][0] == '@') at = w[i] + 1;
         else if (w[i][0] == '=') {
            const char *v = w[i][1] ? w[i] + 1 : (i + 1 < nw ? w[++i] : "");
            if (parse_u64(v, &value)) rc = cb_fail(err, "line %zu: bad value '%s'", lineno, v);
            has_value = 1;
         } else if (!strcmp(w[i], "same-insn")) same = 1;
         else if (!strcmp(w[i], "split")) split = 1;
         else if (!strcmp(w[i], "size") && i >= 3 && i + 1 < nw &&
                  (!strcmp(w[1], "read") || !strcmp(w[1], "write"))) {
            if (parse_u64(w[++i], &size) || size == 0 || size > 32)
               rc = cb_fail(err, "line %zu: bad size '%s'", lineno, w[i]);
         } else w[k++] = w[i];
      }
      if (rc) break;
      nw = k;
      cb_event e = {0};
      if (nw < 2 || parse_tid(w[0], &e.tid)) {
         rc = cb_fail(err, "line %zu: expected 'T<n> KIND ...'", lineno);
         break;
      }
      if (thread_slot(&s, e.tid)) { rc = cb_fail(err, "out of memory"); break; }
      const char *kw = w[1];
      int need = 0; /* operands wanted after the kind */
      long id = -1, id2 = -1;
      uint32_t other = 0;
#define NAME(i, var) (id = name_id(&s, w[i], var))
      /* Kind names are cb_event_kind_from_name's (the one table, names.c);
       * the lock modes and "broadcast" add only the size or value byte. */
      int kind = cb_event_kind_from_name(kw);
      int lock_word = !strcmp(kw, "rdlock") || !strcmp(kw, "wrlock") ||
                      !strcmp(kw, "trylock");
      if (lock_word)
         kind = CB_EV_LOCK;
      if (kind <= CB_EV_NONE) {
         rc = cb_fail(err, "line %zu: unknown kind '%s'", lineno, kw);
         break;
      }
      e.kind = (uint8_t)kind;
      switch (e.kind) {
      case CB_EV_READ: case CB_EV_WRITE:
         need = 1;
         e.size = (uint8_t)(size | (same ? CB_SIZE_SAME_INSN : 0) |
                            (split ? CB_SIZE_SPLIT : 0));
         if (has_value) e.value = value;
         break;
      case CB_EV_LOCK:
         need = 1;
         e.size = kw[0] == 'r' ? CB_LOCK_RD : kw[0] == 'w' ? CB_LOCK_WR : CB_LOCK_MUTEX;
         e.value = kw[0] == 't';
         break;
      case CB_EV_COND_SIGNAL:
         need = 1;
         e.size = kw[0] == 'b';
         break;
      case CB_EV_COND_WAIT: case CB_EV_BARRIER_ENTER: case CB_EV_BARRIER_LEAVE:
      case CB_EV_ALLOC: case CB_EV_SEM_POST: case CB_EV_SEM_WAIT:
         need = 2;
         break;
      case CB_EV_THREAD_EXIT: case CB_EV_ATOMIC_BEGIN: case CB_EV_ATOMIC_END:
         need = 0;
         break;
      default: /* unlock, create, join, start, begin, end, free */
         need = 1;
         break;
      }
      if (nw != 2 + need) {
         rc = cb_fail(err, "line %zu: '%s' wants %d operand%s", lineno, kw, need,
                      need == 1 ? "" : "s");
         break;
      }
      switch (e.kind) {
      case CB_EV_THREAD_CREATE: case CB_EV_THREAD_JOIN: case CB_EV_THREAD_START:
         if (parse_tid(w[2], &other)) { rc = cb_fail(err, "line %zu: '%s' is not a thread", lineno, w[2]); break; }
         e.value = other;
         break;
      case CB_EV_THREAD_EXIT: case CB_EV_ATOMIC_BEGIN: case CB_EV_ATOMIC_END:
         break;
      case CB_EV_UNHANDLED: {
         int code = cb_call_from_name(w[2]);
         if (code < 0) { rc = cb_fail(err, "line %zu: unknown call '%s'", lineno, w[2]); break; }
         e.size = (uint8_t)code;
         break;
      }
      case CB_EV_BARRIER_ENTER: case CB_EV_BARRIER_LEAVE:
      case CB_EV_SEM_POST: case CB_EV_SEM_WAIT:
         if (NAME(2, 1) < 0 || parse_u64(w[3], &e.value)) {
            rc = cb_fail(err, "line %zu: want '%s NAME N'", lineno, kw); break; }
         e.addr = NAME_BASE + (uint64_t)id * NAME_STEP;
         break;
      case CB_EV_ALLOC: {
         uint64_t sz;
         if (NAME(2, 1) < 0 || parse_u64(w[3], &sz)) {
            rc = cb_fail(err, "line %zu: want 'alloc X SIZE'", lineno); break; }
         s.size[id] = sz ? sz : 1;
         e.addr = NAME_BASE + (uint64_t)id * NAME_STEP;
         e.value = sz;
         break;
      }
      case CB_EV_COND_WAIT:
         if (NAME(2, 1) < 0 || (id2 = name_id(&s, w[3], 1)) < 0) { rc = cb_fail(err, "out of memory"); break; }
         e.addr = NAME_BASE + (uint64_t)id * NAME_STEP;
         e.value = NAME_BASE + (uint64_t)id2 * NAME_STEP;
         break;
      case CB_EV_RELEASE: case CB_EV_ACQUIRE:
         if (NAME(2, 1) < 0) { rc = cb_fail(err, "out of memory"); break; }
         e.addr = NAME_BASE + (uint64_t)id * NAME_STEP;
         e.size = CB_SYNC_ONCE;
         break;
      case CB_EV_BLOCK_BEGIN: case CB_EV_BLOCK_END:
         if (NAME(2, 0) < 0) { rc = cb_fail(err, "out of memory"); break; }
         e.addr = NAME_BASE + (uint64_t)id * NAME_STEP;
         if (e.kind == CB_EV_BLOCK_BEGIN) {
            if (s.depth[e.tid] < MAX_DEPTH) s.stack[e.tid][s.depth[e.tid]] = (size_t)id;
            s.depth[e.tid]++;
         }
         break;
      default:
         if (NAME(2, 1) < 0) { rc = cb_fail(err, "out of memory"); break; }
         e.addr = NAME_BASE + (uint64_t)id * NAME_STEP;
         break;
      }
      if (rc) break;
      if (at) {
         const char *colon = strrchr(at, ':');
         uint64_t ln = 0;
         if (!colon || colon == at || parse_u64(colon + 1, &ln) || ln > 0xffffffffu) {
            rc = cb_fail(err, "line %zu: want @file:line, got '@%s'", lineno, at);
            break;
         }
         size_t li;
         for (li = 0; li < s.nlocs; li++) if (!strcmp(s.locs[li], at)) break;
         if (li == s.nlocs) {
            if (grow((void **)&s.locs, &s.caplocs, s.nlocs, sizeof *s.locs) ||
                !(s.locs[s.nlocs] = strdup(at))) { rc = cb_fail(err, "out of memory"); break; }
            s.nlocs++;
            char file[1024];
            size_t fl = (size_t)(colon - at);
            memcpy(file, at, fl);
            file[fl] = 0;
            uint32_t d = s.depth[e.tid];
            const char *fn = d && d <= MAX_DEPTH ? s.names[s.stack[e.tid][d - 1]] : "";
            cb_location L = {0x400000 + 16 * (uint64_t)(li + 1), "text", fn, file, (uint32_t)ln, ""};
            if (cb_trace_set_location(t, (uint32_t)(li + 1), &L, err)) { rc = -1; break; }
         }
         e.loc = (uint32_t)(li + 1);
      }
      if (e.kind == CB_EV_BLOCK_END && s.depth[e.tid]) s.depth[e.tid]--;
      if (cb_trace_add_event(t, &e, err)) { rc = -1; break; }
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
