import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.js';
import { appendOperations } from '../ledger/repository.js';
import { addBenefits } from '../wallet/repository.js';
import { recordEvent, type OrderRow } from './repository.js';
import { CREDITABLE_STATES } from './state.js';

/** What settled the order: the platform's charge id (stars) or the provider's payment id (card). */
export interface Settlement {
  platformChargeId?: string;
  providerPaymentId?: string;
}

/**
 * Credits a creditable order exactly once, inside the caller's transaction: one conditional UPDATE
 * moves it from pending/expired to paid (a second attempt matches no row and credits nothing), then
 * the pack's chips go to the order's segment, its benefits to the same origin, and one `purchase`
 * ledger row records it all (rail = provider = the settling provider, money snapshot). The unique
 * (order_id, kind) key on the ledger backs the conditional UPDATE. Returns the paid order, or null
 * when the order was not creditable (already paid, failed or missing).
 */
export async function creditOrder(trx: Transaction<DB>, orderId: string, settlement: Settlement, now: Date): Promise<OrderRow | null> {
  const order = await trx
    .updateTable('orders')
    .set((eb) => ({
      state: 'paid',
      paid_at: now,
      ...(settlement.platformChargeId !== undefined ? { platform_charge_id: settlement.platformChargeId } : {}),
      ...(settlement.providerPaymentId !== undefined
        ? { provider_payment_id: eb.fn.coalesce('provider_payment_id', eb.val(settlement.providerPaymentId)) }
        : {}),
    }))
    .where('id', '=', orderId)
    .where('state', 'in', CREDITABLE_STATES)
    .returningAll()
    .executeTakeFirst();
  if (!order) return null;

  if (order.chips > 0n) {
    await trx
      .insertInto('wallet_segments')
      .values({ account_id: order.account_id, segment: order.segment, balance: order.chips })
      .onConflict((oc) => oc.columns(['account_id', 'segment']).doUpdateSet((eb) => ({ balance: eb('wallet_segments.balance', '+', order.chips) })))
      .execute();
  }
  const grant = { hints: order.hints, noAdsDays: order.no_ads_days, noAdsForever: order.no_ads_forever };
  const grantsBenefits = grant.hints > 0n || grant.noAdsDays > 0n || grant.noAdsForever;
  if (grantsBenefits) await addBenefits(trx, order.account_id, order.segment, grant, now);
  await appendOperations(trx, [
    {
      account_id: order.account_id,
      kind: 'purchase',
      segment: order.segment,
      rail: order.provider,
      provider: order.provider,
      product_id: order.product_id,
      order_id: order.id,
      chips_delta: order.chips,
      money_minor: order.amount,
      currency: order.currency,
      created_at: now,
      ...(grantsBenefits
        ? { benefit_origin: order.segment, hints_delta: grant.hints, no_ads_days: grant.noAdsDays, no_ads_forever: grant.noAdsForever }
        : {}),
    },
  ]);
  await recordEvent(trx, order.id, 'paid', settlement.platformChargeId ?? settlement.providerPaymentId ?? '');
  return order;
}

/** Whether an order row is one a confirmed payment may still credit. */
export function creditable(order: Pick<OrderRow, 'state'>): boolean {
  return CREDITABLE_STATES.includes(order.state);
}
