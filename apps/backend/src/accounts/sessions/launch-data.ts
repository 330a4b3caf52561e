import { timingSafeEqual } from 'node:crypto';
import { DomainError } from '../../rpc/index.js';

/** Allowed clock skew for a launch timestamp from the future, seconds. */
const FUTURE_SKEW_SECONDS = 300;

export function invalid(message: string): DomainError {
  return new DomainError('launch_data_invalid', message);
}

/** Constant-time comparison of two ASCII signatures. */
export function sameSignature(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Refuses a signed launch timestamp (unix seconds, decimal) outside [now - maxAge, now + skew]:
 * `launch_data_stale`. Call only after the signature is verified.
 */
export function assertFresh(raw: string | undefined, nowSeconds: number, maxAgeSeconds: number, field: string): number {
  if (raw === undefined || !/^\d{1,12}$/.test(raw)) throw invalid(`${field} missing or malformed`);
  const at = Number(raw);
  if (nowSeconds - at > maxAgeSeconds || at - nowSeconds > FUTURE_SKEW_SECONDS) {
    throw new DomainError('launch_data_stale', `launch data is outside the ${maxAgeSeconds} s freshness window`);
  }
  return at;
}

/** Splits a query string into key/value pairs; a repeated key is malformed launch data. */
export function uniquePairs(query: string): Map<string, string> {
  const params = new URLSearchParams(query.startsWith('?') ? query.slice(1) : query);
  const pairs = new Map<string, string>();
  for (const [key, value] of params) {
    if (pairs.has(key)) throw invalid(`parameter ${key} repeated`);
    pairs.set(key, value);
  }
  return pairs;
}
