import { createHash, timingSafeEqual } from 'node:crypto';
import http2 from 'node:http2';
import type { IncomingHttpHeaders } from 'node:http';
import type { Interceptor } from '@connectrpc/connect';
import type { StreamTaker } from './stream-taker.js';

/** Why a call was refused at a service edge. */
export type RefusalReason = 'missing_token' | 'wrong_token';

/** What a gate reports about one refused call (never the presented credential). */
export interface Refusal {
  reason: RefusalReason;
  method: string;
  path: string;
  remote: string | undefined;
}

/** Options of a service gate. */
export interface ServiceGateOptions {
  /** The shared secret a caller presents as `Authorization: Bearer <token>`. */
  token: string;
  /** Called once per refused call (count it, log it). */
  onRefused: (refusal: Refusal) => void;
  /** Requests that need no token (e.g. the readiness probe); they must act as nobody. Default: none. */
  open?: (method: string, path: string) => boolean;
}

/** The body of every refusal: a Connect error any Connect or gRPC client reads as Unauthenticated. */
export const REFUSAL_BODY = JSON.stringify({ code: 'unauthenticated', message: 'service credential missing or wrong' });
const REFUSAL_STATUS = 401;

interface AnyRequest {
  headers: IncomingHttpHeaders;
  method?: string | undefined;
  url?: string | undefined;
  socket?: { remoteAddress?: string | undefined } | null;
}
interface AnyResponse {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body: string): unknown;
}

/**
 * Service-to-service authentication of a private listener. Every request must carry
 * `Authorization: Bearer <token>`; the comparison hashes both sides to a fixed length and compares
 * in constant time, so neither the token nor its length leaks through timing. A refused request
 * is answered 401 with a Connect `unauthenticated` error before anything reads its body or runs a
 * handler, and its connection stops sending (HTTP/1.1: closed; HTTP/2: the stream is reset once
 * the answer is out). Wrap every way into the server: the request handler (HTTP/1.1 and the
 * HTTP/2 compat layer) and the stream taker in front of it.
 */
export class ServiceGate {
  private readonly expected: Buffer;

  constructor(private readonly options: ServiceGateOptions) {
    if (options.token.length === 0) throw new Error('a service gate needs a token');
    this.expected = digest(options.token);
  }

  /** Why `headers` are refused, or undefined when they carry the token (or the route is open). */
  check(headers: IncomingHttpHeaders, method: string, path: string): RefusalReason | undefined {
    if (this.options.open?.(method, path)) return undefined;
    const value = headers.authorization;
    if (typeof value !== 'string' || !value.startsWith('Bearer ')) return 'missing_token';
    return timingSafeEqual(digest(value.slice(7)), this.expected) ? undefined : 'wrong_token';
  }

  /** `inner` behind the gate (HTTP/1.1 requests and the HTTP/2 compat layer). */
  handler<Q extends AnyRequest, S extends AnyResponse>(inner: (req: Q, res: S) => void): (req: Q, res: S) => void {
    return (req, res) => {
      const method = req.method ?? '';
      const path = req.url ?? '';
      const reason = this.check(req.headers, method, path);
      if (reason === undefined) {
        inner(req, res);
        return;
      }
      this.options.onRefused({ reason, method, path, remote: req.socket?.remoteAddress });
      // An HTTP/2 compat response carries its stream; HTTP/1.1 has no stream and closes instead.
      const stream = (res as { stream?: http2.Http2Stream }).stream;
      res.writeHead(
        REFUSAL_STATUS,
        stream === undefined ? { 'content-type': 'application/json', connection: 'close' } : { 'content-type': 'application/json' },
      );
      res.end(REFUSAL_BODY);
      if (stream !== undefined) stopSending(stream);
    };
  }

  /** A stream taker that answers refused HTTP/2 streams itself and offers the rest to `inner`. */
  taker(inner: StreamTaker = () => false): StreamTaker {
    return (stream, headers) => {
      const method = String(headers[':method'] ?? '');
      const path = String(headers[':path'] ?? '');
      const reason = this.check(headers, method, path);
      if (reason === undefined) return inner(stream, headers);
      this.options.onRefused({ reason, method, path, remote: stream.session?.socket?.remoteAddress });
      stream.on('error', () => undefined);
      if (!stream.destroyed && !stream.closed) {
        stream.respond({ ':status': REFUSAL_STATUS, 'content-type': 'application/json' });
        stream.end(REFUSAL_BODY);
        stopSending(stream);
      }
      return true;
    };
  }
}

/** The header that presents `token` to a service gate. */
export function serviceAuthorization(token: string): string {
  return `Bearer ${token}`;
}

/** A Connect client interceptor that presents `token` to a service gate on every call. */
export function withServiceToken(token: string): Interceptor {
  const value = serviceAuthorization(token);
  return (next) => (req) => {
    req.header.set('authorization', value);
    return next(req);
  };
}

/** Resets the stream (NO_ERROR) once the answer is flushed, so the client stops sending a body nobody reads. */
function stopSending(stream: http2.Http2Stream): void {
  if (!stream.closed) stream.close(http2.constants.NGHTTP2_NO_ERROR);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
