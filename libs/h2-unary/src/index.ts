import http2 from 'node:http2';
import { fromBinary, type DescMessage, type DescMethodUnary, type DescService, type MessageShape } from '@bufbuild/protobuf';
import { Code, ConnectError, type ContextValues, type HandlerContext } from '@connectrpc/connect';

import type { StreamTaker } from './stream-taker.js';

export type { StreamTaker } from './stream-taker.js';

/**
 * Puts `take` in front of the compat layer of an HTTP/2 server made with a request handler. Node
 * serves such handlers through exactly one `stream` listener; it is replaced by one that offers
 * each stream to `take` first and hands the rest to it. Should a Node version wire it differently,
 * nothing is replaced and every stream keeps going through the compat layer.
 */
export function takeStreamsFirst(server: http2.Http2Server | http2.Http2SecureServer, take: StreamTaker): void {
  const listeners = server.listeners('stream');
  const compat = listeners[0] as ((...args: unknown[]) => void) | undefined;
  if (listeners.length !== 1 || compat === undefined) return;
  server.removeListener('stream', compat);
  server.on('stream', (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, ...rest: unknown[]) => {
    if (!take(stream, headers)) compat.call(server, stream, headers, ...rest);
  });
}

/** A unary method with its implementation, as a Connect ServiceImpl holds it. */
export interface UnaryRoute {
  method: DescMethodUnary;
  impl: (request: never, context: HandlerContext) => unknown;
}

/** The unary methods `impl` implements for `service`, by request path (`/<service>/<method>`). */
export function unaryRoutes(service: DescService, impl: object, into = new Map<string, UnaryRoute>()): Map<string, UnaryRoute> {
  for (const method of service.methods) {
    const fn = (impl as Record<string, unknown>)[method.localName];
    if (method.methodKind !== 'unary' || typeof fn !== 'function') continue;
    into.set(`/${service.typeName}/${method.name}`, { method: method as DescMethodUnary, impl: fn.bind(impl) as UnaryRoute['impl'] });
  }
  return into;
}

/** The regular (non-pseudo) fields of HTTP/2 headers as a Fetch `Headers`. */
export function headersOf(raw: http2.IncomingHttpHeaders): Headers {
  const header = new Headers();
  for (const key of Object.keys(raw)) {
    if (key.startsWith(':')) continue;
    const value = raw[key];
    if (Array.isArray(value)) for (const v of value) header.append(key, v);
    else if (value !== undefined) header.set(key, value);
  }
  return header;
}

/** What a unary exchange gives its handler: cancellation, the deadline, the headers to answer with. */
export interface UnaryExchange {
  readonly signal: AbortSignal;
  readonly timeoutMs: () => number | undefined;
  readonly responseHeader: Headers;
  readonly responseTrailer: Headers;
}

/** How one unary call on a server stream is read and answered (the protocol's framing). */
export interface UnaryProtocol {
  /** Runs the call on the complete request body; resolves with the answer's bytes. */
  handle(body: Buffer, exchange: UnaryExchange): Promise<Uint8Array>;
  /** Writes a successful answer. */
  succeed(stream: http2.ServerHttp2Stream, message: Uint8Array, exchange: UnaryExchange): void;
  /** Writes a failed answer. */
  fail(stream: http2.ServerHttp2Stream, err: ConnectError, exchange: UnaryExchange): void;
  /** Any failure of `handle` as the ConnectError to answer. */
  toError(err: unknown): ConnectError;
}

/**
 * Serves one unary call straight off an HTTP/2 stream: reads the body (at most `maxBytes`), runs
 * the protocol's handler, answers exactly once. The deadline (`timeoutMs`) answers
 * DeadlineExceeded and aborts the handler's signal; a stream the client resets aborts it with
 * Canceled. Unlike connect-node, a call that ends normally aborts nothing, so it builds no
 * DOMException.
 */
export function serveUnary(stream: http2.ServerHttp2Stream, timeoutMs: number | undefined, maxBytes: number, protocol: UnaryProtocol): void {
  const abort = new AbortController();
  const expires = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
  const exchange: UnaryExchange = {
    signal: abort.signal,
    timeoutMs: () => (expires === undefined ? undefined : expires - Date.now()),
    responseHeader: new Headers(),
    responseTrailer: new Headers(),
  };
  let answered = false;
  const answer = (write: () => void) => {
    if (answered) return;
    answered = true;
    clearTimeout(deadline);
    if (stream.destroyed || stream.closed) return;
    try {
      write();
    } catch {
      // the connection went away between the check and the write: nobody is left to answer
    }
  };
  const fail = (err: ConnectError) => answer(() => protocol.fail(stream, err, exchange));
  const deadline =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          const err = new ConnectError('the operation timed out', Code.DeadlineExceeded);
          abort.abort(err);
          fail(err);
        }, timeoutMs);
  stream.once('close', () => {
    clearTimeout(deadline);
    if (!answered) {
      answered = true;
      abort.abort(new ConnectError('the client cancelled the call', Code.Canceled));
    }
  });
  stream.on('error', () => undefined); // a reset stream reports through 'close'
  const chunks: Buffer[] = [];
  let size = 0;
  stream.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) {
      fail(new ConnectError(`request larger than ${maxBytes} bytes`, Code.ResourceExhausted));
      stream.close(http2.constants.NGHTTP2_CANCEL);
      return;
    }
    chunks.push(chunk);
  });
  stream.on('end', () => {
    if (answered) return;
    const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    void Promise.resolve()
      .then(() => protocol.handle(body, exchange))
      .then(
        (message) => answer(() => protocol.succeed(stream, message, exchange)),
        (err: unknown) => fail(protocol.toError(err)),
      );
  });
}

/** Decodes a request message; bytes that are not one are InvalidArgument, as connect-node answers. */
export function parseInput<I extends DescMessage>(schema: I, bytes: Uint8Array): MessageShape<I> {
  try {
    return fromBinary(schema, bytes);
  } catch (err: unknown) {
    throw new ConnectError(`parse binary: ${err instanceof Error ? err.message : String(err)}`, Code.InvalidArgument);
  }
}

/** The Connect HandlerContext of a unary call served by `serveUnary`. */
export function handlerContext(
  method: DescMethodUnary,
  headers: http2.IncomingHttpHeaders,
  exchange: UnaryExchange,
  protocolName: 'connect' | 'grpc',
  values: ContextValues,
  scheme: 'http' | 'https',
): HandlerContext {
  return {
    method,
    service: method.parent,
    signal: exchange.signal,
    timeoutMs: exchange.timeoutMs,
    requestMethod: 'POST',
    requestHeader: headersOf(headers),
    responseHeader: exchange.responseHeader,
    responseTrailer: exchange.responseTrailer,
    protocolName,
    values,
    url: `${scheme}://${headers[':authority'] ?? 'localhost'}${headers[':path'] ?? ''}`,
  };
}

export { ServiceGate, REFUSAL_BODY, serviceAuthorization, withServiceToken, type Refusal, type RefusalReason, type ServiceGateOptions } from './service-gate.js';
export { expandEndpoints, neverReached, REFUSED_STREAM_CODE, type ResolveAll } from './replicas.js';
