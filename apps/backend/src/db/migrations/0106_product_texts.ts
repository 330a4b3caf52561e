import { sql, type Kysely } from 'kysely';

/**
 * `catalog_product_texts`: a product's title and description per language (libs/i18n's, `en` and
 * `ru`), so a Russian player reads Russian words in the wallet, on the invoice and in the bot's
 * payment notice. Expand only: every existing product gets its English text from today's
 * `catalog_products.title` (description empty: the grants are worded in its place), and that column
 * stays, kept equal to the English title by the catalog repository (orders, the console and
 * reconciliation read it). Reversible: `down` drops the table; the English titles are still in
 * `catalog_products.title`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table if not exists catalog_product_texts (
      product_id bigint not null references catalog_products (id) on delete cascade,
      locale text not null check (locale ~ '^[a-z]{2}$'),
      title text not null check (length(title) between 1 and 64),
      description text not null default '' check (length(description) <= 255),
      primary key (product_id, locale)
    )`.execute(db);
  await sql`
    insert into catalog_product_texts (product_id, locale, title)
    select id, 'en', title from catalog_products
    on conflict (product_id, locale) do nothing`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists catalog_product_texts`.execute(db);
}
