import type { Http2Session } from 'node:http2';

export interface KeepAliveOptions {
  /** How often a PING frame is sent. */
  intervalMs: number;
  /** A PING unanswered this long destroys the session: the peer is gone or the connection half-open. */
  timeoutMs: number;
  /** Called just before a session is destroyed for an unanswered PING. */
  onTimeout?: () => void;
}

/**
 * Keeps an HTTP/2 session (client or server side) honest with PING frames and destroys it when a
 * PING stays unanswered, so the streams on a half-open connection fail instead of hanging. A PING
 * is never sent on a closed or destroyed session (Node throws synchronously there: the bug that
 * connect-node's own keepalive has, connectrpc/connect-es#1795), and at most one is outstanding.
 * Stops by itself when the session closes; the returned function stops it earlier.
 */
export function keepAlive(session: Http2Session, options: KeepAliveOptions): () => void {
  let deadline: NodeJS.Timeout | undefined;
  const interval = setInterval(() => {
    if (deadline !== undefined || session.destroyed || session.closed) return;
    const timer = setTimeout(() => {
      deadline = undefined;
      if (session.destroyed) return;
      options.onTimeout?.();
      session.destroy();
    }, options.timeoutMs);
    deadline = timer;
    const answered = () => {
      clearTimeout(timer);
      deadline = undefined;
    };
    try {
      if (!session.ping(answered)) answered();
    } catch {
      answered();
    }
  }, options.intervalMs);
  interval.unref();
  const stop = () => {
    clearInterval(interval);
    clearTimeout(deadline);
    deadline = undefined;
  };
  session.once('close', stop);
  return stop;
}
