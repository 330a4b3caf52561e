import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from './errors.js';
import type { Shop } from './state.js';

/**
 * Authenticates a /v3 request the way YooKassa does: HTTP Basic with the shop id as user name and
 * the secret key as password. Returns the shop, or throws 401 invalid_credentials (parameter
 * "Authorization") for a missing, malformed or wrong header. Keys are compared in constant time.
 */
export function authenticate(header: string | undefined, shops: ReadonlyMap<string, Shop>): Shop {
  const credentials = decodeBasic(header);
  if (!credentials) {
    throw new ApiError(401, 'Authentication required: send HTTP Basic credentials shopId:secretKey', 'Authorization');
  }
  const shop = shops.get(credentials.user);
  if (!shop || !sameSecret(shop.secretKey, credentials.password)) {
    throw new ApiError(401, 'Login or password is incorrect: check the shop id and the secret key', 'Authorization');
  }
  return shop;
}

/** The shop a request authenticates as, or null; never throws (used to label logged requests). */
export function identifyShop(header: string | undefined, shops: ReadonlyMap<string, Shop>): Shop | null {
  try {
    return authenticate(header, shops);
  } catch {
    return null;
  }
}

function decodeBasic(header: string | undefined): { user: string; password: string } | null {
  const match = header === undefined ? null : /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function sameSecret(expected: string, given: string): boolean {
  const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(expected), digest(given));
}
