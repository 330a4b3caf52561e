import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/index.js';
import type { PlatformKind } from './accounts.table.js';
import { openWallet } from '../ledger/index.js';

type Db = Kysely<DB> | Transaction<DB>;

/** Postgres unique_violation, from either dialect. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; constraint?: unknown; message?: unknown };
  if (e.code !== '23505') return false;
  return constraint === undefined || e.constraint === constraint || String(e.message).includes(constraint);
}

/** Inserts an account with its three (empty) wallet segments; run inside a transaction. */
export async function insertAccount(
  trx: Transaction<DB>,
  values: { displayName: string; email?: string; passwordHash?: string },
): Promise<bigint> {
  const { id } = await trx
    .insertInto('accounts')
    .values({ display_name: values.displayName, email: values.email ?? null, password_hash: values.passwordHash ?? null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await openWallet(trx, id);
  return id;
}

/**
 * The account a platform identity belongs to, creating account and identity on first sight.
 * Two first sessions racing for one identity end on the same account: the loser's insert hits the
 * unique key, its transaction rolls back and it reads the winner's row.
 */
export async function accountForIdentity(
  db: Kysely<DB>,
  kind: PlatformKind,
  externalId: string,
  displayName: string,
): Promise<{ accountId: bigint; created: boolean }> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const existing = await db
      .selectFrom('platform_identities')
      .select('account_id')
      .where('kind', '=', kind)
      .where('external_id', '=', externalId)
      .executeTakeFirst();
    if (existing) return { accountId: existing.account_id, created: false };
    try {
      const accountId = await db.transaction().execute(async (trx) => {
        const id = await insertAccount(trx, { displayName });
        await trx.insertInto('platform_identities').values({ account_id: id, kind, external_id: externalId }).execute();
        return id;
      });
      return { accountId, created: true };
    } catch (err: unknown) {
      if (!isUniqueViolation(err)) throw err;
    }
  }
  throw new Error(`identity ${kind} could not be resolved after concurrent creation`);
}

/** The account row fields the services read. */
export async function findAccount(db: Db, accountId: bigint) {
  return db
    .selectFrom('accounts')
    .select(['id', 'status', 'suspended_until', 'chat_muted', 'display_name', 'email', 'email_confirmed_at', 'password_hash'])
    .where('id', '=', accountId)
    .executeTakeFirst();
}

export async function findAccountByEmail(db: Db, email: string) {
  return db
    .selectFrom('accounts')
    .select(['id', 'status', 'suspended_until', 'chat_muted', 'password_hash'])
    .where('email', '=', email)
    .executeTakeFirst();
}

/** Kinds of the platform identities linked to an account. */
export async function linkedPlatforms(db: Db, accountId: bigint): Promise<PlatformKind[]> {
  const rows = await db.selectFrom('platform_identities').select('kind').where('account_id', '=', accountId).orderBy('kind').execute();
  return rows.map((r) => r.kind);
}
