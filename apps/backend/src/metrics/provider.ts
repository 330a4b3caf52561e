import { Counter, Histogram, type Registry } from 'prom-client';

/** `backend_provider_calls_total{outcome}`: how a provider call ended. */
export const PROVIDER_OUTCOMES = ['ok', 'rejected', 'not_found', 'server_error', 'rate_limited', 'unavailable', 'error'] as const;
export type ProviderOutcome = (typeof PROVIDER_OUTCOMES)[number];

/** Provider call series: `operation` is the adapter's method name in snake_case (create_payment, get_payment, ...). */
export interface ProviderMetrics {
  calls: Counter<'provider' | 'operation' | 'outcome'>;
  duration: Histogram<'provider' | 'operation'>;
}

/** Registers `backend_provider_calls_total{provider,operation,outcome}` and `backend_provider_call_duration_seconds{provider,operation}`. */
export function createProviderMetrics(registry: Registry): ProviderMetrics {
  const registers = [registry];
  return {
    calls: new Counter({
      name: 'backend_provider_calls_total',
      help: 'Card provider API calls by operation and outcome: ok, rejected (4xx), not_found (404), server_error (5xx), rate_limited (429), unavailable (transport failure, timeout, unreadable answer), error (anything else).',
      labelNames: ['provider', 'operation', 'outcome'],
      registers,
    }),
    duration: new Histogram({
      name: 'backend_provider_call_duration_seconds',
      help: 'Card provider API call duration by operation, whatever the outcome.',
      labelNames: ['provider', 'operation'],
      buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
  };
}
