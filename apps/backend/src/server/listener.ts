import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { serveStreams, type StreamTaker } from '@wordgame/h2-unary';

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
 * Serves `handler` over HTTP/1.1 and h2c on one port, choosing by the first bytes of each
 * connection: the gateway talks Connect over multiplexed h2c while probes and curl use HTTP/1.1.
 * An HTTP/2 connection may hold at most MAX_CONCURRENT_STREAMS streams at once.
 * `close()` stops accepting, lets in-flight requests finish for up to `graceMs`, then destroys
 * whatever is left. It ends every connection as soon as nothing is in flight on it: h2 sessions
 * get GOAWAY and close after their open streams; an HTTP/1.1 keep-alive connection is ended at once
 * when idle, else its current response says `Connection: close` (when its headers are not out yet)
 * and the socket ends after it; a connection that sent nothing yet is ended at once. The h1 server
 * gets its connections by `emit('connection')` and never listens itself, so Node's own idle
 * tracking (`closeIdleConnections`, which starts on 'listening') knows none of them: without this
 * every keep-alive socket (probes, curl) held the close for the whole `graceMs`.
 */
export async function listenDual(handler: Handler, host: string, port: number, graceMs = 5_000, take?: StreamTaker): Promise<DualListener> {
  const h1 = http.createServer(handler);
  h1.keepAliveTimeout = 65_000;
  // The front server has no request handler; streams the fast path declines go to `compat`'s.
  const h2 = http2.createServer({ settings: { maxConcurrentStreams: MAX_CONCURRENT_STREAMS } });
  serveStreams(h2, take ?? (() => false), http2.createServer(handler));
  const sockets = new Set<net.Socket>();
  const sessions = new Set<http2.ServerHttp2Session>();
  /** HTTP/1.1 sockets and their responses not yet closed (in flight). */
  const h1Open = new Map<net.Socket, Set<http.ServerResponse>>();
  const h2Sockets = new WeakSet<net.Socket>();
  let closing = false;
  h2.on('session', (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  // Runs before `handler` (prepended) so a response written synchronously already carries Connection: close.
  h1.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket;
    const open = h1Open.get(socket);
    if (!open) return;
    open.add(res);
    if (closing) res.shouldKeepAlive = false;
    res.once('close', () => {
      open.delete(res);
      if (closing && open.size === 0) socket.end();
    });
  });

  const front = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      h1Open.delete(socket);
    });
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      socket.unshift(chunk);
      const isH2 = chunk.subarray(0, H2_PREFACE.length).equals(H2_PREFACE.subarray(0, Math.min(chunk.length, H2_PREFACE.length)));
      // The HTTP/2 core drains the unshifted bytes itself; resuming would hand them to nobody.
      if (isH2) {
        h2Sockets.add(socket);
        h2.emit('connection', socket);
      } else {
        h1Open.set(socket, new Set());
        h1.emit('connection', socket);
        socket.resume();
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    front.once('error', reject);
    front.listen(port, host, () => resolve());
  });
  const address = front.address() as net.AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;

  return {
    port: address.port,
    url: `http://${shownHost}:${address.port}`,
    close: async () => {
      closing = true;
      const closed = new Promise<void>((resolve) => front.close(() => resolve()));
      for (const session of sessions) session.close();
      for (const socket of sockets) {
        if (h2Sockets.has(socket)) continue; // its session ends it after its streams
        const open = h1Open.get(socket);
        if (open === undefined)
          socket.destroy(); // nothing received yet: nothing in flight
        else if (open.size === 0) socket.end();
        else for (const res of open) if (!res.headersSent) res.shouldKeepAlive = false;
      }
      const deadline = setTimeout(() => {
        for (const socket of sockets) socket.destroy();
      }, graceMs);
      deadline.unref();
      await closed;
      clearTimeout(deadline);
    },
  };
}
