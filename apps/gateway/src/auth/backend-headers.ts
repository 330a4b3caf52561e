import type { CallOptions } from '@connectrpc/connect';
import type { SessionContext } from './session.js';

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

/**
 * Call options for a backend call on behalf of a request: always `x-request-id`; for an
 * authenticated caller also `X-Account-Id` (decimal) and `X-Platform`, both from the session.
 * Nothing the client sent is copied.
 */
export function backendCallOptions(requestId: string, session?: SessionContext): CallOptions {
  const headers: Record<string, string> = session
    ? { 'x-request-id': requestId, 'x-account-id': session.accountId.toString(), 'x-platform': platformHeader(session) }
    : { 'x-request-id': requestId };
  return { headers, timeoutMs: BACKEND_CALL_TIMEOUT_MS };
}
