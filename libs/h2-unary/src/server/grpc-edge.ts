import type http from 'node:http';
import http2 from 'node:http2';
import { Code } from '@connectrpc/connect';
import type { ConnectNodeAdapterOptions } from '@connectrpc/connect-node';
import { ADAPTER_COMPRESSIONS } from './options.js';

type AnyRequest = http.IncomingMessage | http2.Http2ServerRequest;
type AnyResponse = http.ServerResponse | http2.Http2ServerResponse;

/** The message encodings a server built by unaryServers reads, as `grpc-accept-encoding` lists them. */
export const GRPC_ACCEPT_ENCODING = ADAPTER_COMPRESSIONS.map((c) => c.name).join(',');

/** True for a gRPC call (`application/grpc`, `+proto`, `+json`, …). */
export function isGrpc(headers: http.IncomingHttpHeaders | http2.IncomingHttpHeaders): boolean {
  return String(headers['content-type'] ?? '').startsWith('application/grpc');
}

/**
 * Answers a gRPC call trailers-only (HTTP 200, the status in the one HEADERS frame that ends the
 * stream) and resets the rest of the request stream with NO_ERROR, as PROTOCOL-HTTP2.md has a
 * server answer before the client's END_STREAM.
 */
export function answerTrailersOnly(
  stream: http2.ServerHttp2Stream,
  code: Code,
  message: string,
  extra: http2.OutgoingHttpHeaders = {},
): void {
  stream.on('error', () => undefined);
  if (stream.destroyed || stream.closed || stream.headersSent) return;
  stream.respond(
    {
      ':status': 200,
      'content-type': 'application/grpc',
      ...extra,
      'grpc-status': String(code),
      'grpc-message': encodeURIComponent(message),
    },
    { endStream: true },
  );
  stream.close(http2.constants.NGHTTP2_NO_ERROR);
}

/**
 * A gRPC call whose `grpc-encoding` the server cannot read is answered UNIMPLEMENTED with a
 * `grpc-accept-encoding` header naming what it reads (compression.md: "The server will then
 * include in its response a grpc-accept-encoding header"); connect-node answers the status but
 * drops that header. Everything else goes to `inner`.
 */
export function grpcEncodings<Req extends AnyRequest, Res extends AnyResponse>(
  inner: (req: Req, res: Res) => void,
): (req: Req, res: Res) => void {
  const readable = new Set(['identity', ...ADAPTER_COMPRESSIONS.map((c) => c.name)]);
  return (req, res) => {
    const encoding = req.headers['grpc-encoding'];
    if (encoding !== undefined && isGrpc(req.headers) && 'stream' in req && !(typeof encoding === 'string' && readable.has(encoding))) {
      answerTrailersOnly(
        req.stream,
        Code.Unimplemented,
        `grpc-encoding ${String(encoding).slice(0, 32)} is not supported; supported: ${GRPC_ACCEPT_ENCODING},identity`,
        { 'grpc-accept-encoding': GRPC_ACCEPT_ENCODING },
      );
      return;
    }
    inner(req, res);
  };
}

/** connect-node's handler type for a path that names no method. */
type Fallback = NonNullable<ConnectNodeAdapterOptions['fallback']>;

/**
 * connect-node's `fallback` for a path that names no method: a gRPC call is answered UNIMPLEMENTED
 * (statuscodes.md: "Method not found at server"), not connect-node's bare HTTP 404, which a gRPC
 * client has to guess a status from; anything else gets `otherwise` (default: 404).
 */
export function grpcUnknownMethod(otherwise?: Fallback): Fallback {
  return (req, res) => {
    if (isGrpc(req.headers) && 'stream' in req) {
      answerTrailersOnly(req.stream, Code.Unimplemented, `unknown method ${String(req.url).slice(0, 128)}`);
      return;
    }
    if (otherwise) return otherwise(req, res);
    res.statusCode = 404;
    res.end();
  };
}
