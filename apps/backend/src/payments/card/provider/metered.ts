import type { ProviderMetrics, ProviderOutcome } from '../../../metrics/index.js';
import { ProviderError, type PaymentProvider } from './types.js';

/** The outcome label of a provider call's failure. */
export function providerOutcome(err: unknown): ProviderOutcome {
  if (!(err instanceof ProviderError)) return 'error';
  if (err.failure === 'not_found') return 'not_found';
  if (err.failure === 'rejected') return 'rejected';
  if (err.status === 429) return 'rate_limited';
  if (err.status !== undefined && err.status >= 500) return 'server_error';
  return 'unavailable';
}

/** The PaymentProvider operations whose series exist before their first call. */
const PRE_CREATED: ReadonlyArray<keyof PaymentProvider> = ['createPayment', 'getPayment', 'createRefund', 'getRefund'];

const snake = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/**
 * The provider adapter with every method call counted and timed; behaves exactly like `provider`
 * (same answers, same errors). Any method the adapter has is measured, so operations added to it
 * later are counted too. The PaymentProvider operations are pre-created at zero for `ok`,
 * `server_error` and `rate_limited`, which the alerts select.
 */
export function instrumentProvider<P extends PaymentProvider>(provider: P, metrics: ProviderMetrics): P {
  const base = { provider: provider.name };
  for (const m of PRE_CREATED)
    for (const outcome of ['ok', 'server_error', 'rate_limited'] as const) metrics.calls.inc({ ...base, operation: snake(m), outcome }, 0);
  return new Proxy(provider, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof key !== 'string' || typeof value !== 'function') return value;
      const operation = snake(key);
      return async (...args: unknown[]) => {
        const end = metrics.duration.startTimer({ ...base, operation });
        try {
          const result: unknown = await (value as (...a: unknown[]) => unknown).apply(target, args);
          metrics.calls.inc({ ...base, operation, outcome: 'ok' });
          return result;
        } catch (err: unknown) {
          metrics.calls.inc({ ...base, operation, outcome: providerOutcome(err) });
          throw err;
        } finally {
          end();
        }
      };
    },
  });
}
