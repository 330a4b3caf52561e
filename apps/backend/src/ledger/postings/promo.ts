import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/index.js';
import type { Segment } from '../../gate/index.js';
import { appendOperations } from './append.js';
import { addBenefits } from './benefits.js';

const DAY_SECONDS = 86_400n;

/** What a code grant (or its reversal) moves: whole chips, hints and no-ads days of one segment and origin. */
export interface GrantAmounts {
  chips: bigint;
  hints: bigint;
  noAdsDays: bigint;
}

/** What a reversal posting changed: the segment's balance after it and the debts it left. */
export interface ReversalPosting {
  balance: bigint;
  hints: bigint | null;
  debts: string[];
}

/**
 * Posts a redeemed code's grant, in the caller's transaction (after its account and code locks),
 * segment first, then benefits, then one `code_grant` ledger row (no rail, no money: it was not
 * bought). Answers the segment's balance after it.
 */
export async function postCodeGrant(
  trx: Transaction<DB>,
  accountId: bigint,
  segment: Segment,
  grant: GrantAmounts,
  note: string,
  now: Date,
): Promise<bigint> {
  const { balance } = await trx
    .insertInto('wallet_segments')
    .values({ account_id: accountId, segment, balance: grant.chips })
    .onConflict((oc) =>
      oc.columns(['account_id', 'segment']).doUpdateSet({ balance: sql<bigint>`wallet_segments.balance + ${grant.chips}::bigint` }),
    )
    .returning('balance')
    .executeTakeFirstOrThrow();
  const benefits = grant.hints > 0n || grant.noAdsDays > 0n;
  if (benefits) await addBenefits(trx, accountId, segment, { hints: grant.hints, noAdsDays: grant.noAdsDays, noAdsForever: false }, now);
  await appendOperations(trx, [
    {
      account_id: accountId,
      kind: 'code_grant',
      segment,
      chips_delta: grant.chips,
      note,
      created_at: now,
      ...(benefits ? { benefit_origin: segment, hints_delta: grant.hints, no_ads_days: grant.noAdsDays } : {}),
    },
  ]);
  return balance;
}

/**
 * Takes a grant back in full, as a refund does (postings/refund.ts), in the caller's transaction:
 * the chips off the segment (below zero is a debt, and nothing is spent from a segment in debt),
 * the hints off the origin (below zero likewise), the no-ads end moved back by the granted days
 * (none when there is no term left), and one `reversal` ledger row with the negative deltas; its
 * note names the reason and any debt it left.
 */
export async function postReversal(
  trx: Transaction<DB>,
  accountId: bigint,
  segment: Segment,
  grant: GrantAmounts,
  reason: string,
  now: Date,
): Promise<ReversalPosting> {
  const { balance } = await trx
    .insertInto('wallet_segments')
    .values({ account_id: accountId, segment, balance: -grant.chips })
    .onConflict((oc) =>
      oc.columns(['account_id', 'segment']).doUpdateSet({ balance: sql<bigint>`wallet_segments.balance - ${grant.chips}::bigint` }),
    )
    .returning('balance')
    .executeTakeFirstOrThrow();
  let hints: bigint | null = null;
  let daysRevoked = 0n;
  if (grant.hints > 0n || grant.noAdsDays > 0n) {
    const held = await trx
      .selectFrom('benefits')
      .select(['no_ads_until'])
      .where('account_id', '=', accountId)
      .where('origin', '=', segment)
      .forUpdate()
      .executeTakeFirst();
    daysRevoked = held?.no_ads_until !== null && held !== undefined ? grant.noAdsDays : 0n;
    const row = held
      ? await trx
          .updateTable('benefits')
          .set({
            hints: sql<bigint>`hints - ${grant.hints}::bigint`,
            no_ads_until: sql<Date | null>`no_ads_until - ${daysRevoked * DAY_SECONDS}::bigint * interval '1 second'`,
          })
          .where('account_id', '=', accountId)
          .where('origin', '=', segment)
          .returning('hints')
          .executeTakeFirstOrThrow()
      : await trx
          .insertInto('benefits')
          .values({ account_id: accountId, origin: segment, hints: -grant.hints })
          .returning('hints')
          .executeTakeFirstOrThrow();
    hints = row.hints;
  }
  const debts = [
    ...(balance < 0n && grant.chips > 0n ? [`${segment} chips ${balance}`] : []),
    ...(hints !== null && hints < 0n && grant.hints > 0n ? [`${segment} hints ${hints}`] : []),
  ];
  await appendOperations(trx, [
    {
      account_id: accountId,
      kind: 'reversal',
      segment,
      chips_delta: -grant.chips,
      created_at: now,
      note: (debts.length > 0 ? `${reason}; left a debt: ${debts.join(', ')}` : reason).slice(0, 500),
      ...(hints !== null ? { benefit_origin: segment, hints_delta: -grant.hints, no_ads_days: daysRevoked } : {}),
    },
  ]);
  return { balance, hints, debts };
}
