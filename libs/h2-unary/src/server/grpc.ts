import http2 from 'node:http2';
import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import { Code, ConnectError, createContextValues } from '@connectrpc/connect';
import { compressionNegotiate } from '@connectrpc/connect/protocol';
import { setTrailerStatus } from '@connectrpc/connect/protocol-grpc';
import { decodeMessage, encodeMessage } from '../codec.js';
import { parseGrpcTimeout } from '../deadline.js';
import type { StreamTaker } from '../stream-taker.js';
import { toOutgoing } from './connect.js';
import { readLimitError, serveUnary } from './lifecycle.js';
import { ADAPTER_COMPRESSIONS, COMPRESS_MIN_BYTES, type UnaryServerOptions } from './options.js';
import { handlerContext, invokeRoute, unaryRoutes } from './routes.js';

const CONTENT_TYPES = new Set(['application/grpc', 'application/grpc+proto']);

/**
 * The gRPC protocol's unary calls (binary, `grpc-encoding` absent or identity, a well-formed
 * `grpc-timeout`) served straight off the HTTP/2 stream, answered exactly as connect-node answers
 * them: headers (`application/grpc+proto`), the enveloped message, then trailers with
 * `grpc-status`, `grpc-message`, `grpc-status-details-bin` and the error's metadata (connect's own
 * `setTrailerStatus`). A compressed envelope on an identity call is Internal, as connect-node
 * answers; a call with a `grpc-encoding` is declined (connect-node answers it: gzip is read,
 * an unknown encoding is Unimplemented), as are JSON calls, the streams and a malformed
 * `grpc-timeout` (timerSafeDeadlines answers it). A deadline longer than a timer can wait is
 * clamped by serveUnary.
 */
export function grpcUnaryTaker(options: UnaryServerOptions, scheme: 'http' | 'https'): StreamTaker {
  const routes = unaryRoutes(options.services);
  const interceptors = options.interceptors ?? [];
  const maxBytes = options.readMaxBytes;
  return (stream, headers) => {
    const route = headers[':method'] === 'POST' ? routes.get(headers[':path'] ?? '') : undefined;
    const type = headers['content-type'];
    if (route === undefined || type === undefined || !CONTENT_TYPES.has(type)) return false;
    const encoding = headers['grpc-encoding'];
    if (encoding !== undefined && encoding !== 'identity') return false;
    const timeout = parseGrpcTimeout(headers['grpc-timeout']);
    if (timeout === null) return false;
    const accept = headers['grpc-accept-encoding'];
    const compression = compressionNegotiate(
      ADAPTER_COMPRESSIONS,
      null,
      typeof accept === 'string' ? accept : null,
      'grpc-accept-encoding',
    );
    const values = options.contextValues?.(stream.session?.socket, stream.session) ?? createContextValues();
    const { method } = route;
    const header: Record<string, string> = { 'content-type': 'application/grpc+proto' };
    if (compression.response !== null) header['grpc-encoding'] = compression.response.name;
    serveUnary(stream, timeout, {
      header,
      trailer: { 'grpc-status': '0' },
      checkRead(_received, chunks) {
        const first = chunks[0];
        if (first === undefined) return undefined;
        const head = first.length >= 5 ? first : Buffer.concat(chunks);
        return head.length >= 5 ? readLimitError(maxBytes, head.readUInt32BE(1), true) : undefined;
      },
      async handle(body, exchange) {
        const input = await single(body, method.input, maxBytes);
        const context = handlerContext(method, headers, exchange, 'grpc', values, scheme);
        return encodeMessage(method.output, await invokeRoute(route, context, input, interceptors));
      },
      succeed(s, message, exchange) {
        (async () => {
          let flags = 0;
          let bytes = message;
          if (compression.response !== null && bytes.byteLength >= COMPRESS_MIN_BYTES) {
            bytes = await compression.response.compress(bytes);
            flags = 1;
          }
          const envelope = Buffer.allocUnsafe(5 + bytes.length);
          envelope[0] = flags;
          envelope.writeUInt32BE(bytes.length, 1);
          envelope.set(bytes, 5);
          end(s, exchange.responseHeader, exchange.responseTrailer, envelope);
        })().catch(() => s.close(http2.constants.NGHTTP2_INTERNAL_ERROR));
      },
      fail(s, err, exchange) {
        end(s, exchange.responseHeader, setTrailerStatus(exchange.responseTrailer, err));
      },
    });
    return true;
  };
}

/** Headers, the body (if any), trailers: what connect-node's adapter writes through the compat layer. */
function end(s: http2.ServerHttp2Stream, header: Headers, trailer: Headers, body?: Uint8Array): void {
  if (s.destroyed || s.closed) return;
  s.respond(toOutgoing(200, header), { waitForTrailers: true });
  s.once('wantTrailers', () => {
    const out: http2.OutgoingHttpHeaders = {};
    trailer.forEach((value, key) => (out[key] = value));
    s.sendTrailers(out);
  });
  if (body === undefined) s.end();
  else s.end(body);
}

/**
 * The one request message of a unary call, read envelope by envelope in connect-node's order:
 * each complete envelope is decompressed (none may be compressed here: Internal) and parsed
 * (Internal "parse binary"), a trailing partial envelope is InvalidArgument, no message or a
 * second one is Unimplemented.
 */
async function single<D extends DescMessage>(body: Buffer, schema: D, maxBytes: number): Promise<MessageShape<D>> {
  await Promise.resolve();
  let offset = 0;
  let first: MessageShape<D> | undefined;
  for (;;) {
    if (offset === body.length) break;
    if (body.length - offset < 5) throw new ConnectError('protocol error: incomplete envelope', Code.InvalidArgument);
    const length = body.readUInt32BE(offset + 1);
    const tooLarge = readLimitError(maxBytes, length, true);
    if (tooLarge) throw tooLarge;
    if (body.length - offset - 5 < length) throw new ConnectError('protocol error: incomplete envelope', Code.InvalidArgument);
    if (((body[offset] as number) & 1) === 1)
      throw new ConnectError('received compressed envelope, but do not know how to decompress', Code.Internal);
    let message: MessageShape<D>;
    try {
      message = decodeMessage(schema, body.subarray(offset + 5, offset + 5 + length));
    } catch (err: unknown) {
      throw new ConnectError(`parse binary: ${err instanceof Error ? err.message : String(err)}`, Code.Internal);
    }
    offset += 5 + length;
    if (first !== undefined) throw new ConnectError('protocol error: received extra input message for unary method', Code.Unimplemented);
    first = message;
  }
  if (first === undefined) throw new ConnectError('protocol error: missing input message for unary method', Code.Unimplemented);
  return first;
}
