/* glib_bank_fixed.c: glib_bank.c with the account's lock held across the
 * check and the debit.  Correct.
 *
 * A teller takes the account's lock, checks the balance and debits it
 * before it lets go, so the second teller always finds the first one's
 * debit done.  The helpers that read and debit the balance take the lock
 * themselves, and are now called with it held: the lock is a GRecMutex,
 * which its holder takes again without blocking (the tool counts the
 * depth and records only the outermost lock and unlock).
 *
 * cbtools-pkg: glib-2.0
 * cbtools-expect: correct
 * cbtools-threads: 3
 * cbtools-blocks: withdraw teller
 * cbtools-exit: 0
 */
#include <glib.h>
#include <stdio.h>

static int balance = 100;
static GRecMutex account_lock;

static int balance_get(void)
{
   g_rec_mutex_lock(&account_lock);
   int b = balance;                           // cb: read balance
   g_rec_mutex_unlock(&account_lock);
   return b;
}

static void balance_debit(int amount)
{
   g_rec_mutex_lock(&account_lock);
   balance -= amount;                         // cb: write balance
   g_rec_mutex_unlock(&account_lock);
}

static gboolean withdraw(int amount)
{
   gboolean enough;
   g_rec_mutex_lock(&account_lock);           // cb: lock account_lock
   enough = balance_get() >= amount;
   if (enough)
      balance_debit(amount);
   g_rec_mutex_unlock(&account_lock);         // cb: unlock account_lock
   return enough;
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
      fprintf(stderr, "glib_bank_fixed: the account is overdrawn: %d\n",
              balance);
      return 1;
   }
   return 0;
}
