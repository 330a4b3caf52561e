import { sql, type Kysely } from 'kysely';

/**
 * One operator action at a time, decided in PostgreSQL before any provider or platform call
 * (expand only; reversible):
 * - `reconciliation_mismatches.action*`: the action that owns an open mismatch (`refund`, `credit`
 *   or `resolve`), who claimed it and when, and `action_until`, the end of the claimer's lease
 *   (its call is in flight until then; an attempt that ended without a confirmed outcome sets it to
 *   its end, so only the same action may be pressed again). `action_attempt` numbers the claims, so
 *   a claimer only ever releases its own. A refusal that moved nothing clears the claim.
 * - `orders.refund_claimed_at/_by`: a console refund's claim on its order while its provider or
 *   platform refund call is in flight (at most one per order, across replicas); cleared with the
 *   outcome, and lapsing after the lease when its claimer died.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table reconciliation_mismatches
    add column action text check (action in ('refund', 'credit', 'resolve')),
    add column action_by bigint,
    add column action_at timestamptz,
    add column action_until timestamptz,
    add column action_attempt integer not null default 0,
    add constraint reconciliation_mismatches_action_whole check (
      (action is null) = (action_by is null) and (action is null) = (action_at is null) and (action is null) = (action_until is null)
    )`.execute(db);
  await sql`alter table orders add column refund_claimed_at timestamptz, add column refund_claimed_by bigint`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders drop column refund_claimed_by, drop column refund_claimed_at`.execute(db);
  await sql`alter table reconciliation_mismatches
    drop constraint reconciliation_mismatches_action_whole,
    drop column action_attempt,
    drop column action_until,
    drop column action_at,
    drop column action_by,
    drop column action`.execute(db);
}
