import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { backendCallOptions } from './backend-headers.js';
import type { SessionResolver } from './middleware.js';
import type { SessionCache } from './session-cache.js';
import { asPlatformKind, asPlatformSubtype, type SessionContext } from '../http/index.js';

/** A resolver that can also drop a token at once (sign-out on this replica). */
export interface CachingSessionResolver extends SessionResolver {
  forget(token: string): void;
}

/**
 * Resolves session tokens with the backend's AccountService.ResolveSession, through a short
 * cache (see SessionCache); concurrent misses for one token share a single backend call. An
 * unknown or expired token is null; a backend that cannot answer propagates its error (503 at
 * the edge), never a guess.
 */
export function backendSessionResolver(
  account: Client<typeof backendApi.AccountService>,
  cache: SessionCache,
  now: () => number = Date.now,
): CachingSessionResolver {
  const inflight = new Map<string, Promise<SessionContext | null>>();
  // Bumped by every sign-out, so a lookup that was in flight across one never caches its answer.
  let forgets = 0;

  async function lookup(token: string, requestId: string): Promise<SessionContext | null> {
    const epoch = forgets;
    let body: Uint8Array;
    try {
      ({ body } = await account.resolveSession(
        { body: encodeTable((b) => fb.SessionLookup.createSessionLookup(b, b.createString(token))) },
        backendCallOptions(requestId),
      ));
    } catch (err: unknown) {
      if (err instanceof ConnectError && (err.code === Code.Unauthenticated || err.code === Code.NotFound)) return null;
      throw err;
    }
    const session = decodeTable(body, (bb) => fb.SessionInfo.getRootAsSessionInfo(bb), readSessionInfo);
    if (session.expiresAt.getTime() <= now()) return null;
    if (epoch === forgets) cache.set(token, session);
    return session;
  }

  return {
    resolve(token, requestId) {
      const cached = cache.get(token);
      if (cached) return Promise.resolve(cached);
      const pending = inflight.get(token);
      if (pending) return pending;
      const started = lookup(token, requestId).finally(() => inflight.delete(token));
      inflight.set(token, started);
      return started;
    },
    forget(token) {
      forgets++;
      inflight.delete(token);
      cache.delete(token);
    },
  };
}

function readSessionInfo(t: InstanceType<typeof fb.SessionInfo>): SessionContext {
  const platformKind = asPlatformKind(t.platformKind() ?? '');
  return {
    accountId: t.accountId(),
    platformKind,
    platformSubtype: platformKind === null ? null : asPlatformSubtype(t.platformSubtype() ?? ''),
    expiresAt: new Date(Number(t.expiresAtUnix()) * 1000),
  };
}
