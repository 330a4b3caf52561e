import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { ConnectRouter } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { ServiceGate, timerSafeDeadlines, type Refusal } from '@wordgame/h2-unary';
import type { Logger } from '@wordgame/logging';
import { guardListener, h2Closer, type ConnectionRefusal, type ListenerLimits } from '@wordgame/service-kit';

/** A listening internal h2c server. */
export interface InternalServer {
  readonly port: number;
  close(): Promise<void>;
}

/** Largest request the internal listener reads (a bot command is a few hundred bytes). */
export const INTERNAL_MAX_BODY_BYTES = 1024 * 1024;
/** Most concurrent streams one connection to the internal listener may open. */
export const INTERNAL_MAX_CONCURRENT_STREAMS = 256;

/** Who may call the internal listener, and what happens to everyone else. */
export interface InternalAccess {
  /** GATEWAY_INTERNAL_TOKEN: the bearer token the backend presents. */
  token: string;
  /** Called once per refused call (counted and logged by the caller). */
  onRefused: (refusal: Refusal) => void;
}

/** What the internal listener enforces on new connections (service-kit guardListener, named `internal`). */
export interface InternalEdge {
  limits: ListenerLimits;
  logger: Logger;
  onRefused?: (reason: ConnectionRefusal) => void;
}

/**
 * Starts the gateway's internal Connect listener (h2c, no TLS): for the backend on a private
 * network or loopback, never the public port. Every call must present the internal token
 * (Unauthenticated otherwise, before its body is read), a request body is read up to
 * INTERNAL_MAX_BODY_BYTES (counted while reading; larger is ResourceExhausted, also for a caller
 * holding the token, and the stream is reset so the rest is never sent), and a connection holds at
 * most INTERNAL_MAX_CONCURRENT_STREAMS streams, and a caller's deadline is clamped to what a timer
 * can wait (timerSafeDeadlines). `edge.limits` cap the connections and give each one
 * `handshakeTimeoutMs` to send its HTTP/2 preface and SETTINGS. `close()` sends GOAWAY and waits for open
 * calls; connections still open after `graceMs` are destroyed.
 */
export async function listenInternal(
  host: string,
  port: number,
  routes: (router: ConnectRouter) => void,
  access: InternalAccess,
  graceMs: number,
  edge: InternalEdge,
): Promise<InternalServer> {
  const gate = new ServiceGate({ token: access.token, onRefused: access.onRefused });
  const server = http2.createServer(
    { settings: { maxConcurrentStreams: INTERNAL_MAX_CONCURRENT_STREAMS } },
    gate.handler(resetUnreadBodies(timerSafeDeadlines(connectNodeAdapter({ routes, readMaxBytes: INTERNAL_MAX_BODY_BYTES })))),
  );
  const closer = h2Closer(server);
  const guard = guardListener(
    server,
    { ...edge.limits, listener: 'internal', logger: edge.logger, ...(edge.onRefused ? { onRefused: edge.onRefused } : {}) },
    { http2: [server] },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      await closer.close(graceMs);
      guard.close();
    },
  };
}

type CompatHandler = (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void;

/**
 * `inner`, and once its whole answer is out (the compat layer sends trailers last, also for a
 * Connect answer that has none) while the request body is still unread (an oversized body refused
 * at the read limit, a call refused before its body), the stream is reset with NO_ERROR: the sender
 * stops sending, and the stream does not hold one of the connection's slots until the sender gives up.
 */
function resetUnreadBodies(inner: CompatHandler): CompatHandler {
  return (req, res) => {
    const stream = res.stream;
    // The compat layer's listener (registered first) hands the trailers to sendTrailers, which
    // submits them in a setImmediate; the reset is queued behind it so it cannot overtake them.
    stream.once('wantTrailers', () =>
      setImmediate(() => {
        if (!req.complete && !stream.closed) stream.close(http2.constants.NGHTTP2_NO_ERROR);
      }),
    );
    inner(req, res);
  };
}
