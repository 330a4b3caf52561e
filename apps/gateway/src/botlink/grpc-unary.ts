import type http2 from 'node:http2';
import { create, toBinary, type DescService } from '@bufbuild/protobuf';
import { Code, ConnectError, type ContextValues } from '@connectrpc/connect';
import { handlerContext, parseInput, serveUnary, unaryRoutes, type StreamTaker } from '@wordgame/h2-unary';
import type { Logger } from '@wordgame/logging';

/**
 * Largest request message the bot-link reads, on the fast path and through connect-node
 * (`readMaxBytes`); bot-link requests are a few hundred bytes.
 */
export const MAX_MESSAGE_BYTES = 1024 * 1024;
const GRPC_TIMEOUT = /^(\d{1,8})([HMSmun])$/;
const TIMEOUT_UNIT_MS: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1_000, m: 1, u: 0.001, n: 0.000001 };

/**
 * Serves the gRPC protocol's unary calls of `service` (binary, uncompressed: what the bot sends)
 * straight from the HTTP/2 stream, without the compat layer and connect-node's per-call
 * machinery, which was a third of the gateway's CPU per ForwardPayment. The answer is what
 * connect-node would send: the response envelope and `grpc-status: 0` trailers, or a trailers-only
 * error with `grpc-status`/`grpc-message` and the error's metadata. Everything else (the Link
 * stream, compressed or JSON calls) is left to the adapter. `values` gives each call's context
 * values (the peer certificate identity).
 */
export function grpcUnaryFastPath(service: DescService, impl: object, values: (stream: http2.ServerHttp2Stream) => ContextValues, logger: Logger): StreamTaker {
  const routes = unaryRoutes(service, impl);
  return (stream, headers) => {
    const route = headers[':method'] === 'POST' ? routes.get(headers[':path'] ?? '') : undefined;
    const type = headers['content-type'];
    if (route === undefined || (type !== 'application/grpc' && type !== 'application/grpc+proto')) return false;
    const encoding = headers['grpc-encoding'];
    if (encoding !== undefined && encoding !== 'identity') return false;
    const { method, impl } = route;
    const callValues = values(stream);
    serveUnary(stream, parseTimeout(headers['grpc-timeout']), MAX_MESSAGE_BYTES + 5, {
      async handle(body, exchange) {
        const length = body.length >= 5 ? body.readUInt32BE(1) : -1;
        if (length < 0 || body[0] !== 0 || body.length !== 5 + length) {
          throw new ConnectError('a unary request carries exactly one uncompressed message', Code.InvalidArgument);
        }
        const input = parseInput(method.input, body.subarray(5));
        const context = handlerContext(method, headers, exchange, 'grpc', callValues, 'https');
        return toBinary(method.output, create(method.output, (await impl(input as never, context)) as never));
      },
      succeed(s, message, exchange) {
        const out: http2.OutgoingHttpHeaders = { ':status': 200, 'content-type': type };
        exchange.responseHeader.forEach((v, k) => (out[k] = v));
        const envelope = Buffer.allocUnsafe(5 + message.length);
        envelope[0] = 0;
        envelope.writeUInt32BE(message.length, 1);
        envelope.set(message, 5);
        s.respond(out, { waitForTrailers: true });
        s.once('wantTrailers', () => {
          const trailers: http2.OutgoingHttpHeaders = { 'grpc-status': '0' };
          exchange.responseTrailer.forEach((v, k) => (trailers[k] = v));
          s.sendTrailers(trailers);
        });
        s.end(envelope);
      },
      fail(s, err, exchange) {
        const out: http2.OutgoingHttpHeaders = { ':status': 200, 'content-type': type };
        exchange.responseHeader.forEach((v, k) => (out[k] = v));
        err.metadata.forEach((v, k) => (out[k] = v));
        out['grpc-status'] = String(err.code);
        if (err.rawMessage) out['grpc-message'] = encodeURIComponent(err.rawMessage);
        s.respond(out, { endStream: true });
      },
      toError(err) {
        if (err instanceof ConnectError) return err;
        logger.error({ err, rpc: method.name }, 'bot-link call failed');
        return new ConnectError('internal error', Code.Internal);
      },
    });
    return true;
  };
}

/** `grpc-timeout` (e.g. `10S`, `250m`) in milliseconds; undefined when absent or malformed. */
export function parseTimeout(value: string | string[] | undefined): number | undefined {
  const match = typeof value === 'string' ? GRPC_TIMEOUT.exec(value) : null;
  if (!match) return undefined;
  return Math.max(1, Math.ceil(Number(match[1]) * (TIMEOUT_UNIT_MS[match[2] ?? ''] ?? 1)));
}
