import { sql, type Transaction } from 'kysely';
import type { Logger } from '@wordgame/logging';
import type { DB } from '../db/schema.js';
import { appendOperations } from '../ledger/repository.js';
import { orderForUpdate, recordEvent } from '../orders/repository.js';

export type RefundRecord = 'recorded' | 'already_refunded' | 'not_paid';

const min = (a: bigint, b: bigint) => (a < b ? a : b);

/**
 * Records a provider-confirmed full refund of a paid order exactly once and reverses exactly what
 * the pack funded, in the caller's transaction (order row locked first, then its segment and
 * benefits, the same order crediting uses):
 * - chips: the funded segment is debited by the pack's chips; when the customer already spent some
 *   and the balance is lower, the balance is taken to 0 and the shortfall is written in the ledger
 *   row's note and logged for an operator (a balance never goes negative);
 * - hints: the same, bounded by the hints left;
 * - no-ads days: the term end moves back by the pack's days;
 * - no-ads forever: revoked, unless another unrefunded grant of the same origin still holds it.
 * One `refund` ledger row carries it (negative deltas, revoked days/forever as positive markers,
 * negative money snapshot); unique (provider, refund_id) and (order_id, kind) make a second record
 * impossible, and the order keeps the refund id.
 */
export async function recordRefund(trx: Transaction<DB>, logger: Logger, orderId: string, refundId: string, now: Date): Promise<RefundRecord> {
  const order = await orderForUpdate(trx, orderId);
  if (!order || order.state !== 'paid') return 'not_paid';
  if (order.refund_id !== null) return 'already_refunded';

  const segment = await trx
    .selectFrom('wallet_segments')
    .select('balance')
    .where('account_id', '=', order.account_id)
    .where('segment', '=', order.segment)
    .forUpdate()
    .executeTakeFirst();
  const chipsDebit = min(segment?.balance ?? 0n, order.chips);
  if (chipsDebit > 0n) {
    await trx
      .updateTable('wallet_segments')
      .set((eb) => ({ balance: eb('balance', '-', chipsDebit) }))
      .where('account_id', '=', order.account_id)
      .where('segment', '=', order.segment)
      .execute();
  }

  const grantsBenefits = order.hints > 0n || order.no_ads_days > 0n || order.no_ads_forever;
  let hintsDebit = 0n;
  let daysRevoked = 0n;
  if (grantsBenefits) {
    const benefits = await trx
      .selectFrom('benefits')
      .select(['hints', 'no_ads_until', 'no_ads_forever'])
      .where('account_id', '=', order.account_id)
      .where('origin', '=', order.segment)
      .forUpdate()
      .executeTakeFirst();
    hintsDebit = min(benefits?.hints ?? 0n, order.hints);
    daysRevoked = benefits?.no_ads_until ? order.no_ads_days : 0n;
    let keepForever = benefits?.no_ads_forever ?? false;
    if (order.no_ads_forever) {
      const counts = await trx
        .selectFrom('ledger_operations')
        .select([
          sql<bigint>`count(*) filter (where kind <> 'refund')`.as('grants'),
          sql<bigint>`count(*) filter (where kind = 'refund')`.as('revokes'),
        ])
        .where('account_id', '=', order.account_id)
        .where('benefit_origin', '=', order.segment)
        .where('no_ads_forever', '=', true)
        .executeTakeFirstOrThrow();
      keepForever = BigInt(counts.grants) - BigInt(counts.revokes) - 1n > 0n;
    }
    await trx
      .updateTable('benefits')
      .set({
        hints: sql<bigint>`hints - ${hintsDebit}::bigint`,
        no_ads_until: sql<Date | null>`no_ads_until - ${daysRevoked * 86_400n}::bigint * interval '1 second'`,
        no_ads_forever: keepForever,
      })
      .where('account_id', '=', order.account_id)
      .where('origin', '=', order.segment)
      .execute();
  }

  const shortfall = order.chips - chipsDebit;
  const hintShortfall = order.hints - hintsDebit;
  const note = shortfall > 0n || hintShortfall > 0n ? `refund shortfall: ${shortfall} chips, ${hintShortfall} hints already spent` : '';
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
      chips_delta: -chipsDebit,
      money_minor: -order.amount,
      currency: order.currency,
      created_at: now,
      note,
      ...(grantsBenefits
        ? { benefit_origin: order.segment, hints_delta: -hintsDebit, no_ads_days: daysRevoked, no_ads_forever: order.no_ads_forever }
        : {}),
    },
  ]);
  await trx.updateTable('orders').set({ refund_id: refundId, refunded_at: now }).where('id', '=', order.id).execute();
  await recordEvent(trx, order.id, 'refunded', refundId);
  if (note !== '') logger.warn({ orderId: order.id, refundId, shortfall: String(shortfall), hintShortfall: String(hintShortfall) }, 'refund reversed less than the pack funded (already spent)');
  logger.info({ orderId: order.id, refundId, chips: String(chipsDebit) }, 'refund recorded');
  return 'recorded';
}
