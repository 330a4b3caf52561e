import type { LedgerKind } from '../ledger/index.js';
import { isSegment, type Segment } from '../gate/index.js';
import { DomainError } from '../rpc/index.js';

const KINDS: readonly LedgerKind[] = ['grant', 'spend', 'purchase', 'refund', 'code_grant', 'make_good', 'reversal'];
const DAY_MS = 86_400_000;
/** Default range: the last 30 UTC days, today included. */
export const DEFAULT_RANGE_DAYS = 30;
/** Widest range one query may cover. */
export const MAX_RANGE_DAYS = 3_660;

/** A validated console ledger filter; [from, to) in UTC. */
export interface LedgerFilter {
  from: Date;
  to: Date;
  wallet: Segment | null;
  rail: string | null;
  kind: LedgerKind | null;
  accountId: bigint | null;
}

/** The filter as it arrives on the wire (seconds, empty strings and 0 = unset). */
export interface RawLedgerFilter {
  fromUnix: bigint;
  toUnix: bigint;
  wallet: string | null;
  rail: string | null;
  kind: string | null;
  accountId: bigint;
}

/** Start of the UTC day `days` before `now`'s day. */
function utcDayStart(now: Date, daysBack: number): Date {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  return new Date(d.getTime() - daysBack * DAY_MS);
}

/**
 * Validates a wire filter. An unset range (both 0) is the last 30 UTC days including today; a set
 * range needs from < to and at most MAX_RANGE_DAYS. Unknown wallet/kind values, a malformed rail
 * name or a negative account are invalid_filter (never silently widened).
 */
export function parseLedgerFilter(raw: RawLedgerFilter, now: Date): LedgerFilter {
  let from: Date;
  let to: Date;
  if (raw.fromUnix === 0n && raw.toUnix === 0n) {
    from = utcDayStart(now, DEFAULT_RANGE_DAYS - 1);
    to = utcDayStart(now, -1);
  } else {
    if (raw.fromUnix <= 0n || raw.toUnix <= raw.fromUnix || raw.toUnix > 253_402_300_799n)
      throw new DomainError('invalid_filter', 'the date range must have from before to');
    if (raw.toUnix - raw.fromUnix > BigInt(MAX_RANGE_DAYS) * 86_400n)
      throw new DomainError('invalid_filter', `the date range may span at most ${MAX_RANGE_DAYS} days`);
    from = new Date(Number(raw.fromUnix) * 1000);
    to = new Date(Number(raw.toUnix) * 1000);
  }
  const wallet = raw.wallet || null;
  if (wallet !== null && !isSegment(wallet)) throw new DomainError('invalid_filter', 'unknown wallet');
  const rail = raw.rail || null;
  if (rail !== null && !/^[a-z0-9_]{1,64}$/.test(rail)) throw new DomainError('invalid_filter', 'unknown rail');
  const kind = raw.kind || null;
  if (kind !== null && !(KINDS as readonly string[]).includes(kind)) throw new DomainError('invalid_filter', 'unknown kind');
  if (raw.accountId < 0n) throw new DomainError('invalid_filter', 'account must be a positive id');
  return { from, to, wallet, rail, kind: kind as LedgerKind | null, accountId: raw.accountId === 0n ? null : raw.accountId };
}
