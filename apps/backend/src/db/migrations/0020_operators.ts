import { sql, type Kysely } from 'kysely';

/**
 * Operator console: operators (login, scrypt hash, roles, disabled flag), their sessions (hashed
 * tokens with an expiry), the append-only operator audit (a trigger refuses UPDATE, DELETE and
 * TRUNCATE, as on the ledger), and indexes for the console ledger (newest-first keyset per
 * filter) and for the temporary-block lapse check. Expand only.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('operators')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('login', 'text', (c) =>
      c
        .notNull()
        .unique()
        .check(sql`login = lower(login) and length(login) between 3 and 254`),
    )
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('roles', sql`text[]`, (c) =>
      c
        .notNull()
        .defaultTo(sql`'{}'::text[]`)
        .check(sql`roles <@ array['viewer', 'refunder', 'catalog_editor', 'moderator']::text[]`),
    )
    .addColumn('disabled', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('operator_sessions')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('operator_id', 'bigint', (c) => c.notNull().references('operators.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('closed_at', 'timestamptz')
    .execute();

  await db.schema
    .createTable('operator_audit')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('operator_id', 'bigint', (c) => c.references('operators.id'))
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('detail', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('operator_audit_operator_idx').on('operator_audit').columns(['operator_id', 'id']).execute();
  await sql`
    create function operator_audit_append_only() returns trigger language plpgsql as $$
    begin
      raise exception 'operator_audit is append-only (% refused)', tg_op using errcode = 'restrict_violation';
    end
    $$
  `.execute(db);
  await sql`
    create trigger operator_audit_no_change before update or delete on operator_audit
    for each row execute function operator_audit_append_only()
  `.execute(db);
  await sql`
    create trigger operator_audit_no_truncate before truncate on operator_audit
    for each statement execute function operator_audit_append_only()
  `.execute(db);

  await sql`create index ledger_operations_created_id_idx on ledger_operations (created_at, id)`.execute(db);
  await sql`create index ledger_operations_account_created_idx on ledger_operations (account_id, created_at, id)`.execute(db);
  await sql`create index ledger_operations_rail_created_idx on ledger_operations (rail, created_at, id) where rail is not null`.execute(db);
  await sql`create index accounts_suspension_lapse_idx on accounts (suspended_until) where status = 'suspended' and suspended_until is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index accounts_suspension_lapse_idx`.execute(db);
  await sql`drop index ledger_operations_rail_created_idx`.execute(db);
  await sql`drop index ledger_operations_account_created_idx`.execute(db);
  await sql`drop index ledger_operations_created_id_idx`.execute(db);
  await db.schema.dropTable('operator_audit').execute();
  await sql`drop function operator_audit_append_only()`.execute(db);
  await db.schema.dropTable('operator_sessions').execute();
  await db.schema.dropTable('operators').execute();
}
