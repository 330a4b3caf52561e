import type { Kysely } from 'kysely';
import type { DB } from '../db/index.js';
import { isoOrNull, type JsonValue } from '../support/index.js';

/** The export's `profile` section: the account row as the player may see it (never the password hash). */
export async function profileSection(db: Kysely<DB>, accountId: bigint): Promise<JsonValue> {
  const row = await db
    .selectFrom('accounts')
    .select(['id', 'status', 'display_name', 'email', 'email_confirmed_at', 'chat_muted', 'suspended_until', 'created_at', 'deleted_at'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  const pending = await db
    .selectFrom('email_confirmations')
    .select(['email', 'created_at', 'expires_at'])
    .where('account_id', '=', accountId)
    .where('used_at', 'is', null)
    .orderBy('id')
    .execute();
  return {
    account_id: row.id.toString(),
    status: row.status,
    display_name: row.display_name,
    email: row.email,
    email_confirmed_at: isoOrNull(row.email_confirmed_at),
    pending_emails: pending.map((p) => ({
      email: p.email,
      requested_at: p.created_at.toISOString(),
      expires_at: p.expires_at.toISOString(),
    })),
    chat_muted: row.chat_muted,
    suspended_until: isoOrNull(row.suspended_until),
    created_at: row.created_at.toISOString(),
    deleted_at: isoOrNull(row.deleted_at),
  };
}

/** The export's `identities` section: each platform identity linked to the account. */
export async function identitiesSection(db: Kysely<DB>, accountId: bigint): Promise<JsonValue> {
  const rows = await db
    .selectFrom('platform_identities')
    .select(['kind', 'external_id', 'created_at'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ kind: r.kind, external_id: r.external_id, linked_at: r.created_at.toISOString() }));
}

/** The export's `sessions` section: open sessions (where and when, never a token). */
export async function sessionsSection(db: Kysely<DB>, accountId: bigint): Promise<JsonValue> {
  const rows = await db
    .selectFrom('sessions')
    .select(['platform_kind', 'platform_subtype', 'created_at', 'expires_at'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    platform: r.platform_kind,
    subtype: r.platform_subtype,
    created_at: r.created_at.toISOString(),
    expires_at: r.expires_at.toISOString(),
  }));
}
