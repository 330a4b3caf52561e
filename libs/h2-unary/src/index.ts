export type { StreamTaker } from './stream-taker.js';
export { serveStreams } from './front.js';
export { headersOf, serveUnary, type UnaryExchange, type UnaryProtocol } from './server/lifecycle.js';
export { type ServiceRegistration } from './server/routes.js';
export { type UnaryServerOptions } from './server/options.js';
export { connectUnaryTaker } from './server/connect.js';
export { grpcUnaryTaker } from './server/grpc.js';
export { MAX_TIMER_MS, clampTimeoutMs, clampTransportDeadlines, encodeGrpcTimeout, parseGrpcTimeout, specGrpcTimeout } from './deadline.js';
export { timerSafeDeadlines } from './server/timer-safe.js';
export { unaryServers, type UnaryServers } from './server/adapter.js';
export { createConnectUnaryTransport, type ConnectUnaryTransportOptions, type ClosableTransport } from './client/connect.js';
export { createGrpcUnaryTransport, type GrpcUnaryTransportOptions, type OpenStream } from './client/grpc.js';
export { decodeMessage, encodeMessage, isEnvelopeSchema } from './codec.js';
export {
  ServiceGate,
  REFUSAL_BODY,
  serviceAuthorization,
  withServiceToken,
  type Refusal,
  type RefusalReason,
  type ServiceGateOptions,
} from './service-gate.js';
export { expandEndpoints, type ResolveAll } from './replicas.js';
export { CONNECT_TIMEOUT_CODE, neverReached } from '@wordgame/net-errors';
