import type { Kysely } from 'kysely';
import type { Logger } from '@wordgame/logging';
import type { BackendConfig } from '../config/index.js';
import type { DB } from '../db/index.js';
import { mailerFor, type Mailer } from '../mail/index.js';
import { createBackendMetrics, type PaymentMetrics, type ProviderMetrics } from '../metrics/index.js';
import { instrumentProvider } from './card/provider/metered.js';
import { gatewayBotCommands, type BotCommands } from '../botcommands/index.js';
import type { PaymentDeps } from './deps.js';
import { YooKassaProvider } from './card/provider/yookassa.js';
import { RereadWindow } from './card/reread-window.js';
import { systemClock } from '../support/index.js';
import { readThroughCatalog, type CatalogReader } from '../catalog/index.js';

/** Optional replacements: the bot command channel and the clock (tests), the app's one mailer and in-memory catalog. */
export interface PaymentOverrides {
  bot?: BotCommands;
  mailer?: Mailer;
  now?: () => Date;
  /** The app's in-memory catalog; default a reader that asks the database every time. */
  catalog?: CatalogReader;
  /** The app's metrics; default a fresh set on a registry of its own (tests that build deps alone). */
  metrics?: { payments: PaymentMetrics; provider: ProviderMetrics };
}

/**
 * The payment domain's dependencies from configuration: the gateway's BotCommandService client,
 * the mailer MAIL_TRANSPORT selects, and the card rail (YooKassa adapter, measured, + per-channel
 * shops) when BACKEND_YOOKASSA_SHOPS is set.
 */
export function paymentDeps(config: BackendConfig, db: Kysely<DB>, logger: Logger, overrides: PaymentOverrides = {}): PaymentDeps {
  const shops = config.BACKEND_YOOKASSA_SHOPS;
  const metrics = overrides.metrics ?? createBackendMetrics();
  const now = overrides.now ?? systemClock;
  return {
    db,
    logger,
    catalog: overrides.catalog ?? readThroughCatalog(db),
    bot: overrides.bot ?? gatewayBotCommands(config.GATEWAY_INTERNAL_URL, config.GATEWAY_INTERNAL_TOKEN, config.BOT_COMMAND_TIMEOUT_MS),
    mailer: overrides.mailer ?? mailerFor(config, now),
    card: shops
      ? {
          provider: instrumentProvider(
            new YooKassaProvider({ apiUrl: config.BACKEND_YOOKASSA_API_URL, timeoutMs: config.PROVIDER_TIMEOUT_MS }),
            metrics.provider,
          ),
          shops,
          vatCode: config.BACKEND_YOOKASSA_VAT_CODE ?? null,
          returnUrl: config.PAYMENT_RETURN_URL ?? `${config.PUBLIC_BASE_URL.replace(/\/$/, '')}/wallet`,
        }
      : null,
    stars: { holdMs: config.PRECHECKOUT_HOLD_MS },
    metrics: metrics.payments,
    claimLeaseMs: claimLeaseMs(config),
    rereads: new RereadWindow({ db, windowMs: config.PROVIDER_REREAD_WINDOW_MS, now, metrics: metrics.payments, logger }),
    now,
  };
}

/** Two provider calls and one bot command (its Ack wait plus the call's own 2 s margin), with 15 s to spare. */
function claimLeaseMs(config: BackendConfig): number {
  return 2 * config.PROVIDER_TIMEOUT_MS + config.BOT_COMMAND_TIMEOUT_MS + 2_000 + 15_000;
}
