import { sql, type Transaction } from 'kysely';
import type { Logger } from '@wordgame/logging';
import type { DB } from '../../db/schema.js';
import { appendOperations } from '../../ledger/repository.js';
import { orderForUpdate, recordEvent, type OrderRow } from '../orders/repository.js';

export type RefundRecord = 'recorded' | 'already_refunded' | 'not_paid';

const DAY_SECONDS = 86_400n;

/**
 * Records a provider-confirmed full refund of a paid order exactly once and revokes exactly what
 * the pack funded, in the caller's transaction (order row locked first, then its segment, then its
 * benefits: the order crediting and wallet.buy use):
 * - chips: the funded segment is debited by the pack's chips in full; when some were already
 *   spent the balance goes below zero, a debt (nothing is drawn from it; a later credit adds to it);
 * - hints: the origin's hints drop by the pack's hints in full, below zero when some were used;
 * - no-ads days: the term end moves back by exactly the pack's days, also when the term has
 *   already lapsed (no-ads then simply stays off; days are not carried as a debt, a later grant
 *   runs from its own time as usual);
 * - no-ads forever: revoked, unless another unrefunded grant of the same origin still holds it.
 * One `refund` ledger row carries it (the full negative deltas, revoked days/forever as positive
 * markers, negative money snapshot; its note names a debt it created, which is also logged as a
 * warning), so the ledger audit stays exact. Unique (provider, refund_id) and (order_id, kind) make
 * a second record impossible, and the order keeps the refund id.
 */
export async function recordRefund(trx: Transaction<DB>, logger: Logger, orderId: string, refundId: string, now: Date): Promise<RefundRecord> {
  const order = await orderForUpdate(trx, orderId);
  if (!order || order.state !== 'paid') return 'not_paid';
  if (order.refund_id !== null) return 'already_refunded';

  const balance = order.chips > 0n ? await debitChips(trx, order) : null;
  const grantsBenefits = order.hints > 0n || order.no_ads_days > 0n || order.no_ads_forever;
  const benefits = grantsBenefits ? await revokeBenefits(trx, order) : null;

  const debts = [
    ...(balance !== null && balance < 0n ? [`${order.segment} chips ${balance}`] : []),
    ...(benefits !== null && benefits.hints < 0n && order.hints > 0n ? [`${order.segment} hints ${benefits.hints}`] : []),
  ];
  await appendOperations(trx, [
    {
      account_id: order.account_id,
      kind: 'refund',
      segment: order.segment,
      rail: order.provider,
      provider: order.provider,
      refund_id: refundId,
      product_id: order.product_id,
      order_id: order.id,
      chips_delta: -order.chips,
      money_minor: -order.amount,
      currency: order.currency,
      created_at: now,
      note: debts.length > 0 ? `refund left a debt: ${debts.join(', ')}` : '',
      ...(benefits !== null
        ? { benefit_origin: order.segment, hints_delta: -order.hints, no_ads_days: benefits.daysRevoked, no_ads_forever: order.no_ads_forever }
        : {}),
    },
  ]);
  await trx.updateTable('orders').set({ refund_id: refundId, refunded_at: now }).where('id', '=', order.id).execute();
  await recordEvent(trx, order.id, 'refunded', refundId);
  if (debts.length > 0) {
    logger.warn(
      { accountId: String(order.account_id), orderId: order.id, refundId, segment: order.segment, balance: balance === null ? undefined : String(balance), hints: benefits === null ? undefined : String(benefits.hints) },
      'refund left the wallet in debt (already spent)',
    );
  }
  logger.info({ orderId: order.id, refundId, chips: String(order.chips), hints: String(order.hints) }, 'refund recorded');
  return 'recorded';
}

/** Takes the pack's chips from its segment in full (the row is locked by the write); answers the new balance. */
async function debitChips(trx: Transaction<DB>, order: OrderRow): Promise<bigint> {
  const row = await trx
    .insertInto('wallet_segments')
    .values({ account_id: order.account_id, segment: order.segment, balance: -order.chips })
    .onConflict((oc) => oc.columns(['account_id', 'segment']).doUpdateSet({ balance: sql<bigint>`wallet_segments.balance - ${order.chips}::bigint` }))
    .returning('balance')
    .executeTakeFirstOrThrow();
  return row.balance;
}

/**
 * Revokes the pack's benefits from its origin (row locked before the forever count is read, so a
 * concurrent grant cannot slip between them): hints in full, the term end back by the pack's days
 * (0 revoked when there is no term), forever unless another unrefunded grant holds it.
 */
async function revokeBenefits(trx: Transaction<DB>, order: OrderRow): Promise<{ hints: bigint; daysRevoked: bigint }> {
  const held = await trx
    .selectFrom('benefits')
    .select(['no_ads_until'])
    .where('account_id', '=', order.account_id)
    .where('origin', '=', order.segment)
    .forUpdate()
    .executeTakeFirst();
  if (!held) {
    const row = await trx.insertInto('benefits').values({ account_id: order.account_id, origin: order.segment, hints: -order.hints }).returning('hints').executeTakeFirstOrThrow();
    return { hints: row.hints, daysRevoked: 0n };
  }
  const daysRevoked = held.no_ads_until !== null ? order.no_ads_days : 0n;
  const keepForever = order.no_ads_forever ? await foreverStillGranted(trx, order) : undefined;
  const row = await trx
    .updateTable('benefits')
    .set({
      hints: sql<bigint>`hints - ${order.hints}::bigint`,
      no_ads_until: sql<Date | null>`no_ads_until - ${daysRevoked * DAY_SECONDS}::bigint * interval '1 second'`,
      ...(keepForever !== undefined ? { no_ads_forever: keepForever } : {}),
    })
    .where('account_id', '=', order.account_id)
    .where('origin', '=', order.segment)
    .returning('hints')
    .executeTakeFirstOrThrow();
  return { hints: row.hints, daysRevoked };
}

/** True when, without this order's grant, another unrefunded no-ads-forever grant of the origin remains. */
async function foreverStillGranted(trx: Transaction<DB>, order: OrderRow): Promise<boolean> {
  const counts = await trx
    .selectFrom('ledger_operations')
    .select([sql<bigint>`count(*) filter (where kind <> 'refund')`.as('grants'), sql<bigint>`count(*) filter (where kind = 'refund')`.as('revokes')])
    .where('account_id', '=', order.account_id)
    .where('benefit_origin', '=', order.segment)
    .where('no_ads_forever', '=', true)
    .executeTakeFirstOrThrow();
  return BigInt(counts.grants) - BigInt(counts.revokes) - 1n > 0n;
}
