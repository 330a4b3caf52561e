/**
 * The gateway's clients of the backend: typed Connect clients over the backend's replicas, the
 * readiness check that asks the backend itself, and the card providers the backend has adapters for.
 */
export { checkBackend, createBackendClients, type BackendClients } from './client.js';
export { createBackendPool } from './pool.js';
export { PROVIDERS } from './providers.js';
