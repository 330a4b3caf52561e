import type { Kysely } from 'kysely';
import { runPrepared, type DB } from '../db/index.js';
import type { Segment } from '../gate/index.js';

/** Benefits funded from one origin; `noAdsUntil` is the later of the no-ads term and a stars subscription's pass. */
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
SELECT 'benefit', origin, hints, greatest(no_ads_until, pass_until), no_ads_forever FROM benefits WHERE account_id = $1::bigint
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
 * as a named prepared statement on PostgreSQL. No ads runs to the later of the origin's term and
 * its monthly pass (`pass_until`, the end of the latest paid, unrefunded subscription period).
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

/** The caller-account fields wallet.catalog gates on; undefined when there is no such account. */
export async function catalogAccount(db: Kysely<DB>, accountId: bigint) {
  return db.selectFrom('accounts').select(['email_confirmed_at', 'status']).where('id', '=', accountId).executeTakeFirst();
}
