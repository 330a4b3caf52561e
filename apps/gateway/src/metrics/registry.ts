import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The gateway's own metrics registry (not prom-client's global one), so each built gateway, and
 * each test, has independent counters. Process metrics are included.
 */
export function createRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'gateway_' });
  return registry;
}
