/**
 * The server module's one public entry: the dual listener, the service-token gate and the body limit
 * app.ts starts the backend with.
 */
export { callScope, edgeCode, errorEdge } from './interceptors.js';
export { MAX_BODY_BYTES } from './limits.js';
export { type DualListener, listenDual } from './listener.js';
export { backendGate } from './service-auth.js';
