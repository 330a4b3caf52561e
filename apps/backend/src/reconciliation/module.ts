import type { Registry } from 'prom-client';
import type { BackendConfig } from '../config/index.js';
import type { PaymentDeps } from '../payments/index.js';
import { createReconciler, type Reconciler } from './job.js';
import { reconciliationMetrics } from './metrics.js';
import { gatewayStarSource, type StarTransactionSource } from './star-source.js';

/** Optional replacements (tests): where the stars transactions come from. */
export interface ReconcilerOverrides {
  stars?: StarTransactionSource | null;
}

/**
 * The reconciler from configuration, over the payment domain's database, card rail and clock: the
 * rails RECONCILIATION_RAILS names, the stars side through the gateway's BotCommandService, the
 * schedule from RECONCILIATION_INTERVAL_MS / _WINDOW_MS / _LAG_MS, the stars read's call bound from
 * RECONCILIATION_STARS_MAX_CALLS, and its metrics on `registry`
 * when one is given.
 */
export function reconcilerFor(
  config: BackendConfig,
  payments: PaymentDeps,
  registry: Registry | null,
  overrides: ReconcilerOverrides = {},
): Reconciler {
  const rails = config.RECONCILIATION_RAILS;
  const stars =
    overrides.stars !== undefined
      ? overrides.stars
      : gatewayStarSource(config.GATEWAY_INTERNAL_URL, config.GATEWAY_INTERNAL_TOKEN, config.BOT_COMMAND_TIMEOUT_MS);
  return createReconciler(
    {
      db: payments.db,
      logger: payments.logger.child({ job: 'reconciliation' }),
      card: rails.has('card') ? payments.card : null,
      stars: rails.has('stars') ? stars : null,
      ...(registry ? { metrics: reconciliationMetrics(registry, payments.db, payments.logger) } : {}),
      now: () => payments.now(),
    },
    {
      intervalMs: config.RECONCILIATION_INTERVAL_MS,
      windowMs: config.RECONCILIATION_WINDOW_MS,
      lagMs: config.RECONCILIATION_LAG_MS,
      starsMaxCalls: config.RECONCILIATION_STARS_MAX_CALLS,
    },
  );
}
