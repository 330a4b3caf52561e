import type { Kysely } from 'kysely';
import type { DB } from '../../db/index.js';
import { isoOrNull, type JsonValue } from '../../support/index.js';

/** The export's `orders` section: every order of the account with its events, oldest first; amounts in minor units. */
export async function ordersSection(db: Kysely<DB>, accountId: bigint): Promise<JsonValue> {
  const orders = await db
    .selectFrom('orders')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const events =
    orders.length === 0
      ? []
      : await db
          .selectFrom('payment_events')
          .select(['order_id', 'kind', 'detail', 'created_at'])
          .where(
            'order_id',
            'in',
            orders.map((o) => o.id),
          )
          .orderBy('id')
          .execute();
  return orders.map((o) => ({
    id: o.id,
    product_id: o.product_id.toString(),
    title: o.title,
    rail: o.rail,
    provider: o.provider,
    segment: o.segment,
    amount: o.amount.toString(),
    currency: o.currency,
    chips: o.chips.toString(),
    hints: o.hints.toString(),
    no_ads_days: o.no_ads_days.toString(),
    no_ads_forever: o.no_ads_forever,
    state: o.state,
    failure_reason: o.failure_reason,
    platform_charge_id: o.platform_charge_id,
    provider_payment_id: o.provider_payment_id,
    refund_id: o.refund_id,
    created_at: o.created_at.toISOString(),
    paid_at: isoOrNull(o.paid_at),
    refunded_at: isoOrNull(o.refunded_at),
    events: events.filter((e) => e.order_id === o.id).map((e) => ({ kind: e.kind, detail: e.detail, at: e.created_at.toISOString() })),
  }));
}
