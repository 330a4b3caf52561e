import { sql, type Kysely } from 'kysely';

/** The title check before 0070: only the characters that break a payment-callback signature. */
const OLD_TITLE_CHECK = sql`title !~ '[&<>"'']' and length(title) between 1 and 64`;

/**
 * The title check from 0070, the same set as `validateTitle` (catalog/validate.ts): & < > " ', C0
 * and C1 controls, the bidi marks, embeddings, overrides and isolates, and the line and paragraph
 * separators. PostgreSQL text holds no NUL, so the C0 range starts at U+0001.
 */
const NEW_TITLE_CHECK = sql`title !~ '[&<>"''\\x01-\\x1f\\x7f-\\x9f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]' and length(title) between 1 and 64`;

/**
 * Rate-limit counters shared by every backend replica (rate-limiter-flexible's PostgreSQL table
 * layout: key, points, expire in epoch ms; the library is told the table exists), and the product
 * title check widened to what the validator refuses. The new check is added NOT VALID: titles
 * written before it stay readable, every insert or update is checked. Reversible.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table rate_limits (key varchar(255) primary key, points integer not null default 0, expire bigint)`.execute(db);
  await sql`create index rate_limits_expire_idx on rate_limits (expire)`.execute(db);
  await sql`alter table catalog_products drop constraint catalog_products_title_check`.execute(db);
  await sql`alter table catalog_products add constraint catalog_products_title_check check (${NEW_TITLE_CHECK}) not valid`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table catalog_products drop constraint catalog_products_title_check`.execute(db);
  await sql`alter table catalog_products add constraint catalog_products_title_check check (${OLD_TITLE_CHECK}) not valid`.execute(db);
  await sql`drop table rate_limits`.execute(db);
}
