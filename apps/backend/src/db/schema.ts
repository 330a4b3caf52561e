import type { ColumnType, Generated } from 'kysely';

/** A timestamptz column: read as Date, written as Date or an SQL default. */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

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
}

export interface PlatformIdentitiesTable {
  id: Generated<bigint>;
  account_id: bigint;
  kind: PlatformKind;
  external_id: string;
  created_at: Timestamp;
}

/** The database as kysely sees it; grows with each migration. */
export interface DB {
  accounts: AccountsTable;
  platform_identities: PlatformIdentitiesTable;
}
