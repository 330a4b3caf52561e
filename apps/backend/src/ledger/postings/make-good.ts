import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/index.js';
import type { Segment } from '../../gate/index.js';
import { appendOperations } from './append.js';
import { addBenefits } from './benefits.js';

/** What an operator's make-good grants: chips to `segment`, hints and no-ads days to the same origin. */
export interface MakeGoodGrant {
  accountId: bigint;
  segment: Segment;
  chips: bigint;
  hints: bigint;
  noAdsDays: bigint;
  /** The ledger note (the operator's reason and the make-good's id; never shown to the player). */
  note: string;
}

/** The balances a make-good left: the segment's chips (null when it granted none) and the origin's hints (null likewise). */
export interface MakeGoodPosting {
  balance: bigint | null;
  hints: bigint | null;
}

/**
 * Posts an operator's make-good in the caller's transaction, segment first, then benefits, then the
 * one `make_good` ledger row (the order every money writer uses): the chips are added to the
 * segment whatever its balance, so a grant into a segment in debt pays the debt off first; hints
 * add up and no-ads days extend by the no-ads rule, as a pack's would.
 */
export async function postMakeGood(trx: Transaction<DB>, g: MakeGoodGrant, now: Date): Promise<MakeGoodPosting> {
  if (g.chips < 0n || g.hints < 0n || g.noAdsDays < 0n || g.chips + g.hints + g.noAdsDays === 0n)
    throw new RangeError('a make-good grants a positive amount of something');
  let balance: bigint | null = null;
  if (g.chips > 0n) {
    const row = await trx
      .insertInto('wallet_segments')
      .values({ account_id: g.accountId, segment: g.segment, balance: g.chips })
      .onConflict((oc) =>
        oc.columns(['account_id', 'segment']).doUpdateSet({ balance: sql<bigint>`wallet_segments.balance + ${g.chips}::bigint` }),
      )
      .returning('balance')
      .executeTakeFirstOrThrow();
    balance = row.balance;
  }
  const grantsBenefits = g.hints > 0n || g.noAdsDays > 0n;
  if (grantsBenefits) await addBenefits(trx, g.accountId, g.segment, { hints: g.hints, noAdsDays: g.noAdsDays, noAdsForever: false }, now);
  const hints = grantsBenefits
    ? ((
        await trx
          .selectFrom('benefits')
          .select('hints')
          .where('account_id', '=', g.accountId)
          .where('origin', '=', g.segment)
          .executeTakeFirst()
      )?.hints ?? null)
    : null;
  await appendOperations(trx, [
    {
      account_id: g.accountId,
      kind: 'make_good',
      segment: g.chips > 0n ? g.segment : null,
      benefit_origin: grantsBenefits ? g.segment : null,
      chips_delta: g.chips,
      hints_delta: g.hints,
      no_ads_days: g.noAdsDays,
      note: g.note,
      created_at: now,
    },
  ]);
  return { balance, hints };
}
