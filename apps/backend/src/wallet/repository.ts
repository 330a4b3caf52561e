import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema.js';
import type { Segment } from '../gate/context.js';
import type { BenefitGrant } from '../catalog/product.js';

type Db = Kysely<DB> | Transaction<DB>;

/** Benefits funded from one origin. */
export interface BenefitRow {
  origin: Segment;
  noAdsUntil: Date | null;
  noAdsForever: boolean;
  hints: bigint;
}

/** Segment balances of an account (no row = no segment). */
export async function readSegments(db: Db, accountId: bigint): Promise<Map<Segment, bigint>> {
  const rows = await db.selectFrom('wallet_segments').select(['segment', 'balance']).where('account_id', '=', accountId).execute();
  return new Map(rows.map((r) => [r.segment, r.balance]));
}

/**
 * Locks every segment row of an account (in a fixed order, so concurrent spends never deadlock)
 * and returns the balances; spends of one account serialise here.
 */
export async function segmentsForUpdate(trx: Transaction<DB>, accountId: bigint): Promise<Map<Segment, bigint>> {
  const rows = await trx
    .selectFrom('wallet_segments')
    .select(['segment', 'balance'])
    .where('account_id', '=', accountId)
    .orderBy('segment')
    .forUpdate()
    .execute();
  return new Map(rows.map((r) => [r.segment, r.balance]));
}

/** Takes chips from a locked segment; the CHECK (balance >= 0) backs the caller's arithmetic. */
export async function debitSegment(trx: Transaction<DB>, accountId: bigint, segment: Segment, amount: bigint): Promise<void> {
  await trx
    .updateTable('wallet_segments')
    .set((eb) => ({ balance: eb('balance', '-', amount) }))
    .where('account_id', '=', accountId)
    .where('segment', '=', segment)
    .execute();
}

/** Benefits of an account, by origin. */
export async function readBenefits(db: Db, accountId: bigint): Promise<BenefitRow[]> {
  const rows = await db
    .selectFrom('benefits')
    .select(['origin', 'no_ads_until', 'no_ads_forever', 'hints'])
    .where('account_id', '=', accountId)
    .orderBy('origin')
    .execute();
  return rows.map((r) => ({ origin: r.origin, noAdsUntil: r.no_ads_until, noAdsForever: r.no_ads_forever, hints: r.hints }));
}

/**
 * Adds a grant to an origin's benefits: hints add up, forever sticks, and a no-ads term extends
 * from max(current end, `now`) by whole 86 400 s days (the ledger audit replays the same rule).
 */
export async function addBenefits(trx: Transaction<DB>, accountId: bigint, origin: Segment, grant: BenefitGrant, now: Date): Promise<void> {
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
            ? sql<Date>`greatest(coalesce(benefits.no_ads_until, ${now}::timestamptz), ${now}::timestamptz) + ${seconds}::bigint * interval '1 second'`
            : sql<Date | null>`benefits.no_ads_until`,
        no_ads_forever: sql<boolean>`benefits.no_ads_forever or excluded.no_ads_forever`,
        hints: sql<bigint>`benefits.hints + excluded.hints`,
      }),
    )
    .execute();
}
