import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { FlatBufferDecodeError } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import { DomainError, ERROR_CODE_HEADER, ERROR_CODES } from './errors.js';

function coded(message: string, code: Code, machineCode: string): ConnectError {
  return new ConnectError(message, code, { [ERROR_CODE_HEADER]: machineCode });
}

/**
 * The backend's one error edge: a DomainError becomes its Connect code with the machine code in
 * `x-error-code`, a malformed FlatBuffers body is InvalidArgument `malformed_body`, a ConnectError
 * passes through, anything else is logged with its cause and answered as Internal without detail.
 */
export function errorEdge(logger: Logger): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (err: unknown) {
      if (err instanceof DomainError) throw coded(err.message, ERROR_CODES[err.code], err.code);
      if (err instanceof ConnectError) throw err;
      if (err instanceof FlatBufferDecodeError) throw coded(err.message, Code.InvalidArgument, 'malformed_body');
      logger.error({ err, procedure: req.method.name, service: req.service.typeName }, 'unhandled rpc failure');
      throw coded('internal error', Code.Internal, 'internal');
    }
  };
}
