import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '@wordgame/logging';

/**
 * Connects to NATS (NATS_URL: the backend's live game events, the gateway's bot-command routing
 * across replicas): PINGs every `pingIntervalMs` with two
 * missed answers allowed, so a dead server connection is noticed in seconds; reconnects forever
 * (subscriptions are restored by the client). Logs status changes without the URL's credentials.
 */
export async function connectNats(
  servers: readonly string[],
  pingIntervalMs: number,
  name: string,
  logger: Logger,
): Promise<NatsConnection> {
  const nc = await connect({
    servers: [...servers],
    name,
    pingInterval: pingIntervalMs,
    maxPingOut: 2,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: false,
  });
  logger.info({ server: nc.getServer().replace(/\/\/[^@/]*@/, '//') }, 'nats connected');
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect' || status.type === 'error')
        logger.warn({ nats: status.type }, 'nats connection status');
    }
  })();
  return nc;
}
