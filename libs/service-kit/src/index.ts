/**
 * What the backend and the gateway both need at their edges, written once: the `/metrics`
 * listener, the NATS connection of a scaled-out stack and the seal that proves who sent a message
 * over it. The bot imports none of them.
 */
export { h2Closer, type H2Closer } from './h2-close.js';
export { http1Drain, IDLE_LINGER_MS, type Http1Drain } from './http-drain.js';
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
