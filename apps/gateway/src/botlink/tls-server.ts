import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { keepAlive } from '@wordgame/h2-keepalive';
import { serveStreams, type StreamTaker } from '@wordgame/h2-unary';
import type { Logger } from '@wordgame/logging';
import { guardListener, h2Closer, RateLimitedLog, type ConnectionRefusal, type ListenerLimits } from '@wordgame/service-kit';

/** Most concurrent streams one bot-link connection may open (a bot uses one Link plus a few unary calls). */
export const BOTLINK_MAX_CONCURRENT_STREAMS = 256;

/** How long `close()` lets the sessions end after GOAWAY before destroying every connection still open (ms). */
export const BOTLINK_CLOSE_GRACE_MS = 5_000;

export interface MtlsOptions {
  host: string;
  port: number;
  caPath: string;
  certPath: string;
  keyPath: string;
  logger: Logger;
  /** HTTP/2 ping interval per session (ms). */
  pingIntervalMs: number;
  /** A ping unanswered this long (ms) destroys the session: the peer is gone or half-open. */
  pingTimeoutMs: number;
  /** Connection cap and handshake timeout (service-kit guardListener, named `botlink`). */
  limits: ListenerLimits;
  /** Called per connection closed over the cap or for a handshake not done in time. */
  onConnectionRefused?: (reason: ConnectionRefusal) => void;
  /** Called when a TLS handshake is refused (no, expired or foreign client certificate). */
  onHandshakeRefused?: () => void;
  /** Called when a session is destroyed for an unanswered ping. */
  onPingTimeout?: () => void;
}

/** A listening HTTP/2 server that only completes handshakes with CA-signed client certificates. */
export interface MtlsServer {
  readonly port: number;
  readonly server: http2.Http2SecureServer;
  /** GOAWAY to every session; what is still open after `graceMs` (BOTLINK_CLOSE_GRACE_MS by default) is destroyed. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Starts the bot-link's HTTP/2 TLS server. A client certificate is required and verified against
 * the configured CA during the handshake (no certificate, another CA's, or an expired one never
 * reaches a handler); TLS 1.3 only, no HTTP/1 fallback, BOTLINK_MAX_CONCURRENT_STREAMS per
 * connection. Each session is pinged every
 * `pingIntervalMs`; an answer missing after `pingTimeoutMs` destroys it, which ends its streams
 * (a half-open connection is detected within interval + timeout). `options.limits` cap the
 * connections and give each one `handshakeTimeoutMs` from its TCP accept to finish the TLS
 * handshake and send its HTTP/2 SETTINGS. A refused handshake is counted each time and logged at
 * most once per window with the counts by cause; a peer that goes away mid-handshake (also one the
 * timeout ended) is no refused handshake. `close()` sends GOAWAY to every
 * session and waits for them to end, destroying what is still open after its grace.
 */
export async function listenMtls(
  options: MtlsOptions,
  handler: (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void,
  /** Takes streams before `handler` sees them (the unary fast path); false leaves a stream to it. */
  take?: StreamTaker,
): Promise<MtlsServer> {
  const server = http2.createSecureServer({
    ca: readFileSync(options.caPath),
    cert: readFileSync(options.certPath),
    key: readFileSync(options.keyPath),
    requestCert: true,
    rejectUnauthorized: true,
    minVersion: 'TLSv1.3',
    allowHTTP1: false,
    settings: { maxConcurrentStreams: BOTLINK_MAX_CONCURRENT_STREAMS },
  });
  // No request handler on the TLS server itself: streams `take` declines go to a compat server's.
  serveStreams(server, take ?? (() => false), http2.createServer(handler));
  const closer = h2Closer(server);
  const guard = guardListener(
    server,
    {
      ...options.limits,
      listener: 'botlink',
      logger: options.logger,
      ...(options.onConnectionRefused ? { onRefused: options.onConnectionRefused } : {}),
    },
    { http2: [server] },
  );
  const refusals = new RateLimitedLog(options.logger, 'bot-link TLS handshakes refused', { listener: 'botlink' });
  server.on('session', (session: http2.ServerHttp2Session) => {
    const stopPings = keepAlive(session, {
      intervalMs: options.pingIntervalMs,
      timeoutMs: options.pingTimeoutMs,
      onTimeout: () => {
        options.onPingTimeout?.();
        options.logger.warn(
          { remote: session.socket?.remoteAddress, timeoutMs: options.pingTimeoutMs },
          'bot-link ping unanswered; session destroyed',
        );
      },
    });
    session.on('close', stopPings);
  });
  server.on('tlsClientError', (err: Error & { code?: string }, socket: TLSSocket) => {
    // A certificate refused after the handshake ends the socket with authorizationError set; a reset
    // without one is a peer that left (or the handshake timeout ended it): nothing was refused.
    // (Node sets it to the verification error's code: null until one failed, whatever @types/node says).
    const verifyError: unknown = socket.authorizationError;
    const refusedCertificate =
      typeof verifyError === 'string' ? verifyError : verifyError instanceof Error ? verifyError.message : undefined;
    if (err.code === 'ECONNRESET' && refusedCertificate === undefined) return;
    options.onHandshakeRefused?.();
    refusals.note(refusedCertificate ?? err.code ?? 'tls_error', {
      err: err.message,
      remote: socket.remoteAddress,
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    server,
    close: async (graceMs = BOTLINK_CLOSE_GRACE_MS) => {
      await closer.close(graceMs);
      guard.close();
      refusals.close();
    },
  };
}
