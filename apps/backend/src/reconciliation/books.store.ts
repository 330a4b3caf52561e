/**
 * Our side of the books a run compares with the provider's and the platform's: reads of orders and
 * unmatched payments, no locks. Each list read answers [] without a statement when its id list is
 * empty (`in ()` is not SQL).
 */

import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../db/index.js';
import type { OrderRow, UnmatchedPaymentsTable } from '../payments/index.js';
import type { Window } from './finding.js';

/** An unmatched stars payment as read. */
export type UnmatchedRow = Selectable<UnmatchedPaymentsTable>;

/** Card orders of `provider` whose recorded payment id is one of `paymentIds`, or whose id is one of `orderIds`. */
export async function cardOrdersForPayments(
  db: Kysely<DB>,
  provider: string,
  paymentIds: string[],
  orderIds: string[],
): Promise<OrderRow[]> {
  if (paymentIds.length === 0) return [];
  return db
    .selectFrom('orders')
    .selectAll()
    .where('rail', '=', 'card')
    .where('provider', '=', provider)
    .where((w) => w.or([w('provider_payment_id', 'in', paymentIds), ...(orderIds.length > 0 ? [w('id', 'in', orderIds)] : [])]))
    .execute();
}

/** Paid card orders of one provider's shop created in the window. */
export async function paidCardOrders(db: Kysely<DB>, provider: string, shopId: string, window: Window): Promise<OrderRow[]> {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('rail', '=', 'card')
    .where('provider', '=', provider)
    .where('shop', '=', shopId)
    .where('state', '=', 'paid')
    .where('created_at', '>=', window.from)
    .where('created_at', '<', window.to)
    .execute();
}

/** Which of `refundIds` are recorded as the refund of a card order of `provider`. */
export async function recordedCardRefundIds(db: Kysely<DB>, provider: string, refundIds: string[]): Promise<(string | null)[]> {
  if (refundIds.length === 0) return [];
  const rows = await db
    .selectFrom('orders')
    .select('refund_id')
    .where('rail', '=', 'card')
    .where('provider', '=', provider)
    .where('refund_id', 'in', refundIds)
    .execute();
  return rows.map((r) => r.refund_id);
}

/** The id of the order a provider payment id is recorded on (any rail, any provider); undefined when none. */
export async function orderIdByProviderPayment(db: Kysely<DB>, paymentId: string): Promise<string | undefined> {
  const row = await db.selectFrom('orders').select('id').where('provider_payment_id', '=', paymentId).executeTakeFirst();
  return row?.id;
}

/** Card orders of one provider's shop with a refund recorded in the window. */
export async function refundedCardOrders(db: Kysely<DB>, provider: string, shopId: string, window: Window): Promise<OrderRow[]> {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('rail', '=', 'card')
    .where('provider', '=', provider)
    .where('shop', '=', shopId)
    .where('refund_id', 'is not', null)
    .where('refunded_at', '>=', window.from)
    .where('refunded_at', '<', window.to)
    .execute();
}

/** Stars orders whose platform charge id is one of `platformChargeIds`, or whose id is one of `orderIds`. */
export async function starOrdersForCharges(db: Kysely<DB>, platformChargeIds: string[], orderIds: string[]): Promise<OrderRow[]> {
  if (platformChargeIds.length === 0) return [];
  return db
    .selectFrom('orders')
    .selectAll()
    .where('rail', '=', 'stars')
    .where((w) => w.or([w('platform_charge_id', 'in', platformChargeIds), ...(orderIds.length > 0 ? [w('id', 'in', orderIds)] : [])]))
    .execute();
}

/** The unmatched payments recorded for `platformChargeIds`, with their refund status. */
export async function unmatchedForCharges(
  db: Kysely<DB>,
  platformChargeIds: string[],
): Promise<Pick<UnmatchedRow, 'platform_charge_id' | 'refund_status'>[]> {
  if (platformChargeIds.length === 0) return [];
  return db
    .selectFrom('unmatched_payments')
    .select(['platform_charge_id', 'refund_status'])
    .where('platform_charge_id', 'in', platformChargeIds)
    .execute();
}

/** Stars orders paid in the window. */
export async function paidStarOrders(db: Kysely<DB>, window: Window): Promise<OrderRow[]> {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('rail', '=', 'stars')
    .where('state', '=', 'paid')
    .where('paid_at', '>=', window.from)
    .where('paid_at', '<', window.to)
    .execute();
}

/** Stars orders with a refund recorded in the window. */
export async function refundedStarOrders(db: Kysely<DB>, window: Window): Promise<OrderRow[]> {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('rail', '=', 'stars')
    .where('refund_id', 'is not', null)
    .where('refunded_at', '>=', window.from)
    .where('refunded_at', '<', window.to)
    .execute();
}

/** Unmatched payments refunded in the window. */
export async function refundedUnmatched(db: Kysely<DB>, window: Window): Promise<UnmatchedRow[]> {
  return db
    .selectFrom('unmatched_payments')
    .selectAll()
    .where('refund_status', '=', 'refunded')
    .where('refunded_at', '>=', window.from)
    .where('refunded_at', '<', window.to)
    .execute();
}

/** An order by id; undefined when there is none. */
export async function orderById(db: Kysely<DB>, orderId: string): Promise<OrderRow | undefined> {
  return db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirst();
}
