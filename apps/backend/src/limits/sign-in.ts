import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { keyOf, refusal } from './keys.js';

/** What a failed sign-in did to the limits: which counters it used up (a lock-out begins now). */
export interface FailureOutcome {
  loginLocked: boolean;
  addressLocked: boolean;
}

/** One sign-in attempt under the limits, from `begin` to exactly one of `succeeded` or `failed`. */
export interface SignInAttempt {
  /** The password was right: the login's failures are forgotten; the address's count only loses this attempt. */
  succeeded(): Promise<void>;
  /** The password was wrong: the attempt stays counted; says whether it used up a counter. */
  failed(): FailureOutcome;
}

/** Failed sign-ins per login and per client address. */
export interface SignInLimit {
  /**
   * Counts an attempt for `login` (already normalised) and the address before the password is
   * checked, atomically in the store, so parallel guesses cannot slip past; throws `rate_limited`
   * when either counter is already used up.
   */
  begin(login: string, address: string | null): Promise<SignInAttempt>;
}

/**
 * The sign-in limit over a per-login and a per-address limiter. A successful sign-in resets the
 * login's counter but never the address's: one valid account must not let an attacker unlock the
 * address it guesses other accounts from.
 */
export function signInLimitOver(perLogin: RateLimiterAbstract, perAddress: RateLimiterAbstract): SignInLimit {
  return {
    async begin(login, address) {
      const loginKey = keyOf(login);
      const addressKey = address === null ? null : keyOf(address);
      const byAddress: RateLimiterRes | null = addressKey === null ? null : await perAddress.consume(addressKey).catch(refusal);
      const byLogin = await perLogin.consume(loginKey).catch(refusal);
      return {
        async succeeded() {
          await perLogin.delete(loginKey);
          if (addressKey !== null) await perAddress.reward(addressKey, 1);
        },
        failed() {
          return {
            loginLocked: byLogin.consumedPoints === perLogin.points,
            addressLocked: byAddress !== null && byAddress.consumedPoints === perAddress.points,
          };
        },
      };
    },
  };
}
