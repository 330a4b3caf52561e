import type http2 from 'node:http2';
import type net from 'node:net';

/** Closes an HTTP/2 server on stop: GOAWAY to every session, then a bounded wait. */
export interface H2Closer {
  /**
   * Stops listening and sends GOAWAY to every session (also to one whose handshake completes from
   * now on), then waits for each connection to end; every socket still open after `graceMs` is
   * destroyed. Resolves once the server has closed.
   */
  close(graceMs: number): Promise<void>;
}

/**
 * Tracks `server`'s sessions and its accepted sockets from their first byte (before a TLS
 * handshake). Why the sockets: once a session got close(), Node's session.destroy() no longer
 * destroys its socket, it only ends it and waits for the peer's FIN; a peer that vanished (its
 * host or pod network gone, a half-open connection) never sends one, and server.close() would wait
 * for that socket for good. Call before the server accepts anything.
 */
export function h2Closer(server: http2.Http2Server | http2.Http2SecureServer): H2Closer {
  const sessions = new Set<http2.ServerHttp2Session>();
  const sockets = new Set<net.Socket>();
  let closing = false;
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('session', (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    // Accepted before the listener closed, its handshake done after: it gets its GOAWAY too.
    if (closing) session.close();
  });
  return {
    close: async (graceMs) => {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.close();
      const force = setTimeout(() => {
        for (const socket of sockets) socket.destroy();
      }, graceMs);
      force.unref();
      await closed;
      clearTimeout(force);
    },
  };
}
