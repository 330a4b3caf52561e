import type http from 'node:http';
import type http2 from 'node:http2';
import { connectNodeAdapter, type ConnectNodeAdapterOptions } from '@connectrpc/connect-node';
import { timerSafeDeadlines } from './timer-safe.js';
import { grpcEncodings, grpcUnknownMethod } from './grpc-edge.js';
import type { StreamTaker } from '../stream-taker.js';
import { connectUnaryTaker } from './connect.js';
import { grpcUnaryTaker } from './grpc.js';
import type { UnaryServerOptions } from './options.js';

type NodeHandler = (req: http.IncomingMessage | http2.Http2ServerRequest, res: http.ServerResponse | http2.Http2ServerResponse) => void;

/** Both ways into one server, built from the same options. */
export interface UnaryServers {
  /** connect-node's adapter: every call the fast path declines, and HTTP/1.1. */
  handler: NodeHandler;
  /** The fast path (Connect and/or gRPC unary); takes nothing when `fast` is false. */
  take: StreamTaker;
}

/**
 * connect-node's adapter and the fast path for the same services, interceptors, read limit and
 * context values: the one way to wire a fast path, so it can never run a different chain than
 * the adapter beside it. `protocols` are the ones the fast path serves; `fallback` answers paths
 * that name no method (connect-node's `fallback`; a gRPC call there is UNIMPLEMENTED). Deadlines
 * reach connect-node through timerSafeDeadlines (clamped to what a timer can wait; a malformed
 * grpc-timeout is INTERNAL), and a gRPC call in an encoding it cannot read is UNIMPLEMENTED with
 * `grpc-accept-encoding` (grpcEncodings), as the gRPC spec has it.
 */
export function unaryServers(
  options: UnaryServerOptions,
  protocols: readonly ('connect' | 'grpc')[],
  scheme: 'http' | 'https',
  fallback?: ConnectNodeAdapterOptions['fallback'],
): UnaryServers {
  const contextValues = options.contextValues;
  const handler: NodeHandler = grpcEncodings(
    timerSafeDeadlines(
      connectNodeAdapter({
        readMaxBytes: options.readMaxBytes,
        interceptors: options.interceptors ?? [],
        routes: (router) => {
          for (const { service, impl } of options.services) router.service(service, impl);
        },
        ...(contextValues
          ? {
              contextValues: (req: { socket: unknown; stream?: { session?: http2.Http2Session } }) =>
                contextValues(req.socket, req.stream?.session),
            }
          : {}),
        fallback: grpcUnknownMethod(fallback),
      }),
    ),
  );
  if (options.fast === false) return { handler, take: () => false };
  const takers = protocols.map((protocol) =>
    protocol === 'connect' ? connectUnaryTaker(options, scheme) : grpcUnaryTaker(options, scheme),
  );
  const take: StreamTaker = takers.length === 1 ? (takers[0] as StreamTaker) : (stream, headers) => takers.some((t) => t(stream, headers));
  return { handler, take };
}
