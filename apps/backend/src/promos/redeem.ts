import type { Kysely } from 'kysely';
import type { Logger } from '@wordgame/logging';
import type { DB } from '../db/index.js';
import { gate, type Segment } from '../gate/index.js';
import { postCodeGrant, requireSpender } from '../ledger/index.js';
import type { Quota } from '../limits/index.js';
import { DomainError, type Caller } from '../rpc/index.js';
import type { Clock } from '../support/index.js';
import { codeHash, readableCode } from './code.js';
import type { PromoMetrics, RedeemOutcome } from './metrics.js';
import type { PromoHost } from './promos.table.js';
import { hasRedeemed, lockCodeByHash, recordRedemption } from './promos.store.js';

/** What redeeming needs. */
export interface RedeemDeps {
  db: Kysely<DB>;
  logger: Logger;
  now: Clock;
  /** The HMAC key codes are stored under (code.ts promoKey). */
  key: string;
  /** Attempts per account and client address (limits/). */
  limit: Quota;
  metrics: PromoMetrics;
}

/** What a redemption granted and where. */
export interface Redeemed {
  segment: Segment;
  chips: bigint;
  hints: bigint;
  noAdsDays: bigint;
  balance: bigint;
}

const NOT_REDEEMABLE = () => new DomainError('code_not_redeemable');

/** The host a session context redeems in: the direct context is `web`. */
function hostOf(caller: Caller): PromoHost | null {
  const kind = caller.platform.kind;
  return kind === null ? null : kind === 'direct' ? 'web' : kind;
}

/**
 * Redeems `raw` for the caller (a trusted session: writerFrom), in one transaction: the attempt is
 * counted first (per account and per client address, whatever its outcome), then the account row
 * (FOR SHARE: a blocked account redeems nothing), then the code's row FOR UPDATE, so redemptions of
 * one code take turns and the last use is granted once. The chips, hints and no-ads days go to the
 * segment of the context (the gate's funding segment) with one `code_grant` ledger row; a frozen
 * context (vk inside iOS) has none and is refused as a purchase would be.
 *
 * One answer, `code_not_redeemable`, for a code that is malformed, unknown, used up, outside its
 * window or not for this host; `code_already_redeemed` only when the caller redeemed this very code
 * before (telling them costs nothing: they know the code, it is theirs).
 */
export async function redeemCode(deps: RedeemDeps, caller: Caller, address: string | null, raw: string): Promise<Redeemed> {
  const count = (outcome: RedeemOutcome) => deps.metrics.redemptions.inc({ outcome });
  try {
    await deps.limit.take(caller.accountId, address);
  } catch (err) {
    count('rate_limited');
    throw err;
  }
  const segment = gate({ ...caller.platform, emailConfirmed: false }).fundingSegment;
  const host = hostOf(caller);
  if (segment === null || host === null) {
    count('refused');
    throw new DomainError('purchase_forbidden', 'codes cannot be redeemed in this context');
  }
  const code = readableCode(raw);
  if (code === null) {
    count('not_redeemable');
    throw NOT_REDEEMABLE();
  }
  const hash = codeHash(deps.key, code);
  const now = deps.now();
  try {
    const redeemed = await deps.db.transaction().execute(async (trx) => {
      await requireSpender(trx, caller.accountId, now);
      const row = await lockCodeByHash(trx, hash);
      if (row === undefined) throw NOT_REDEEMABLE();
      if (await hasRedeemed(trx, row.id, caller.accountId)) throw new DomainError('code_already_redeemed');
      if (now < row.valid_from || now >= row.valid_until || !row.hosts.includes(host)) throw NOT_REDEEMABLE();
      const id = await recordRedemption(trx, row, caller.accountId, segment, now);
      if (id === null) throw NOT_REDEEMABLE();
      const grant = { chips: row.chips, hints: row.hints, noAdsDays: row.no_ads_days };
      const balance = await postCodeGrant(trx, caller.accountId, segment, grant, `code ${row.prefix} redemption ${id}`, now);
      return { ...grant, segment, balance, id, codeId: row.id };
    });
    count('granted');
    deps.logger.info(
      { accountId: String(caller.accountId), codeId: String(redeemed.codeId), redemptionId: String(redeemed.id), segment },
      'code redeemed',
    );
    return redeemed;
  } catch (err) {
    if (err instanceof DomainError)
      count(err.code === 'code_not_redeemable' ? 'not_redeemable' : err.code === 'code_already_redeemed' ? 'already_redeemed' : 'refused');
    throw err;
  }
}
