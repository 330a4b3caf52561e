import { sql, type Selectable, type Transaction } from 'kysely';
import type { DB } from '../../db/index.js';
import { appendOperations } from './append.js';

/** The orders table is payments' (payments.table.ts); the ledger, below payments, reads it off the composed database type. */
type OrderRow = Selectable<DB['orders']>;

const DAY_SECONDS = 86_400n;

/** What a refund posting changed: the segment's new balance and the origin's benefits (null when untouched), and the debts it left. */
export interface RefundPosting {
  balance: bigint | null;
  benefits: { hints: bigint; daysRevoked: bigint } | null;
  debts: string[];
}

/**
 * Posts a full refund of a paid order (its row already locked by the caller), in the caller's
 * transaction, segment first, then benefits (the order every money writer uses): the pack's chips
 * off its segment in full (below zero is a debt), its benefits revoked, and one `refund` ledger row
 * carrying the full negative deltas, revoked days/forever as markers and the negative money
 * snapshot; its note names a debt it created. A subscription charge's order (`pass_until` set)
 * revokes the period it paid for: the origin's pass moves back to the latest period end another
 * unrefunded charge granted (none left: no pass), and the refund row carries the revoked end.
 */
export async function postRefund(trx: Transaction<DB>, order: OrderRow, refundId: string, now: Date): Promise<RefundPosting> {
  const balance = order.chips > 0n ? await debitChips(trx, order) : null;
  const grantsBenefits = order.hints > 0n || order.no_ads_days > 0n || order.no_ads_forever || order.pass_until !== null;
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
        ? {
            benefit_origin: order.segment,
            hints_delta: -order.hints,
            no_ads_days: benefits.daysRevoked,
            no_ads_forever: order.no_ads_forever,
            pass_until: order.pass_until,
          }
        : {}),
    },
  ]);
  return { balance, benefits, debts };
}

/** Takes the pack's chips from its segment in full (the row is locked by the write); answers the new balance. */
async function debitChips(trx: Transaction<DB>, order: OrderRow): Promise<bigint> {
  const row = await trx
    .insertInto('wallet_segments')
    .values({ account_id: order.account_id, segment: order.segment, balance: -order.chips })
    .onConflict((oc) =>
      oc.columns(['account_id', 'segment']).doUpdateSet({ balance: sql<bigint>`wallet_segments.balance - ${order.chips}::bigint` }),
    )
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
    const row = await trx
      .insertInto('benefits')
      .values({ account_id: order.account_id, origin: order.segment, hints: -order.hints })
      .returning('hints')
      .executeTakeFirstOrThrow();
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
      ...(order.pass_until !== null ? { pass_until: passStillGranted(order) } : {}),
    })
    .where('account_id', '=', order.account_id)
    .where('origin', '=', order.segment)
    .returning('hints')
    .executeTakeFirstOrThrow();
  return { hints: row.hints, daysRevoked };
}

/**
 * The latest period end the origin's other unrefunded subscription charges granted (a `purchase`
 * row with `pass_until` whose order has no `refund` row), as an expression for the benefits update.
 */
function passStillGranted(order: OrderRow) {
  return sql<Date | null>`(select max(g.pass_until) from ledger_operations g
    where g.account_id = ${order.account_id}::bigint and g.benefit_origin = ${order.segment} and g.kind = 'purchase'
      and g.pass_until is not null and g.order_id <> ${order.id}::uuid
      and not exists (select 1 from ledger_operations r where r.order_id = g.order_id and r.kind = 'refund'))`;
}

/** True when, without this order's grant, another unrefunded no-ads-forever grant of the origin remains. */
async function foreverStillGranted(trx: Transaction<DB>, order: OrderRow): Promise<boolean> {
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
  return BigInt(counts.grants) - BigInt(counts.revokes) - 1n > 0n;
}
