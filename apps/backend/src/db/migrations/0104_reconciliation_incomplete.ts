import { sql, type Kysely } from 'kysely';

/**
 * `reconciliation_runs.outcome` may be `incomplete`: a run that could not read a provider's whole
 * list within its call bound (RECONCILIATION_STARS_MAX_CALLS) or saw the list change under it stores
 * that outcome and no mismatches, so it is never read as "all clear" nor as findings. Expand only;
 * `down` turns incomplete runs into failed ones (their error text kept) and restores the old check.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table reconciliation_runs drop constraint if exists reconciliation_runs_outcome_check`.execute(db);
  await sql`alter table reconciliation_runs add constraint reconciliation_runs_outcome_check
    check (outcome in ('clean', 'mismatches', 'failed', 'incomplete'))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`update reconciliation_runs set outcome = 'failed' where outcome = 'incomplete'`.execute(db);
  await sql`alter table reconciliation_runs drop constraint if exists reconciliation_runs_outcome_check`.execute(db);
  await sql`alter table reconciliation_runs add constraint reconciliation_runs_outcome_check
    check (outcome in ('clean', 'mismatches', 'failed'))`.execute(db);
}
