import type { Counter } from 'prom-client';
import { CONNECTION_REFUSALS, type ConnectionRefusal } from './listener-guard.js';

/** The refused-connections counter of a service's listeners. */
export interface ListenerMetrics {
  refused: Counter<'listener' | 'reason'>;
  /** The `onRefused` of one listener's guard. */
  onRefused(listener: string): (reason: ConnectionRefusal) => void;
}

/** The refused-connections counter's help and labels; each service constructs it under its own literal name (the metrics reference reads those). */
export const LISTENER_REFUSED = {
  help: 'Connections a listener closed before they said who they are, by listener and reason: cap (over its connection cap, closed as soon as accepted) or timeout (no finished TLS handshake, first request head or HTTP/2 SETTINGS within the handshake timeout).',
  labelNames: ['listener', 'reason'] as ('listener' | 'reason')[],
};

/**
 * A service's `<service>_listener_refused_connections_total{listener, reason}` over `refused`, every
 * listener and reason pre-created at zero (a dashboard sees the series before the first refusal).
 */
export function listenerMetrics(refused: Counter<'listener' | 'reason'>, listeners: readonly string[]): ListenerMetrics {
  for (const listener of listeners) for (const reason of CONNECTION_REFUSALS) refused.inc({ listener, reason }, 0);
  return { refused, onRefused: (listener) => (reason) => refused.inc({ listener, reason }) };
}
