import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { serveStreams, type StreamTaker } from '@wordgame/h2-unary';
import type { Logger } from '@wordgame/logging';
import { guardListener, http1Drain, type ConnectionRefusal, type ListenerLimits } from '@wordgame/service-kit';

type Handler = (req: http.IncomingMessage | http2.Http2ServerRequest, res: http.ServerResponse | http2.Http2ServerResponse) => void;

/** A listening server that speaks HTTP/1.1 and cleartext HTTP/2 (prior knowledge) on one port. */
export interface DualListener {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

const H2_PREFACE = Buffer.from('PRI * HTTP/2.0');

/** Most concurrent HTTP/2 streams one connection may open (the gateway multiplexes on one or two). */
export const MAX_CONCURRENT_STREAMS = 256;

/**
 * How long an HTTP/1.1 request after a connection's first may take to bring its headers and its
 * whole body (ms). Node enforces them only for connections it tracks, which it starts doing on
 * 'listening'; the h1 server here never listens, so it is made to. The first request's head, and
 * a connection that says nothing, are the listener limits' (`handshakeTimeoutMs`).
 */
export interface ListenerTimeouts {
  headersMs: number;
  requestMs: number;
}

/** Defaults: probes and curl send their request at once; the gateway speaks HTTP/2. */
export const LISTENER_TIMEOUTS: ListenerTimeouts = { headersMs: 10_000, requestMs: 30_000 };

/** What the listener enforces on new connections, and where refusals go (service-kit guardListener). */
export interface DualListenerEdge {
  limits: ListenerLimits;
  logger: Logger;
  onRefused?: (reason: ConnectionRefusal) => void;
  timeouts?: ListenerTimeouts;
}

/**
 * Serves `handler` over HTTP/1.1 and h2c on one port, choosing by the first bytes of each
 * connection: the gateway talks Connect over multiplexed h2c while probes and curl use HTTP/1.1.
 * An HTTP/2 connection may hold at most MAX_CONCURRENT_STREAMS streams at once.
 * `close()` stops accepting, lets in-flight requests finish for up to `graceMs`, then destroys
 * whatever is left. It ends every connection once nothing is in flight on it: h2 sessions get
 * GOAWAY and close after their open streams; HTTP/1.1 ones answer `Connection: close` from then on
 * and an idle one ends after IDLE_LINGER_MS (service-kit http1Drain); a connection that sent
 * nothing yet is ended at once. The h1 server gets its connections by `emit('connection')` and
 * never listens itself, so Node's own idle tracking (`closeIdleConnections`, which starts on
 * 'listening') knows none of them: without the drain every keep-alive socket (probes, curl) held
 * the close for the whole `graceMs`. `edge.limits` cap the connections and give each one
 * `handshakeTimeoutMs` to bring its first request head or HTTP/2 SETTINGS (guardListener, named
 * `connect`).
 */
export async function listenDual(
  handler: Handler,
  host: string,
  port: number,
  graceMs = 5_000,
  take: StreamTaker | undefined,
  edge: DualListenerEdge,
): Promise<DualListener> {
  const timeouts = edge.timeouts ?? LISTENER_TIMEOUTS;
  const h1 = http.createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, timeouts.headersMs / 4)),
    },
    handler,
  );
  h1.keepAliveTimeout = 65_000;
  // The front server has no request handler; streams the fast path declines go to `compat`'s.
  const h2 = http2.createServer({ settings: { maxConcurrentStreams: MAX_CONCURRENT_STREAMS } });
  serveStreams(h2, take ?? (() => false), http2.createServer(handler));
  const sockets = new Set<net.Socket>();
  const sessions = new Set<http2.ServerHttp2Session>();
  const h1Drain = http1Drain(h1);
  /** Sockets handed to either server (the rest sent nothing yet). */
  const classified = new WeakSet<net.Socket>();
  let closing = false;
  h2.on('session', (session: http2.ServerHttp2Session) => {
    // A connection that spoke first after close() began gets GOAWAY at once.
    if (closing) session.close();
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });

  const front = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      socket.unshift(chunk);
      const isH2 = chunk.subarray(0, H2_PREFACE.length).equals(H2_PREFACE.subarray(0, Math.min(chunk.length, H2_PREFACE.length)));
      // The HTTP/2 core drains the unshifted bytes itself; resuming would hand them to nobody.
      classified.add(socket);
      if (isH2) {
        h2.emit('connection', socket);
      } else {
        h1.emit('connection', socket);
        socket.resume();
      }
    });
  });

  const guard = guardListener(
    front,
    { ...edge.limits, listener: 'connect', logger: edge.logger, ...(edge.onRefused ? { onRefused: edge.onRefused } : {}) },
    { http1: [h1], http2: [h2] },
  );

  await new Promise<void>((resolve, reject) => {
    front.once('error', reject);
    front.listen(port, host, () => resolve());
  });
  // Starts Node's tracking of the h1 server's connections (headers and request timeouts).
  h1.emit('listening');
  const address = front.address() as net.AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;

  return {
    port: address.port,
    url: `http://${shownHost}:${address.port}`,
    close: async () => {
      closing = true;
      const closed = new Promise<void>((resolve) => front.close(() => resolve()));
      for (const session of sessions) session.close();
      void h1Drain.start();
      // Nothing received yet, nothing in flight: h2 sockets are their sessions' to end, h1 ones the drain's.
      for (const socket of sockets) if (!classified.has(socket)) socket.destroy();
      const deadline = setTimeout(() => {
        for (const socket of sockets) socket.destroy();
      }, graceMs);
      deadline.unref();
      await closed;
      clearTimeout(deadline);
      guard.close();
    },
  };
}
