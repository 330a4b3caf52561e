import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/index.js';

type Db = Kysely<DB> | Transaction<DB>;

/** The account's telegram identity's external id (the platform user id as text); undefined when it has none. */
export async function telegramIdOf(db: Db, accountId: bigint): Promise<string | undefined> {
  const identity = await db
    .selectFrom('platform_identities')
    .select('external_id')
    .where('account_id', '=', accountId)
    .where('kind', '=', 'telegram')
    .executeTakeFirst();
  return identity?.external_id;
}

/** The account's e-mail address when it has one and it is confirmed; undefined otherwise. */
export async function confirmedEmailOf(db: Db, accountId: bigint): Promise<string | undefined> {
  const account = await db
    .selectFrom('accounts')
    .select('email')
    .where('id', '=', accountId)
    .where('email', 'is not', null)
    .where('email_confirmed_at', 'is not', null)
    .executeTakeFirst();
  return account?.email ?? undefined;
}

/** A product's title in each locale it has one in (none: empty). */
export async function productTitles(db: Db, productId: bigint): Promise<{ locale: string; title: string }[]> {
  return db.selectFrom('catalog_product_texts').select(['locale', 'title']).where('product_id', '=', productId).execute();
}
