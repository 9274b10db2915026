/* lockset.c: locksets and acquisition histories (PENELOPE section 3.2).
 *
 * A lock state is the set of held locks and, for each held lock l, the set
 * AH(l) of locks acquired after the last acquisition of l (whether or not
 * they were released since).  States are interned (id 0 = nothing held) and
 * stored flattened: [n, l1, k1, a1..ak1, l2, k2, ...] with held locks sorted
 * by id and each AH sorted, so equal states get equal ids.  Transitions and
 * compatibility answers are cached: a lock event costs one hash look-up.
 *
 * Reader/writer locks: a lock id names a lock in one mode.  A mutex, and
 * an rwlock taken to write, is the lock's own id (cbp_lock_id); an rwlock
 * taken to read has a second id (cbp_lock_rd_id) whose base is the first.
 * Locksets and acquisition histories hold these ids, and every question
 * "do these two acquisitions exclude each other" is cbp_locks_conflict:
 * the same lock, and not both read (CB_LOCK_MODES_CONFLICT, cb_wire.h,
 * the rule the tool's deadlock check and the Z3 encoding use too).  Two
 * read-locked sections of one rwlock may therefore interleave, as they do
 * in the program: a thread that updates shared data under rdlock instead
 * of wrlock is an atomicity violation like any other.  The compatibility
 * check is Kahlon et al.'s with conflict for equality: T1 holding l having
 * taken x since, T2 holding l2 having taken y since, cannot coexist when x
 * conflicts with l2 and y with l (each section would have to end before
 * the other's hold began).
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include <stdlib.h>
#include <string.h>

#include "predict.h"

/* A power of two (TFAST_BITS of the key's hash).  256 missed one look-up
 * in four on 10 M generated events with 100 locks (two keys a lock: its
 * acquisition from nothing held and its release), each then a map probe. */
#define TFAST_BITS 12
#define TFAST (1u << TFAST_BITS)
typedef struct { uint64_t key; uint32_t val, used; } tfast_ent;

struct cbp_locks {
   /* locks */
   cbp_map lmap; uint64_t *laddr; size_t nlocks, caplocks; /* lmap: own ids only */
   uint32_t *lpeer;  /* per id: a lock's own id -> its read id + 1 (0: none
                        yet); a read id -> its lock's own id */
   uint8_t *lrd;     /* per id: 1 for a read id */
   size_t capx;      /* of lpeer and lrd */
   size_t ndistinct; /* locks, not ids */
   uint64_t last_addr; uint32_t last_id; /* the last look-up: most unlocks
                                           come just after their lock */
   /* states */
   cbp_map smap; uint32_t *pool; size_t npool, cappool;
   size_t *soff; size_t nstates, capstates;
   /* transition cache: key (state, op, lock) -> state */
   cbp_map tmap; uint64_t *tkey; uint32_t *tval; size_t ntr, captr;
   /* ... and in front of it, by a few bits of the key, the transitions
    * last taken (every lock event of four passes asks): no hash, one
    * compare */
   tfast_ent tfast[TFAST];
   /* compatibility cache: key (s1, s2) -> 0/1 */
   cbp_map cmap; uint64_t *ckey; uint8_t *cval; size_t ncmp, capcmp;
   uint32_t *scratch; size_t capscratch;
};

static int eq_u64(const void *c, uint32_t i, const void *k) {
   return (*(uint64_t *const *)c)[i] == *(const uint64_t *)k;
}
static uint64_t hash_u64(const void *c, uint32_t i) {
   return cbp_mix((*(uint64_t *const *)c)[i]);
}

static const uint32_t *state_words(const cbp_locks *L, uint32_t s, size_t *len) {
   size_t b = L->soff[s], e = L->soff[s + 1];
   *len = e - b;
   return L->pool + b;
}
static uint64_t hash_words(const uint32_t *w, size_t n) {
   uint64_t h = 1469598103934665603ull;
   for (size_t i = 0; i < n; i++) h = (h ^ w[i]) * 1099511628211ull;
   return cbp_mix(h);
}
typedef struct { const uint32_t *w; size_t n; } words;
static int eq_state(const void *c, uint32_t i, const void *k) {
   size_t n; const uint32_t *w = state_words(c, i, &n);
   const words *q = k;
   return n == q->n && memcmp(w, q->w, n * sizeof *w) == 0;
}
static uint64_t hash_state(const void *c, uint32_t i) {
   size_t n; const uint32_t *w = state_words(c, i, &n);
   return hash_words(w, n);
}

static uint32_t intern(cbp_locks *L, const uint32_t *w, size_t n) {
   words q = {w, n};
   uint32_t *s = cbp_map_probe(&L->smap, hash_words(w, n), eq_state, L, &q);
   if (*s) return *s - 1;
   while (L->npool + n > L->cappool) {
      L->cappool = L->cappool ? L->cappool * 2 : 1024;
      L->pool = cbp_xrealloc(L->pool, L->cappool * sizeof *L->pool);
      if (!L->pool) abort();
   }
   memcpy(L->pool + L->npool, w, n * sizeof *w);
   L->npool += n;
   L->soff = cbp_grow(L->soff, &L->capstates, L->nstates + 1, sizeof *L->soff);
   uint32_t id = (uint32_t)L->nstates++;
   L->soff[id + 1] = L->npool;
   *s = id + 1;
   cbp_map_added(&L->smap, hash_state, L);
   return id;
}

cbp_locks *cbp_locks_new(void) {
   cbp_locks *L = cbp_xcalloc(1, sizeof *L);
   cbp_map_init(&L->lmap, 64);
   cbp_map_init(&L->smap, 64);
   cbp_map_init(&L->tmap, 256);
   cbp_map_init(&L->cmap, 256);
   L->soff = cbp_grow(NULL, &L->capstates, 1, sizeof *L->soff);
   L->soff[0] = 0;
   uint32_t empty = 0;
   intern(L, &empty, 1); /* id 0: nothing held */
   return L;
}

void cbp_locks_free(cbp_locks *L) {
   if (!L) return;
   cbp_map_free(&L->lmap); free(L->laddr); free(L->lpeer); free(L->lrd);
   cbp_map_free(&L->smap); free(L->pool); free(L->soff);
   cbp_map_free(&L->tmap); free(L->tkey); free(L->tval);
   cbp_map_free(&L->cmap); free(L->ckey); free(L->cval);
   free(L->scratch); free(L);
}

static uint32_t new_id(cbp_locks *L, uint64_t addr, uint32_t peer, uint8_t rd) {
   size_t cap = L->capx;
   L->laddr = cbp_grow(L->laddr, &L->caplocks, L->nlocks, sizeof *L->laddr);
   L->lpeer = cbp_grow(L->lpeer, &cap, L->nlocks, sizeof *L->lpeer);
   L->lrd = cbp_grow(L->lrd, &L->capx, L->nlocks, sizeof *L->lrd);
   uint32_t id = (uint32_t)L->nlocks++;
   L->laddr[id] = addr; L->lpeer[id] = peer; L->lrd[id] = rd;
   return id;
}

uint32_t cbp_lock_id(cbp_locks *L, uint64_t addr) {
   if (L->nlocks && addr == L->last_addr) return L->last_id;
   uint32_t *s = cbp_map_probe(&L->lmap, cbp_mix(addr), eq_u64, &L->laddr, &addr);
   L->last_addr = addr;
   if (*s) return L->last_id = *s - 1;
   uint32_t id = new_id(L, addr, 0, 0);
   L->ndistinct++;
   *s = id + 1;
   cbp_map_added(&L->lmap, hash_u64, &L->laddr);
   return L->last_id = id;
}

uint32_t cbp_lock_rd_id(cbp_locks *L, uint64_t addr) {
   uint32_t own = cbp_lock_id(L, addr);
   if (!L->lpeer[own]) {
      uint32_t rd = new_id(L, addr, own, 1);
      L->lpeer[own] = rd + 1;
   }
   return L->lpeer[own] - 1;
}

uint32_t cbp_lock_base(const cbp_locks *L, uint32_t lock) {
   return L->lrd[lock] ? L->lpeer[lock] : lock;
}
int cbp_lock_is_rd(const cbp_locks *L, uint32_t lock) { return L->lrd[lock]; }

int cbp_locks_conflict(const cbp_locks *L, uint32_t a, uint32_t b) {
   return cbp_lock_base(L, a) == cbp_lock_base(L, b) &&
          CB_LOCK_MODES_CONFLICT(L->lrd[a] ? CB_LOCK_RD : CB_LOCK_WR,
                                 L->lrd[b] ? CB_LOCK_RD : CB_LOCK_WR);
}

uint32_t cbp_lock_of(cbp_locks *L, const cbp_held *h, const cb_event *e) {
   if (e->kind == CB_EV_UNLOCK) /* the mode it holds (a text trace's unlock has none) */
      for (uint32_t i = 0; h && i < h->n; i++)
         if (L->laddr[h->lock[i]] == e->addr) return h->lock[i];
   return e->size == CB_LOCK_RD ? cbp_lock_rd_id(L, e->addr) : cbp_lock_id(L, e->addr);
}

int cbp_held_conflicts(const cbp_locks *L, const cbp_held *h, uint32_t lock) {
   for (uint32_t i = 0; i < h->n; i++)
      if (cbp_locks_conflict(L, h->lock[i], lock)) return 1;
   return 0;
}

uint64_t cbp_lock_addr(const cbp_locks *L, uint32_t lock) { return L->laddr[lock]; }
uint32_t cbp_locks_nstates(const cbp_locks *L) { return (uint32_t)L->nstates; }
uint32_t cbp_locks_nlocks(const cbp_locks *L) { return (uint32_t)L->ndistinct; }
uint32_t cbp_locks_nids(const cbp_locks *L) { return (uint32_t)L->nlocks; }

int cbp_locks_extend(const cbp_locks *L, const cbp_locks *sub) {
   if (sub->nlocks > L->nlocks || sub->nstates > L->nstates) return 0;
   for (size_t k = 0; k < sub->nlocks; k++) {
      /* An own id's peer (its read id) may come later in L only. */
      if (L->laddr[k] != sub->laddr[k] || L->lrd[k] != sub->lrd[k]) return 0;
      if ((sub->lrd[k] || sub->lpeer[k]) && L->lpeer[k] != sub->lpeer[k]) return 0;
   }
   size_t words = sub->soff[sub->nstates];
   return memcmp(L->soff, sub->soff, (sub->nstates + 1) * sizeof *L->soff) == 0 &&
          memcmp(L->pool, sub->pool, words * sizeof *L->pool) == 0;
}

uint32_t cbp_locks_nheld(const cbp_locks *L, uint32_t state) {
   return L->pool[L->soff[state]];
}

uint32_t cbp_locks_held(const cbp_locks *L, uint32_t state, uint32_t i,
                        const uint32_t **ah, uint32_t *nah) {
   const uint32_t *w = L->pool + L->soff[state] + 1;
   for (uint32_t k = 0; k < i; k++) w += 2 + w[1];
   *nah = w[1];
   *ah = w + 2;
   return w[0];
}

static int has(const uint32_t *a, uint32_t n, uint32_t x) {
   uint32_t lo = 0, hi = n;
   while (lo < hi) {
      uint32_t m = (lo + hi) / 2;
      if (a[m] == x) return 1;
      if (a[m] < x) lo = m + 1; else hi = m;
   }
   return 0;
}

static uint32_t *scratch(cbp_locks *L, size_t n) {
   if (n > L->capscratch) {
      L->capscratch = n * 2;
      L->scratch = cbp_xrealloc(L->scratch, L->capscratch * sizeof *L->scratch);
      if (!L->scratch) abort();
   }
   return L->scratch;
}

/* Builds the successor of `state` after acquiring (op 0) or releasing (op 1)
 * `lock`, which is not held / held. */
static uint32_t transition(cbp_locks *L, uint32_t state, int op, uint32_t lock) {
   size_t n; const uint32_t *w0 = state_words(L, state, &n);
   uint32_t *out = scratch(L, n + 2 * (size_t)w0[0] + 4);
   w0 = state_words(L, state, &n); /* pool did not move; keeps it obvious */
   uint32_t nheld = w0[0], outn = 0;
   size_t o = 1;
   const uint32_t *w = w0 + 1;
   int placed = op == 1;
   for (uint32_t k = 0; k < nheld; k++) {
      uint32_t l = w[0], na = w[1];
      const uint32_t *ah = w + 2;
      w += 2 + na;
      if (op == 0 && !placed && lock < l) {
         out[o++] = lock; out[o++] = 0; outn++; placed = 1;
      }
      if (op == 1 && l == lock) continue;
      out[o++] = l;
      size_t cnt = o++;
      uint32_t m = 0;
      int added = op == 1 || has(ah, na, lock);
      for (uint32_t j = 0; j < na; j++) {
         if (!added && lock < ah[j]) { out[o++] = lock; m++; added = 1; }
         out[o++] = ah[j]; m++;
      }
      if (!added) { out[o++] = lock; m++; }
      out[cnt] = m;
      outn++;
   }
   if (!placed) { out[o++] = lock; out[o++] = 0; outn++; }
   out[0] = outn;
   return intern(L, out, o);
}

static uint32_t cached(cbp_locks *L, uint32_t state, int op, uint32_t lock) {
   uint64_t key = ((uint64_t)state << 33) | ((uint64_t)op << 32) | lock;
   tfast_ent *f = &L->tfast[(key * 0x9e3779b97f4a7c15ull) >> (64 - TFAST_BITS)];
   if (f->used && f->key == key) return f->val;
   uint32_t *s = cbp_map_probe(&L->tmap, cbp_mix(key), eq_u64, &L->tkey, &key);
   f->used = 1; f->key = key;
   if (*s) return f->val = L->tval[*s - 1];
   uint32_t r = transition(L, state, op, lock);
   f->val = r;
   s = cbp_map_probe(&L->tmap, cbp_mix(key), eq_u64, &L->tkey, &key);
   size_t cap = L->captr;
   L->tkey = cbp_grow(L->tkey, &cap, L->ntr, sizeof *L->tkey);
   L->tval = cbp_grow(L->tval, &L->captr, L->ntr, sizeof *L->tval);
   L->tkey[L->ntr] = key; L->tval[L->ntr] = r;
   *s = (uint32_t)++L->ntr;
   cbp_map_added(&L->tmap, hash_u64, &L->tkey);
   return r;
}

uint32_t cbp_locks_acquire(cbp_locks *L, uint32_t state, uint32_t lock) {
   return cached(L, state, 0, lock);
}
uint32_t cbp_locks_release(cbp_locks *L, uint32_t state, uint32_t lock) {
   return cached(L, state, 1, lock);
}

/* Whether the sorted ids a[0..n) hold one that conflicts with lock: its
 * lock's own id, or (lock not read) its read id. */
static int has_conflicting(const cbp_locks *L, const uint32_t *a, uint32_t n, uint32_t lock) {
   uint32_t own = cbp_lock_base(L, lock);
   if (has(a, n, own)) return 1;
   return !L->lrd[lock] && L->lpeer[own] && has(a, n, L->lpeer[own] - 1);
}

int cbp_locks_excludes(const cbp_locks *L, uint32_t state, uint32_t lock) {
   uint32_t n = cbp_locks_nheld(L, state);
   for (uint32_t i = 0; i < n; i++) {
      const uint32_t *ah; uint32_t nah;
      if (cbp_locks_conflict(L, cbp_locks_held(L, state, i, &ah, &nah), lock)) return 1;
   }
   return 0;
}

static int compute_compatible(const cbp_locks *L, uint32_t s1, uint32_t s2) {
   uint32_t n1 = cbp_locks_nheld(L, s1), n2 = cbp_locks_nheld(L, s2);
   for (uint32_t i = 0; i < n1; i++) {
      const uint32_t *a1; uint32_t k1;
      uint32_t l = cbp_locks_held(L, s1, i, &a1, &k1);
      for (uint32_t j = 0; j < n2; j++) {
         const uint32_t *a2; uint32_t k2;
         uint32_t l2 = cbp_locks_held(L, s2, j, &a2, &k2);
         if (cbp_locks_conflict(L, l, l2)) return 0; /* locksets meet */
         /* AH1(l) has a conflicting l2, AH2(l2) a conflicting l */
         if (has_conflicting(L, a1, k1, l2) && has_conflicting(L, a2, k2, l)) return 0;
      }
   }
   return 1;
}

int cbp_locks_compatible(cbp_locks *L, uint32_t s1, uint32_t s2) {
   if (s1 == 0 || s2 == 0) return 1;
   if (s1 > s2) { uint32_t t = s1; s1 = s2; s2 = t; }
   uint64_t key = ((uint64_t)s1 << 32) | s2;
   uint32_t *s = cbp_map_probe(&L->cmap, cbp_mix(key), eq_u64, &L->ckey, &key);
   if (*s) return L->cval[*s - 1];
   int r = compute_compatible(L, s1, s2);
   size_t cap = L->capcmp;
   L->ckey = cbp_grow(L->ckey, &cap, L->ncmp, sizeof *L->ckey);
   L->cval = cbp_grow(L->cval, &L->capcmp, L->ncmp, sizeof *L->cval);
   L->ckey[L->ncmp] = key; L->cval[L->ncmp] = (uint8_t)r;
   *s = (uint32_t)++L->ncmp;
   cbp_map_added(&L->cmap, hash_u64, &L->ckey);
   return r;
}

int cbp_held_acquire(cbp_held *h, uint32_t lock) {
   for (uint32_t i = 0; i < h->n; i++)
      if (h->lock[i] == lock) { h->count[i]++; return 0; }
   if (h->n == h->cap) {
      h->cap = h->cap ? h->cap * 2 : 4;
      h->lock = cbp_xrealloc(h->lock, h->cap * sizeof *h->lock);
      h->count = cbp_xrealloc(h->count, h->cap * sizeof *h->count);
      if (!h->lock || !h->count) abort();
   }
   h->lock[h->n] = lock; h->count[h->n] = 1; h->n++;
   return 1;
}

int cbp_held_release(cbp_held *h, uint32_t lock) {
   for (uint32_t i = 0; i < h->n; i++)
      if (h->lock[i] == lock) {
         if (--h->count[i]) return 0;
         h->lock[i] = h->lock[h->n - 1]; h->count[i] = h->count[h->n - 1];
         h->n--;
         return 1;
      }
   return 0; /* not held: a release we never saw acquired; ignore */
}

void cbp_held_free(cbp_held *h) { free(h->lock); free(h->count); memset(h, 0, sizeof *h); }
