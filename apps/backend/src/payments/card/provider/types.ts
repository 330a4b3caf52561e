import type { Shop as ConfiguredShop } from '../../../config/index.js';

/** Provider-side payment status, as the provider reports it. */
export type ProviderPaymentStatus = 'pending' | 'waiting_for_capture' | 'succeeded' | 'canceled';
/** Provider-side refund status. */
export type ProviderRefundStatus = 'pending' | 'succeeded' | 'canceled';

/** What the adapter needs of a configured shop: its credentials and test flag (not its currency, which orders check). */
export type Shop = Pick<ConfiguredShop, 'id' | 'secretKey' | 'test'>;

/** One line of an itemised fiscal receipt. */
export interface ReceiptItem {
  description: string;
  amountMinor: bigint;
  currency: string;
}

/** An itemised receipt: sent only when a VAT code is configured. */
export interface Receipt {
  email: string;
  vatCode: number;
  items: ReceiptItem[];
}

export interface CreatePaymentInput {
  amountMinor: bigint;
  currency: string;
  description: string;
  returnUrl: string;
  /** Always carries `order_id`; the guards on re-read compare it with the order. */
  metadata: Record<string, string>;
  receipt?: Receipt;
}

/** A payment as re-read from the provider: the only evidence the service acts on. */
export interface ProviderPayment {
  id: string;
  status: ProviderPaymentStatus;
  amountMinor: bigint;
  currency: string;
  test: boolean;
  paid: boolean;
  metadata: Record<string, string>;
  confirmationUrl?: string;
  cancellation?: { party: string; reason: string };
  refundedMinor: bigint;
  /** When the provider created it (present on listed payments; reconciliation windows use it). */
  createdAt?: Date;
}

export interface CreateRefundInput {
  paymentId: string;
  amountMinor: bigint;
  currency: string;
  description?: string;
  receipt?: Receipt;
}

/** A refund as the provider reports it. */
export interface ProviderRefund {
  id: string;
  paymentId: string;
  status: ProviderRefundStatus;
  amountMinor: bigint;
  currency: string;
  /** When the provider created it (present on listed refunds). */
  createdAt?: Date;
}

/** A time window of a provider list: created at or after `from` and before `to`. */
export interface ListQuery {
  from: Date;
  to: Date;
  /** The previous page's `nextCursor`; absent for the first page. */
  cursor?: string;
  /** Page size, 1..100. */
  limit?: number;
}

/** One page of a provider list; `nextCursor` null on the last page. */
export interface ListPage<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * Why a provider call failed. `unavailable`: transport failure, timeout, 5xx or 429 — the outcome
 * is unknown and the same idempotence key may be retried. `rejected`: the provider refused the
 * request (4xx); retrying it unchanged will not help. `not_found`: the object does not exist for
 * this shop.
 */
export type ProviderFailure = 'unavailable' | 'rejected' | 'not_found';

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    readonly failure: ProviderFailure,
    readonly provider: string,
    readonly operation: string,
    readonly detail: string,
    readonly status?: number,
  ) {
    super(`${provider} ${operation}: ${failure} (${status ?? 'no answer'}) ${detail}`);
  }
}

/**
 * The direct rail's payment provider. Orders and ledger rows keep `name`, so switching providers
 * changes no wire. Every mutating call takes the caller's idempotence key (the order id for a
 * payment), so a retry after an unknown outcome returns the same object instead of a second one.
 */
export interface PaymentProvider {
  readonly name: string;
  createPayment(shop: Shop, input: CreatePaymentInput, idempotenceKey: string): Promise<ProviderPayment>;
  getPayment(shop: Shop, paymentId: string): Promise<ProviderPayment>;
  createRefund(shop: Shop, input: CreateRefundInput, idempotenceKey: string): Promise<ProviderRefund>;
  getRefund(shop: Shop, refundId: string): Promise<ProviderRefund>;
  /** One page of the shop's payments created in the window, newest first (reconciliation reads these). */
  listPayments(shop: Shop, query: ListQuery): Promise<ListPage<ProviderPayment>>;
  /** One page of the shop's refunds created in the window, newest first. */
  listRefunds(shop: Shop, query: ListQuery): Promise<ListPage<ProviderRefund>>;
}
