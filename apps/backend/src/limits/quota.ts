import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { keyOf, refusal } from './keys.js';

/** A per-account and per-address allowance of some costly action (order creation, confirmation mail). */
export interface Quota {
  /**
   * Takes one unit for the account and, when known, the client address; throws a `rate_limited` DomainError with
   * the wait when either is spent (a refused call still counts, so hammering does not help).
   */
  take(accountId: bigint, address: string | null): Promise<void>;
}

/** A quota over two limiters: one keyed by account, one by client address. */
export function quotaOver(perAccount: RateLimiterAbstract, perAddress: RateLimiterAbstract): Quota {
  return {
    async take(accountId, address) {
      if (address !== null) await perAddress.consume(keyOf(address)).catch(refusal);
      await perAccount.consume(accountId.toString()).catch(refusal);
    },
  };
}

/** An allowance per value (an e-mail address): the counter key is the value's sha256, never the value. */
export interface KeyQuota {
  /** Takes one unit for `value`; throws a `rate_limited` DomainError with the wait when it is spent (a refused call still counts). */
  take(value: string): Promise<void>;
}

/** A quota over one limiter keyed by a hashed value. */
export function keyQuotaOver(limiter: RateLimiterAbstract): KeyQuota {
  return {
    async take(value) {
      await limiter.consume(keyOf(value)).catch(refusal);
    },
  };
}
