import { z } from 'zod';
import { connectionCaps, env, natsClientIssues, NKEY_USER_SEED, parseConfig } from '@wordgame/config';

/** Shortest accepted service token: 32 characters (the dev stack makes 43 from 32 random bytes). */
export const SERVICE_TOKEN_MIN = 32;
/** Of GATEWAY_STOP_GRACE_MS, what the steps besides the drain delay and the listeners keep (ms): the cluster's unsubscribe flush (250 ms cap), the NATS drain (1 s cap) and slack. */
export const STOP_CLOSE_RESERVE_MS = 1_500;
const MIN_INFLIGHT_GRACE_MS = 1_000;
const MAX_INFLIGHT_GRACE_MS = 5_000;
const serviceToken = () => env.str().min(SERVICE_TOKEN_MIN, `must be at least ${SERVICE_TOKEN_MIN} characters`);
const CLIENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,252}$/;

const PROXY_NAME = String.raw`(?:loopback|linklocal|uniquelocal|[0-9A-Fa-f.:]+(?:/\d{1,3})?)`;
const TRUST_PROXY = new RegExp(String.raw`^(?:false|true|\d{1,2}|${PROXY_NAME}(?:\s*,\s*${PROXY_NAME})*)$`);

/** The express `trust proxy` setting a valid GATEWAY_TRUST_PROXY stands for. */
function trustProxyValue(raw: string): boolean | number | string[] {
  const v = raw.trim();
  if (v === 'false' || v === 'true') return v === 'true';
  if (/^\d+$/.test(v)) return Number(v);
  return v.split(',').map((s) => s.trim());
}

/** GATEWAY_MAX_IN_FLIGHT when unset: REST requests one gateway process has in progress at once. */
export const MAX_IN_FLIGHT_DEFAULT = 512;

/** Each listener's connection cap when its variable is unset (lowered to fit the open-file limit). */
export const LISTENER_CAP_DEFAULTS = {
  GATEWAY_HTTP_MAX_CONNECTIONS: 8_192,
  BOTLINK_MAX_CONNECTIONS: 512,
  GATEWAY_INTERNAL_MAX_CONNECTIONS: 512,
  GATEWAY_METRICS_MAX_CONNECTIONS: 64,
} as const;

/** Gateway configuration, parsed once at start; docs/reference/config.md is generated from the descriptions. */
export const gatewayConfigSchema = z
  .object({
    BACKEND_URL: env
      .urlList(['http:'])
      .prefault('http://127.0.0.1:4000')
      .describe(
        "Where the backend's Connect service listens (h2c): one URL, several comma-separated (one per replica), or a host name whose every DNS address is a replica (re-resolved every BACKEND_DNS_REFRESH_MS). Calls spread over all of them.",
      ),
    BACKEND_DNS_REFRESH_MS: env
      .int(10_000, 0, 3_600_000)
      .describe('How often host names in BACKEND_URL are resolved again (ms); 0 = only at start.'),
    NATS_URL: env
      .urlList(['nats:', 'tls:'])
      .optional()
      .describe(
        "NATS server(s) shared by every gateway (`nats://host:4222`, comma-separated for a cluster; `tls://` for TLS), without credentials (NATS_NKEY_SEED). Unset = one gateway: commands go to this process's Links only.",
      ),
    NATS_NKEY_SEED: env
      .secret(z.string().regex(NKEY_USER_SEED, 'must be an NKEY user seed (SU followed by 56 base32 characters)'))
      .optional()
      .describe(
        "The gateways' NKEY user seed (`SU…`; its public key is NATS_GATEWAY_NKEY in ops/nats/nats.conf); required with NATS_URL, never logged.",
      ),
    NATS_TLS_CA: env.str().optional().describe("PEM CA that signs the NATS server's certificate (tls:// URLs); unset = the system's CAs."),
    NATS_SUBJECT_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'must be dot-separated tokens of letters, digits, _ and -')
      .default('wordgame')
      .describe('Subject prefix on NATS, so several stacks can share one server.'),
    NATS_PING_INTERVAL_MS: env
      .int(2_000, 100, 600_000)
      .describe('Client PING interval to NATS (ms); with 2 missed PINGs a lost server is noticed within about twice this.'),
    BACKEND_SERVICE_TOKEN: serviceToken().describe(
      "Secret the gateway presents to the backend on every call; the backend's BACKEND_SERVICE_TOKEN must match; required, never logged.",
    ),
    GATEWAY_INTERNAL_TOKEN: serviceToken().describe(
      'Secret the backend must present on the internal listener; different from BACKEND_SERVICE_TOKEN (one secret per direction); required, never logged.',
    ),
    GATEWAY_HOST: z
      .string()
      .default('127.0.0.1')
      .describe('Host of the public HTTP listener (REST /api/v1, the console /_gm, provider notifications, /health).'),
    GATEWAY_HTTP_PORT: env
      .port(8080)
      .describe('Port of the public HTTP listener: REST /api/v1, the console /_gm, provider notifications, /health.'),
    GATEWAY_METRICS_HOST: z
      .string()
      .default('127.0.0.1')
      .describe('Host of the Prometheus `/metrics` listener: a private address only (default loopback).'),
    GATEWAY_METRICS_PORT: env.port(9464).describe('Port of the `/metrics` listener, separate from the public REST port.'),
    GATEWAY_HANDSHAKE_TIMEOUT_MS: env
      .int(5_000, 100, 120_000)
      .describe(
        'How long (ms) a new connection to any gateway listener has to finish its TLS handshake (bot-link) and send the whole head of its first HTTP/1.1 request or its HTTP/2 preface and SETTINGS; one that has not (silent, or stalled halfway) is closed and counted in `gateway_listener_refused_connections_total{reason="timeout"}`.',
      ),
    GATEWAY_HTTP_MAX_CONNECTIONS: env.connectionCap(
      LISTENER_CAP_DEFAULTS.GATEWAY_HTTP_MAX_CONNECTIONS,
      'Most connections open at once on the public HTTP listener; one more is closed as soon as it is accepted and counted (`reason="cap"`). With the other listeners\' caps it must fit under the open-file limit minus a reserve (checked at start).',
    ),
    GATEWAY_METRICS_MAX_CONNECTIONS: env.connectionCap(
      LISTENER_CAP_DEFAULTS.GATEWAY_METRICS_MAX_CONNECTIONS,
      'Most connections open at once on the `/metrics` listener; one more is closed as soon as it is accepted and counted.',
    ),
    GATEWAY_TRUST_PROXY: z
      .string()
      .default('false')
      .refine(
        (v) => TRUST_PROXY.test(v.trim()),
        'must be false, true, a hop count, or comma-separated addresses, CIDR ranges or loopback/linklocal/uniquelocal',
      )
      .transform(trustProxyValue)
      .describe(
        'Express `trust proxy`: which peer may state the client address in X-Forwarded-For. `false` (default) = the socket address; `true`; a hop count; or comma-separated addresses, CIDR ranges or loopback/linklocal/uniquelocal.',
      ),
    GATEWAY_FAST_PATH: env
      .bool(true)
      .describe(
        'Serve bot-link unary calls and call the backend on the HTTP/2 fast paths (libs/h2-unary); false = connect-node both ways.',
      ),
    BOTLINK_HOST: z.string().default('127.0.0.1').describe('Host of the BotLink listener (gRPC over HTTP/2 with mutual TLS).'),
    BOTLINK_PORT: env.port(8443).describe('Port of the BotLink listener (gRPC over HTTP/2 with mutual TLS).'),
    BOTLINK_MAX_CONNECTIONS: env.connectionCap(
      LISTENER_CAP_DEFAULTS.BOTLINK_MAX_CONNECTIONS,
      'Most connections open at once on the bot-link listener, TLS handshakes in progress included; one more is closed as soon as it is accepted and counted (`reason="cap"`).',
    ),
    BOTLINK_TLS_CA: env.str().default('.data/certs/ca.crt').describe("CA that signs the bots' client certificates (PEM path)."),
    BOTLINK_TLS_CERT: env.str().default('.data/certs/gateway.crt').describe("The gateway's BotLink server certificate (PEM path)."),
    BOTLINK_TLS_KEY: env
      .str()
      .default('.data/certs/gateway.key')
      .describe("The private key of the gateway's BotLink server certificate (PEM path)."),
    BOTLINK_ALLOWED_CLIENTS: env
      .str()
      .transform((v) => v.split(',').map((n) => n.trim()))
      .refine(
        (names) => names.every((n) => CLIENT_NAME.test(n)),
        'must be comma-separated certificate names (CN or DNS name; letters, digits, . _ -)',
      )
      .describe(
        "Bot identities allowed on the bot-link: comma-separated names matched exactly against the client certificate's subject CN or a DNS subjectAltName (which must also carry clientAuth); the dev stack sets `bot`.",
      ),
    BOTLINK_PING_INTERVAL_MS: env
      .int(30_000, 100, 3_600_000)
      .describe('HTTP/2 ping interval on bot-link sessions (ms); with the ping timeout it bounds half-open detection.'),
    BOTLINK_PING_TIMEOUT_MS: env
      .int(20_000, 100, 3_600_000)
      .describe(
        'A bot-link session whose ping is not answered within this time (ms) is destroyed; also how long an open Link has to answer a PING when a new Hello reuses its instance_id (answered: a live duplicate, kept and flagged).',
      ),
    BOTLINK_IDLE_TIMEOUT_MS: env
      .int(90_000, 100, 3_600_000)
      .describe('A Link stream that receives no message (Hello, Ack or Health) for this long (ms) is closed.'),
    BOTLINK_SEND_QUEUE_LIMIT: env
      .int(4_096, 1, 1_000_000)
      .describe('Commands waiting to be written on one Link stream; a send beyond it fails with `queue_full`.'),
    BOTLINK_COMMAND_TIMEOUT_MS: env.int(10_000, 1, 120_000).describe('Ack timeout (ms) for a command pushed without its own `timeout_ms`.'),
    GATEWAY_INTERNAL_HOST: z
      .string()
      .default('127.0.0.1')
      .describe('Host of the internal h2c listener (gateway.v1.BotCommandService); a private address only.'),
    GATEWAY_INTERNAL_PORT: env
      .port(8444)
      .describe('Port of the internal listener where the backend pushes bot commands; never the public port.'),
    GATEWAY_INTERNAL_MAX_CONNECTIONS: env.connectionCap(
      LISTENER_CAP_DEFAULTS.GATEWAY_INTERNAL_MAX_CONNECTIONS,
      'Most connections open at once on the internal listener (each backend multiplexes on a few); one more is closed as soon as it is accepted and counted.',
    ),
    GATEWAY_MAX_IN_FLIGHT: env
      .int(MAX_IN_FLIGHT_DEFAULT, 1, 100_000)
      .describe(
        'REST requests (`/api/v1`, `/_gm/api`) one gateway process has in progress at once. One more is answered at once `503 overloaded` with `Retry-After: 1`, before the backend is asked, and counted in `gateway_shed_total`; every admitted request is served to its end. A request counts once its body is read, so a client trickling a body holds no place. Size it to what the backends behind this gateway finish within a call deadline (10 s); docs/scaling.md#overload.',
      ),
    GATEWAY_SESSION_CACHE_MS: env
      .int(5_000, 0, 60_000)
      .describe('How long (ms) a resolved session token is reused without asking the backend; 0 = always ask.'),
    GATEWAY_DRAIN_DELAY_MS: env
      .int(0, 0, 60_000)
      .describe(
        'On SIGTERM, how long (ms) /readyz answers 503 and every answer closes its connection (`Connection: close`) before the listeners close: time for a balancer to notice and for keep-alive clients to move; in-flight requests finish either way.',
      ),
    GATEWAY_STOP_GRACE_MS: env
      .int(10_000, 2_000, 120_000)
      .describe(
        "On SIGTERM: the whole graceful stop's budget (ms); past it the process exits 1. It must hold GATEWAY_DRAIN_DELAY_MS + the listeners' in-flight grace (what is left, at most 5 s, at least 1 s) + 1.5 s for NATS, so GATEWAY_DRAIN_DELAY_MS may be at most this minus 2500 (checked at start). Keep the orchestrator's termination grace above it.",
      ),
    GATEWAY_CONSOLE_SECURE_COOKIE: env
      .bool(true)
      .describe("Mark the operator console's cookies Secure (default); only a plain-HTTP dev stack sets false (`npm start` does)."),
    GATEWAY_CONSOLE_EXPORT_CAP: env
      .int(100_000, 1, 1_000_000)
      .describe('Most rows one console ledger CSV export holds (stated on the ledger page).'),
    GATEWAY_WALLET_DIR: env
      .str()
      .default('dist/apps/wallet-web')
      .describe(
        'The built wallet page (`npx nx build wallet-web`), served at /wallet; relative to the working directory. Not built = not mounted, with a warning.',
      ),
    PRIVACY_POLICY_URL: env
      .url(['https:'])
      .describe(
        "The operator's privacy policy (an https URL; the bot's variable of the same name names the same page): linked from the wallet page's settings. Required, no default: a deployment states its own.",
      ),
    TERMS_OF_SERVICE_URL: env
      .url(['https:'])
      .describe(
        "The operator's terms of service (an https URL; the bot's variable of the same name names the same page): linked from the wallet page's settings. Required, no default: a deployment states its own.",
      ),
    LOG_LEVEL: env.logLevel().describe('pino log level.'),
  })
  .superRefine((c, ctx) => {
    if (c.GATEWAY_DRAIN_DELAY_MS + MIN_INFLIGHT_GRACE_MS + STOP_CLOSE_RESERVE_MS > c.GATEWAY_STOP_GRACE_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['GATEWAY_DRAIN_DELAY_MS'],
        message: `must leave at least ${MIN_INFLIGHT_GRACE_MS + STOP_CLOSE_RESERVE_MS} ms of GATEWAY_STOP_GRACE_MS for in-flight requests and closing`,
      });
    }
    for (const issue of natsClientIssues(c)) ctx.addIssue({ code: 'custom', ...issue });
    for (const issue of connectionCaps(requestedCaps(c), LISTENER_CAP_DEFAULTS).issues) ctx.addIssue({ code: 'custom', ...issue });
    if (c.BACKEND_SERVICE_TOKEN === c.GATEWAY_INTERNAL_TOKEN) {
      ctx.addIssue({
        code: 'custom',
        path: ['GATEWAY_INTERNAL_TOKEN'],
        message: 'must differ from BACKEND_SERVICE_TOKEN (one secret per direction)',
      });
    }
  });

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

/**
 * How long each listener lets in-flight requests finish at stop before destroying what is left:
 * what GATEWAY_STOP_GRACE_MS leaves after the drain delay and STOP_CLOSE_RESERVE_MS, at most
 * MAX_INFLIGHT_GRACE_MS, so drain + in-flight + NATS always fits under the stop's grace.
 */
export function inflightGraceMs(config: Pick<GatewayConfig, 'GATEWAY_STOP_GRACE_MS' | 'GATEWAY_DRAIN_DELAY_MS'>): number {
  const left = config.GATEWAY_STOP_GRACE_MS - config.GATEWAY_DRAIN_DELAY_MS - STOP_CLOSE_RESERVE_MS;
  return Math.max(MIN_INFLIGHT_GRACE_MS, Math.min(MAX_INFLIGHT_GRACE_MS, left));
}

type CapName = keyof typeof LISTENER_CAP_DEFAULTS;

function requestedCaps(c: Partial<Record<CapName, number>>): Record<CapName, number | undefined> {
  return {
    GATEWAY_HTTP_MAX_CONNECTIONS: c.GATEWAY_HTTP_MAX_CONNECTIONS,
    BOTLINK_MAX_CONNECTIONS: c.BOTLINK_MAX_CONNECTIONS,
    GATEWAY_INTERNAL_MAX_CONNECTIONS: c.GATEWAY_INTERNAL_MAX_CONNECTIONS,
    GATEWAY_METRICS_MAX_CONNECTIONS: c.GATEWAY_METRICS_MAX_CONNECTIONS,
  };
}

/**
 * The connection cap of each listener: the configured one, or its default lowered to fit the
 * process's open-file limit (validated at parse: together they leave the reserve free).
 */
export function listenerCaps(config: Pick<GatewayConfig, CapName>): Record<CapName, number> {
  return connectionCaps(requestedCaps(config), LISTENER_CAP_DEFAULTS).caps;
}

/** Reads the gateway's configuration; throws ConfigError naming bad variables. */
export function loadGatewayConfig(source: Record<string, string | undefined> = process.env): GatewayConfig {
  return parseConfig(gatewayConfigSchema, source);
}
