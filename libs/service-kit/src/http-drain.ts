import type http from 'node:http';
import type net from 'node:net';

/** How long (ms) a keep-alive socket idle when a drain starts may still bring one request. */
export const IDLE_LINGER_MS = 300;

/** Ends an HTTP/1.1 server's connections on stop, each once nothing is in flight on it. */
export interface Http1Drain {
  /**
   * From now on every response says `Connection: close` (also those already started whose headers
   * are not out yet, so Node ends their socket after them); a socket with nothing in flight (idle
   * now, or after a response that had already promised keep-alive) ends after `lingerMs` unless a
   * request arrives first, which is answered with `Connection: close`.
   * Resolves once every tracked socket has closed.
   */
  start(): Promise<void>;
}

/**
 * Tracks the in-flight responses of `server`'s HTTP/1.1 connections (it must see each socket's
 * 'connection', whether it listens itself or is fed by `emit('connection')`). Why not Node's own
 * close(): it ends only the sockets idle at that instant (and only on a server that listens itself),
 * a request already on its way over such a socket is reset, and a socket busy then keeps its
 * keep-alive and outlives the close by keepAliveTimeout, holding a graceful stop open. HTTP/1.1 has
 * no GOAWAY: the linger lets a client that is between two back-to-back requests get its next one
 * answered with `Connection: close` instead of a reset.
 */
export function http1Drain(server: http.Server, lingerMs = IDLE_LINGER_MS): Http1Drain {
  const open = new Map<net.Socket, Set<http.ServerResponse>>();
  let draining = false;
  let allClosed: (() => void) | undefined;
  const linger = (socket: net.Socket) => {
    const timer = setTimeout(() => {
      if (open.get(socket)?.size === 0) socket.end();
    }, lingerMs);
    timer.unref();
  };
  server.prependListener('connection', (socket: net.Socket) => {
    open.set(socket, new Set());
    socket.once('close', () => {
      open.delete(socket);
      if (draining && open.size === 0) allClosed?.();
    });
    if (draining) linger(socket);
  });
  // Prepended, so it runs before the request handler: a response written at once already says close.
  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket;
    const responses = open.get(socket);
    if (!responses) return;
    responses.add(res);
    if (draining) res.shouldKeepAlive = false;
    // A response that went out with keep-alive (its headers before the drain) may be followed by
    // the client's next request at once: the socket lingers for it rather than ending under it.
    res.once('close', () => {
      responses.delete(res);
      if (draining && responses.size === 0) linger(socket);
    });
  });
  return {
    start() {
      draining = true;
      const done = new Promise<void>((resolve) => {
        allClosed = resolve;
      });
      if (open.size === 0) return Promise.resolve();
      for (const [socket, responses] of open) {
        if (responses.size === 0) linger(socket);
        else for (const res of responses) if (!res.headersSent) res.shouldKeepAlive = false;
      }
      return done;
    },
  };
}
