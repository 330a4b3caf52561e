import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The per-session CSRF token: an HMAC of a fixed label keyed by the session token. Only someone
 * holding the HttpOnly session cookie can compute it, and it needs no storage.
 */
export function csrfToken(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('wordgame-console-csrf-v1').digest('base64url');
}

/** Constant-time check of a submitted token against the session's. */
export function csrfValid(sessionToken: string, submitted: unknown): boolean {
  if (typeof submitted !== 'string') return false;
  const expected = Buffer.from(csrfToken(sessionToken));
  const given = Buffer.from(submitted);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
