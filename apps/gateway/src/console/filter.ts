import { PROVIDERS } from '../backend/index.js';

/** Wallets (funding segment or benefit origin) and operation kinds the ledger filter offers. */
export const WALLETS = ['direct', 'telegram', 'vk'] as const;
export const KINDS = ['grant', 'spend', 'purchase', 'refund', 'code_grant', 'make_good', 'reversal'] as const;
/**
 * Rails the ledger filter offers: the settling provider of a funded row, stars through the bot
 * (`telegram_stars`, the backend's STARS_PROVIDER) or a card provider the gateway takes
 * notifications for. A chip spend has no rail and drops out of any of them.
 */
export const RAILS = ['telegram_stars', ...PROVIDERS] as const;

/** The console ledger filter as the pages use it; dates are UTC calendar days, `to` inclusive. */
export interface ConsoleFilter {
  from: string;
  to: string;
  wallet: string;
  rail: string;
  kind: string;
  account: string;
}

/** Default range length: the last 30 UTC days, today included. */
export const DEFAULT_DAYS = 30;
const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Milliseconds of the start of a YYYY-MM-DD UTC day; NaN when it is not a real date. */
function dayStart(day: string): number {
  if (!DATE.test(day)) return Number.NaN;
  const ms = Date.parse(`${day}T00:00:00Z`);
  return Number.isNaN(ms) || isoDay(ms) !== day ? Number.NaN : ms;
}

function one(query: Record<string, unknown>, key: string): string {
  const v = query[key];
  return typeof v === 'string' ? v.trim() : '';
}

/**
 * Reads the filter from query parameters (`from`, `to`, `wallet`, `rail`, `kind`, `account`),
 * filling the default range; answers an error message instead when a value is malformed.
 */
export function parseFilter(query: Record<string, unknown>, now = new Date()): { filter: ConsoleFilter } | { error: string } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const filter: ConsoleFilter = {
    from: one(query, 'from') || isoDay(today - (DEFAULT_DAYS - 1) * DAY_MS),
    to: one(query, 'to') || isoDay(today),
    wallet: one(query, 'wallet'),
    rail: one(query, 'rail'),
    kind: one(query, 'kind'),
    account: one(query, 'account'),
  };
  const from = dayStart(filter.from);
  const to = dayStart(filter.to);
  if (Number.isNaN(from) || Number.isNaN(to)) return { error: 'dates must be YYYY-MM-DD' };
  if (to < from) return { error: 'the range must start before it ends' };
  if (filter.wallet !== '' && !(WALLETS as readonly string[]).includes(filter.wallet)) return { error: 'unknown wallet' };
  if (filter.kind !== '' && !(KINDS as readonly string[]).includes(filter.kind)) return { error: 'unknown kind' };
  if (filter.rail !== '' && !(RAILS as readonly string[]).includes(filter.rail)) return { error: 'unknown rail' };
  if (filter.account !== '' && !/^[1-9]\d{0,18}$/.test(filter.account)) return { error: 'account must be a positive id' };
  return { filter };
}

/**
 * The one encoded filter: a canonical query string (fixed key order, empty values left out) that
 * page links, the CSV export and the refund return path all carry.
 */
export function encodeFilter(f: ConsoleFilter): string {
  const q = new URLSearchParams();
  for (const key of ['from', 'to', 'wallet', 'rail', 'kind', 'account'] as const) if (f[key] !== '') q.set(key, f[key]);
  return q.toString();
}

/** The filter in the backend's terms: [from, to) in unix seconds (to = the day after `to`). */
export function wireRange(f: ConsoleFilter): { fromUnix: bigint; toUnix: bigint; accountId: bigint } {
  return {
    fromUnix: BigInt(dayStart(f.from) / 1000),
    toUnix: BigInt((dayStart(f.to) + DAY_MS) / 1000),
    accountId: f.account === '' ? 0n : BigInt(f.account),
  };
}

/** Latest cursor time: 9999-12-31T23:59:59.999999Z in microseconds (the backend's bound too). */
export const CURSOR_MAX_US = 253_402_300_799_999_999n;
const INT64_MAX = 2n ** 63n - 1n;

/**
 * Reads a page cursor `after=<created_us>.<id>`; null when absent, undefined when malformed or out
 * of range (time 1..CURSOR_MAX_US, id 1..int64 max), so the page answers 400 before any backend call.
 */
export function parseCursor(value: unknown): { createdUs: bigint; id: bigint } | null | undefined {
  if (value === undefined || value === '') return null;
  if (typeof value !== 'string') return undefined;
  const m = /^(\d{1,19})\.(\d{1,19})$/.exec(value);
  if (!m?.[1] || !m[2]) return undefined;
  const cursor = { createdUs: BigInt(m[1]), id: BigInt(m[2]) };
  if (cursor.createdUs < 1n || cursor.createdUs > CURSOR_MAX_US || cursor.id < 1n || cursor.id > INT64_MAX) return undefined;
  return cursor;
}
