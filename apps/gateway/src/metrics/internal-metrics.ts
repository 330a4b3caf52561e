import { Counter, type Registry } from 'prom-client';

/** `gateway_internal_refusals_total{reason}`: calls to the internal listener without the service token. */
export const INTERNAL_REFUSAL_REASONS = ['missing_token', 'wrong_token'] as const;

/** Metrics of the internal command listener. */
export interface InternalMetrics {
  refusals: Counter<'reason'>;
}

/** Registers the internal listener's metrics, each reason pre-created at zero. */
export function createInternalMetrics(registry: Registry): InternalMetrics {
  const refusals = new Counter({
    name: 'gateway_internal_refusals_total',
    help: 'Calls to the internal command listener refused for a missing or wrong GATEWAY_INTERNAL_TOKEN (nothing was sent to the bot).',
    labelNames: ['reason'],
    registers: [registry],
  });
  for (const reason of INTERNAL_REFUSAL_REASONS) refusals.inc({ reason }, 0);
  return { refusals };
}
