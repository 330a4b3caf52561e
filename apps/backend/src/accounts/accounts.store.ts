import type { InferResult, Kysely, Transaction } from 'kysely';
import { runPrepared, type DB } from '../db/index.js';
import type { AccountStatus, PlatformKind } from './accounts.table.js';

type Db = Kysely<DB> | Transaction<DB>;

/** Postgres unique_violation, from either dialect. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; constraint?: unknown; message?: unknown };
  if (e.code !== '23505') return false;
  return constraint === undefined || e.constraint === constraint || String(e.message).includes(constraint);
}

/** Inserts an account row (its wallet is the ledger's: the caller opens it in the same transaction). */
export async function insertAccount(
  trx: Transaction<DB>,
  values: { displayName: string; email?: string; passwordHash?: string },
): Promise<bigint> {
  const { id } = await trx
    .insertInto('accounts')
    .values({ display_name: values.displayName, email: values.email ?? null, password_hash: values.passwordHash ?? null })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

/** The account a platform identity belongs to, if it has one. */
export async function identityAccount(db: Db, kind: PlatformKind, externalId: string): Promise<bigint | undefined> {
  const row = await db
    .selectFrom('platform_identities')
    .select('account_id')
    .where('kind', '=', kind)
    .where('external_id', '=', externalId)
    .executeTakeFirst();
  return row?.account_id;
}

/** Links a platform identity to an account; a unique violation means another session linked it first. */
export async function insertIdentity(trx: Transaction<DB>, accountId: bigint, kind: PlatformKind, externalId: string): Promise<void> {
  await trx.insertInto('platform_identities').values({ account_id: accountId, kind, external_id: externalId }).execute();
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

/** The id of the account holding `email` (confirmed or not); undefined when none does. */
export async function emailHolder(db: Db, email: string): Promise<bigint | undefined> {
  const row = await db.selectFrom('accounts').select('id').where('email', '=', email).executeTakeFirst();
  return row?.id;
}

/** Sets an account's display name. */
export async function setDisplayName(db: Db, accountId: bigint, displayName: string): Promise<void> {
  await db.updateTable('accounts').set({ display_name: displayName }).where('id', '=', accountId).execute();
}

/** Stores one hashed confirmation token for (account, address). */
export async function insertEmailConfirmation(
  db: Db,
  values: { accountId: bigint; email: string; tokenHash: string; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('email_confirmations')
    .values({ account_id: values.accountId, email: values.email, token_hash: values.tokenHash, expires_at: values.expiresAt })
    .execute();
}

/**
 * The unused confirmation with this token hash that is still valid at `now`, row-locked until the
 * transaction ends; undefined when there is none.
 */
export async function lockUsableConfirmation(trx: Transaction<DB>, tokenHash: string, now: Date) {
  return trx
    .selectFrom('email_confirmations')
    .select(['id', 'account_id', 'email'])
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .forUpdate()
    .executeTakeFirst();
}

/** Marks a confirmation used at `now`. */
export async function markConfirmationUsed(trx: Transaction<DB>, confirmationId: bigint, now: Date): Promise<void> {
  await trx.updateTable('email_confirmations').set({ used_at: now }).where('id', '=', confirmationId).execute();
}

/** Makes `email` the account's confirmed address; raises unique_violation when another account holds it. */
export async function setConfirmedEmail(trx: Transaction<DB>, accountId: bigint, email: string, now: Date): Promise<void> {
  await trx.updateTable('accounts').set({ email, email_confirmed_at: now }).where('id', '=', accountId).execute();
}

/** The newest unused address still valid at `now` awaiting confirmation for an account; null when none. */
export async function newestPendingEmail(db: Db, accountId: bigint, now: Date): Promise<string | null> {
  const row = await db
    .selectFrom('email_confirmations')
    .select('email')
    .where('account_id', '=', accountId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return row?.email ?? null;
}

/**
 * An account's id and status, its row locked FOR UPDATE until the transaction ends; undefined when
 * there is none. The first statement of every transaction that changes an account's status
 * (moderation, soft delete): the row lock serialises them, and it comes first so the lock order
 * stays that of the money writers (account row, then wallet rows).
 */
export async function lockAccountStatus(
  trx: Transaction<DB>,
  accountId: bigint,
): Promise<{ id: bigint; status: AccountStatus } | undefined> {
  return trx.selectFrom('accounts').select(['id', 'status']).where('id', '=', accountId).forUpdate().executeTakeFirst();
}

/** What `markAccountDeleted` removed: the sessions it revoked and the platform identities it unlinked. */
export interface AccountErasure {
  sessionsRevoked: number;
  /** The identities the account had (the bot keeps entries under the telegram ones). */
  identities: Array<{ kind: PlatformKind; externalId: string }>;
  /** The e-mail addresses the account had or was confirming (mail sent to them may be kept by the mailer). */
  emails: string[];
}

/**
 * Soft-deletes an account's row and erases the personal data the accounts feature keeps: status
 * `deleted` with `deleted_at`; display name, e-mail and password hash cleared (the address can sign
 * up afresh); its pending e-mail confirmations, its sessions (so ResolveSession refuses them at once)
 * and its platform identities deleted, so a Telegram or VK user who comes back opens a new account.
 * Runs in the caller's transaction, after `lockAccountStatus`: the row stays under its id, because
 * the ledger and the orders refer to it.
 */
export async function markAccountDeleted(trx: Transaction<DB>, accountId: bigint, at: Date): Promise<AccountErasure> {
  const before = await trx.selectFrom('accounts').select('email').where('id', '=', accountId).executeTakeFirst();
  await trx
    .updateTable('accounts')
    .set({ status: 'deleted', deleted_at: at, display_name: '', email: null, email_confirmed_at: null, password_hash: null })
    .where('id', '=', accountId)
    .execute();
  const confirmations = await trx.deleteFrom('email_confirmations').where('account_id', '=', accountId).returning('email').execute();
  const revoked = await trx.deleteFrom('sessions').where('account_id', '=', accountId).executeTakeFirst();
  const identities = await trx
    .deleteFrom('platform_identities')
    .where('account_id', '=', accountId)
    .returning(['kind', 'external_id'])
    .execute();
  return {
    sessionsRevoked: Number(revoked.numDeletedRows),
    identities: identities.map((i) => ({ kind: i.kind, externalId: i.external_id })),
    emails: [
      ...new Set([before?.email, ...confirmations.map((c) => c.email)].filter((e): e is string => typeof e === 'string' && e !== '')),
    ],
  };
}

/** A moderation change of an account row: suspension (status and end) or the chat mute. */
export type ModerationUpdate = { status: 'suspended' | 'active'; suspended_until: Date | null } | { chat_muted: boolean };

/**
 * Applies a moderation change to one account row, in the caller's transaction (after
 * `lockAccountStatus`, so the change is decided on the row as it is). Moderation decides; the
 * accounts module is the one writer of the row.
 */
export async function updateModeration(trx: Transaction<DB>, accountId: bigint, update: ModerationUpdate): Promise<void> {
  await trx.updateTable('accounts').set(update).where('id', '=', accountId).execute();
}

/**
 * Sets active up to `batch` suspended accounts whose temporary block ended by `now`, earliest end
 * first, in one statement; the rows are claimed FOR UPDATE SKIP LOCKED, so concurrent callers (other
 * replicas) never take the same one. Returns the ids lifted (none when nothing has lapsed).
 */
export async function liftLapsedBlocks(trx: Transaction<DB>, now: Date, batch: number): Promise<bigint[]> {
  const rows = await trx
    .updateTable('accounts')
    .set({ status: 'active', suspended_until: null })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('accounts')
        .select('id')
        .where('status', '=', 'suspended')
        .where('suspended_until', 'is not', null)
        .where('suspended_until', '<=', now)
        .orderBy('suspended_until')
        .limit(batch)
        .forUpdate()
        .skipLocked(),
    )
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

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

/** Where an account can be told something: its telegram identity's external id and its confirmed e-mail, each when it has one. */
export interface ContactChannels {
  telegramId: string | undefined;
  email: string | undefined;
}

/**
 * The account's contact channels in ONE statement, so a payment notice reads both in one round
 * trip: the telegram identity as telegramIdOf reads it, the address only once confirmed; neither
 * for an account that does not exist or was deleted (deletion drops the identities and the address).
 * A named prepared statement (kysely compiles the same text every call).
 */
export async function contactChannelsOf(db: Kysely<DB>, accountId: bigint): Promise<ContactChannels> {
  const query = db
    .selectFrom('accounts')
    .select((eb) => [
      eb.case().when('accounts.email_confirmed_at', 'is not', null).then(eb.ref('accounts.email')).else(null).end().as('email'),
      eb
        .selectFrom('platform_identities')
        .select('platform_identities.external_id')
        .whereRef('platform_identities.account_id', '=', 'accounts.id')
        .where('platform_identities.kind', '=', 'telegram')
        .limit(1)
        .as('telegram_id'),
    ])
    .where('accounts.id', '=', accountId)
    .compile();
  const [row] = await runPrepared<InferResult<typeof query>[number]>(db, 'account_contact_channels', query.sql, query.parameters);
  return { telegramId: row?.telegram_id ?? undefined, email: row?.email ?? undefined };
}
