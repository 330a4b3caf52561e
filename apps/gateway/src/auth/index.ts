/**
 * Who is calling: session tokens resolved (and cached) through the backend, the operator guard,
 * and the trust headers only the gateway may put on a backend call.
 */
export { BACKEND_CALL_TIMEOUT_MS, backendCallOptions, edgeHeaders } from './backend-headers.js';
export { bearerToken } from './bearer.js';
export { authenticate, stripTrustHeaders, type AuthRequirement, type SessionResolver } from './middleware.js';
export { operatorCallOptions, requireOperator } from './operator.js';
export { backendSessionResolver, type CachingSessionResolver } from './resolver.js';
export { SessionCache } from './session-cache.js';
