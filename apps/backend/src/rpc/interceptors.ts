import type { DescMethod } from '@bufbuild/protobuf';
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { FlatBufferDecodeError } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { DomainError, ERROR_CODE_HEADER, ERROR_CODES, RateLimited, RETRY_AFTER_HEADER } from './errors.js';

function coded(message: string, code: Code, machineCode: string): ConnectError {
  return new ConnectError(message, code, { [ERROR_CODE_HEADER]: machineCode });
}

/**
 * The backend's one error mapping: a DomainError becomes its Connect code with the machine code in
 * `x-error-code` (a RateLimited also carries `x-retry-after`), a malformed FlatBuffers body is InvalidArgument `malformed_body`, a ConnectError
 * passes through, a database that cannot be reached is Unavailable (the caller may retry),
 * anything else is logged with its cause and answered as Internal without detail. Run through
 * the interceptor below, which connect-node and the fast path share (one registration).
 */
export function edgeError(logger: Logger): (err: unknown, method: DescMethod) => ConnectError {
  return (err, method) => {
    const known = knownError(err);
    if (known) return known;
    if (isDatabaseUnavailable(err)) {
      logger.warn({ err, procedure: method.name, service: method.parent.typeName }, 'database unavailable');
      return new ConnectError('the database is unavailable', Code.Unavailable);
    }
    logger.error({ err, procedure: method.name, service: method.parent.typeName }, 'unhandled rpc failure');
    return coded('internal error', Code.Internal, 'internal');
  };
}

/** The errors the edge maps without logging; undefined for an unexpected one. */
function knownError(err: unknown): ConnectError | undefined {
  if (err instanceof RateLimited) {
    return new ConnectError(err.message, Code.ResourceExhausted, { [ERROR_CODE_HEADER]: err.code, [RETRY_AFTER_HEADER]: String(err.retryAfterSeconds) });
  }
  if (err instanceof DomainError) return coded(err.message, ERROR_CODES[err.code], err.code);
  if (err instanceof ConnectError) return err;
  if (err instanceof FlatBufferDecodeError) return coded(err.message, Code.InvalidArgument, 'malformed_body');
  return undefined;
}

/** The Connect code the edge answers a failure with (the same mapping as edgeError, without logging). */
export function edgeCode(err: unknown): Code {
  return knownError(err)?.code ?? (isDatabaseUnavailable(err) ? Code.Unavailable : Code.Internal);
}

/** The error edge as a Connect interceptor: every call, on connect-node and on the fast path alike. */
export function errorEdge(logger: Logger): Interceptor {
  const toConnect = edgeError(logger);
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (err: unknown) {
      throw toConnect(err, req.method);
    }
  };
}
