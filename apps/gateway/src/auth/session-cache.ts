import { hash } from 'node:crypto';
import type { SessionContext } from '../http/index.js';

interface Entry {
  session: SessionContext;
  until: number;
}

/**
 * A short-lived in-memory cache of resolved sessions, keyed by the SHA-256 of the token (raw
 * tokens are not kept). An entry lives `ttlMs` (never past the session's own expiry), so a closed
 * or revoked session is honoured by other gateway replicas within `ttlMs`; this replica evicts at
 * once on sign-out. Bounded: the oldest entry goes first when `maxEntries` is reached.
 */
export class SessionCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(token: string): SessionContext | undefined {
    const key = keyOf(token);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.session;
  }

  set(token: string, session: SessionContext): void {
    if (this.ttlMs <= 0) return;
    const until = Math.min(this.now() + this.ttlMs, session.expiresAt.getTime());
    const key = keyOf(token);
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { session, until });
  }

  delete(token: string): void {
    this.entries.delete(keyOf(token));
  }

  get size(): number {
    return this.entries.size;
  }
}

/** SHA-256 of the token (one-shot `crypto.hash`: no Hash object per request). */
function keyOf(token: string): string {
  return hash('sha256', token, 'base64url');
}
