/**
 * What the backend and the gateway both need at their edges, written once: the `/metrics`
 * listener and the NATS connection of a scaled-out stack. The bot imports neither.
 */
export { listenMetrics, type MetricsListener } from './metrics-server.js';
export { connectNats } from './nats.js';
