import { connect, nkeyAuthenticator, nkeys, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '@wordgame/logging';

/** Where and as whom a service connects to NATS (its NATS_* variables). */
export interface NatsClientOptions {
  /** `nats://host:port` or `tls://host:port` URLs (one server or a cluster), never with credentials. */
  servers: readonly string[];
  /** The service's NKEY user seed (NATS_NKEY_SEED, `SU…`; secret, never logged). */
  seed: string;
  /** PEM CA that signs the server's certificate (NATS_TLS_CA); with tls:// URLs and no CA, the system's CAs. */
  tlsCaFile?: string;
  /** Where replies to this client's requests go (a subject its user may subscribe to); default `_INBOX`. */
  inboxPrefix?: string;
  /** Client PING interval (NATS_PING_INTERVAL_MS). */
  pingIntervalMs: number;
  /** Names the connection in the server's monitoring. */
  name: string;
}

/** The public key (`U…`) of an NKEY user seed; throws when `seed` is not a valid user seed. */
export function natsPublicKey(seed: string): string {
  const pair = nkeys.fromSeed(new TextEncoder().encode(seed));
  const key = pair.getPublicKey();
  if (!key.startsWith('U')) throw new Error('not an NKEY user seed');
  return key;
}

/**
 * Connects to NATS (the backend's live game events, the gateway's bot-command routing across
 * replicas) as the service's NKEY user: the server refuses anonymous clients, checks a signature
 * of its challenge made with the seed (the seed itself never leaves the process) and lets each user
 * touch only its own subjects (ops/nats/nats.conf). TLS is required when the URLs say tls:// or a
 * CA is given (the certificate must chain to it and name the host dialled). PINGs every
 * `pingIntervalMs` with two missed answers allowed, so a dead server connection is noticed in
 * seconds; reconnects forever, a refused authentication included (the server's keys may be
 * rotated first), and subscriptions are restored by the client. Logs the public key, never the seed.
 */
export async function connectNats(options: NatsClientOptions, logger: Logger): Promise<NatsConnection> {
  const nkey = natsPublicKey(options.seed);
  const tls = options.tlsCaFile !== undefined || options.servers.some((s) => s.startsWith('tls://'));
  const nc = await connect({
    servers: [...options.servers],
    authenticator: nkeyAuthenticator(new TextEncoder().encode(options.seed)),
    ...(tls ? { tls: options.tlsCaFile === undefined ? {} : { caFile: options.tlsCaFile } } : {}),
    ...(options.inboxPrefix === undefined ? {} : { inboxPrefix: options.inboxPrefix }),
    name: options.name,
    pingInterval: options.pingIntervalMs,
    maxPingOut: 2,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: false,
    ignoreAuthErrorAbort: true,
  });
  logger.info({ server: nc.getServer(), nkey, tls }, 'nats connected');
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'error') logger.warn({ nats: status.type, err: status.error }, 'nats connection status');
      else if (status.type === 'disconnect' || status.type === 'reconnect') logger.warn({ nats: status.type }, 'nats connection status');
    }
  })();
  return nc;
}

/**
 * Ends a service's NATS connection on stop: drains it (subscriptions end after the messages in
 * hand, pending publishes are flushed) for at most `drainMs`, then closes it if the drain has not
 * finished. A server gone silent holds a drain until the client's missed pings give up, and a
 * connection left open keeps reconnecting (its timers hold the process); closing ends both.
 * Answers whether the drain finished in time.
 */
export async function closeNats(nc: NatsConnection, drainMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const drained = await Promise.race([
    nc.drain().then(
      () => true,
      () => true, // already closed or draining: nothing left to drain
    ),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), drainMs))),
  ]);
  clearTimeout(timer);
  if (!drained) await nc.close().catch(() => undefined);
  return drained;
}
