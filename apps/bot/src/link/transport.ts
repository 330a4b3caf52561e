import type { Transport } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { clampTransportDeadlines, createGrpcUnaryTransport, specGrpcTimeout } from '@wordgame/h2-unary';
import { LinkSession } from './session.js';

/** Where and how the bot dials the gateway's BotLink service. */
export interface LinkTransportOptions {
  url: string;
  /** PEM of the CA the gateway's certificate must chain to. */
  ca: Buffer;
  /** PEM of the bot's client certificate and its key. */
  cert: Buffer;
  key: Buffer;
  /** HTTP/2 PING interval; an unanswered PING closes the connection (half-open detection). */
  pingIntervalMs: number;
}

/** The one bot-link connection: the gRPC transport plus the HTTP/2 session under it. */
export interface LinkTransport {
  transport: Transport;
  /** Closes the HTTP/2 connection and every stream on it. */
  close(): void;
  /** True once the gateway answered on the current connection (see LinkSession.answered). */
  answered(): Promise<boolean>;
}

/**
 * A gRPC transport over HTTP/2 with mutual TLS: the bot presents its client certificate and
 * trusts only the configured CA. The Link stream and the three unary RPCs all share this one
 * connection; LinkSession reopens it transparently after a drop. The Link stream goes through
 * connect-node's gRPC transport, the unary RPCs straight onto the connection (createGrpcUnaryTransport:
 * the same wire and outcomes without connect-node's per-call machinery). A call's deadline is
 * clamped to what a timer can wait (a longer one would fail the call after 1 ms) and sent as a spec
 * `grpc-timeout` of at most 8 digits (connect-es writes milliseconds, 9+ digits past 27.8 hours,
 * which a gRPC server refuses as malformed).
 */
export function createLinkTransport(options: LinkTransportOptions): LinkTransport {
  const sessionManager = new LinkSession(options);
  const streams = clampTransportDeadlines(createGrpcTransport({ baseUrl: options.url, sessionManager, interceptors: [specGrpcTimeout()] }));
  const transport = createGrpcUnaryTransport({
    baseUrl: options.url,
    openStream: (method, path, headers, streamOptions) => sessionManager.request(method, path, headers, streamOptions),
    streams,
  });
  return { transport, close: () => sessionManager.close(), answered: () => sessionManager.answered() };
}
