import { sql, type Kysely } from 'kysely';

/**
 * Provider reconciliation (expand only; reversible): one row per run with its window and outcome,
 * the mismatches each run found (with what an operator later did about one), and a one-row lease so
 * that with several backend replicas only one runs the scheduled job at a time.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('reconciliation_runs')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('trigger', 'text', (c) => c.notNull().check(sql`trigger in ('schedule', 'cli', 'console')`))
    .addColumn('window_from', 'timestamptz', (c) => c.notNull())
    .addColumn('window_to', 'timestamptz', (c) => c.notNull())
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('finished_at', 'timestamptz', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull().check(sql`outcome in ('clean', 'mismatches', 'failed')`))
    .addColumn('error', 'text')
    .addColumn('rails', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .createTable('reconciliation_mismatches')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('run_id', 'bigint', (c) => c.notNull().references('reconciliation_runs.id'))
    .addColumn('kind', 'text', (c) =>
      c
        .notNull()
        .check(sql`kind in ('taken_not_credited', 'credited_not_taken', 'refund_provider_only', 'refund_ledger_only', 'amount_mismatch')`),
    )
    .addColumn('rail', 'text', (c) => c.notNull().check(sql`rail in ('card', 'stars')`))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('shop', 'text')
    .addColumn('order_id', 'uuid')
    .addColumn('payment_ref', 'text', (c) => c.notNull())
    .addColumn('refund_ref', 'text')
    .addColumn('payer_ref', 'text')
    .addColumn('ledger_amount', 'bigint')
    .addColumn('ledger_currency', 'text')
    .addColumn('provider_amount', 'bigint')
    .addColumn('provider_currency', 'text')
    .addColumn('occurred_at', 'timestamptz')
    .addColumn('resolution', 'text')
    .addColumn('resolved_at', 'timestamptz')
    .addColumn('resolved_by', 'bigint')
    .execute();
  await db.schema.createIndex('reconciliation_mismatches_run_idx').on('reconciliation_mismatches').columns(['run_id', 'id']).execute();
  await db.schema
    .createTable('reconciliation_lease')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('holder', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('until', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`insert into reconciliation_lease (id, holder, until) values (1, '', 'epoch')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('reconciliation_lease').execute();
  await db.schema.dropTable('reconciliation_mismatches').execute();
  await db.schema.dropTable('reconciliation_runs').execute();
}
