/**
 * The gateway's clients of the backend: typed Connect clients over the backend's replicas, and the
 * readiness check that asks the backend itself.
 */
export { checkBackend, createBackendClients, type BackendClients } from './client.js';
export { createBackendPool } from './pool.js';
