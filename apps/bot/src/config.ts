import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { z } from 'zod';
import { ConfigError, connectionCaps, env, parseConfig } from '@wordgame/config';

/** A chat id as the Bot API takes it: a (negative) integer or a public `@username`. */
const chatId = () =>
  z
    .string()
    .regex(/^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/, 'must be a numeric chat id or @username')
    .optional();

/**
 * `<host name>-<8 random hex digits>`: unique per process, still telling the operator which host it
 * runs on. The gateway keeps every live Link, so two bots that share an id stay visible as two.
 */
export function defaultInstanceId(): string {
  return `${hostname().slice(0, 100)}-${randomBytes(4).toString('hex')}`;
}

/** The health probe's connection cap when BOT_HEALTH_MAX_CONNECTIONS is unset (lowered to fit the open-file limit). */
export const HEALTH_CAP_DEFAULT = 64;

/** Bot configuration, parsed once at start; docs/reference/config.md is generated from the descriptions. */
export const botConfigSchema = z.object({
  BOTLINK_URL: env.url(['https:']).default('https://127.0.0.1:8443').describe("The gateway's BotLink address (https, mutual TLS)."),
  BOTLINK_TLS_CA: env.str().default('.data/certs/ca.crt').describe("The CA that signs the gateway's BotLink certificate (PEM path)."),
  BOTLINK_TLS_CERT: env
    .str()
    .default('.data/certs/bot.crt')
    .describe("The bot's client certificate (PEM path); its subject CN or a DNS name must be in the gateway's BOTLINK_ALLOWED_CLIENTS."),
  BOTLINK_TLS_KEY: env.str().default('.data/certs/bot.key').describe("The private key of the bot's client certificate (PEM path)."),
  BOTLINK_BACKOFF_INITIAL_MS: env
    .int(1_000, 1)
    .describe('First reconnect delay of the bot-link stream (gRPC backoff: x1.6 per failure, ±20 % jitter).'),
  BOTLINK_BACKOFF_MAX_MS: env.int(120_000, 1).describe('Upper bound of the bot-link reconnect delay (before jitter).'),
  BOTLINK_BACKOFF_RESET_AFTER_MS: env
    .int(10_000, 0)
    .describe('A stream that stayed open this long counts as healthy: the next reconnect starts from the initial delay.'),
  BOTLINK_PING_INTERVAL_MS: env
    .int(30_000, 1_000)
    .describe('HTTP/2 PING interval on the bot-link connection; a PING unanswered for as long closes it (half-open detection).'),
  BOTLINK_RPC_TIMEOUT_MS: env
    .int(5_000, 100)
    .describe(
      "Deadline of the unary bot-link calls (chat eligibility, payment forwarding); past 2^31-1 ms (24.8 days) it is clamped to that and sent as the spec's `2147483S` (a grpc-js server wraps `2147484S` negative).",
    ),
  BOT_HEALTH_INTERVAL_MS: env.int(30_000, 100).describe("Health report interval on the bot-link stream (the spec's 30 s)."),
  BOT_INSTANCE_ID: env.str().max(128, 'must be at most 128 characters').default(defaultInstanceId).meta({
    description:
      'Identifies this bot process to the gateway (Hello.instance_id, at most 128 characters). Unset: the host name plus a random suffix, new for every process, so two processes never share one by accident. A live second process with the same id is kept and flagged, not a replacement.',
    defaultText: 'host name + random suffix, new per process',
  }),
  PLATFORM_API_ROOT: env.url().default('http://127.0.0.1:8081').describe('Chat-platform Bot API root, e.g. https://api.telegram.org.'),
  PLATFORM_BOT_TOKEN: env
    .str()
    .describe("The bot's Bot API token (from @BotFather; in the dev stack the platform emulator's); never logged."),
  PLATFORM_MAX_RETRY_AFTER_MS: env
    .int(60_000, 0)
    .describe('Upper bound on an honoured 429 retry_after: no platform call waits longer than this.'),
  PLATFORM_REQUEST_TIMEOUT_MS: env
    .int(15_000, 100)
    .describe('Timeout of one ordinary platform-API call (the long poll adds its own poll timeout).'),
  OWNS_UPDATES: env.bool(true).describe('Exactly one bot runs the long-poll for updates (a second poller gets 409).'),
  BOT_POLL_TIMEOUT_S: env
    .int(30, 0, 50)
    .describe('getUpdates long-poll timeout in seconds (the platform answers at the latest after this, keeping liveness fresh).'),
  BOT_POLL_MIN_GAP_MS: env
    .int(500, 50, 5_000)
    .describe(
      "Least time between the starts of two long polls when the first answered empty sooner (a platform or proxy that ignores the poll timeout): such a poll is never repeated in a tight loop; such polls are counted in `pollsThrottled` of the bot's /health and logged (the first, then every 100th). 50 ms-5 s, so that even with BOT_POLL_TIMEOUT_S=0 an update waits far less than the 10 s pre-checkout window.",
    ),
  BOT_POLL_RETRY_INITIAL_MS: env
    .int(1_000, 1)
    .describe('First delay after a failed long poll (grows x1.6 with ±20 % jitter per consecutive failure).'),
  BOT_POLL_RETRY_MAX_MS: env.int(30_000, 1).describe("Upper bound of the long poll's retry delay."),
  BOT_GAME_CHANNEL_ID: chatId().describe(
    "The game's announcement channel for send_to_channel; unset = such commands are cleanly not delivered.",
  ),
  BOT_DEFAULT_LANGUAGE: z
    .enum(['en', 'ru'])
    .default('en')
    .describe(
      "Language of the bot's messages to a user whose Telegram `language_code` it has not seen or has no catalogue for (`en` or `ru`); a seen `ru*`/`en*` code wins (learned from the user's messages, pre-checkout queries and chat joins).",
    ),
  BOT_DISCUSSION_CHAT_ID: chatId().describe(
    'The moderated discussion supergroup for chat_gate and join eligibility; unset = both are no-ops.',
  ),
  BOT_PRECHECKOUT_TIMEOUT_MS: env
    .int(5_000, 100, 8_000)
    .describe("Deadline of ValidatePreCheckout, well inside the platform's 10 s answer window; later = declined."),
  BOT_OUTBOX_PATH: env
    .str()
    .default('.data/bot-outbox.sqlite')
    .describe(
      "SQLite file of the durable payment outbox; it also keeps each user's language (`user_languages`) and the discussion-chat joiners whose eligibility lookup is pending (`chat_gate_retries`).",
    ),
  BOT_OUTBOX_RETRY_INITIAL_MS: env
    .int(1_000, 1)
    .describe('First retry delay of a ForwardPayment that got no response (grows x1.6 with ±20 % jitter).'),
  BOT_OUTBOX_RETRY_MAX_MS: env.int(60_000, 1).describe("Upper bound of the outbox forwarder's retry delay."),
  BOT_OUTBOX_CONCURRENCY: env
    .int(8, 1, 64)
    .describe("ForwardPayment calls in flight at once: rows are independent, and one at a time bounds credits by a commit's round trip."),
  BOT_CHAT_GATE_RETRY_INITIAL_MS: env
    .int(2_000, 10, 600_000)
    .describe(
      "First retry of a discussion-chat joiner's failed eligibility lookup (the joiner is read-only meanwhile; grows x1.6 with ±20 % jitter).",
    ),
  BOT_CHAT_GATE_RETRY_MAX_MS: env
    .int(60_000, 10, 3_600_000)
    .describe('Upper bound of that retry delay: how long an eligible joiner stays read-only after the gateway is back, at most.'),
  BOT_STOP_GRACE_MS: env.int(3_000, 0).describe('How long stop() waits for in-flight commands to be acked before closing the stream.'),
  BOT_HEALTH_PORT: env.port().optional().describe('Loopback-only health probe; unset = no listener at all (the bot has no inbound port).'),
  BOT_HEALTH_HOST: z
    .enum(['127.0.0.1', '::1', 'localhost'], { message: 'must be a loopback address' })
    .default('127.0.0.1')
    .describe('Host of the health probe listener (BOT_HEALTH_PORT): a loopback address only.'),
  BOT_HEALTH_HANDSHAKE_TIMEOUT_MS: env
    .int(5_000, 100, 120_000)
    .describe(
      'How long (ms) a new connection to the health probe has to send the whole head of its first request; one that has not is closed and counted in `listenerRefused.timeout` of /health.',
    ),
  BOT_HEALTH_MAX_CONNECTIONS: env.connectionCap(
    HEALTH_CAP_DEFAULT,
    'Most connections open at once on the health probe; one more is closed as soon as it is accepted and counted in `listenerRefused.cap` of /health. It must fit under the open-file limit minus a reserve (checked at start).',
  ),
  BOT_MINI_APP_URL: env
    .url(['https:'])
    .optional()
    .describe(
      "The Mini App (wallet page) URL, https: /start's button opens it and the chat's menu button is set to it at start; unset = no button and the platform's default menu button.",
    ),
  PRIVACY_POLICY_URL: env
    .url(['https:'])
    .describe("The operator's privacy policy (https), sent by /privacy; required (Telegram's Bot Developer Terms §4), no default."),
  TERMS_OF_SERVICE_URL: env.url(['https:']).describe("The operator's terms of service (https), sent by /terms; required, no default."),
  BOT_COMMAND_RATE_LIMIT: env
    .int(10, 1, 1_000)
    .describe(
      "Chat inputs (commands, button presses, a support case's text) one user may send per BOT_COMMAND_RATE_WINDOW_MS; past it the user gets one short 'slow down' per window and then silence (counted in `chatCommandsRateLimited` of /health).",
    ),
  BOT_COMMAND_RATE_WINDOW_MS: env.int(60_000, 1_000, 3_600_000).describe('The window of BOT_COMMAND_RATE_LIMIT.'),
  BOT_CHAT_SEND_GAP_MS: env
    .int(1_000, 0, 60_000)
    .describe(
      "Least time between two of the bot's messages to one chat (the platform's limit is about one message per second per chat): command answers and refund notices wait for the chat's slot, also after a send_to_user or notify (sent at once under its Ack deadline, booking the slot).",
    ),
  BOT_SUPPORT_TEXT_WINDOW_MS: env
    .int(600_000, 10_000, 86_400_000)
    .describe(
      "How long after /paysupport's button a user's next message is taken as their support case's text (the pending dialogue is kept in the bot's SQLite file, `support_dialogues`).",
    ),
  LOG_LEVEL: env.logLevel().describe('pino log level.'),
});

export type BotConfig = z.infer<typeof botConfigSchema>;

/** What the `outbox` operator command reads: only the outbox file (no token, no certificates). */
export const outboxCommandConfigSchema = botConfigSchema.pick({ BOT_OUTBOX_PATH: true });

export type OutboxCommandConfig = z.infer<typeof outboxCommandConfigSchema>;

/** Reads the `outbox` command's configuration; throws ConfigError naming bad variables. */
export function loadOutboxCommandConfig(source: Record<string, string | undefined> = process.env): OutboxCommandConfig {
  return parseConfig(outboxCommandConfigSchema, source);
}

/**
 * The health probe's connection cap: BOT_HEALTH_MAX_CONNECTIONS, or its default lowered to fit the
 * process's open-file limit; with the issue when the configured one does not fit.
 */
export function healthCap(config: Pick<BotConfig, 'BOT_HEALTH_MAX_CONNECTIONS'>): { cap: number; problems: string[] } {
  const { caps, issues } = connectionCaps(
    { BOT_HEALTH_MAX_CONNECTIONS: config.BOT_HEALTH_MAX_CONNECTIONS },
    { BOT_HEALTH_MAX_CONNECTIONS: HEALTH_CAP_DEFAULT },
  );
  return { cap: caps.BOT_HEALTH_MAX_CONNECTIONS, problems: issues.map((i) => `${i.path.join('.')}: ${i.message}`) };
}

/**
 * Reads the bot's configuration; throws ConfigError naming bad variables (also a health cap that
 * does not fit the open-file limit: the schema stays a plain object, so that the outbox command can
 * pick from it).
 */
export function loadBotConfig(source: Record<string, string | undefined> = process.env): BotConfig {
  const config = parseConfig(botConfigSchema, source);
  const { problems } = healthCap(config);
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
