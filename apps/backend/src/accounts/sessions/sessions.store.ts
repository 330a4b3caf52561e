import type { Kysely } from 'kysely';
import type { DB } from '../../db/index.js';
import type { SessionPlatform } from '../../gate/index.js';
import { hashToken, newToken } from './tokens.js';

/** A newly stored session and the token only the client keeps. */
export interface NewSession {
  token: string;
  expiresAt: Date;
}

/** Stores a session (sha256 of a fresh token) for an account with its platform; returns the token. */
export async function insertSession(
  db: Kysely<DB>,
  accountId: bigint,
  platform: SessionPlatform,
  ttlHours: number,
  now: Date,
): Promise<NewSession> {
  const token = newToken();
  const expiresAt = new Date(now.getTime() + ttlHours * 3_600_000);
  await db
    .insertInto('sessions')
    .values({
      token_hash: hashToken(token),
      account_id: accountId,
      platform_kind: platform.kind,
      platform_subtype: platform.subtype,
      expires_at: expiresAt,
    })
    .execute();
  return { token, expiresAt };
}

/** The unexpired session a token names, with its account's state; undefined when none. */
export async function findLiveSession(db: Kysely<DB>, token: string, now: Date) {
  return db
    .selectFrom('sessions')
    .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
    .select([
      'sessions.account_id',
      'sessions.platform_kind',
      'sessions.platform_subtype',
      'sessions.expires_at',
      'accounts.status',
      'accounts.suspended_until',
      'accounts.chat_muted',
    ])
    .where('sessions.token_hash', '=', hashToken(token))
    .where('sessions.expires_at', '>', now)
    .executeTakeFirst();
}

/** Deletes the session a token names; false when there was none. */
export async function deleteSession(db: Kysely<DB>, token: string): Promise<boolean> {
  const result = await db.deleteFrom('sessions').where('token_hash', '=', hashToken(token)).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
