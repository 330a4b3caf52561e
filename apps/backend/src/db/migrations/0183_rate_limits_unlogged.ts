import { sql, type Kysely } from 'kysely';

/**
 * `rate_limits` becomes UNLOGGED: a counter's update writes no WAL and its commit waits for no WAL
 * flush. Every order creation takes two counters (account, client address) before the bot mints an
 * invoice link, and players behind one address (a carrier's NAT) queue on that address's row for as
 * long as the row's lock is held: with a logged table that is a WAL flush per order, now it is the
 * update alone. What is given up: after a PostgreSQL crash or a failover the counters start again
 * from zero (an unlogged table is emptied on crash recovery and is not replicated), i.e. one more
 * window of attempts, never a lost payment. Reversible: `down` makes it logged again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table rate_limits set unlogged`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table rate_limits set logged`.execute(db);
}
