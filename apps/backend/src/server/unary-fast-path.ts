import type http2 from 'node:http2';
import { create, toBinary, type DescMethod, type DescService } from '@bufbuild/protobuf';
import { ConnectError, createContextValues } from '@connectrpc/connect';
import { codeToHttpStatus, errorToJsonBytes } from '@connectrpc/connect/protocol-connect';
import { handlerContext, parseInput, serveUnary, unaryRoutes, type StreamTaker, type UnaryRoute } from '@wordgame/h2-unary';

/** One service as registered with the Connect router: its descriptor and implementation. */
export interface ServiceRegistration {
  service: DescService;
  impl: object;
}

/** Maps any failure of a handler to the ConnectError to answer (the backend's error edge). */
export type ErrorEdge = (err: unknown, method: DescMethod) => ConnectError;

/**
 * Largest request body the backend reads, on the fast path and through connect-node
 * (`readMaxBytes`); counted while reading, so a larger body is refused (ResourceExhausted) before
 * it is buffered. The gateway's REST limit (64 kB) is far below it.
 */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
const TIMEOUT = /^\d{1,10}$/;

/**
 * Serves the Connect protocol's unary calls (POST `/<service>/<method>`, `application/proto`,
 * uncompressed) straight from the HTTP/2 stream, without the compat request/response objects and
 * connect-node's per-call machinery (linked abort controllers, async-iterable pipes), which was a
 * third of the backend's CPU per call. The answer is what connect-node would send: 200 with the
 * message, or the error's HTTP status with the Connect JSON error body and its metadata as
 * headers. Returns false for anything else (streams, JSON, compression, GET), which the caller
 * hands to the connect-node adapter.
 */
export function unaryFastPath(registrations: readonly ServiceRegistration[], edge: ErrorEdge): StreamTaker {
  const routes = new Map<string, UnaryRoute>();
  for (const { service, impl } of registrations) unaryRoutes(service, impl, routes);
  return (stream, headers) => {
    const route = headers[':method'] === 'POST' ? routes.get(headers[':path'] ?? '') : undefined;
    if (route === undefined) return false;
    if (headers['content-type'] !== 'application/proto') return false;
    const encoding = headers['content-encoding'];
    if (encoding !== undefined && encoding !== 'identity') return false;
    const version = headers['connect-protocol-version'];
    if (version !== undefined && version !== '1') return false;
    const timeout = headers['connect-timeout-ms'];
    const { method, impl } = route;
    serveUnary(stream, typeof timeout === 'string' && TIMEOUT.test(timeout) ? Number(timeout) : undefined, MAX_BODY_BYTES, {
      async handle(body, exchange) {
        const output = await impl(parseInput(method.input, body) as never, handlerContext(method, headers, exchange, 'connect', createContextValues(), 'http'));
        return toBinary(method.output, create(method.output, output as never));
      },
      succeed(s, message, exchange) {
        s.respond(withHeaders({ ':status': 200, 'content-type': 'application/proto' }, exchange.responseHeader));
        s.end(message);
      },
      fail(s, err, exchange) {
        s.respond(withHeaders({ ':status': codeToHttpStatus(err.code), 'content-type': 'application/json' }, exchange.responseHeader, err.metadata));
        s.end(errorToJsonBytes(err, {}));
      },
      toError: (err) => edge(err, method),
    });
    return true;
  };
}

function withHeaders(out: http2.OutgoingHttpHeaders, ...sources: Headers[]): http2.OutgoingHttpHeaders {
  for (const source of sources) source.forEach((value, key) => (out[key] = value));
  return out;
}
