import { createLogger, type Logger } from '@wordgame/logging';
import { createControl, type ProviderEmulatorControl } from './control.js';
import { FaultTable } from './faults.js';
import { IdempotenceStore } from './idempotence.js';
import { Notifier } from './notifications.js';
import { RequestLog } from './request-log.js';
import { startServer } from './server.js';
import { persistState } from './persist.js';
import { EmulatorState, type Shop } from './state.js';

export type { ControlPaymentView, ControlRefundView, NotifyRequest, ProviderEmulatorControl } from './control.js';
export { ControlError, type ErrorBody, type ErrorCode } from './errors.js';
export type { Fault, FaultSpec } from './faults.js';
export { formatMoney, parseMoney } from './money.js';
export type { Delivery, DeliveryAttempt, NotificationEvent } from './notifications.js';
export type { LoggedRequest } from './request-log.js';
export type {
  Amount,
  Card,
  Payment,
  PaymentCancellationDetails,
  PaymentStatus,
  Refund,
  RefundCancellationDetails,
  RefundOutcome,
  RefundStatus,
} from './state.js';

/** A shop the emulator accepts: Basic-auth credentials and the `test` flag of its objects. */
export interface ShopConfig {
  shopId: string;
  secretKey: string;
  test: boolean;
  /** `recipient.gateway_id`; defaults to a fixed number per shop. */
  gatewayId?: string;
  /** This shop's webhook URL (overrides the global one). */
  webhookUrl?: string;
}

/** Options of {@link startProviderEmulator}; everything has a default. */
export interface ProviderEmulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default one test shop `dev-shop` / `dev-secret`. */
  shops?: ShopConfig[];
  /** Where notifications go for shops without their own URL. */
  webhookUrl?: string;
  /** Send notifications automatically on state changes (default true). */
  autoNotify?: boolean;
  /** Default: a silent logger. */
  logger?: Logger;
  /** YooKassa's fee in basis points, subtracted for income_amount (default 350 = 3.5%). */
  feeBasisPoints?: number;
  /** How long a webhook receiver may take to answer (default 5000 ms). */
  notificationTimeoutMs?: number;
  /** A JSON file that keeps payments and refunds across restarts (see persistState); unset = memory only. */
  stateFile?: string;
}

/** A running emulator. */
export interface ProviderEmulator {
  /** Base URL, e.g. "http://127.0.0.1:8082". */
  url: string;
  /** The YooKassa API base, `${url}/v3` (what the backend's adapter is configured with). */
  apiUrl: string;
  /** In-process control (the same operations as `/_control/*`). */
  control: ProviderEmulatorControl;
  /** Closes every socket, held requests included; resolves when the server is closed. */
  stop(): Promise<void>;
}

/** The shop used when none is configured. */
export const DEFAULT_SHOP: ShopConfig = { shopId: 'dev-shop', secretKey: 'dev-secret', test: true };

/**
 * Starts an emulator of the YooKassa API v3 subset used for card payments (payments, refunds,
 * notifications) with a control API for tests and the dev stack. Everything is in memory, and
 * payments and refunds also in `stateFile` when one is given.
 */
export async function startProviderEmulator(options: ProviderEmulatorOptions = {}): Promise<ProviderEmulator> {
  const shopConfigs = options.shops ?? [DEFAULT_SHOP];
  const shops = toShops(shopConfigs);
  const logger = options.logger ?? createLogger('provider-emulator', 'silent');
  const state = new EmulatorState(shops, options.feeBasisPoints ?? 350);
  const persisted = options.stateFile === undefined ? undefined : persistState(state, options.stateFile);
  const idempotence = new IdempotenceStore();
  const faults = new FaultTable();
  const requestLog = new RequestLog();
  const notifier = new Notifier({
    logger,
    autoNotify: options.autoNotify ?? true,
    webhookUrl: options.webhookUrl ?? null,
    shopWebhookUrls: new Map(shopConfigs.flatMap((s) => (s.webhookUrl ? [[s.shopId, s.webhookUrl] as const] : []))),
    timeoutMs: options.notificationTimeoutMs ?? 5000,
  });

  let control: ProviderEmulatorControl | null = null;
  const getControl = (): ProviderEmulatorControl => {
    if (!control) throw new Error('control used before the server started');
    return control;
  };
  const server = await startServer(
    { state, idempotence, notifier, faults, requestLog, logger, control: getControl },
    options.host ?? '127.0.0.1',
    options.port ?? 0,
  );
  state.baseUrl = server.url;
  control = createControl({ state, idempotence, notifier, faults, requestLog, releaseHeld: () => server.releaseHeld() });
  return {
    url: server.url,
    apiUrl: `${server.url}/v3`,
    control,
    stop: async () => {
      await server.stop();
      persisted?.stop();
    },
  };
}

function toShops(configs: readonly ShopConfig[]): Shop[] {
  if (configs.length === 0) throw new Error('at least one shop is required');
  const seen = new Set<string>();
  return configs.map((config, index) => {
    if (!config.shopId || config.shopId.includes(':')) throw new Error(`shop ${index + 1}: shopId must be non-empty without ":"`);
    if (!config.secretKey) throw new Error(`shop ${config.shopId}: secretKey must not be empty`);
    if (seen.has(config.shopId)) throw new Error(`shop ${config.shopId} is configured twice`);
    seen.add(config.shopId);
    return {
      shopId: config.shopId,
      secretKey: config.secretKey,
      test: config.test,
      gatewayId: config.gatewayId ?? String(1000001 + index),
    };
  });
}
