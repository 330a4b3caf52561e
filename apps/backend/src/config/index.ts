import { z } from 'zod';
import { connectionCaps, env, natsClientIssues, NKEY_USER_SEED, parseConfig } from '@wordgame/config';
import { shopsField } from './shops.js';

const database = {
  DATABASE_URL: env
    .secretUrl(['postgres:', 'postgresql:'])
    .describe('PostgreSQL URL (`npm start`: its embedded server, `postgres://postgres@127.0.0.1:5433/postgres`).'),
};

/** Shortest accepted service token: 32 characters (the dev stack makes 43 from 32 random bytes). */
export const SERVICE_TOKEN_MIN = 32;
const serviceToken = () => env.str().min(SERVICE_TOKEN_MIN, `must be at least ${SERVICE_TOKEN_MIN} characters`);

/** Of BACKEND_STOP_GRACE_MS, what the steps after the listener (NATS drain, /metrics, pool end) keep (ms). */
export const STOP_CLOSE_RESERVE_MS = 1_000;
/** The least time in-flight calls get to finish after GOAWAY (ms). */
export const MIN_INFLIGHT_GRACE_MS = 1_000;
/** The most time in-flight calls get after GOAWAY (ms; a unary call is bounded by the statement timeout anyway). */
export const MAX_INFLIGHT_GRACE_MS = 5_000;

/** Each listener's connection cap when its variable is unset (lowered to fit the open-file limit). */
export const LISTENER_CAP_DEFAULTS = { BACKEND_MAX_CONNECTIONS: 4_096, BACKEND_METRICS_MAX_CONNECTIONS: 64 } as const;

/** Backend configuration, parsed once at start; docs/reference/config.md is generated from the descriptions. */
export const backendConfigSchema = z
  .object({
    ...database,
    BACKEND_SERVICE_TOKEN: serviceToken().describe(
      'Secret the gateway presents on every call (`Authorization: Bearer`); required, never logged.',
    ),
    GATEWAY_INTERNAL_TOKEN: serviceToken().describe(
      "Secret this backend presents to the gateway's internal listener; different from BACKEND_SERVICE_TOKEN (one secret per direction); required, never logged.",
    ),
    BACKEND_HOST: z.string().default('127.0.0.1').describe('Host of the Connect listener (HTTP/1.1 and h2c) and `/health`.'),
    BACKEND_PORT: env.port(4000).describe('Port of the Connect listener (HTTP/1.1 and h2c) and `/health`; it needs the service token.'),
    BACKEND_METRICS_HOST: z
      .string()
      .default('127.0.0.1')
      .describe('Host of the Prometheus `/metrics` listener: a private address only (default loopback).'),
    BACKEND_METRICS_PORT: env
      .port(9465)
      .describe('Port of the `/metrics` listener, apart from the Connect port (which needs the service token).'),
    BACKEND_HANDSHAKE_TIMEOUT_MS: env
      .int(5_000, 100, 120_000)
      .describe(
        'How long (ms) a new connection to the Connect or `/metrics` listener has to send the whole head of its first HTTP/1.1 request or its HTTP/2 preface and SETTINGS; one that has not (silent, or stalled halfway) is closed and counted in `backend_listener_refused_connections_total{reason="timeout"}`.',
      ),
    BACKEND_MAX_CONNECTIONS: env.connectionCap(
      LISTENER_CAP_DEFAULTS.BACKEND_MAX_CONNECTIONS,
      'Most connections open at once on the Connect listener (gateways multiplex on a few; probes add one each); one more is closed as soon as it is accepted and counted (`reason="cap"`). With every other cap it must fit under the open-file limit minus a reserve (checked at start).',
    ),
    BACKEND_METRICS_MAX_CONNECTIONS: env.connectionCap(
      LISTENER_CAP_DEFAULTS.BACKEND_METRICS_MAX_CONNECTIONS,
      'Most connections open at once on the `/metrics` listener; one more is closed as soon as it is accepted and counted.',
    ),
    DB_POOL_MAX: env
      .int(20, 1, 500)
      .describe('PostgreSQL connection pool size; each backend holds one connection more, its catalog listener (LISTEN catalog_changed).'),
    DB_STATEMENT_TIMEOUT_MS: env.int(10_000, 100, 600_000).describe('Per-statement timeout, in ms.'),
    DB_ACQUIRE_TIMEOUT_MS: env
      .int(5_000, 1, 15_000)
      .describe(
        'How long work outside a call (the reaper, reconciliation, outbox jobs) waits for a free pool connection (ms). A call waits until its own deadline instead (at most 15 s), so a busy pool slows calls down but does not fail them.',
      ),
    LOG_LEVEL: env.logLevel().describe('pino log level.'),
    BACKEND_TELEGRAM_BOT_TOKEN: env
      .token()
      .optional()
      .describe('Telegram bot token that keys Mini App init data; unset = telegram sessions answer platform_not_configured.'),
    BACKEND_VK_APP_SECRET: env
      .token()
      .optional()
      .describe('VK Mini App secret key that signs launch params; unset = vk sessions answer platform_not_configured.'),
    LAUNCH_DATA_MAX_AGE_SECONDS: env
      .int(86_400, 60, 30 * 86_400)
      .describe('Oldest accepted telegram auth_date / vk_ts, in seconds (default 24 h).'),
    SESSION_TTL_HOURS: env.int(720, 1, 24 * 365).describe('Lifetime of a session token, in hours (default 30 days).'),
    MAIL_TRANSPORT: z
      .enum(['dev', 'smtp'], { message: 'must be dev or smtp' })
      .default('dev')
      .describe('`dev` writes each mail as an .eml file into MAIL_DEV_DIR; `smtp` sends through SMTP_URL.'),
    MAIL_DEV_DIR: z
      .string()
      .default('.data/mailbox')
      .describe('Dev mailbox directory (MAIL_TRANSPORT=dev): e-mail confirmation links land here.'),
    SMTP_URL: env
      .secretUrl(['smtp:', 'smtps:'])
      .optional()
      .describe('smtp:// or smtps:// URL with credentials; required when MAIL_TRANSPORT=smtp.'),
    MAIL_FROM: env.str().default('Word Game <no-reply@wordgame.local>').describe('From header of outgoing mail.'),
    PUBLIC_BASE_URL: env
      .url()
      .default('http://localhost:8080')
      .describe('Public origin of the service; e-mail confirmation links point at it.'),
    BACKEND_SEED_CATALOG: z
      .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
      .transform((v) => v === 'true' || v === '1' || v === 'yes')
      .optional()
      .describe('Insert the small dev catalog when the catalog is empty (`npm start` sets it); default false.'),
    BACKEND_FAST_PATH: env
      .bool(true)
      .describe('Serve binary Connect unary calls on the HTTP/2 fast path (libs/h2-unary); false = connect-node for every call.'),
    GATEWAY_INTERNAL_URL: env
      .urlList(['http:'])
      .prefault('http://127.0.0.1:8444')
      .describe(
        "The gateways' internal BotCommandService (create_invoice, notify); h2c. One URL, several comma-separated, or a name whose every DNS address is a gateway: a call that never reached one goes to the next.",
      ),
    NATS_URL: env
      .urlList(['nats:', 'tls:'])
      .optional()
      .describe(
        'NATS server(s) shared by every backend (`nats://host:4222`, comma-separated; `tls://` for TLS), without credentials (NATS_NKEY_SEED): live game events reach watchers on every replica. Unset = one backend, events stay in this process.',
      ),
    NATS_NKEY_SEED: env
      .secret(z.string().regex(NKEY_USER_SEED, 'must be an NKEY user seed (SU followed by 56 base32 characters)'))
      .optional()
      .describe(
        "The backends' NKEY user seed (`SU…`; its public key is NATS_BACKEND_NKEY in ops/nats/nats.conf); required with NATS_URL, never logged.",
      ),
    NATS_TLS_CA: env.str().optional().describe("PEM CA that signs the NATS server's certificate (tls:// URLs); unset = the system's CAs."),
    NATS_SUBJECT_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'must be dot-separated tokens of letters, digits, _ and -')
      .default('wordgame')
      .describe('Subject prefix on NATS, so several stacks can share one server.'),
    NATS_PING_INTERVAL_MS: env.int(2_000, 100, 600_000).describe('Client PING interval to NATS (ms).'),
    BACKEND_DRAIN_DELAY_MS: env
      .int(0, 0, 60_000)
      .describe(
        'On SIGTERM: how long (ms) /readyz answers 503 while everything is still served, before the listener sends GOAWAY and in-flight calls finish (time for a load balancer to notice); 0 = at once.',
      ),
    BACKEND_STOP_GRACE_MS: env
      .int(10_000, 2_000, 120_000)
      .describe(
        "On SIGTERM: the whole graceful stop's budget (ms); past it the process exits 1. It must hold BACKEND_DRAIN_DELAY_MS + the in-flight grace (what is left, at most 5 s, at least 1 s) + 1 s for NATS, /metrics and the pool, so BACKEND_DRAIN_DELAY_MS may be at most this minus 2000 (checked at start). Keep the orchestrator's termination grace above it.",
      ),
    BOT_COMMAND_TIMEOUT_MS: env
      .int(5_000, 100, 60_000)
      .describe("How long a bot command (e.g. create_invoice) may wait for the bot's Ack, in ms."),
    BACKEND_YOOKASSA_API_URL: env.url().default('https://api.yookassa.ru/v3').describe('YooKassa API root (card rail), including /v3.'),
    BACKEND_YOOKASSA_SHOPS: env
      .secret(shopsField())
      .optional()
      .describe(
        "Card shops per channel: `channel:shopId:secretKey:test|live[:currency]`, comma-separated, channel `direct` or `vk`; the currency is the one the shop's account settles in: `RUB` (default; a Russian merchant's shop settles only roubles), `USD`, `EUR`, `KZT` or `BYN`. Unset = no card rail.",
      ),
    BACKEND_YOOKASSA_VAT_CODE: z
      .string()
      .regex(/^([1-9]|1[0-2])$/, 'must be a vat_code from 1 to 12')
      .transform(Number)
      .optional()
      .describe('YooKassa vat_code (1-12) for itemised receipts on payments and refunds; unset = no receipts.'),
    PROVIDER_TIMEOUT_MS: env
      .int(10_000, 500, 60_000)
      .describe('Per-call deadline of provider API calls, in ms (an expired call is "unavailable": outcome unknown).'),
    PROVIDER_REREAD_WINDOW_MS: env
      .int(3_000, 100, 60_000)
      .describe(
        'Provider re-reads caused by notifications: at most one per payment or refund per window, in ms, across replicas; notifications inside it are answered without a provider call and re-read once when it ends, so the window also bounds how late a genuine notification that met it credits.',
      ),
    PAYMENT_RETURN_URL: env
      .url()
      .optional()
      .describe('Where the provider sends the customer after a card payment; default `${PUBLIC_BASE_URL}/wallet`.'),
    REAPER_INTERVAL_MS: env
      .int(15_000, 0, 3_600_000)
      .describe('Reaper tick interval in ms (expire orders, re-check card orders; also the re-check lease); 0 = off.'),
    PRECHECKOUT_HOLD_MS: env
      .int(10_000, 1_000, 300_000)
      .describe(
        'How long an approved stars pre-checkout reserves its order (one live approval per order), in ms (Telegram expects an answer within 10 s).',
      ),
    STAR_REFUND_INTERVAL_MS: env
      .int(5_000, 0, 3_600_000)
      .describe('How often due automatic stars refunds (payments that credited nothing) are sent, in ms; 0 = off.'),
    STAR_REFUND_RETRY_MAX_MS: env
      .int(600_000, 5_000, 86_400_000)
      .describe('Longest wait between two attempts of one automatic stars refund, in ms (backoff doubles from 5 s).'),
    REAPER_RECHECK_BATCH: env
      .int(200, 1, 10_000)
      .describe(
        'Most card orders one reaper tick re-checks with the provider; the rest wait for later ticks, least recently checked first.',
      ),
    REAPER_RECHECK_CONCURRENCY: env.int(8, 1, 64).describe('Most provider re-reads one reaper tick has in flight at once.'),
    RECONCILIATION_INTERVAL_MS: env
      .int(3_600_000, 0, 7 * 86_400_000)
      .describe('How often the provider reconciliation runs (one replica per interval), in ms; 0 = off. Default one hour.'),
    RECONCILIATION_WINDOW_MS: env
      .int(86_400_000, 60_000, 31 * 86_400_000)
      .describe('The window a scheduled reconciliation compares, in ms (default 24 hours).'),
    RECONCILIATION_LAG_MS: env
      .int(900_000, 0, 86_400_000)
      .describe('How far before now a scheduled window ends, in ms, so payments still settling are not reported (default 15 minutes).'),
    RECONCILIATION_STARS_MAX_CALLS: env
      .int(300, 1, 100_000)
      .describe(
        'Most get_star_transactions calls (pages of 100) one reconciliation run makes; past it the run is stored `incomplete` (nothing reported, neither way). Default 300.',
      ),
    RECONCILIATION_RAILS: z
      .string()
      .regex(/^(card|stars)(,(card|stars))?$/, 'must be card, stars or card,stars')
      .default('card,stars')
      .transform((v) => new Set(v.split(',')))
      .describe('The rails reconciled: `card`, `stars` or both, comma-separated (card is skipped without a card shop).'),
    OPERATOR_SESSION_TTL_HOURS: env.int(12, 1, 24 * 30).describe('Lifetime of an operator console session, in hours (default 12).'),
    MODERATION_LAPSE_INTERVAL_MS: env
      .int(15_000, 0, 3_600_000)
      .describe('How often temporary blocks are checked for lapse (then a ChatGateCommand is sent), in ms; 0 = off.'),
    USER_FORGET_INTERVAL_MS: env
      .int(5_000, 0, 3_600_000)
      .describe(
        "How often the forgets of deleted accounts' platform users are sent to the bot (forget_user, until acked), in ms; 0 = off.",
      ),
    USER_FORGET_RETRY_MAX_MS: env
      .int(300_000, 100, 86_400_000)
      .describe('Longest wait between two attempts of one forget the bot did not ack, in ms (backoff doubles from 5 s up to it).'),
    GAME_DAILY_HINTS: env
      .int(3, 0, 1_000)
      .describe('Free hints per account per UTC day in human games; beyond them a hint spends a wallet hint benefit.'),
    SIGNIN_WINDOW_SECONDS: env.int(900, 1, 86_400).describe('Window of the sign-in failure counters, in seconds (default 15 minutes).'),
    SIGNIN_MAX_FAILURES: env
      .int(10, 1, 1_000_000)
      .describe('Failed sign-ins per login (e-mail or operator login) per window; the next attempt is rate_limited.'),
    SIGNIN_ADDRESS_MAX_FAILURES: env
      .int(100, 1, 1_000_000)
      .describe(
        'Failed sign-ins per client address per window (many people may share one address; direct and operator sign-ins are counted apart).',
      ),
    ORDER_CREATE_MAX: env.int(30, 1, 1_000_000).describe('Orders one account may create per hour.'),
    ORDER_CREATE_ADDRESS_MAX: env.int(300, 1, 1_000_000).describe('Orders one client address may create per hour.'),
    SUBSCRIPTION_EDIT_MAX: env
      .int(20, 1, 1_000_000)
      .describe('Cancels and re-enables of a monthly pass (each a platform call through the bot) one account may ask for per hour.'),
    SUBSCRIPTION_EDIT_ADDRESS_MAX: env.int(200, 1, 1_000_000).describe('Cancels and re-enables one client address may ask for per hour.'),
    DATA_EXPORT_MAX: env.int(10, 1, 1_000_000).describe('Data exports (GET /api/v1/user/export) one account may ask for per hour.'),
    DATA_EXPORT_ADDRESS_MAX: env.int(60, 1, 1_000_000).describe('Data exports one client address may ask for per hour.'),
    CONFIRMATION_MAIL_MAX: env.int(5, 1, 1_000_000).describe('Confirmation mails (profile e-mail changes) one account may cause per hour.'),
    CONFIRMATION_MAIL_ADDRESS_MAX: env.int(30, 1, 1_000_000).describe('Confirmation mails one client address may cause per hour.'),
    CONFIRMATION_MAIL_RECIPIENT_MAX: env
      .int(5, 1, 1_000_000)
      .describe(
        'Confirmation mails one e-mail address may receive per CONFIRMATION_MAIL_RECIPIENT_WINDOW_HOURS, from sign-ups and profile e-mail changes together, across account deletions: a sign-up or change beyond it is rate_limited before anything is created or mailed.',
      ),
    CONFIRMATION_MAIL_RECIPIENT_WINDOW_HOURS: env
      .int(24, 1, 168)
      .describe('Window of the per-recipient confirmation-mail counter, in hours (default a day, at most a week).'),
    STAR_CHARGES_LIST_MAX: env
      .int(20, 1, 1_000_000)
      .describe("The bot's ListStarCharges (/paysupport) per platform user per minute; the next is rate_limited (ResourceExhausted)."),
    SUPPORT_CASE_OPEN_MAX: env
      .int(5, 1, 1_000_000)
      .describe(
        "The bot's OpenSupportCase per platform user per hour, refused ones included; the next is rate_limited (ResourceExhausted).",
      ),
    CODE_REDEEM_MAX: env
      .int(10, 1, 1_000_000)
      .describe('Code redemption attempts (POST /api/v1/user/codes/redeem) one account may make per hour, refused ones included.'),
    CODE_REDEEM_ADDRESS_MAX: env
      .int(60, 1, 1_000_000)
      .describe('Code redemption attempts one client address may make per hour, refused ones included.'),
    PROMO_CODE_SECRET: env
      .str()
      .min(SERVICE_TOKEN_MIN, `must be at least ${SERVICE_TOKEN_MIN} characters`)
      .optional()
      .describe(
        'Key of the HMAC under which promo codes are stored (the database keeps the keyed hash and a 4-character prefix, never the code); unset = a key derived from BACKEND_SERVICE_TOKEN. Changing it makes every existing code unredeemable; never logged.',
      ),
    SUPPORT_CASE_OPEN_CAP: env
      .int(3, 1, 100)
      .describe('Open support cases one platform user may have at once; another is support_case_limit until an operator resolves one.'),
    SUPPORT_CASE_MAX_WAIT_SECONDS: env
      .int(86_400, 60, 30 * 86_400)
      .describe(
        'How long an open support case may wait for an operator, in seconds: older ones count in backend_support_cases_overdue (alert SupportCaseWaiting).',
      ),
    BACKEND_MAKE_GOOD_DAILY_CHIPS_CAP: env
      .int(10_000, 0, 1_000_000_000)
      .describe(
        "Chips one operator may grant as make-goods per UTC day, all players together (0: none); a grant past it is make_good_cap_reached. Checked under a lock on the operator in the grant's transaction.",
      ),
    BACKEND_MAKE_GOOD_DAILY_HINTS_CAP: env
      .int(100, 0, 1_000_000)
      .describe('Hints one operator may grant as make-goods per UTC day, all players together (0: none).'),
    BACKEND_MAKE_GOOD_DAILY_NO_ADS_DAYS_CAP: env
      .int(90, 0, 36_500)
      .describe('No-ads days one operator may grant as make-goods per UTC day, all players together (0: none).'),
  })
  .superRefine((c, ctx) => {
    if (c.BACKEND_DRAIN_DELAY_MS + MIN_INFLIGHT_GRACE_MS + STOP_CLOSE_RESERVE_MS > c.BACKEND_STOP_GRACE_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['BACKEND_DRAIN_DELAY_MS'],
        message: `must leave at least ${MIN_INFLIGHT_GRACE_MS + STOP_CLOSE_RESERVE_MS} ms of BACKEND_STOP_GRACE_MS for in-flight calls and closing`,
      });
    }
    for (const issue of natsClientIssues(c)) ctx.addIssue({ code: 'custom', ...issue });
    for (const issue of connectionCaps(requestedCaps(c), LISTENER_CAP_DEFAULTS).issues) ctx.addIssue({ code: 'custom', ...issue });
    if (c.MAIL_TRANSPORT === 'smtp' && c.SMTP_URL === undefined) {
      ctx.addIssue({ code: 'custom', path: ['SMTP_URL'], message: 'is required when MAIL_TRANSPORT=smtp' });
    }
    if (c.BACKEND_SERVICE_TOKEN === c.GATEWAY_INTERNAL_TOKEN) {
      ctx.addIssue({
        code: 'custom',
        path: ['GATEWAY_INTERNAL_TOKEN'],
        message: 'must differ from BACKEND_SERVICE_TOKEN (one secret per direction)',
      });
    }
  });

export type BackendConfig = z.infer<typeof backendConfigSchema>;

/**
 * How long the listener lets in-flight calls finish after GOAWAY before destroying what is left:
 * what BACKEND_STOP_GRACE_MS leaves after the drain delay and STOP_CLOSE_RESERVE_MS, at most
 * MAX_INFLIGHT_GRACE_MS, so drain + in-flight + close always fits under the stop's grace.
 */
export function inflightGraceMs(config: Pick<BackendConfig, 'BACKEND_STOP_GRACE_MS' | 'BACKEND_DRAIN_DELAY_MS'>): number {
  const left = config.BACKEND_STOP_GRACE_MS - config.BACKEND_DRAIN_DELAY_MS - STOP_CLOSE_RESERVE_MS;
  return Math.max(MIN_INFLIGHT_GRACE_MS, Math.min(MAX_INFLIGHT_GRACE_MS, left));
}

type CapName = keyof typeof LISTENER_CAP_DEFAULTS;

function requestedCaps(c: Partial<Record<CapName, number>>): Record<CapName, number | undefined> {
  return { BACKEND_MAX_CONNECTIONS: c.BACKEND_MAX_CONNECTIONS, BACKEND_METRICS_MAX_CONNECTIONS: c.BACKEND_METRICS_MAX_CONNECTIONS };
}

/**
 * The connection cap of each listener: the configured one, or its default lowered to fit the
 * process's open-file limit (validated at parse: together they leave the reserve free).
 */
export function listenerCaps(config: Pick<BackendConfig, CapName>): Record<CapName, number> {
  return connectionCaps(requestedCaps(config), LISTENER_CAP_DEFAULTS).caps;
}

/** Reads the backend's configuration from the environment; throws ConfigError naming bad variables. */
export function loadBackendConfig(source: Record<string, string | undefined> = process.env): BackendConfig {
  return parseConfig(backendConfigSchema, source);
}

/** The database settings alone: what the operator and audit commands need (no service secrets). */
export const databaseConfigSchema = z.object(database);

/** Reads only the database settings (operator:create, the ledger audit); throws ConfigError. */
export function loadDatabaseConfig(source: Record<string, string | undefined> = process.env): z.infer<typeof databaseConfigSchema> {
  return parseConfig(databaseConfigSchema, source);
}
export { type CardChannel, cardPriceCurrencies, type SettlementCurrency, type Shop, type ShopTable } from './shops.js';
