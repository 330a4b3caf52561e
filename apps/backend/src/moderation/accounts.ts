import type { Kysely, Transaction } from 'kysely';
import { isChatEligible } from '../accounts/index.js';
import type { DB } from '../db/index.js';
import type { AccountStatus, PlatformKind } from '../accounts/index.js';
import { SEGMENTS, type Segment } from '../gate/index.js';
import { DomainError } from '../rpc/index.js';
import {
  accountIdsByEmail,
  accountIdsById,
  accountRows,
  benefitHints,
  identityOwners,
  identityRows,
  segmentBalances,
} from './moderation.store.js';

/** What the console shows of an account. */
export interface AccountSummary {
  id: bigint;
  displayName: string;
  email: string | null;
  status: AccountStatus;
  suspendedUntil: Date | null;
  chatMuted: boolean;
  chatEligible: boolean;
  createdAt: Date;
  identities: Array<{ kind: PlatformKind; externalId: string }>;
  /** Per segment with a wallet or benefit row, in segment order; below zero is a debt (full refund after spending). */
  balances: AccountBalance[];
}

/** One segment's chips and its origin's hints, as the console shows them. */
export interface AccountBalance {
  segment: Segment;
  chips: bigint;
  hints: bigint;
}

const SEARCH_LIMIT = 20;

/**
 * Accounts matching a console search: a decimal number matches an account id or any platform
 * identity's external id; `kind:id` (telegram:123) one identity; anything with @ an e-mail
 * (case-insensitive, exact). Newest first, at most 20.
 */
export async function findAccounts(db: Kysely<DB>, rawQuery: string | null, now: Date): Promise<AccountSummary[]> {
  const query = (rawQuery ?? '').trim();
  if (query.length === 0 || query.length > 254)
    throw new DomainError('invalid_query', 'enter an account id, an e-mail or a platform identity');
  let ids: bigint[];
  const typed = /^(telegram|vk):(\S{1,64})$/.exec(query);
  if (typed?.[1] !== undefined && typed[2] !== undefined) {
    ids = await identityOwners(db, typed[2], typed[1] as PlatformKind);
  } else if (query.includes('@')) {
    ids = await accountIdsByEmail(db, query.toLowerCase());
  } else if (/^\d{1,19}$/.test(query)) {
    const byId = BigInt(query) <= 9_223_372_036_854_775_807n ? await accountIdsById(db, BigInt(query)) : [];
    ids = [...byId, ...(await identityOwners(db, query, null))];
  } else {
    ids = await identityOwners(db, query, null);
  }
  return summaries(db, [...new Set(ids)].slice(0, SEARCH_LIMIT), now);
}

/** Summaries of the given accounts, newest first. */
export async function summaries(db: Kysely<DB> | Transaction<DB>, ids: readonly bigint[], now: Date): Promise<AccountSummary[]> {
  if (ids.length === 0) return [];
  const accounts = await accountRows(db, ids);
  const identities = await identityRows(db, ids);
  const balances = await balancesOf(db, ids);
  return accounts.map((a) => ({
    id: a.id,
    displayName: a.display_name,
    email: a.email,
    status: a.status,
    suspendedUntil: a.suspended_until,
    chatMuted: a.chat_muted,
    chatEligible: isChatEligible(a, now),
    createdAt: a.created_at,
    identities: identities.filter((i) => i.account_id === a.id).map((i) => ({ kind: i.kind, externalId: i.external_id })),
    balances: balances.get(a.id) ?? [],
  }));
}

/** Chips and hints per account and segment (segment order), for segments with a wallet or benefit row. */
async function balancesOf(db: Kysely<DB> | Transaction<DB>, ids: readonly bigint[]): Promise<Map<bigint, AccountBalance[]>> {
  const chips = await segmentBalances(db, ids);
  const hints = await benefitHints(db, ids);
  const out = new Map<bigint, AccountBalance[]>();
  for (const id of ids) {
    const rows = SEGMENTS.flatMap((segment) => {
      const c = chips.find((r) => r.account_id === id && r.segment === segment);
      const h = hints.find((r) => r.account_id === id && r.origin === segment);
      return c || h ? [{ segment, chips: c?.balance ?? 0n, hints: h?.hints ?? 0n }] : [];
    });
    out.set(id, rows);
  }
  return out;
}

/** One account's summary; unknown_account when there is none. */
export async function accountSummary(db: Kysely<DB> | Transaction<DB>, id: bigint, now: Date): Promise<AccountSummary> {
  const [summary] = await summaries(db, [id], now);
  if (!summary) throw new DomainError('unknown_account', 'no such account');
  return summary;
}
