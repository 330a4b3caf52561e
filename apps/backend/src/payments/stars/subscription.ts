import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { DB } from '../../db/index.js';
import { extendSubscription, insertPeriod, insertSubscription, subscriptionByFirstOrderForUpdate } from '../../subscriptions/index.js';
import { creditOrder } from '../orders/credit.js';
import { chargeCredited } from './stars.store.js';
import { insertOrder, recordEvent, type OrderRow } from '../orders/orders.store.js';
import { ORDER_LIFETIME_MS } from '../orders/state.js';

/** A forwarded charge of a stars subscription (the platform's is_recurring payment). */
export interface SubscriptionCharge {
  platformChargeId: string;
  amount: bigint;
  platformUserId: bigint;
  /** The end of the period it paid for (subscription_expiration_date); null when the bot did not say. */
  expiresAt: Date | null;
}

/** The end of the period a charge paid for: the platform's date, or one period from now when it gave none. */
function periodEnd(order: Pick<OrderRow, 'subscription_period'>, c: SubscriptionCharge, now: Date): Date {
  return c.expiresAt ?? new Date(now.getTime() + (order.subscription_period ?? 0) * 1000);
}

/** The start of the period ending at `end`. */
function periodStart(order: Pick<OrderRow, 'subscription_period'>, end: Date): Date {
  return new Date(end.getTime() - (order.subscription_period ?? 0) * 1000);
}

/**
 * A subscription's first payment, under its order's row lock (the caller's locked path, the order
 * creditable with an equal amount): credits the order with the pass to the period's end and records
 * the subscription and its first period in the same transaction. Answers the paid order, or null
 * when the credit matched nothing (a refund in flight).
 */
export async function creditFirstPeriod(trx: Transaction<DB>, order: OrderRow, c: SubscriptionCharge, now: Date): Promise<OrderRow | null> {
  const end = periodEnd(order, c, now);
  const paid = await creditOrder(
    trx,
    order.id,
    { platformChargeId: c.platformChargeId, platformUserId: c.platformUserId, passUntil: end },
    now,
  );
  if (!paid) return null;
  await insertSubscription(trx, {
    accountId: order.account_id,
    productId: order.product_id,
    firstOrderId: order.id,
    segment: order.segment,
    platformUserId: c.platformUserId,
    amount: order.amount,
    currency: order.currency,
    chargeId: c.platformChargeId,
    periodStart: periodStart(order, end),
    periodEnd: end,
    at: now,
  });
  return paid;
}

/** What a renewal did: credited its own order, was credited before, or why it matched nothing. */
export type RenewalOutcome = { kind: 'credited'; paid: OrderRow } | { kind: 'replay' } | { kind: 'unmatched'; reason: string };

/**
 * A renewal of the subscription whose first order is `first` (row-locked by the caller, the paid
 * order the invoice payload names): under the subscription's row lock, a charge already credited
 * (a duplicate delivery that raced this one) is a replay; a subscription we have no record of, or
 * a charge of another amount, is unmatched; otherwise a renewal order for this charge is opened
 * and credited (the pack again, the pass to the platform's expiration date) and the period is
 * recorded, extending paid_until to the later of the two ends (a late renewal of an earlier
 * period extends nothing). Exactly once per charge: the charge id is unique on orders and periods.
 */
export async function creditRenewal(trx: Transaction<DB>, first: OrderRow, c: SubscriptionCharge, now: Date): Promise<RenewalOutcome> {
  const sub = await subscriptionByFirstOrderForUpdate(trx, first.id);
  if (!sub) return { kind: 'unmatched', reason: 'unknown_subscription' };
  if (await chargeCredited(trx, c.platformChargeId)) return { kind: 'replay' };
  if (c.amount !== sub.amount) return { kind: 'unmatched', reason: 'amount_mismatch' };
  const end = periodEnd(first, c, now);
  const renewal = await insertOrder(trx, {
    id: randomUUID(),
    account_id: first.account_id,
    product_id: first.product_id,
    title: first.title,
    rail: 'stars',
    provider: first.provider,
    shop: null,
    segment: first.segment,
    amount: sub.amount,
    currency: sub.currency,
    chips: first.chips,
    hints: first.hints,
    subscription_period: first.subscription_period,
    created_at: now,
    expires_at: new Date(now.getTime() + ORDER_LIFETIME_MS),
  });
  await recordEvent(trx, renewal.id, 'created', `renewal of ${first.id}`);
  const paid = await creditOrder(
    trx,
    renewal.id,
    { platformChargeId: c.platformChargeId, platformUserId: c.platformUserId, passUntil: end },
    now,
  );
  if (!paid) throw new Error('a renewal order just opened could not be credited');
  await insertPeriod(trx, {
    subscriptionId: sub.id,
    chargeId: c.platformChargeId,
    orderId: renewal.id,
    renewal: true,
    start: periodStart(first, end),
    end,
    at: now,
  });
  await extendSubscription(trx, sub.id, end, c.platformChargeId, now);
  return { kind: 'credited', paid };
}
