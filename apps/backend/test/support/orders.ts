import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from '@wordgame/logging';
import { upsertProduct } from '../../src/catalog/catalog.store.js';
import type { DB } from '../../src/db/schema.js';
import type { Segment } from '../../src/gate/context.js';
import { creditOrder } from '../../src/payments/orders/credit.js';
import { insertOrder, type OrderRow } from '../../src/payments/orders/orders.store.js';
import { recordRefund, type RefundRecord } from '../../src/payments/refunds/reverse.js';

/** What a test pack grants (the order's snapshot). */
export interface PackSpec {
  chips: bigint;
  hints?: bigint;
  noAdsDays?: bigint;
  noAdsForever?: boolean;
}

/** A catalog product to hang test orders on (orders reference a product; their snapshot is what counts). */
export async function orderProduct(db: Kysely<DB>): Promise<bigint> {
  const p = await upsertProduct(
    db,
    {
      id: 0n,
      title: 'Test pack',
      active: true,
      atoms: [{ kind: 'chips', quantity: 1n }],
      prices: [{ method: 'provider', amount: 100n, currency: 'RUB' }],
    },
    new Date(),
  );
  return p.id;
}

/**
 * A card order for `pack` funding `segment`, credited through the real credit statement at `at`
 * (its provider payment id is the order id). Returns the paid order.
 */
export async function paidOrder(
  db: Kysely<DB>,
  productId: bigint,
  accountId: bigint,
  segment: Segment,
  pack: PackSpec,
  at = new Date(),
): Promise<OrderRow> {
  const id = randomUUID();
  await insertOrder(db, {
    id,
    account_id: accountId,
    product_id: productId,
    title: 'Test pack',
    rail: 'card',
    provider: 'yookassa',
    shop: 'shop-test',
    segment,
    amount: 100n,
    currency: 'RUB',
    chips: pack.chips,
    hints: pack.hints ?? 0n,
    no_ads_days: pack.noAdsDays ?? 0n,
    no_ads_forever: pack.noAdsForever ?? false,
    created_at: at,
    expires_at: new Date(at.getTime() + 30 * 60_000),
  });
  const paid = await creditOrder(db, id, { providerPaymentId: `pay-${id}` }, at);
  if (!paid) throw new Error('the test order was not credited');
  return paid;
}

/** Records a provider-confirmed full refund of an order, as the notification and console paths do. */
export function fullRefund(db: Kysely<DB>, logger: Logger, orderId: string, at = new Date()): Promise<RefundRecord> {
  return db.transaction().execute((trx) => recordRefund(trx, logger, orderId, `refund-${orderId}`, at));
}
