/* glib_bank.c: two withdrawals that overdraw an account, in GLib code.
 *
 * Two tellers (GThreads) each withdraw 80 from an account that holds 100.
 * A teller checks the balance under the account's GMutex, lets go of it,
 * and takes it again to debit: the check and the debit are two critical
 * sections.  If the other teller checks between them, both find 100, both
 * debit, and the account ends at -60 (main's check fails).
 *
 * Natively the second teller runs after the first is done and finds too
 * little money.  Forcing its check (f) before the first teller's debit
 * (e1 = e2: it ran first in the recorded run) overdraws the account every
 * time.
 *
 * cbtools-pkg: glib-2.0
 * cbtools-expect: bug ORD balance
 * cbtools-threads: 3
 * cbtools-blocks: withdraw teller
 * cbtools-exit: 0
 */
#include <glib.h>
#include <stdio.h>

static int balance = 100;
static GMutex account_lock;

static gboolean withdraw(int amount)
{
   g_mutex_lock(&account_lock);               // cb: lock account_lock
   gboolean enough = balance >= amount;       // cb: read balance [f]
   g_mutex_unlock(&account_lock);             // cb: unlock account_lock
   if (!enough)
      return FALSE;
   g_mutex_lock(&account_lock);
   balance -= amount;                         // cb: write balance [e1 e2]
   g_mutex_unlock(&account_lock);
   return TRUE;
}

static gpointer teller(gpointer amount)
{
   withdraw(GPOINTER_TO_INT(amount));
   return NULL;
}

int main(void)
{
   GThread *a = g_thread_new("teller-a", teller, GINT_TO_POINTER(80));
   GThread *b = g_thread_new("teller-b", teller, GINT_TO_POINTER(80));
   g_thread_join(a);
   g_thread_join(b);
   if (balance < 0) {
      fprintf(stderr, "glib_bank: the account is overdrawn: %d\n", balance);
      return 1;
   }
   return 0;
}
