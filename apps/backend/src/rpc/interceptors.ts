import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { FlatBufferDecodeError } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';

/**
 * The backend's one error edge: a malformed FlatBuffers body is InvalidArgument, a ConnectError
 * passes through, anything else is logged with its cause and answered as Internal without detail.
 */
export function errorEdge(logger: Logger): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (err: unknown) {
      if (err instanceof ConnectError) throw err;
      if (err instanceof FlatBufferDecodeError) throw new ConnectError(err.message, Code.InvalidArgument);
      logger.error({ err, procedure: req.method.name, service: req.service.typeName }, 'unhandled rpc failure');
      throw new ConnectError('internal error', Code.Internal);
    }
  };
}
