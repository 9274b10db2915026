/* cb_porder.c: replay, the recorded order a plan's prefix keeps.
 *
 * A prefix lets its threads run freely up to their counts, and what each
 * then reads from the others, or which takes a lock first, is the
 * machine's choice: a forced run that failed once may pass the next time.
 * So a plan may carry waits from the recorded run (cb_wire.h, "The replay
 * plan"): thread w runs its counted event i only once thread u has run c
 * counted events.  cb_replay.c asks here before it lets a prefix thread
 * run.  The waits follow the recorded order, so they never wait on each
 * other in a circle; but a run that takes another path (a poll loop that
 * reads its flag once more) can make one wait for an event that does not
 * come: cb_replay.c then drops them all (cb_porder_drop) and the prefix
 * runs free, as it did before plans carried them.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "cb_global.h"

typedef struct {
   ULong index;   /* the waiting thread's counted event */
   ULong target;  /* the thread waited for */
   ULong count;   /* the counted events it must have run */
} CbPWait;

static CbPWait *cb_waits;      /* sorted by thread, then index */
static ULong  *cb_first;      /* [1..n+1]: thread t's waits start here */
static ULong  *cb_next;       /* [1..n]: its first wait not yet passed */
static ULong   cb_nwaits_threads;
static Bool    cb_off = True;

/* Reads "nwaits, nwaits * (tid, index, target, count)" from w[*at]; a plan
 * that ends before them has none.  False: malformed (out of order, a
 * thread the plan does not know). */
Bool cb_porder_load(const ULong *w, ULong nw, ULong *at, ULong nthreads)
{
   ULong i = *at;
   if (i >= nw)
      return True;
   ULong n = w[i++];
   if (n > (nw - i) / 4)
      return False;
   cb_nwaits_threads = nthreads;
   cb_first = VG_(calloc)("cb.porder", nthreads + 2, sizeof(ULong));
   cb_next = VG_(calloc)("cb.porder", nthreads + 2, sizeof(ULong));
   cb_waits = VG_(calloc)("cb.porder", n ? n : 1, sizeof(CbPWait));
   ULong prev_tid = 0, prev_index = 0;
   for (ULong k = 0; k < n; k++, i += 4) {
      ULong tid = w[i], index = w[i + 1], target = w[i + 2];
      if (tid == 0 || tid > nthreads || target == 0 || target > nthreads ||
          target == tid || tid < prev_tid ||
          (tid == prev_tid && k > 0 && index < prev_index))
         return False;
      cb_waits[k] = (CbPWait){index, target, w[i + 3]};
      cb_first[tid + 1]++;
      prev_tid = tid;
      prev_index = index;
   }
   for (ULong t = 1; t <= nthreads + 1; t++)
      cb_first[t] += cb_first[t - 1];
   for (ULong t = 1; t <= nthreads; t++)
      cb_next[t] = cb_first[t];
   cb_off = n == 0;
   *at = i;
   return True;
}

/* Thread wid's first wait that is still ahead of done or not yet met.  A
 * wait for a thread that has exited short of its count can never be met:
 * it is passed over (the plan notices the exit itself). */
static CbPWait *cb_pending(ULong wid, const ULong *done, const Bool *exited)
{
   if (cb_off || wid == 0 || wid > cb_nwaits_threads)
      return NULL;
   ULong k = cb_next[wid];
   for (; k < cb_first[wid + 1]; k++) {
      CbPWait *x = &cb_waits[k];
      if (x->index >= done[wid] && done[x->target] < x->count &&
          !exited[x->target])
         break;
   }
   cb_next[wid] = k;
   return k < cb_first[wid + 1] ? &cb_waits[k] : NULL;
}

Bool cb_porder_holds(ULong wid, const ULong *done, const Bool *exited)
{
   CbPWait *x = cb_pending(wid, done, exited);
   return x && x->index == done[wid];
}

ULong cb_porder_room(ULong wid, const ULong *done, const Bool *exited)
{
   CbPWait *x = cb_pending(wid, done, exited);
   return x ? x->index - done[wid] : ~0ULL;
}

Bool cb_porder_active(void)
{
   return !cb_off;
}

/* Says which wait held the first thread that waits, then gives them all
 * up. */
void cb_porder_drop(const ULong *done, const Bool *exited)
{
   if (cb_off)
      return;
   HChar buf[128];
   VG_(snprintf)(buf, sizeof buf, "prefix-order-dropped");
   for (ULong t = 1; t <= cb_nwaits_threads; t++) {
      CbPWait *x = cb_pending(t, done, exited);
      if (x && x->index == done[t]) {
         VG_(snprintf)(buf, sizeof buf, "prefix-order-dropped %llu %llu "
                       "%llu %llu", t, x->index, x->target, x->count);
         break;
      }
   }
   cb_replay_status(buf);
   cb_off = True;
}
