/* cb_repeat.c: a read that only repeats what its thread just read is no
 * event once it has been seen a few times.
 *
 * A thread that waits by spinning (`while (!ready) ;`, a hand-made lock, a
 * poll with usleep between looks) reads the same word with the same value
 * until another thread changes it.  Under Valgrind one thread runs at a
 * time and a spinner spins its whole time slice: a 30-line program handing
 * a token back and forth 200 times through an atomic flag made a trace of
 * 214 million events (860 MB, 40 s of prediction).  Worse, the number of
 * spins is the scheduler's whim: a forced run that spun a different number
 * of times numbered every later event of the thread differently from the
 * recorded run, and its schedule could not be followed.
 *
 * So both modes apply one rule per thread, on the events in the order the
 * thread made them: a read that is the only access of its instruction, of
 * at most 8 bytes, whose (address, value) is one of the last CB_REP_WINDOW
 * pairs the thread read since its last other counted event, is counted the
 * first CB_REP_KEEP times in a row and then dropped, until the thread reads
 * something new or makes any other counted event.  A spin loop is then a
 * few counted reads, however long it spun, in the recording and in a forced
 * run alike; a read checked twice or three times in a row (a
 * non-repeatable read, RWR) keeps all its reads.
 *
 * Record mode drops at the buffer's scan (cb_repeat_scan, called by
 * cb_stacks_scan, which sees every record once before it is written; the
 * inline path marks a candidate read in the record's pad2 word).  Replay
 * decides per access (cb_ev_mem, cb_emit.c), the dropped read neither
 * counted nor put in the stream.  Record mode's spinner also gives way: a
 * buffer filled only by the running thread's dropped reads ends its time
 * slice (cb_out_flush_full).
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "cb_global.h"

/* Distinct words a wait loop looks at (Peterson's flag and turn, a
 * queue's head and tail). */
#define CB_REP_WINDOW 4 /* a power of 2 */
/* Repeats counted before the rest are dropped. */
#define CB_REP_KEEP 3

typedef struct {
   Addr addr[CB_REP_WINDOW];
   ULong value[CB_REP_WINDOW];
   UChar n, next;   /* pairs held, the slot the next new one takes */
   UInt repeats;    /* repeats in a row since the last new pair */
   Bool dropping;   /* its last read was dropped, and no event came since */
} CbRepeat;

static CbRepeat *cb_rep;  /* indexed by wid */
static UInt cb_nrep;

static CbRepeat *cb_rep_of(UInt wid)
{
   if (wid >= cb_nrep) {
      UInt n = cb_nrep ? cb_nrep : 64;
      while (n <= wid)
         n *= 2;
      cb_rep = VG_(realloc)("cb.repeat", cb_rep, n * sizeof *cb_rep);
      VG_(memset)(cb_rep + cb_nrep, 0, (n - cb_nrep) * sizeof *cb_rep);
      cb_nrep = n;
   }
   return &cb_rep[wid];
}

static inline void cb_rep_reset(UInt wid)
{
   if (wid < cb_nrep && cb_rep[wid].n) {
      cb_rep[wid].n = 0;
      cb_rep[wid].next = 0;
      cb_rep[wid].dropping = False;
   }
}

void cb_repeat_reset(UInt wid)
{
   cb_rep_reset(wid);
}

Bool cb_repeat_spinning(UInt wid)
{
   return wid < cb_nrep && cb_rep[wid].dropping;
}

/* The rule, on thread r's state (the record scan's hot path). */
static inline Bool cb_rep_drop(CbRepeat *r, Addr a, ULong value)
{
   for (UInt k = 0; k < r->n; k++)
      if (r->addr[k] == a && r->value[k] == value)
         return r->dropping = ++r->repeats > CB_REP_KEEP;
   r->repeats = 0;
   r->dropping = False;
   r->addr[r->next] = a;
   r->value[r->next] = value;
   r->next = (UChar)((r->next + 1) & (CB_REP_WINDOW - 1));
   if (r->n < CB_REP_WINDOW)
      r->n++;
   return False;
}

Bool cb_repeat_drop(UInt wid, Addr a, ULong value)
{
   return cb_rep_drop(cb_rep_of(wid), a, value);
}

Bool cb_repeat_spun;
static UInt cb_rep_spinner;  /* the thread that gave way last, 0: none */
static Bool cb_rep_handed;   /* another thread's event came since */

Bool cb_repeat_in_vain(UInt wid)
{
   Bool vain = cb_rep_spinner == wid && !cb_rep_handed;
   cb_rep_spinner = wid;
   cb_rep_handed = False;
   return vain;
}

/* The records [p, end) not seen before, in record mode: drops the repeated
 * reads, compacting the buffer; returns the new end.  cb_repeat_spun: the
 * last counted record was a dropped read.  Every record passes here (a
 * memory-heavy program's 80 million): the common one, an access that is no
 * candidate, costs a compare or two, and a thread's state is emptied once
 * for a run of such records, not at each. */
UChar *cb_repeat_scan(UChar *p, UChar *end)
{
   UChar *w = p;
   UInt clean = ~0u; /* a thread whose state is empty already */
   UInt cur = ~0u;   /* the thread whose state r is */
   CbRepeat *r = NULL;
   Bool spun = False;
   while (p < end) {
      cb_wire_event *e = (cb_wire_event *)p;
      UInt n = cb_record_len(p);
      if (e->kind == CB_EV_READ && e->pad2) {
         e->pad2 = 0;
         if (e->tid == clean)
            clean = ~0u;
         if (e->tid != cur) {
            if (e->tid != cb_rep_spinner)
               cb_rep_handed = True;
            r = cb_rep_of(e->tid); /* may move the states: r only after */
            cur = e->tid;
         }
         spun = cb_rep_drop(r, (Addr)e->addr, e->value);
         if (spun) {
            p += n;
            continue;
         }
      } else if (e->kind < CB_EV_KIND_COUNT && CB_IS_COUNTED(e->kind)) {
         if (e->tid != clean) {
            cb_rep_reset(e->tid);
            clean = e->tid;
            if (e->tid != cb_rep_spinner)
               cb_rep_handed = True;
         }
         spun = False;
      }
      if (w != p)
         VG_(memmove)(w, p, n);
      w += n;
      p += n;
   }
   cb_repeat_spun = spun;
   return w;
}
