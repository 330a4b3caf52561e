import type { ColumnType, Generated } from 'kysely';
import type { Segment } from '../gate/index.js';

/**
 * One operator make-good (0180): what it granted to whom and why. Unique per (operator, form
 * token), so a second submit of one grant form finds its row instead of granting again; the daily
 * caps are summed from these rows.
 */
export interface MakeGoodsTable {
  id: Generated<bigint>;
  operator_id: bigint;
  form_token: string;
  account_id: bigint;
  segment: Segment;
  chips: ColumnType<bigint, bigint | undefined, never>;
  hints: ColumnType<bigint, bigint | undefined, never>;
  no_ads_days: ColumnType<bigint, bigint | undefined, never>;
  reason: string;
  /** The support case it settles ("C-XXXXXX"), or empty. */
  support_case: ColumnType<string, string | undefined, never>;
  created_at: ColumnType<Date, Date, never>;
}

declare module '../db/index.js' {
  /** The make-goods feature's table: every operator grant. */
  interface DB {
    make_goods: MakeGoodsTable;
  }
}
