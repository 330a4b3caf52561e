import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/index.js';
import type { PlatformKind } from '../accounts/index.js';

type Db = Kysely<DB> | Transaction<DB>;

/** Ids of the accounts whose e-mail is exactly `email` (already lower-cased). */
export async function accountIdsByEmail(db: Db, email: string): Promise<bigint[]> {
  return (await db.selectFrom('accounts').select('id').where('email', '=', email).execute()).map((r) => r.id);
}

/** `[id]` when an account with that id exists, else `[]`. */
export async function accountIdsById(db: Db, id: bigint): Promise<bigint[]> {
  return (await db.selectFrom('accounts').select('id').where('id', '=', id).execute()).map((r) => r.id);
}

/** Owners of the platform identities with this external id, of one kind or (null) any kind. */
export async function identityOwners(db: Db, externalId: string, kind: PlatformKind | null): Promise<bigint[]> {
  let q = db.selectFrom('platform_identities').select('account_id').where('external_id', '=', externalId);
  if (kind !== null) q = q.where('kind', '=', kind);
  return (await q.execute()).map((r) => r.account_id);
}

/** The console's columns of the given accounts, newest first. */
export async function accountRows(db: Db, ids: readonly bigint[]) {
  return db
    .selectFrom('accounts')
    .select(['id', 'display_name', 'email', 'status', 'suspended_until', 'chat_muted', 'created_at'])
    .where('id', 'in', [...ids])
    .orderBy('id', 'desc')
    .execute();
}

/** The platform identities of the given accounts, in link order. */
export async function identityRows(db: Db, ids: readonly bigint[]) {
  return db
    .selectFrom('platform_identities')
    .select(['account_id', 'kind', 'external_id'])
    .where('account_id', 'in', [...ids])
    .orderBy('id')
    .execute();
}

/** Chip balances of the given accounts' wallet segments (unordered). */
export async function segmentBalances(db: Db, ids: readonly bigint[]) {
  return db
    .selectFrom('wallet_segments')
    .select(['account_id', 'segment', 'balance'])
    .where('account_id', 'in', [...ids])
    .execute();
}

/** Hint balances of the given accounts' benefit rows (unordered). */
export async function benefitHints(db: Db, ids: readonly bigint[]) {
  return db
    .selectFrom('benefits')
    .select(['account_id', 'origin', 'hints'])
    .where('account_id', 'in', [...ids])
    .execute();
}
