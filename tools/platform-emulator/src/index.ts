import { createLogger, type Logger } from '@wordgame/logging';
import type { BotApiAnswer } from './bot-api.js';
import { CallLog } from './calls.js';
import { PlatformControl } from './control.js';
import { FaultTable } from './faults.js';
import { Payments } from './payments.js';
import { persistWorld } from './persist.js';
import { listen } from './server.js';
import { World } from './state.js';
import { runDueSubscriptions } from './subscriptions.js';
import type { StarTransactionsOrder } from './star-order.js';

export { PlatformControl } from './control.js';
export type {
  BotView,
  ChatView,
  CommandMenuView,
  CreateChatInput,
  CreateUserInput,
  MembershipInput,
  MembershipResult,
  MessageFilter,
  PreCheckoutView,
  PressButtonInput,
  SetMemberInput,
  StarRefundView,
  StateSnapshot,
  UserMessageInput,
  UserView,
} from './control.js';
export type { CallRecord } from './calls.js';
export type { BotApiAnswer } from './bot-api.js';
export type { StarTransactionsOrder } from './star-order.js';
export type { TgStarTransaction, TgTransactionPartnerUser } from './star-transactions.js';
export { STAR_TRANSACTIONS_ORDERS } from './star-order.js';
export type { FaultRecord, FaultSpec } from './faults.js';
export type { PayResult } from './payments.js';
export type { ClockAdvance, SubscriptionView } from './subscriptions.js';
export { SUBSCRIPTION_PERIOD } from './subscriptions.js';
export type { InvoiceRecord, MessageRecord, PaymentRecord, PreCheckoutRecord, PreCheckoutStatus, SubscriptionRecord } from './state.js';
export type { EnqueueResult } from './updates.js';
export { CONFLICT_DESCRIPTION } from './updates.js';
export { QUERY_TOO_OLD } from './payments.js';
export { METHOD_NAMES } from './methods/index.js';
export type * from './types.js';

/** Options of startPlatformEmulator. */
export interface PlatformEmulatorOptions {
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  /** Interface to bind; default 127.0.0.1. */
  host?: string;
  /** Accepted bot tokens; default `['dev-bot-token']`. The first is the control API's default bot. */
  tokens?: string[];
  /** How long a pre_checkout_query waits for its answer; default 10 000 ms, as at Telegram. */
  preCheckoutTimeoutMs?: number;
  /**
   * getStarTransactions' order: `oldest_first` (default; the Bot API documents chronological
   * order) or `newest_first`. Switchable later through the control API; `reset()` comes back here.
   */
  starTransactionsOrder?: StarTransactionsOrder;
  /**
   * JSON file keeping the world across restarts (the dev stack's `.data/platform-emulator.json`,
   * beside its database); unset = memory only.
   */
  stateFile?: string;
  /**
   * How often subscriptions are checked against the clock between control-API advances, so a
   * period that ends in real time (a long-running dev stack) renews too; default 1000 ms.
   */
  subscriptionTickMs?: number;
  /** Where to log; default silent. */
  logger?: Logger;
  /**
   * Sees every Bot API envelope sent, for tests that hold the answers against the published types
   * (`@wordgame/platform-emulator/conformance`'s BotApiChecker).
   */
  onAnswer?: (answer: BotApiAnswer) => void;
}

/** A running emulator. */
export interface PlatformEmulator {
  /** The server's base URL, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** The Bot API root for a bot: calls go to `${apiRoot}/bot${token}/${method}`. */
  apiRoot: string;
  /** The accepted tokens. */
  tokens: string[];
  /** The control operations, in-process (the same as `/_control/...` over HTTP). */
  control: PlatformControl;
  /** Stops promptly: ends pending long polls, cancels timers, closes every connection. */
  stop(): Promise<void>;
}

/**
 * Starts the Telegram Bot API emulator: a real HTTP server answering the Bot API subset the chat
 * bot uses (Telegram's JSON envelope and error texts) plus the `/_control` API tests drive it with.
 */
export async function startPlatformEmulator(options: PlatformEmulatorOptions = {}): Promise<PlatformEmulator> {
  const host = options.host ?? '127.0.0.1';
  const tokens = options.tokens ?? ['dev-bot-token'];
  const logger = options.logger ?? createLogger('platform-emulator', 'silent');
  const world = new World(tokens, options.starTransactionsOrder ?? 'oldest_first');
  const payments = new Payments(world, options.preCheckoutTimeoutMs ?? 10_000, logger);
  const faults = new FaultTable();
  const calls = new CallLog();
  const control = new PlatformControl(world, payments, faults, calls);
  const persisted = options.stateFile === undefined ? undefined : persistWorld(world, options.stateFile, logger);
  const shutdown = new AbortController();
  const server = await listen(
    { port: options.port ?? 0, host, ...(persisted ? { onHandled: () => persisted.touch() } : {}) },
    { world, payments, faults, calls, logger, shutdown: shutdown.signal, control, onAnswer: options.onAnswer },
    logger,
  );
  const tick = setInterval(() => {
    const ran = runDueSubscriptions(world);
    if (ran.renewals.length + ran.expired.length === 0) return;
    logger.info({ renewals: ran.renewals.length, expired: ran.expired.length }, 'subscriptions ran on the clock');
    persisted?.touch();
  }, options.subscriptionTickMs ?? 1_000);
  tick.unref();
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${server.port}`;
  let stopping: Promise<void> | undefined;
  return {
    url,
    apiRoot: url,
    tokens: [...tokens],
    control,
    stop: () => {
      stopping ??= (async () => {
        shutdown.abort();
        clearInterval(tick);
        payments.clearTimers();
        for (const bot of world.bots) bot.queue.close();
        await server.close();
        persisted?.stop();
      })();
      return stopping;
    },
  };
}
