import { Counter, type Registry } from 'prom-client';
import { LISTENER_REFUSED, listenerMetrics, type ListenerMetrics } from '@wordgame/service-kit';

/** The gateway's listeners, as `gateway_listener_refused_connections_total` names them. */
export const GATEWAY_LISTENERS = ['http', 'botlink', 'internal', 'metrics'] as const;

/** Registers `gateway_listener_refused_connections_total{listener, reason}` for every gateway listener. */
export function createGatewayListenerMetrics(registry: Registry): ListenerMetrics {
  return listenerMetrics(
    new Counter({
      name: 'gateway_listener_refused_connections_total',
      ...LISTENER_REFUSED,
      registers: [registry],
    }),
    GATEWAY_LISTENERS,
  );
}
