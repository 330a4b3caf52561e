import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The backend's own metrics registry (never prom-client's global one), so each built backend and
 * each test has independent series. Process metrics are included with the `backend_` prefix.
 */
export function createBackendRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'backend_' });
  return registry;
}
