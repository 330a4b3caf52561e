import type { ColumnType } from 'kysely';
import type { Timestamp } from '../db/index.js';

export interface BuyRequestsTable {
  account_id: bigint;
  idempotency_key: string;
  product_id: bigint;
  /** The stored first result (see wallet/purchase-record.ts); null while the first request runs. */
  result: ColumnType<unknown, string | null, string>;
  created_at: Timestamp;
}

declare module '../db/index.js' {
  /** The wallet's table: the idempotency record of wallet.buy. */
  interface DB {
    buy_requests: BuyRequestsTable;
  }
}
