import { createHash } from 'node:crypto';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { rateLimited } from '../rpc/index.js';

/** Request header in which the gateway states the client's address (set from the socket or trusted proxy, never copied from the client). */
export const CLIENT_ADDRESS_HEADER = 'x-client-address';

/** Longest client address read from the header (an IPv6 address with zone fits). */
const ADDRESS_MAX = 64;

/**
 * The client address the gateway stated, or null when the call carries none (a caller other than
 * the gateway, e.g. a test or an operator tool on the backend port): then only the per-account or
 * per-login limits apply.
 */
export function clientAddressOf(headers: Headers): string | null {
  const value = headers.get(CLIENT_ADDRESS_HEADER)?.trim() ?? '';
  return value.length > 0 && value.length <= ADDRESS_MAX ? value : null;
}

/** A counter key: sha256 of the value, so no e-mail or address is stored and every key fits the column. */
export function keyOf(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** Whole seconds until a limited key may try again (at least 1), from the milliseconds left in its window. */
export function retryAfterSeconds(msBeforeNext: number): number {
  return Math.max(1, Math.ceil(msBeforeNext / 1000));
}

/** Turns the library's refusal (a RateLimiterRes) into a `rate_limited` DomainError; a store failure is rethrown as it is. */
export function refusal(err: unknown): never {
  if (err instanceof RateLimiterRes) throw rateLimited(retryAfterSeconds(err.msBeforeNext));
  throw err;
}
