import type { DescService } from '@bufbuild/protobuf';
import { ConnectError, type Interceptor } from '@connectrpc/connect';
import { unaryServers, type UnaryServers } from '@wordgame/h2-unary';
import type { Logger } from '@wordgame/logging';
import { peerValues } from './peer.js';

/**
 * Largest request message the bot-link reads, on the fast path and through connect-node
 * (`readMaxBytes`); bot-link requests are a few hundred bytes.
 */
export const MAX_MESSAGE_BYTES = 1024 * 1024;

/**
 * Logs a unary call that failed with anything but a ConnectError (both paths then answer it as
 * Internal "internal error", connect-node's rule); streams pass through untouched.
 */
export function logUnexpected(logger: Logger): Interceptor {
  return (next) => async (req) => {
    if (req.stream) return next(req);
    try {
      return await next(req);
    } catch (err: unknown) {
      if (!(err instanceof ConnectError)) logger.error({ err, rpc: req.method.name }, 'bot-link call failed');
      throw err;
    }
  };
}

/**
 * The bot-link's two ways in, from one set of options (libs/h2-unary): connect-node's adapter
 * (the Link stream, compressed or JSON calls) and the gRPC unary fast path for the unary RPCs the
 * bot sends, both running the same interceptor and the peer certificate identity as context.
 */
export function botlinkServers(service: DescService, impl: object, logger: Logger, fast: boolean): UnaryServers {
  return unaryServers(
    {
      services: [{ service, impl }],
      interceptors: [logUnexpected(logger)],
      readMaxBytes: MAX_MESSAGE_BYTES,
      contextValues: peerValues,
      fast,
    },
    ['grpc'],
    'https',
  );
}
