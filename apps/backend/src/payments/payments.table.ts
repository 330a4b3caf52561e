import type { ColumnType, Generated } from 'kysely';
import type { Segment } from '../gate/index.js';

/** Order rail: platform stars through the bot, or a card through the direct-rail provider. */
export type OrderRail = 'stars' | 'card';
/** See orders/state.ts for the state machine; `expired` = honoured-expired (still creditable). */
export type OrderState = 'pending' | 'paid' | 'failed' | 'expired';
export type PaymentEventKind = 'created' | 'paid' | 'failed' | 'expired' | 'refunded' | 'partial_refund';

export interface OrdersTable {
  /** uuid; also the provider Idempotence-Key, metadata.order_id and the invoice payload. */
  id: string;
  account_id: bigint;
  product_id: bigint;
  title: string;
  rail: OrderRail;
  /** `telegram_stars` or the card provider adapter's name. */
  provider: string;
  /** The channel's merchant shop id (card rail); null for stars. */
  shop: string | null;
  /** The wallet segment (and benefit origin) this order funds. */
  segment: Segment;
  amount: bigint;
  currency: string;
  /** Snapshot of what the pack grants, taken at order time; a refund reverses exactly this. */
  chips: bigint;
  hints: ColumnType<bigint, bigint | undefined, never>;
  no_ads_days: ColumnType<bigint, bigint | undefined, never>;
  no_ads_forever: ColumnType<boolean, boolean | undefined, never>;
  state: ColumnType<OrderState, OrderState | undefined, OrderState>;
  created_at: ColumnType<Date, Date, never>;
  expires_at: ColumnType<Date, Date, never>;
  paid_at: Date | null;
  provider_payment_id: string | null;
  platform_charge_id: string | null;
  invoice_link: string | null;
  confirmation_url: string | null;
  failure_reason: string | null;
  refund_id: string | null;
  refunded_at: Date | null;
  /** Reaper lease: the order is not re-checked with the provider before this time. */
  recheck_after: Date | null;
  /** Stars: an approved pre-checkout holds the order until then (one live approval per order). */
  checkout_hold_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Stars: the platform user who paid the crediting charge (refunds go back to them). */
  platform_user_id: ColumnType<bigint | null, bigint | null | undefined, bigint | null>;
  /** Console refund attempt; the provider idempotence key derives from it (refunds/console.ts). */
  refund_attempt: ColumnType<number, number | undefined, number>;
  /** A console refund's claim: its provider or platform call is in flight (refunds/claim.ts); null when none. */
  refund_claimed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The operator whose press holds the claim (null: none, or a refund asked without an operator). */
  refund_claimed_by: ColumnType<bigint | null, bigint | null | undefined, bigint | null>;
  /**
   * A refund in flight (0110): the idempotence key of a refund of this order's payment that may exist
   * and is not final. Set under the row lock before any refund call; while set, no credit path credits
   * the order. Cleared when the refund is recorded or known not to have happened (orders/state.ts).
   */
  refund_hold: ColumnType<string | null, string | null | undefined, string | null>;
  /** The provider's refund id while it reports the held refund pending; the reaper re-reads it until final. */
  refund_pending_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Card: the payment was created with a 54-FZ receipt to the account's e-mail (0135). */
  receipt_sent: ColumnType<boolean, boolean | undefined, boolean>;
  /** Card: the refund was asked with a 54-FZ receipt (0135). */
  refund_receipt_sent: ColumnType<boolean, boolean | undefined, boolean>;
  /** Seconds of one period when the order is a stars subscription's (0150); null: a one-time order. */
  subscription_period: ColumnType<number | null, number | null | undefined, never>;
  /** A subscription order: the end of the period its charge paid for, set by the credit (0150). */
  pass_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface PaymentEventsTable {
  id: Generated<bigint>;
  order_id: string;
  kind: PaymentEventKind;
  detail: ColumnType<string, string | undefined, never>;
  created_at: ColumnType<Date, Date | undefined, never>;
}

/** A platform payment that matched no creditable order; an operator follows up. */
export interface UnmatchedPaymentsTable {
  id: Generated<bigint>;
  provider: string;
  platform_charge_id: string;
  /** The order id the payment named (raw, may not be a uuid). */
  order_id: string;
  amount: bigint;
  platform_user_id: bigint;
  reason: string;
  created_at: ColumnType<Date, Date | undefined, never>;
  /** The automatic return of these stars (see refunds/star-refunds.ts). */
  refund_status: ColumnType<StarRefundStatus, StarRefundStatus | undefined, StarRefundStatus>;
  refund_attempts: ColumnType<number, number | undefined, number>;
  refund_next_at: ColumnType<Date, Date | undefined, Date>;
  refund_error: ColumnType<string | null, string | null | undefined, string | null>;
  refunded_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** pending: to send (due at refund_next_at); refunded: the platform took it back; failed: the platform refused. */
export type StarRefundStatus = 'pending' | 'refunded' | 'failed';

/**
 * When the card rail last re-read a provider object a notification named (0096), per shop: bounds
 * the re-reads a burst of notifications can cause (card/store.ts).
 */
export interface ProviderRereadsTable {
  shop: string;
  kind: 'payment' | 'refund';
  object_id: string;
  last_reread_at: Date;
  failed: ColumnType<boolean, boolean | undefined, boolean>;
}

declare module '../db/index.js' {
  /** The payments tables: orders, their events, the platform payments that matched no order and the card rail's re-read marks. */
  interface DB {
    orders: OrdersTable;
    payment_events: PaymentEventsTable;
    unmatched_payments: UnmatchedPaymentsTable;
    provider_rereads: ProviderRereadsTable;
  }
}
