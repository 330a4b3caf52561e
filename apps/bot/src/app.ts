import { readFileSync } from 'node:fs';
import { create } from '@bufbuild/protobuf';
import { botlink } from '@wordgame/contracts';
import { languageOf } from '@wordgame/i18n';
import type { Logger } from '@wordgame/logging';
import { JoinGate, JoinRequestAnswers, type ResolveEligibility } from './chat/index.js';
import { ChatCommandCounters, ChatCommands, ChatPacer, CommandMenu, UserRateLimit } from './chat-commands/index.js';
import { commandHandler } from './commands/index.js';
import { healthCap, type BotConfig } from './config.js';
import { createReadiness, type HealthServer, listenHealth } from './health/index.js';
import { createLinkTransport, LinkClient, type LinkTransport } from './link/index.js';
import { HealthCounters, PlatformClient, PlatformError, type RawUpdate } from './platform/index.js';
import {
  answerPreCheckout,
  outboxPaymentOf,
  outboxRefundOf,
  tellRefunded,
  PaymentForwarder,
  paymentHeldIn,
  PaymentOutbox,
  type ValidatePreCheckout,
} from './payments/index.js';
import { ChatGateRetries, DeadLetters, openBotDb, RefundNotices, SupportDialogues, UserForgetter, UserLanguages } from './store/index.js';
import { Backoff, TaskSet } from './support/index.js';
import { UpdatePoller, updateRouter } from './updates/index.js';

/** A built bot: `start()` checks the platform token, dials the gateway and (if it owns updates) polls; `stop()` undoes it. */
export interface BotApp {
  start(): Promise<{ healthUrl?: string }>;
  stop(): Promise<void>;
  /** True while the bot-link stream is open. */
  readonly linkConnected: boolean;
}

/** Builds the bot without side effects until `start()`. */
export function buildBot(config: BotConfig, logger: Logger): BotApp {
  const counters = new HealthCounters();
  const platform = new PlatformClient({
    apiRoot: config.PLATFORM_API_ROOT,
    token: config.PLATFORM_BOT_TOKEN,
    counters,
    logger,
    maxRetryAfterMs: config.PLATFORM_MAX_RETRY_AFTER_MS,
    requestTimeoutMs: config.PLATFORM_REQUEST_TIMEOUT_MS,
  });
  const tasks = new TaskSet();
  let health: HealthServer | undefined;
  let identity: string | undefined;
  let transport: LinkTransport | undefined;
  let link: LinkClient | undefined;
  let poller: UpdatePoller | undefined;
  let outbox: PaymentOutbox | undefined;
  /** Users' languages, known once the bot owns the updates (it learns them from the updates). */
  let languages: UserLanguages | undefined;
  /** Erases one user's entries in the bot's file; only the instance that owns the updates keeps one. */
  let forgetter: UserForgetter | undefined;
  let forwarder: PaymentForwarder | undefined;
  let refundForwarder: PaymentForwarder | undefined;
  let joinGate: JoinGate | undefined;
  let menu: CommandMenu | undefined;
  let username: string | undefined;
  const chatCounters = new ChatCommandCounters();
  // One pace per chat for what this process sends there (the platform's limit is per chat, not per
  // kind): command answers and refund notices wait for the chat's slot; notify and send_to_user (a
  // support reply) are sent at once under their Ack deadline and book the slot.
  const chatPacer = new ChatPacer(config.BOT_CHAT_SEND_GAP_MS);
  const paceChat = (chatId: number): Promise<void> => chatPacer.turn(chatId);
  counters.readChatCommands(() => chatCounters.take());
  let joinRequests: JoinRequestAnswers | undefined;

  return {
    get linkConnected() {
      return link?.connected ?? false;
    },
    async start() {
      try {
        const me = await platform.call('getMe');
        identity = me.username ?? String(me.id);
        username = me.username;
        logger.info({ bot: identity, instance: config.BOT_INSTANCE_ID, ownsUpdates: config.OWNS_UPDATES }, 'platform token accepted');
      } catch (err: unknown) {
        if (err instanceof PlatformError && err.status === 401) throw new Error('PLATFORM_BOT_TOKEN was refused by the platform (401)');
        logger.warn({ err }, 'platform not reachable at start; continuing');
      }
      const linkTransport = createLinkTransport({
        url: config.BOTLINK_URL,
        ca: readPem('BOTLINK_TLS_CA', config.BOTLINK_TLS_CA),
        cert: readPem('BOTLINK_TLS_CERT', config.BOTLINK_TLS_CERT),
        key: readPem('BOTLINK_TLS_KEY', config.BOTLINK_TLS_KEY),
        pingIntervalMs: config.BOTLINK_PING_INTERVAL_MS,
      });
      transport = linkTransport;
      const linkClient = new LinkClient({
        transport: linkTransport.transport,
        instanceId: config.BOT_INSTANCE_ID,
        ownsUpdates: config.OWNS_UPDATES,
        counters,
        onCommand: commandHandler({
          platform,
          gameChannelId: config.BOT_GAME_CHANNEL_ID,
          discussionChatId: config.BOT_DISCUSSION_CHAT_ID,
          languageFor: (userId) => (userId === undefined ? undefined : languages?.languageOf(userId)) ?? config.BOT_DEFAULT_LANGUAGE,
          forget: (userId) => forgetter?.forget(userId),
          noteSent: (chatId) => chatPacer.book(chatId),
        }),
        backoff: new Backoff({ initialMs: config.BOTLINK_BACKOFF_INITIAL_MS, maxMs: config.BOTLINK_BACKOFF_MAX_MS }),
        backoffResetAfterMs: config.BOTLINK_BACKOFF_RESET_AFTER_MS,
        healthIntervalMs: config.BOT_HEALTH_INTERVAL_MS,
        answered: () => linkTransport.answered(),
        logger: logger.child({ part: 'botlink' }),
      });
      link = linkClient;
      linkClient.start();
      if (config.OWNS_UPDATES) {
        const rpc = linkClient.rpc;
        const resolveEligibility: ResolveEligibility = (externalId) =>
          rpc.resolveChatEligibility(create(botlink.ChatEligibilityRequestSchema, { externalId }), {
            timeoutMs: config.BOTLINK_RPC_TIMEOUT_MS,
          });
        const validate: ValidatePreCheckout = (request) =>
          rpc.validatePreCheckout(create(botlink.PreCheckoutRequestSchema, request), { timeoutMs: config.BOT_PRECHECKOUT_TIMEOUT_MS });
        const outboxLog = logger.child({ part: 'outbox' });
        const db = openBotDb(config.BOT_OUTBOX_PATH, {
          onTightened: ({ file, was }) =>
            outboxLog.warn({ file, was, now: '600' }, 'bot database file was readable beyond its owner; narrowed'),
        });
        const paymentOutbox = new PaymentOutbox(db);
        const refundOutbox = new PaymentOutbox(db, 'refund');
        const userLanguages = new UserLanguages(db);
        languages = userLanguages;
        forgetter = new UserForgetter(db);
        outbox = paymentOutbox;
        const deadLetters = new DeadLetters(db, () => counters.deadLetter());
        const park = (update: RawUpdate, reason: string): void => deadLetters.park('update', String(update.update_id), update, reason);
        const paymentHeld = paymentHeldIn(paymentOutbox, deadLetters);
        counters.readLevels(() => {
          try {
            const now = Date.now();
            const payments = paymentOutbox.failing(now);
            const refunds = refundOutbox.failing(now);
            return {
              outboxFailingRows: BigInt(payments.count + refunds.count),
              outboxOldestFailingAgeSeconds: BigInt(Math.floor(Math.max(payments.oldestAgeMs, refunds.oldestAgeMs) / 1000)),
            };
          } catch (err: unknown) {
            outboxLog.error(
              { err: err instanceof Error ? err.message : String(err) },
              'could not read the outbox for Health; reporting the last levels',
            );
            return undefined;
          }
        });
        const paymentForwarder = new PaymentForwarder({
          outbox: paymentOutbox,
          forward: (payment, signal) =>
            rpc.forwardPayment(
              create(botlink.ForwardPaymentRequestSchema, {
                orderId: payment.orderId,
                platformPaymentChargeId: payment.platformChargeId,
                amount: payment.amount,
                platformUserId: payment.platformUserId,
                isRecurring: payment.subscription !== undefined,
                isFirstRecurring: payment.subscription?.first === true,
                subscriptionExpirationUnix: payment.subscription?.expirationUnix ?? 0n,
              }),
              { timeoutMs: config.BOTLINK_RPC_TIMEOUT_MS, signal },
            ),
          retry: { initialMs: config.BOT_OUTBOX_RETRY_INITIAL_MS, maxMs: config.BOT_OUTBOX_RETRY_MAX_MS },
          concurrency: config.BOT_OUTBOX_CONCURRENCY,
          logger: outboxLog,
        });
        forwarder = paymentForwarder;
        paymentForwarder.start();
        const refunds = new PaymentForwarder({
          outbox: refundOutbox,
          forward: async (refund, signal) => {
            const answer = await rpc.forwardRefund(
              create(botlink.ForwardRefundRequestSchema, {
                orderId: refund.orderId,
                platformPaymentChargeId: refund.platformChargeId,
                amount: refund.amount,
                platformUserId: refund.platformUserId,
                currency: 'XTR',
              }),
              { timeoutMs: config.BOTLINK_RPC_TIMEOUT_MS, signal },
            );
            return { credited: answer.recorded };
          },
          retry: { initialMs: config.BOT_OUTBOX_RETRY_INITIAL_MS, maxMs: config.BOT_OUTBOX_RETRY_MAX_MS },
          concurrency: config.BOT_OUTBOX_CONCURRENCY,
          logger: outboxLog.child({ kind: 'refund' }),
          onAnswered: tellRefunded(
            platform,
            new RefundNotices(db),
            (userId) => userLanguages.languageOf(userId) ?? config.BOT_DEFAULT_LANGUAGE,
            logger.child({ part: 'refunds' }),
            paceChat,
          ),
        });
        refundForwarder = refunds;
        refunds.start();
        const discussionChatId = config.BOT_DISCUSSION_CHAT_ID;
        const gate =
          discussionChatId === undefined
            ? undefined
            : new JoinGate({
                platform,
                chatId: discussionChatId,
                resolve: resolveEligibility,
                retries: new ChatGateRetries(db),
                retry: { initialMs: config.BOT_CHAT_GATE_RETRY_INITIAL_MS, maxMs: config.BOT_CHAT_GATE_RETRY_MAX_MS },
                logger: logger.child({ part: 'chat-gate' }),
              });
        joinGate = gate;
        gate?.start();
        const dialogues = new SupportDialogues(db);
        dialogues.prune();
        const chatCommands = new ChatCommands({
          platform,
          rpc,
          rpcTimeoutMs: config.BOTLINK_RPC_TIMEOUT_MS,
          botUsername: () => username,
          languageOf: (user) =>
            languageOf(typeof user.language_code === 'string' ? user.language_code : undefined) ??
            userLanguages.languageOf(user.id) ??
            config.BOT_DEFAULT_LANGUAGE,
          dialogues,
          links: { privacy: config.PRIVACY_POLICY_URL, terms: config.TERMS_OF_SERVICE_URL, miniApp: config.BOT_MINI_APP_URL },
          pacer: chatPacer,
          limit: new UserRateLimit(config.BOT_COMMAND_RATE_LIMIT, config.BOT_COMMAND_RATE_WINDOW_MS),
          counters: chatCounters,
          dialogueMs: config.BOT_SUPPORT_TEXT_WINDOW_MS,
          logger: logger.child({ part: 'chat-commands' }),
        });
        menu = new CommandMenu({
          platform,
          miniAppUrl: config.BOT_MINI_APP_URL,
          buttonLanguage: config.BOT_DEFAULT_LANGUAGE,
          logger: logger.child({ part: 'chat-commands' }),
        });
        menu.start();
        const requests =
          discussionChatId === undefined
            ? undefined
            : new JoinRequestAnswers(platform, discussionChatId, resolveEligibility, logger.child({ part: 'chat-gate' }));
        joinRequests = requests;
        poller = new UpdatePoller({
          platform,
          park,
          timeoutSeconds: config.BOT_POLL_TIMEOUT_S,
          minGapMs: config.BOT_POLL_MIN_GAP_MS,
          backoff: new Backoff({ initialMs: config.BOT_POLL_RETRY_INITIAL_MS, maxMs: config.BOT_POLL_RETRY_MAX_MS }),
          logger: logger.child({ part: 'updates' }),
          onUpdate: updateRouter({
            platform,
            discussionChatId: config.BOT_DISCUSSION_CHAT_ID,
            admitJoiner: (joiner) => gate?.admit(joiner) ?? Promise.resolve(),
            onJoinRequest: (request) => requests?.answer(request) ?? Promise.resolve(),
            tasks,
            logger,
            park,
            onSender: (user) => userLanguages.remember(user.id, typeof user.language_code === 'string' ? user.language_code : undefined),
            onPreCheckout: (query) => answerPreCheckout(platform, paymentHeld, validate, query, logger),
            onChatMessage: (message) => chatCommands.onMessage(message),
            onCallbackQuery: (query) => chatCommands.onCallback(query),
            onSuccessfulPayment: (payment, message) => {
              const row = outboxPaymentOf(payment, message);
              const added = paymentOutbox.add(row);
              logger.info(
                { orderId: row.orderId, platformChargeId: row.platformChargeId, amount: Number(row.amount), added },
                'successful payment stored in the outbox',
              );
              paymentForwarder.notify(added ? { ...row, attempts: 0, nextAttemptAt: 0 } : undefined);
              return Promise.resolve();
            },
            onRefundedPayment: (refund, message) => {
              const row = outboxRefundOf(refund, message);
              const added = refundOutbox.add(row);
              logger.info(
                { orderId: row.orderId, platformChargeId: row.platformChargeId, amount: Number(row.amount), added },
                'refund made outside the bot stored in the outbox',
              );
              refunds.notify(added ? { ...row, attempts: 0, nextAttemptAt: 0 } : undefined);
              return Promise.resolve();
            },
          }),
        });
        poller.start();
      }
      if (config.BOT_HEALTH_PORT !== undefined) {
        health = await listenHealth(
          config.BOT_HEALTH_HOST,
          config.BOT_HEALTH_PORT,
          () => ({
            status: 'ok',
            instance: config.BOT_INSTANCE_ID,
            bot: identity ?? null,
            linkConnected: link?.connected ?? false,
            platformLastOkUnix: counters.lastOkUnix,
            updateConflicts: poller?.conflicts ?? 0,
            pollsThrottled: poller?.throttled ?? 0,
            chatJoinersHeld: joinGate?.pending ?? 0,
            chatCommands: chatCounters.snapshot(),
            chatCommandsRateLimited: chatCounters.rateLimited,
            commandMenuRegistered: menu?.registered ?? false,
            chatJoinRequests: joinRequests?.counts ?? null,
          }),
          createReadiness({
            linkConnected: () => link?.connected ?? false,
            lastOkUnix: () => counters.lastOkUnix,
            probePlatform: () => platform.call('getMe'),
            // Long polls answer at least every BOT_POLL_TIMEOUT_S; allow two of them, and never less than a minute.
            windowS: Math.max(60, 2 * config.BOT_POLL_TIMEOUT_S),
          }),
          { handshakeTimeoutMs: config.BOT_HEALTH_HANDSHAKE_TIMEOUT_MS, maxConnections: healthCap(config).cap },
          logger,
        );
        logger.info({ url: health.url }, 'bot health probe listening');
      }
      return health ? { healthUrl: health.url } : {};
    },
    async stop() {
      await poller?.stop();
      poller = undefined;
      await tasks.settle(config.BOT_STOP_GRACE_MS);
      await menu?.stop();
      menu = undefined;
      await joinGate?.stop();
      joinGate = undefined;
      await forwarder?.stop();
      forwarder = undefined;
      await refundForwarder?.stop();
      refundForwarder = undefined;
      await link?.stop(config.BOT_STOP_GRACE_MS);
      outbox?.close();
      outbox = undefined;
      transport?.close();
      platform.close();
      transport = undefined;
      await health?.close();
      health = undefined;
    },
  };
}

/** Reads a PEM file named by a config variable; a missing file is reported by the variable's name. */
function readPem(variable: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err: unknown) {
    const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : 'unreadable';
    throw new Error(`${variable}: cannot read ${path} (${code})`);
  }
}
