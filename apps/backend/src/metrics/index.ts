import { Counter, type Registry } from 'prom-client';
import { LISTENER_REFUSED, listenerMetrics, type ListenerMetrics } from '@wordgame/service-kit';
import { createPaymentMetrics, type PaymentMetrics } from './payments.js';
import { createProviderMetrics, type ProviderMetrics } from './provider.js';
import { createBackendRegistry } from './registry.js';
import { createRpcMetrics, type RpcMetrics } from './rpc.js';

export { instrumentServices } from './rpc.js';
export { PROVIDER_OUTCOMES, type ProviderMetrics, type ProviderOutcome } from './provider.js';
export { registerStateCollector } from './state.js';
export type { OfferRefusal, PaymentMetrics, ReaperTickCounts } from './payments.js';

/** Every metric family of one backend, on its own registry (README "Operating it"). */
export interface BackendMetrics {
  registry: Registry;
  rpc: RpcMetrics;
  payments: PaymentMetrics;
  provider: ProviderMetrics;
  /** `backend_listener_refused_connections_total{listener="connect"|"metrics", reason}`. */
  listeners: ListenerMetrics;
}

/** The backend's listeners, as the refused-connections counter names them. */
export const BACKEND_LISTENERS = ['connect', 'metrics'] as const;

/** Creates the backend's registry and registers its event series; scrape-time series are added by registerStateCollector once the database is open. */
export function createBackendMetrics(registry: Registry = createBackendRegistry()): BackendMetrics {
  return {
    registry,
    rpc: createRpcMetrics(registry),
    payments: createPaymentMetrics(registry),
    provider: createProviderMetrics(registry),
    listeners: listenerMetrics(
      new Counter({
        name: 'backend_listener_refused_connections_total',
        ...LISTENER_REFUSED,
        registers: [registry],
      }),
      BACKEND_LISTENERS,
    ),
  };
}
export type { RereadKind } from './payments.js';
