import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from '../db/index.js';

/** A console operator role; each gates its own pages and actions. */
export type OperatorRole = 'viewer' | 'refunder' | 'catalog_editor' | 'moderator' | 'granter';

export interface OperatorsTable {
  id: Generated<bigint>;
  /** Lower-cased sign-in name (an e-mail or a handle); unique. */
  login: string;
  /** `scrypt$N$r$p$salt$hash`, as accounts/password.ts writes it. */
  password_hash: string;
  roles: ColumnType<OperatorRole[], OperatorRole[] | undefined, OperatorRole[]>;
  disabled: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Timestamp;
}

export interface OperatorSessionsTable {
  id: Generated<bigint>;
  /** sha256 hex of the opaque console token. */
  token_hash: string;
  operator_id: bigint;
  created_at: Timestamp;
  expires_at: Date;
  closed_at: Date | null;
}

declare module '../db/index.js' {
  /** The operators tables: operators and their console sessions. */
  interface DB {
    operators: OperatorsTable;
    operator_sessions: OperatorSessionsTable;
  }
}
