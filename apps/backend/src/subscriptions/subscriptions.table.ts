import type { ColumnType, Generated } from 'kysely';
import type { Segment } from '../gate/index.js';

/** A stars subscription the platform charges, keyed by its first order (the payload every renewal carries). */
export interface StarSubscriptionsTable {
  id: Generated<bigint>;
  account_id: bigint;
  product_id: bigint;
  first_order_id: string;
  /** The origin its pass is a benefit of (the segment its orders fund). */
  segment: Segment;
  /** The payer's platform user id (edit_star_subscription names them). */
  platform_user_id: bigint;
  /** The price of one period, in the currency's minor (whole) units. */
  amount: bigint;
  currency: string;
  /** End of the latest unrefunded paid period; with none left, the first period's start (nothing paid). */
  paid_until: Date;
  /** The charge of its latest paid period (edit_star_subscription names the subscription by it). */
  last_charge_id: string;
  /** Set while the player has turned renewals off (the bot's Ack said delivered). */
  cancelled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/** One paid period per platform charge (first payment or renewal): unique on the charge and on its order. */
export interface StarSubscriptionPeriodsTable {
  charge_id: string;
  subscription_id: bigint;
  order_id: string;
  renewal: boolean;
  period_start: Date;
  period_end: Date;
  refunded_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: ColumnType<Date, Date | undefined, never>;
}

declare module '../db/index.js' {
  /** The subscriptions tables: each stars subscription and its paid periods. */
  interface DB {
    star_subscriptions: StarSubscriptionsTable;
    star_subscription_periods: StarSubscriptionPeriodsTable;
  }
}
