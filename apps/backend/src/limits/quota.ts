import { rateLimited } from '../rpc/index.js';
import type { Clock } from '../support/index.js';
import { keyOf, retryAfterSeconds } from './keys.js';
import { takeUnits, type CounterStore, type Rule, type Take } from './limits.store.js';

/** A per-account and per-address allowance of some costly action (order creation, confirmation mail). */
export interface Quota {
  /**
   * Takes one unit for the account and, when known, the client address, in one statement; throws a
   * `rate_limited` DomainError with the wait when either is spent. A refused call still counts on
   * both, so hammering does not help.
   */
  take(accountId: bigint, address: string | null): Promise<void>;
}

/** An allowance per value (an e-mail address): the counter key is the value's sha256, never the value. */
export interface KeyQuota {
  /** Takes one unit for `value`; throws a `rate_limited` DomainError with the wait when it is spent (a refused call still counts). */
  take(value: string): Promise<void>;
}

/** Where the quotas count and by which clock their windows run (the backend's one clock). */
export interface QuotaStore {
  store: CounterStore;
  now: Clock;
}

/** One counter of a take: the rule and the key within it, as rate-limiter-flexible keyed its rows (`prefix:key`). */
interface Unit {
  rule: Rule;
  key: string;
}

/**
 * Takes a unit from every counter in one upsert; when any went over its rule's points, throws
 * `rate_limited` with the wait until every spent counter has reset (the longest of their windows).
 */
async function takeAll(q: QuotaStore, units: readonly Unit[]): Promise<void> {
  const nowMs = q.now().getTime();
  const byKey = new Map(units.map((u) => [`${u.rule.prefix}:${u.key}`, u.rule]));
  const takes: Take[] = [...byKey].map(([key, rule]) => ({ key, durationMs: rule.durationSeconds * 1000 }));
  const counts = await takeUnits(q.store, takes, nowMs);
  let waitMs: number | null = null;
  for (const c of counts) {
    const rule = byKey.get(c.key);
    if (rule === undefined || c.points <= rule.points) continue;
    const left = c.expire === null ? -1 : Math.max(c.expire - nowMs, 0);
    waitMs = waitMs === null ? left : Math.max(waitMs, left);
  }
  if (waitMs !== null) throw rateLimited(retryAfterSeconds(waitMs));
}

/** A quota over two rules counted in one statement: one keyed by account, one by (hashed) client address. */
export function quotaOver(q: QuotaStore, perAccount: Rule, perAddress: Rule): Quota {
  return {
    async take(accountId, address) {
      const units: Unit[] = [{ rule: perAccount, key: accountId.toString() }];
      if (address !== null) units.push({ rule: perAddress, key: keyOf(address) });
      await takeAll(q, units);
    },
  };
}

/** A quota over one rule keyed by a hashed value. */
export function keyQuotaOver(q: QuotaStore, rule: Rule): KeyQuota {
  return {
    async take(value) {
      await takeAll(q, [{ rule, key: keyOf(value) }]);
    },
  };
}
