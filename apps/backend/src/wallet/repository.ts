import { sql, type Kysely, type Transaction } from 'kysely';
import { runPrepared } from '../db/database.js';
import type { DB } from '../db/schema.js';
import type { Segment } from '../gate/context.js';
import type { BenefitGrant } from '../catalog/product.js';

/** Benefits funded from one origin. */
export interface BenefitRow {
  origin: Segment;
  noAdsUntil: Date | null;
  noAdsForever: boolean;
  hints: bigint;
}

const READ_WALLET = `
SELECT 'segment' AS part, segment AS origin, balance AS amount, NULL::timestamptz AS no_ads_until, false AS no_ads_forever
  FROM wallet_segments WHERE account_id = $1::bigint
UNION ALL
SELECT 'benefit', origin, hints, no_ads_until, no_ads_forever FROM benefits WHERE account_id = $1::bigint
ORDER BY part, origin
`;

interface WalletRow {
  part: 'segment' | 'benefit';
  origin: Segment;
  amount: bigint;
  no_ads_until: Date | null;
  no_ads_forever: boolean;
}

/**
 * Segment balances and benefits of an account in one statement (one round trip, one snapshot),
 * as a named prepared statement on PostgreSQL.
 */
export async function readWallet(db: Kysely<DB>, accountId: bigint): Promise<{ segments: Map<Segment, bigint>; benefits: BenefitRow[] }> {
  const rows = await runPrepared<WalletRow>(db, 'wallet_read', READ_WALLET, [accountId]);
  const segments = new Map<Segment, bigint>();
  const benefits: BenefitRow[] = [];
  for (const r of rows) {
    if (r.part === 'segment') segments.set(r.origin, r.amount);
    else benefits.push({ origin: r.origin, noAdsUntil: r.no_ads_until, noAdsForever: r.no_ads_forever, hints: r.amount });
  }
  return { segments, benefits };
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
