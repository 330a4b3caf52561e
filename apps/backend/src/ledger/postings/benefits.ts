import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/index.js';
import type { Segment } from '../../gate/index.js';
import { appendOperations } from './append.js';
import { noAdsExtended } from './no-ads.js';

/** The benefits a posting adds to a segment (catalog's BenefitGrant is one: a product's non-chip atoms). */
export interface GrantedBenefits {
  hints: bigint;
  noAdsDays: bigint;
  noAdsForever: boolean;
}

/**
 * Adds a grant to an origin's benefits: hints add up, forever sticks, and a no-ads term extends
 * by the no-ads rule (no-ads.ts; the ledger audit replays the same rule).
 */
export async function addBenefits(
  trx: Transaction<DB>,
  accountId: bigint,
  origin: Segment,
  grant: GrantedBenefits,
  now: Date,
): Promise<void> {
  const seconds = grant.noAdsDays * 86_400n;
  const extended = sql<Date>`${now}::timestamptz + ${seconds}::bigint * interval '1 second'`;
  await trx
    .insertInto('benefits')
    .values({
      account_id: accountId,
      origin,
      no_ads_until: grant.noAdsDays > 0n ? extended : null,
      no_ads_forever: grant.noAdsForever,
      hints: grant.hints,
    })
    .onConflict((oc) =>
      oc.columns(['account_id', 'origin']).doUpdateSet({
        no_ads_until:
          grant.noAdsDays > 0n
            ? noAdsExtended(sql`benefits.no_ads_until`, sql`${now}::timestamptz`, sql`${grant.noAdsDays}::bigint`)
            : sql<Date | null>`benefits.no_ads_until`,
        no_ads_forever: sql<boolean>`benefits.no_ads_forever or excluded.no_ads_forever`,
        hints: sql<bigint>`benefits.hints + excluded.hints`,
      }),
    )
    .execute();
}

/**
 * The account's hint benefits of the given origins, rows locked FOR UPDATE in origin order (the
 * order every benefits writer locks in), in the caller's transaction: the caller picks the origin to
 * spend from under the lock, then `spendWalletHint` spends it. Origins without a row are absent.
 */
export async function lockHintBenefits(
  trx: Transaction<DB>,
  accountId: bigint,
  origins: readonly Segment[],
): Promise<Array<{ origin: Segment; hints: bigint }>> {
  return trx
    .selectFrom('benefits')
    .select(['origin', 'hints'])
    .where('account_id', '=', accountId)
    .where('origin', 'in', [...origins])
    .orderBy('origin')
    .forUpdate()
    .execute();
}

/**
 * Spends one wallet hint of `origin` (its row already locked by `lockHintBenefits`) with its `spend`
 * ledger row, in the caller's transaction.
 */
export async function spendWalletHint(trx: Transaction<DB>, accountId: bigint, origin: Segment, note: string, now: Date): Promise<void> {
  await trx
    .updateTable('benefits')
    .set((eb) => ({ hints: eb('hints', '-', 1n) }))
    .where('account_id', '=', accountId)
    .where('origin', '=', origin)
    .execute();
  await appendOperations(trx, [{ account_id: accountId, kind: 'spend', benefit_origin: origin, hints_delta: -1n, note, created_at: now }]);
}
