import { createHash, randomBytes } from 'node:crypto';

/** A new opaque bearer token (256 random bits, base64url). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What the database stores instead of a token: its sha256, hex. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
