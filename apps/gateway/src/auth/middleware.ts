import type { RequestHandler } from 'express';
import { ApiError, bindRequestLog, isTrusted, type SessionContext } from '../http/index.js';
import { bearerToken } from './bearer.js';

/** Headers only the gateway may set on backend calls; a client's copies are dropped on arrival. */
export const TRUST_HEADERS = ['x-platform', 'x-account-id', 'x-client-address'] as const;

/** Resolves an opaque session token to its session, or null when it is unknown or expired. */
export interface SessionResolver {
  resolve(token: string, requestId: string): Promise<SessionContext | null>;
}

/** What an operation requires of its caller. */
export type AuthRequirement = 'none' | 'session' | 'trusted_session' | 'operator';

/**
 * Drops any client-sent trust header before anything else sees the request. Backend calls build
 * their headers from the session record only (see `backendCallOptions`), so this is the second
 * of two independent guarantees that a client cannot choose its platform or account.
 */
export const stripTrustHeaders: RequestHandler = (req, _res, next) => {
  for (const name of TRUST_HEADERS) delete req.headers[name];
  next();
};

/**
 * Requires `Authorization: Bearer <session token>` resolving to a live session and puts it on
 * `req.session`. With `trusted`, a session without a recorded platform is refused with 403
 * `untrusted_session`: view-only sessions never write (no spend, purchase, profile, social or
 * account change).
 */
export function authenticate(resolver: SessionResolver, trusted: boolean): RequestHandler {
  return async (req, _res, next) => {
    const token = bearerToken(req);
    if (token === undefined) throw new ApiError('unauthenticated');
    const session = await resolver.resolve(token, req.requestId);
    if (session === null) throw new ApiError('session_invalid');
    req.session = session;
    bindRequestLog(req, { accountId: session.accountId.toString(), platformKind: session.platformKind ?? 'none' });
    if (trusted && !isTrusted(session)) throw new ApiError('untrusted_session');
    next();
  };
}
