import type { CallOptions } from '@connectrpc/connect';
import type { SessionContext } from '../http/index.js';

/**
 * The `X-Platform` value for a session, built from the session record only:
 * `<kind>;<subtype>` (`telegram;ios`, `vk;android`, `direct;web`), `<kind>` when the session has
 * no subtype (`direct`; `vk` whose signed vk_platform was missing or unknown, which the backend's
 * gate freezes), and `none` for a session without a recorded platform (untrusted, view-only).
 */
export function platformHeader(session: SessionContext): string {
  if (session.platformKind === null) return 'none';
  return session.platformSubtype === null ? session.platformKind : `${session.platformKind};${session.platformSubtype}`;
}

/** Deadline of one backend call made on behalf of a REST request. */
export const BACKEND_CALL_TIMEOUT_MS = 10_000;

/** The backend header that states the client's address (the backend's rate limits key on it). */
export const CLIENT_ADDRESS_HEADER = 'x-client-address';

/**
 * The headers every backend call on behalf of a request carries: `x-request-id` and, when known,
 * `x-client-address` from `req.clientAddress` (the socket or a trusted proxy; a client-sent
 * `x-client-address` is stripped on arrival and never copied).
 */
export function edgeHeaders(requestId: string, clientAddress?: string): Record<string, string> {
  return clientAddress ? { 'x-request-id': requestId, [CLIENT_ADDRESS_HEADER]: clientAddress } : { 'x-request-id': requestId };
}

/**
 * Call options for a backend call on behalf of a request: the edge headers; for an authenticated
 * caller also `X-Account-Id` (decimal) and `X-Platform`, both from the session. Nothing the
 * client sent is copied.
 */
export function backendCallOptions(requestId: string, session?: SessionContext, clientAddress?: string): CallOptions {
  const headers = edgeHeaders(requestId, clientAddress);
  if (session) {
    headers['x-account-id'] = session.accountId.toString();
    headers['x-platform'] = platformHeader(session);
  }
  return { headers, timeoutMs: BACKEND_CALL_TIMEOUT_MS };
}
