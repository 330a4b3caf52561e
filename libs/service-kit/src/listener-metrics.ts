import { Counter, type Registry } from 'prom-client';
import { CONNECTION_REFUSALS, type ConnectionRefusal } from './listener-guard.js';

/** The refused-connections counter of a service's listeners. */
export interface ListenerMetrics {
  refused: Counter<'listener' | 'reason'>;
  /** The `onRefused` of one listener's guard. */
  onRefused(listener: string): (reason: ConnectionRefusal) => void;
}

/**
 * Registers `<prefix>_listener_refused_connections_total{listener, reason}` on `registry`, every
 * listener and reason pre-created at zero (a dashboard sees the series before the first refusal).
 */
export function createListenerMetrics(registry: Registry, prefix: string, listeners: readonly string[]): ListenerMetrics {
  const refused = new Counter({
    name: `${prefix}_listener_refused_connections_total`,
    help: 'Connections a listener closed before they said who they are, by listener and reason: cap (over its connection cap, closed as soon as accepted) or timeout (no finished TLS handshake, first request head or HTTP/2 SETTINGS within the handshake timeout).',
    labelNames: ['listener', 'reason'],
    registers: [registry],
  });
  for (const listener of listeners) for (const reason of CONNECTION_REFUSALS) refused.inc({ listener, reason }, 0);
  return { refused, onRefused: (listener) => (reason) => refused.inc({ listener, reason }) };
}
