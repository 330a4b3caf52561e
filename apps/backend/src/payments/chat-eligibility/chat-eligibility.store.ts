import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/index.js';
import type { AccountStatus } from '../../accounts/index.js';

type Db = Kysely<DB> | Transaction<DB>;

/** The chat standing of the account a platform identity maps to; undefined when it maps to none. */
export async function identityChatStanding(
  db: Db,
  platform: 'telegram' | 'vk',
  externalId: string,
): Promise<{ status: AccountStatus; suspended_until: Date | null; chat_muted: boolean } | undefined> {
  return db
    .selectFrom('platform_identities as i')
    .innerJoin('accounts as a', 'a.id', 'i.account_id')
    .select(['a.status', 'a.suspended_until', 'a.chat_muted'])
    .where('i.kind', '=', platform)
    .where('i.external_id', '=', externalId)
    .executeTakeFirst();
}
