import type { ColumnType, Generated } from 'kysely';
import type { Segment } from '../gate/index.js';

/** Where a code may be redeemed: `web` is the direct context (the wallet page outside a host). */
export type PromoHost = 'web' | 'telegram' | 'vk';

/** One promo code (0170): its keyed hash and prefix, never the code itself. */
export interface PromoCodesTable {
  id: Generated<bigint>;
  code_hash: ColumnType<Buffer, Buffer, never>;
  prefix: ColumnType<string, string, never>;
  label: ColumnType<string, string | undefined, never>;
  chips: ColumnType<bigint, bigint | undefined, never>;
  hints: ColumnType<bigint, bigint | undefined, never>;
  no_ads_days: ColumnType<bigint, bigint | undefined, never>;
  max_redemptions: ColumnType<number, number, never>;
  /** Redemptions so far; raised under the row's lock, never beyond max_redemptions (a check). */
  redeemed: ColumnType<number, number | undefined, number>;
  hosts: ColumnType<PromoHost[], PromoHost[], never>;
  valid_from: ColumnType<Date, Date, never>;
  valid_until: ColumnType<Date, Date, never>;
  created_by: ColumnType<bigint | null, bigint | null, never>;
  created_at: ColumnType<Date, Date, never>;
}

/** One player's redemption of a code (unique per code and account); reversed once at most. */
export interface PromoRedemptionsTable {
  id: Generated<bigint>;
  code_id: ColumnType<bigint, bigint, never>;
  account_id: ColumnType<bigint, bigint, never>;
  segment: ColumnType<Segment, Segment, never>;
  chips: ColumnType<bigint, bigint, never>;
  hints: ColumnType<bigint, bigint, never>;
  no_ads_days: ColumnType<bigint, bigint, never>;
  redeemed_at: ColumnType<Date, Date, never>;
  reversed_at: ColumnType<Date | null, never, Date>;
  reversed_by: ColumnType<bigint | null, never, bigint>;
}

declare module '../db/index.js' {
  /** The promo codes' tables: the codes operators create and the players' redemptions. */
  interface DB {
    promo_codes: PromoCodesTable;
    promo_redemptions: PromoRedemptionsTable;
  }
}
