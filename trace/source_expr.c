/* source_expr.c: the program's own words for memory that the debug
 * information cannot name.
 *
 * A heap block has no type in the debug information (malloc returns
 * void *), so the trace can only call its field "heap block of 72 bytes
 * from table.c:41, offset 8".  The source lines of the accesses to it
 * usually say more: `t->count = n;` and `if (t->count != NPRIMES)`.  The
 * expressions that reach memory through a pointer (`p->field`, `p[i]`,
 * `*p`) are found on each line, and when one field is on every line that
 * has any, that is the name (cb_source_expr).  Where two fields are on
 * every line (`if (c->slots[k]) c->st->hits++;`), the one reached through
 * what the block was stored in when allocated (`c->st = calloc(...)`)
 * names it (cb_source_expr_in).  Anything less certain gives no name: a
 * wrong name would send the user to the wrong field.  cb_location_source keeps each
 * location's line, read once per trace.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cbtrace.h"
#include "trace_internal.h"

#define MAX_KEYS 24
#define KEY_LEN 64
#define SHOW_LEN 48

typedef struct {
   char key[KEY_LEN];   /* the field, whatever the pointer: "items" */
   char show[KEY_LEN];  /* as first written: "q->items[q->head]" */
} expr_key;

typedef struct {
   expr_key k[MAX_KEYS];
   size_t n;
   const char *dot_root; /* also `root.member` chains of this variable, or NULL */
} line_keys;

static int is_id(int c) { return isalnum(c) || c == '_'; }

/* The line with comments and the insides of literals blanked, so that
 * neither is read as code. */
static void code_only(const char *in, char *out, size_t n)
{
   size_t k = 0;
   char quote = 0;
   for (size_t i = 0; in[i] && k + 1 < n; i++) {
      char c = in[i];
      if (quote) {
         if (c == quote)
            quote = 0;
         else
            c = ' ';
         if (in[i] == '\\' && in[i + 1])
            i++; /* an escaped quote does not end the literal */
         out[k++] = c;
         continue;
      }
      if (c == '/' && in[i + 1] == '/')
         break;
      if (c == '/' && in[i + 1] == '*') {
         const char *end = strstr(in + i + 2, "*/");
         if (!end)
            break;
         i = (size_t)(end - in) + 1;
         out[k++] = ' ';
         continue;
      }
      if (c == '"' || c == '\'')
         quote = c;
      out[k++] = c;
   }
   out[k] = 0;
}

static size_t skip_blanks(const char *s, size_t i)
{
   while (s[i] == ' ' || s[i] == '\t')
      i++;
   return i;
}

/* Past the ']' that closes the '[' at s[i]; i itself when unbalanced. */
static size_t skip_index(const char *s, size_t i)
{
   int depth = 0;
   for (size_t j = i; s[j]; j++) {
      depth += s[j] == '[';
      depth -= s[j] == ']';
      if (depth == 0)
         return j + 1;
   }
   return i;
}

/* Whether the '*' at s[at] is a dereference, not a product: nothing that
 * ends an operand comes before it (a keyword like `return` aside). */
static int unary_star(const char *s, size_t at)
{
   size_t j = at;
   while (j > 0 && (s[j - 1] == ' ' || s[j - 1] == '\t'))
      j--;
   if (j == 0)
      return 1;
   char c = s[j - 1];
   if (c == ')' || c == ']')
      return 0;
   if (!is_id(c))
      return 1;
   size_t b = j;
   while (b > 0 && is_id(s[b - 1]))
      b--;
   return j - b == 6 && strncmp(s + b, "return", 6) == 0;
}

static size_t brackets(const char *s)
{
   size_t n = 0;
   for (; *s; s++)
      n += *s == '[';
   return n;
}

/* Whether every index of s is a number: names[0], not names[idx]. */
static int literal_indices(const char *s)
{
   for (const char *b = strchr(s, '['); b; b = strchr(b + 1, '[')) {
      size_t d = strspn(b + 1, "0123456789");
      if (d == 0 || b[1 + d] != ']')
         return 0;
   }
   return 1;
}

/* The field's text with the fewest indices wins: where one line has
 * `p->jobs[p->head]` and another `p->jobs`, the memory both reach is the
 * field `p->jobs` (an element would be in the block it points to).  Of
 * as many, one whose indices are numbers says which element. */
static void set_show(expr_key *k, const char *show)
{
   if (strlen(show) >= SHOW_LEN)
      show = k->key; /* too long to read in a title */
   size_t nb = brackets(show), ob = brackets(k->show);
   if (!k->show[0] || nb < ob ||
       (nb == ob && literal_indices(show) && !literal_indices(k->show)))
      snprintf(k->show, KEY_LEN, "%s", show);
}

static void add_key(line_keys *lk, const char *key, const char *show)
{
   for (size_t i = 0; i < lk->n; i++)
      if (strcmp(lk->k[i].key, key) == 0) {
         set_show(&lk->k[i], show);
         return;
      }
   if (lk->n == MAX_KEYS || strlen(key) >= KEY_LEN)
      return;
   snprintf(lk->k[lk->n].key, KEY_LEN, "%s", key);
   lk->k[lk->n].show[0] = 0;
   set_show(&lk->k[lk->n], show);
   lk->n++;
}

/* Appends s[from, to) to buf (n bytes) without the blanks around its
 * operators (inside an index they stay, one for each run). */
static void append_chain(char *buf, size_t n, const char *s, size_t from,
                         size_t to)
{
   size_t k = strlen(buf);
   int depth = 0;
   for (size_t i = from; i < to && k + 1 < n; i++) {
      int blank = s[i] == ' ' || s[i] == '\t';
      depth += (s[i] == '[') - (s[i] == ']');
      if (!blank)
         buf[k++] = s[i];
      else if (depth > 0 && k > 0 && buf[k - 1] != ' ')
         buf[k++] = ' ';
   }
   buf[k] = 0;
}

/* The last name of the chain s[start, end) outside brackets: a field is
 * the same field whether the line reaches it as `t->buckets[i]`,
 * `tab.buckets[k]` or `t->buckets`. */
static const char *last_member(const char *s, size_t start, size_t end,
                               char *key, size_t n)
{
   size_t from = start, to = start;
   int depth = 0;
   for (size_t i = start; i < end; i++) {
      if (s[i] == '[')
         depth++;
      else if (s[i] == ']')
         depth--;
      else if (depth == 0 && is_id(s[i]) && (i == start || !is_id(s[i - 1]))) {
         from = i;
         for (to = i; to < end && is_id(s[to]); to++)
            ;
      }
   }
   snprintf(key, n, "%.*s", (int)(to - from), s + from);
   return key;
}

/* The chain of postfix operators starting with the identifier at s[i]
 * (a->b.c[i]->d): adds its key when it reaches memory through a pointer,
 * and returns where the chain ends. */
static size_t chain_at(const char *s, size_t i, line_keys *lk)
{
   size_t start = i, end = i, last_arrow = (size_t)-1;
   int index = 0;
   while (is_id(s[end]))
      end++;
   size_t id_end = end;
   for (;;) {
      size_t j = skip_blanks(s, end);
      if (s[j] == '-' && s[j + 1] == '>') {
         size_t m = skip_blanks(s, j + 2);
         if (!is_id(s[m]) || isdigit((unsigned char)s[m]))
            break;
         last_arrow = j;
         for (end = m; is_id(s[end]); end++)
            ;
      } else if (s[j] == '.' && is_id(s[skip_blanks(s, j + 1)]) &&
                 !isdigit((unsigned char)s[skip_blanks(s, j + 1)])) {
         for (end = skip_blanks(s, j + 1); is_id(s[end]); end++)
            ;
      } else if (s[j] == '[' && skip_index(s, j) > j) {
         end = skip_index(s, j);
         index = 1;
      } else {
         break;
      }
   }
   char key[KEY_LEN] = "", show[KEY_LEN * 2] = "";
   append_chain(show, sizeof show, s, start, end);
   int of_root = lk->dot_root && end > id_end && strlen(lk->dot_root) == id_end - start &&
                 strncmp(s + start, lk->dot_root, id_end - start) == 0;
   if (last_arrow != (size_t)-1 || index || of_root) {
      add_key(lk, last_member(s, start, end, key, sizeof key), show);
   } else if (end == id_end && start > 0 && s[skip_blanks(s, end)] != '(') {
      size_t b = start;
      while (b > 0 && (s[b - 1] == ' ' || s[b - 1] == '\t'))
         b--;
      if (b > 0 && s[b - 1] == '*' && unary_star(s, b - 1) &&
          !(b > 1 && s[b - 2] == '*')) {
         snprintf(show, sizeof show, "*%.*s", (int)(end - start), s + start);
         add_key(lk, show + 1, show);
      }
   }
   return id_end;
}

/* Every expression of the line that reaches memory through a pointer. */
static void keys_of(const char *line, line_keys *lk)
{
   char s[512];
   code_only(line, s, sizeof s);
   lk->n = 0;
   for (size_t i = 0; s[i];) {
      if (!is_id(s[i]) || isdigit((unsigned char)s[i])) {
         i++;
         continue;
      }
      /* A member after '.' or '->' belongs to the chain before it. */
      size_t b = i;
      while (b > 0 && (s[b - 1] == ' ' || s[b - 1] == '\t'))
         b--;
      int member = b > 0 && (s[b - 1] == '.' || (b > 1 && s[b - 1] == '>' &&
                                                 s[b - 2] == '-'));
      if (member || (i > 0 && is_id(s[i - 1]))) {
         while (is_id(s[i]))
            i++;
         continue;
      }
      i = chain_at(s, i, lk);
   }
}

/* The identifier an allocation's line stores the block in: `st` of
 * "c->st = calloc(1, sizeof *c->st);", `t` of "struct table *t =
 * malloc(...)"; "" when the line assigns nothing. */
static void stored_in(const char *line, char *out, size_t n)
{
   char s[512];
   code_only(line ? line : "", s, sizeof s);
   out[0] = 0;
   for (size_t i = 0; s[i]; i++)
      if (s[i] == '=' && s[i + 1] != '=' && i > 0 && !strchr("=!<>+-*/%&|^", s[i - 1])) {
         last_member(s, 0, i, out, n);
         return;
      }
}

/* Whether the expression's pointer (its text up to the last member)
 * ends with the identifier `owner`: `c->st->hits` with owner `st`. */
static int reached_through(const char *show, const char *owner)
{
   size_t cut = 0;
   int depth = 0;
   for (size_t i = 0; show[i]; i++) {
      depth += (show[i] == '[') - (show[i] == ']');
      if (depth == 0 && (show[i] == '.' || (show[i] == '-' && show[i + 1] == '>')))
         cut = i;
   }
   char base[KEY_LEN];
   return cut > 0 && *owner &&
          strcmp(last_member(show, 0, cut, base, sizeof base), owner) == 0;
}

/* cb_source_expr, or, with want, the expression of that field (or array)
 * alone: the one the variable's name ends with.  With owner (the
 * identifier the block was stored in when allocated), two or more fields
 * on every line are narrowed to those reached through it. */
static int find_expr(const char *const *lines, size_t n, const char *want,
                     const char *owner, const char *dot_root, char *out, size_t len)
{
   line_keys *lk = calloc(n ? n : 1, sizeof *lk);
   if (!lk || len == 0) {
      free(lk);
      return 0;
   }
   size_t first = n;
   for (size_t i = 0; i < n; i++) {
      lk[i].dot_root = dot_root;
      keys_of(lines[i] ? lines[i] : "", &lk[i]);
      if (lk[i].n && first == n)
         first = i;
   }
   /* The keys of the first line that has any, kept when every other line
    * that has any has them too: exactly one must be left. */
   expr_key cand[MAX_KEYS];
   size_t count = 0;
   for (size_t a = 0; first < n && a < lk[first].n; a++) {
      int everywhere = 1;
      expr_key best = lk[first].k[a];
      for (size_t i = first + 1; i < n && everywhere; i++) {
         int here = lk[i].n == 0;
         for (size_t b = 0; b < lk[i].n && !here; b++)
            if (strcmp(lk[i].k[b].key, best.key) == 0) {
               set_show(&best, lk[i].k[b].show);
               here = 1;
            }
         everywhere = here;
      }
      if (everywhere && (!want || strcmp(best.key, want) == 0))
         cand[count++] = best;
   }
   free(lk);
   if (count > 1 && owner) {
      size_t kept = 0;
      for (size_t i = 0; i < count; i++)
         if (reached_through(cand[i].show, owner))
            cand[kept++] = cand[i];
      count = kept;
   }
   if (count == 1)
      snprintf(out, len, "%s", cand[0].show);
   return count == 1;
}

int cb_source_expr_in(const char *const *lines, size_t n, const char *alloc_line,
                      char *out, size_t len)
{
   char owner[KEY_LEN];
   stored_in(alloc_line, owner, sizeof owner);
   return find_expr(lines, n, NULL, owner, NULL, out, len);
}

int cb_source_expr(const char *const *lines, size_t n, char *out, size_t len)
{
   return find_expr(lines, n, NULL, NULL, NULL, out, len);
}

int cb_source_expr_of(const char *const *lines, size_t n, const char *name,
                      char *out, size_t len)
{
   /* The name's last identifier outside brackets: "st.items" -> items. */
   char want[KEY_LEN];
   size_t end = strlen(name);
   return end > 0 && find_expr(lines, n, last_member(name, 0, end, want,
                                                     sizeof want),
                               NULL, NULL, out, len);
}

int cb_source_member_of(const char *const *lines, size_t n, const char *owner,
                        char *out, size_t len)
{
   char expr[KEY_LEN * 4];
   if (!*owner || !find_expr(lines, n, NULL, owner, owner, expr, sizeof expr) ||
       !reached_through(expr, owner))
      return 0;
   snprintf(out, len, "%s", expr);
   return 1;
}

const char *cb_location_source(const cb_trace *ct, uint32_t loc)
{
   static const char none[] = "";
   cb_trace *t = (cb_trace *)ct; /* the lines are a cache, not content */
   cb_trace_priv *p = cb_trace_priv_get(t, NULL);
   if (!p || loc == 0 || loc >= t->nlocs)
      return NULL;
   if (p->nsrcs != t->nlocs) {
      free(p->srcs);
      p->srcs = calloc(t->nlocs, sizeof *p->srcs);
      p->nsrcs = p->srcs ? t->nlocs : 0;
      if (!p->srcs)
         return NULL;
   }
   if (!p->srcs[loc]) {
      const cb_location *l = &t->locs[loc];
      const char *dirs[2] = {l->dir, ""};
      char text[512];
      const char *copy = NULL;
      if (l->line &&
          cb_source_line(dirs, 2, l->file, l->line, l->object, text,
                         sizeof text))
         copy = cb_trace_strdup(t, text);
      p->srcs[loc] = copy ? copy : none;
   }
   return p->srcs[loc][0] ? p->srcs[loc] : NULL;
}
