import { sql, type Kysely } from 'kysely';

/** Every catalog table (catalog.table.ts): a change to any of them changes what a product is. */
const CATALOG_TABLES = ['catalog_atoms', 'catalog_products', 'catalog_product_atoms', 'catalog_prices', 'catalog_product_texts'] as const;

/**
 * Catalog changes notify `catalog_changed`: one statement-level AFTER INSERT/UPDATE/DELETE (and
 * TRUNCATE) trigger per catalog table calls `pg_notify('catalog_changed', '')`. PostgreSQL delivers
 * a notification at commit, to every session listening on every replica, and folds a transaction's
 * identical notifications into one, so whoever writes (the operator console, the dev seed, a manual
 * SQL fix, a test) invalidates every backend's in-memory catalog (catalog/cache.ts) exactly when
 * the change becomes visible. Reversible: `down` drops the triggers and the function.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function catalog_changed_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('catalog_changed', '');
      return null;
    end $$`.execute(db);
  for (const table of CATALOG_TABLES) {
    await sql`
      create trigger ${sql.raw(`${table}_changed`)}
        after insert or update or delete on ${sql.table(table)}
        for each statement execute function catalog_changed_notify()`.execute(db);
    await sql`
      create trigger ${sql.raw(`${table}_truncated`)}
        after truncate on ${sql.table(table)}
        for each statement execute function catalog_changed_notify()`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of CATALOG_TABLES) {
    await sql`drop trigger if exists ${sql.raw(`${table}_changed`)} on ${sql.table(table)}`.execute(db);
    await sql`drop trigger if exists ${sql.raw(`${table}_truncated`)} on ${sql.table(table)}`.execute(db);
  }
  await sql`drop function if exists catalog_changed_notify()`.execute(db);
}
