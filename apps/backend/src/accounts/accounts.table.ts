import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from '../db/index.js';
import type { PlatformSubtype, SessionPlatformKind } from '../gate/index.js';

/** Account lifecycle; a deleted account keeps its row (soft delete) for ledger integrity. */
export type AccountStatus = 'active' | 'suspended' | 'deleted';

/** Mini-app host kinds with their own identities and wallet segments. */
export type PlatformKind = 'telegram' | 'vk';

export interface AccountsTable {
  id: Generated<bigint>;
  status: ColumnType<AccountStatus, AccountStatus | undefined, AccountStatus>;
  suspended_until: Date | null;
  chat_muted: ColumnType<boolean, boolean | undefined, boolean>;
  display_name: ColumnType<string, string | undefined, string>;
  created_at: Timestamp;
  deleted_at: Date | null;
  /** Lower-cased; unique. The sign-in address of a direct account, or a confirmed linked one. */
  email: string | null;
  email_confirmed_at: Date | null;
  /** `scrypt$N$r$p$salt$hash` (base64url parts); null for accounts without a password. */
  password_hash: string | null;
}

export interface PlatformIdentitiesTable {
  id: Generated<bigint>;
  account_id: bigint;
  kind: PlatformKind;
  external_id: string;
  created_at: Timestamp;
}

export interface EmailConfirmationsTable {
  id: Generated<bigint>;
  account_id: bigint;
  email: string;
  /** sha256 hex of the mailed token. */
  token_hash: string;
  created_at: Timestamp;
  expires_at: Date;
  used_at: Date | null;
}

export interface SessionsTable {
  id: Generated<bigint>;
  /** sha256 hex of the opaque bearer token. */
  token_hash: string;
  account_id: bigint;
  /** null = no recorded platform (untrusted session). */
  platform_kind: SessionPlatformKind | null;
  platform_subtype: PlatformSubtype | null;
  created_at: Timestamp;
  expires_at: Date;
}

declare module '../db/index.js' {
  /** The accounts tables: accounts, their platform identities, e-mail confirmations and sessions. */
  interface DB {
    accounts: AccountsTable;
    platform_identities: PlatformIdentitiesTable;
    email_confirmations: EmailConfirmationsTable;
    sessions: SessionsTable;
  }
}
