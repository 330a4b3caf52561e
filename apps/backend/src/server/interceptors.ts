import type { DescMethod } from '@bufbuild/protobuf';
import { Code, ConnectError, type Interceptor, type StreamResponse } from '@connectrpc/connect';
import { codedConnectError, DomainError, FlatBufferDecodeError, toConnectError } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import { isDatabaseUnavailable, withinCall } from '../db/index.js';

/**
 * The backend's one error mapping: a DomainError is encoded by the registry (its Connect code, the
 * machine code in `x-error-code`, its extra metadata such as `x-retry-after`), a malformed
 * FlatBuffers body is `malformed_body`, a ConnectError passes through, a database that cannot be
 * reached is `backend_unavailable` (Unavailable: the caller may retry), anything else is logged
 * with its cause and answered `internal` without detail. Used by the Connect interceptor below
 * (unary calls and server streams) and by the unary fast path (libs/h2-unary, through the same interceptor).
 */
export function edgeError(logger: Logger): (err: unknown, method: DescMethod) => ConnectError {
  return (err, method) => {
    if (err instanceof DomainError) return toConnectError(err);
    if (err instanceof ConnectError) return err;
    if (err instanceof FlatBufferDecodeError) return codedConnectError('malformed_body', err.message);
    if (isDatabaseUnavailable(err)) {
      logger.warn({ err, procedure: method.name, service: method.parent.typeName }, 'database unavailable');
      return codedConnectError('backend_unavailable', 'the database is unavailable');
    }
    logger.error({ err, procedure: method.name, service: method.parent.typeName }, 'unhandled rpc failure');
    return codedConnectError('internal');
  };
}

/** The Connect code the edge answers a failure with (the same mapping as edgeError, without logging); the RPC metrics label by it. */
export function edgeCode(err: unknown): Code {
  if (err instanceof DomainError) return toConnectError(err).code;
  if (err instanceof ConnectError) return err.code;
  if (err instanceof FlatBufferDecodeError) return Code.InvalidArgument;
  return isDatabaseUnavailable(err) ? Code.Unavailable : Code.Internal;
}

/**
 * The error edge as a Connect interceptor: every call, on connect-node and on the fast path alike.
 * A server stream's body runs after the handler has returned, so its messages are wrapped too.
 */
export function errorEdge(logger: Logger): Interceptor {
  const toConnect = edgeError(logger);
  return (next) => async (req) => {
    try {
      const res = await next(req);
      if (!res.stream) return res;
      return { ...res, message: mapped(res.message, (err) => toConnect(err, req.method)) } satisfies StreamResponse;
    } catch (err: unknown) {
      throw toConnect(err, req.method);
    }
  };
}

async function* mapped<T>(messages: AsyncIterable<T>, toConnect: (err: unknown) => ConnectError): AsyncIterable<T> {
  try {
    yield* messages;
  } catch (err: unknown) {
    throw toConnect(err);
  }
}

/**
 * Runs every call's handler within its signal (db withinCall), so the call's database checkouts
 * wait for a pool connection until its deadline or its caller's cancel, not a fixed time.
 */
export const callScope: Interceptor = (next) => (req) => withinCall(req.signal, () => next(req));
