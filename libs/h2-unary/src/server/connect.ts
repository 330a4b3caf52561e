import http2 from 'node:http2';
import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import { Code, ConnectError, createContextValues } from '@connectrpc/connect';
import { compressionNegotiate, mergeNonProtocolHeaders } from '@connectrpc/connect/protocol';
import { codeToHttpStatus, errorToJsonBytes, trailerMux } from '@connectrpc/connect/protocol-connect';
import { decodeMessage, encodeMessage } from '../codec.js';
import type { StreamTaker } from '../stream-taker.js';
import { readLimitError, serveUnary } from './lifecycle.js';
import { ADAPTER_COMPRESSIONS, COMPRESS_MIN_BYTES, type UnaryServerOptions } from './options.js';
import { handlerContext, invokeRoute, unaryRoutes } from './routes.js';

const TIMEOUT = /^\d{1,10}$/;
const LENGTH = /^\d{1,15}$/;

/**
 * The Connect protocol's unary calls (POST, `application/proto`, protocol version 1, an
 * uncompressed body, a well-formed `connect-timeout-ms`) served straight off the HTTP/2 stream,
 * answered exactly as connect-node answers them: 200 with the message, or the error's HTTP status
 * with the Connect JSON error body; response headers, `trailer-*` trailers and the error's
 * metadata as headers; `content-length`; the answer gzip/br-compressed when the client accepts it
 * and it is 1 KiB or more. Everything else (JSON, GET, compressed bodies, bad timeouts, a
 * `content-length` over the limit, streams) is declined: the taker returns false and connect-node
 * answers. The interceptors are the adapter's, run by connect's own invoker.
 */
export function connectUnaryTaker(options: UnaryServerOptions, scheme: 'http' | 'https'): StreamTaker {
  const routes = unaryRoutes(options.services);
  const interceptors = options.interceptors ?? [];
  const maxBytes = options.readMaxBytes;
  return (stream, headers) => {
    const route = headers[':method'] === 'POST' ? routes.get(headers[':path'] ?? '') : undefined;
    if (route === undefined || headers['content-type'] !== 'application/proto') return false;
    const version = headers['connect-protocol-version'];
    if (version !== undefined && version !== '1') return false;
    const timeout = headers['connect-timeout-ms'];
    if (timeout !== undefined && (typeof timeout !== 'string' || !TIMEOUT.test(timeout))) return false;
    const length = headers['content-length'];
    if (length !== undefined && (!LENGTH.test(length) || Number(length) > maxBytes)) return false;
    const accept = headers['accept-encoding'];
    const compression = compressionNegotiate(
      ADAPTER_COMPRESSIONS,
      single(headers['content-encoding']),
      typeof accept === 'string' ? accept : null,
      'accept-encoding',
    );
    if (compression.request !== null || compression.error !== undefined) return false;
    const values = options.contextValues?.(stream.session?.socket, stream.session) ?? createContextValues();
    const { method } = route;
    serveUnary(stream, timeout === undefined ? undefined : Number(timeout), {
      header: { 'content-type': 'application/proto' },
      checkRead: (received) => readLimitError(maxBytes, received, false),
      async handle(body, exchange) {
        if (length !== undefined && body.length !== Number(length)) {
          throw new ConnectError(`protocol error: promised ${length} bytes, received ${body.length}`, Code.InvalidArgument);
        }
        const context = handlerContext(method, headers, exchange, 'connect', values, scheme);
        const output = await invokeRoute(route, context, parse(method.input, body), interceptors);
        return encodeMessage(method.output, output);
      },
      succeed(s, message, exchange) {
        answer(s, 200, message, exchange.responseHeader, exchange.responseTrailer).catch(() =>
          s.close(http2.constants.NGHTTP2_INTERNAL_ERROR),
        );
      },
      fail(s, err, exchange) {
        exchange.responseHeader.set('content-type', 'application/json');
        if (!err.isWireError) mergeNonProtocolHeaders(exchange.responseHeader, err.metadata);
        answer(s, codeToHttpStatus(err.code), errorToJsonBytes(err, {}), exchange.responseHeader, exchange.responseTrailer).catch(() =>
          s.close(http2.constants.NGHTTP2_INTERNAL_ERROR),
        );
      },
    });
    return true;

    async function answer(s: http2.ServerHttp2Stream, status: number, bytes: Uint8Array, header: Headers, trailer: Headers): Promise<void> {
      let body = bytes;
      if (compression.response !== null && body.byteLength >= COMPRESS_MIN_BYTES) {
        body = await compression.response.compress(body);
        header.set('content-encoding', compression.response.name);
      }
      // With no trailers the mux would only copy the headers; they are this call's own, so skip the copy.
      const out = trailer.keys().next().done === true ? header : trailerMux(header, trailer);
      out.set('content-length', String(body.byteLength));
      if (s.destroyed || s.closed) return;
      s.respond(toOutgoing(status, out));
      s.end(body);
    }
  };
}

/** Request bytes as a message; bytes that are not one are Internal "parse binary: …", as connect-node answers. */
function parse<D extends DescMessage>(schema: D, bytes: Uint8Array): MessageShape<D> {
  try {
    return decodeMessage(schema, bytes);
  } catch (err: unknown) {
    throw new ConnectError(`parse binary: ${err instanceof Error ? err.message : String(err)}`, Code.Internal);
  }
}

function single(value: string | string[] | undefined): string | null {
  return typeof value === 'string' ? value : null;
}

/** Fetch headers as HTTP/2 response headers (repeated fields joined as connect-node's adapter does). */
export function toOutgoing(status: number, header: Headers): http2.OutgoingHttpHeaders {
  const out: http2.OutgoingHttpHeaders = { ':status': status };
  header.forEach((value, key) => (out[key] = value));
  return out;
}
