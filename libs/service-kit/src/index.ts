/**
 * What the backend and the gateway both need at their edges, written once: the limits every
 * listener puts on new connections, the `/metrics` listener, the NATS connection of a scaled-out
 * stack and the seal that proves who sent a message over it. The bot imports only the listener
 * limits, through `@wordgame/service-kit/listener-guard` (no NATS, no prom-client).
 */
export { h2Closer, type H2Closer } from './h2-close.js';
export { http1Drain, IDLE_LINGER_MS, type Http1Drain } from './http-drain.js';
export {
  CONNECTION_REFUSALS,
  guardListener,
  RateLimitedLog,
  REFUSAL_LOG_WINDOW_MS,
  type ConnectionRefusal,
  type GuardedProtocols,
  type ListenerGuard,
  type ListenerGuardOptions,
  type ListenerLimits,
} from './listener-guard.js';
export { LISTENER_REFUSED, listenerMetrics, type ListenerMetrics } from './listener-metrics.js';
export { listenMetrics, type MetricsListener } from './metrics-server.js';
export { closeNats, connectNats, natsPublicKey, type NatsClientOptions } from './nats.js';
export {
  MessageSeal,
  SEAL_HEADER_BYTES,
  SEAL_MAX_PAYLOAD_BYTES,
  SEAL_REJECTIONS,
  SEAL_VERSION,
  SEAL_WINDOW_MS,
  sealKey,
  type MessageSealOptions,
  type SealRejection,
  type Unsealed,
} from './seal.js';
