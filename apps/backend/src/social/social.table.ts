import type { ColumnType } from 'kysely';

/** One row per pair of accounts: the asker is `requester_id`. */
export interface FriendshipsTable {
  requester_id: bigint;
  addressee_id: bigint;
  status: 'pending' | 'accepted';
  created_at: ColumnType<Date, Date, never>;
  accepted_at: Date | null;
}

export interface BlocksTable {
  blocker_id: bigint;
  blocked_id: bigint;
  created_at: ColumnType<Date, Date, never>;
}

declare module '../db/index.js' {
  /** The social tables: friendships and blocks between players. */
  interface DB {
    friendships: FriendshipsTable;
    blocks: BlocksTable;
  }
}
