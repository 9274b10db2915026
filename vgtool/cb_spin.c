/* cb_spin.c: a forced run's spinning thread gives way.
 *
 * A thread that spins on a flag another thread must change (a hand-made
 * lock's wait, a poll for `ready`) runs under Valgrind until its time
 * slice ends: about 100,000 blocks, milliseconds, between two looks the
 * other thread could answer.  Uncontended in the recorded run, such a
 * lock is taken a thousand times in one slice; forced to interleave, each
 * hand-over costs a slice of spinning, and a correct Peterson lock taking
 * 2,000 turns ran past --timeout after the release and was judged hung: a
 * bug that is none.  So in replay, a thread whose shared reads all read
 * again what it read just before (the same address and value, among the
 * last few), CB_SPIN_READS of them with no write or other event between,
 * is made to yield once at its next gate (cb_gate, cb_emit.c), and the
 * scheduler runs another thread.  The reads stay counted events: what
 * the schedule counts does not change, only when the others get the CPU.
 *
 * One thread runs client code at a time (the big lock), so one state
 * for the running thread, begun again when another thread's event comes.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include "pub_tool_basics.h"
#include "cb_global.h"

/* Reads seen again in a row before the thread yields: a spin loop's few
 * reads, some 60 turns of it. */
#define CB_SPIN_READS 128
/* How many recent (address, value) pairs a read may repeat: a wait loop
 * looks at two or three words (Peterson's flag and turn). */
#define CB_SPIN_WINDOW 4

static struct {
   Addr addr[CB_SPIN_WINDOW];
   ULong value[CB_SPIN_WINDOW];
   UInt next, repeats;
   UInt wid;      /* whose reads these are */
   Bool yielded;  /* it yielded, and no other thread's event came since */
} cb_spin;

Bool cb_spin_yield_now;

/* Whether wid's event begins the state again (another thread's, or not
 * a read).  True: it did. */
static Bool cb_spin_begin(UInt wid, UChar kind)
{
   if (wid == cb_spin.wid && kind == CB_EV_READ)
      return False;
   if (wid != cb_spin.wid) { /* another thread runs: the spinner gave way */
      cb_spin.yielded = False;
      cb_spin_yield_now = False;
   }
   cb_spin.wid = wid;
   cb_spin.repeats = 0;
   for (UInt k = 0; k < CB_SPIN_WINDOW; k++)
      cb_spin.addr[k] = 0;
   return True;
}

/* One more read that only repeated: CB_SPIN_READS of them, a yield. */
static void cb_spin_repeated(void)
{
   if (++cb_spin.repeats >= CB_SPIN_READS) {
      cb_spin.repeats = 0;
      cb_spin_yield_now = True;
   }
}

void cb_spin_repeat(UInt wid)
{
   if (!cb_spin_begin(wid, CB_EV_READ))
      cb_spin_repeated();
}

Bool cb_spin_event(UInt wid, UChar kind, Addr a, ULong value)
{
   if (cb_spin_begin(wid, kind) && kind != CB_EV_READ)
      return False;
   for (UInt k = 0; k < CB_SPIN_WINDOW; k++)
      if (cb_spin.addr[k] == a && cb_spin.value[k] == value) {
         cb_spin_repeated();
         return True;
      }
   /* A new word or a changed value: not (yet) a spin. */
   cb_spin.repeats = 0;
   cb_spin.addr[cb_spin.next] = a;
   cb_spin.value[cb_spin.next] = value;
   cb_spin.next = (cb_spin.next + 1) % CB_SPIN_WINDOW;
   return False;
}

/* The yield itself.  Releasing the big lock hands it to a thread queued
 * for it (the fair lock), but on a busy machine the other thread may not
 * be queued yet: its kernel thread waits for a CPU, maybe this one.  Then
 * the spinner gets the lock straight back and spins on, a whole time
 * slice of yields (a Peterson lock forced to alternate took 7 s for
 * 2,000 turns, 570,000 yields and 5 hand-overs).  So when the previous
 * yield handed nothing over, the kernel is asked to run another thread
 * first, the big lock still held (as cb_replay.c does for a denied
 * thread). */
void cb_spin_give_way(void)
{
   cb_spin_yield_now = False;
   if (cb_spin.yielded)
      cb_kernel_yield();
   cb_spin.yielded = True;
}
