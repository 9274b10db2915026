/* bank.c: the bundled example, a bank account with a read-then-write
 * withdrawal.
 *
 * Every access to the balance is under the account's mutex, so a data-race
 * detector has nothing to say.  The bug is one of atomicity: withdraw()
 * reads the balance in one critical section and writes the new balance in
 * another.  Two customers withdraw 80 each from an account of 200; if the
 * second customer's whole withdrawal runs between the first one's read and
 * its write, the first write overwrites the second and 160 is paid out of an
 * account that only lost 80.  The window is a few instructions wide, so a
 * normal run almost never shows it.
 *
 * The program checks itself: exit 1 when the books do not balance (what was
 * paid out differs from what the account lost), 0 otherwise.  `make
 * example` runs cbtools on it.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <pthread.h>
#include <stdio.h>

#define OPENING 200

struct account {
   pthread_mutex_t lock;
   long balance;
};

struct account checking = { PTHREAD_MUTEX_INITIALIZER, OPENING };

__attribute__((noinline, noclone)) long get_balance(struct account *a)
{
   pthread_mutex_lock(&a->lock);
   long b = a->balance;
   pthread_mutex_unlock(&a->lock);
   return b;
}

__attribute__((noinline, noclone)) void set_balance(struct account *a, long b)
{
   pthread_mutex_lock(&a->lock);
   a->balance = b;
   pthread_mutex_unlock(&a->lock);
}

/* Returns 1 when the money was handed out.  Reading the balance and writing
 * the new one should be one atomic step; they are two. */
__attribute__((noinline, noclone)) int withdraw(struct account *a, long amount)
{
   long b = get_balance(a);
   if (b < amount)
      return 0;
   set_balance(a, b - amount);
   return 1;
}

void *customer(void *arg)
{
   return (void *)(long)withdraw(&checking, (long)arg);
}

int main(void)
{
   pthread_t alice, bob;
   void *paid_alice, *paid_bob;
   pthread_create(&alice, NULL, customer, (void *)80L);
   pthread_create(&bob, NULL, customer, (void *)80L);
   pthread_join(alice, &paid_alice);
   pthread_join(bob, &paid_bob);
   long paid = 80 * ((long)paid_alice + (long)paid_bob);
   printf("bank: paid out %ld, balance %ld\n", paid, checking.balance);
   if (checking.balance != OPENING - paid) {
      fprintf(stderr, "bank: the books do not balance: paid out %ld from %d "
                      "but the balance is %ld\n", paid, OPENING,
              checking.balance);
      return 1;
   }
   return 0;
}
