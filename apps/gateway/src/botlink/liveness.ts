import type http2 from 'node:http2';

/**
 * Resolves true once the peer of `session` answers an HTTP/2 PING sent now, false when the session
 * is closed or destroyed, the PING fails, or no answer comes within `timeoutMs` (a half-open
 * connection, or a peer that is gone). Never rejects.
 */
export function answersPing(session: http2.Http2Session, timeoutMs: number): Promise<boolean> {
  if (session.closed || session.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    const settle = (answered: boolean): void => {
      clearTimeout(timer);
      resolve(answered);
    };
    try {
      // false: too many PINGs already wait for an answer, which a live peer would have given.
      if (!session.ping((err) => settle(err === null && !session.destroyed))) settle(false);
    } catch {
      settle(false);
    }
  });
}
