import type { Logger } from '@wordgame/logging';
import type { BotConfig } from './config.js';
import { listenHealth, type HealthServer } from './health/server.js';
import { PlatformClient, PlatformError } from './platform/client.js';
import { HealthCounters } from './platform/health-counters.js';

/** A built bot: `start()` checks the platform token and opens the loopback probe; `stop()` undoes it. */
export interface BotApp {
  start(): Promise<{ healthUrl?: string }>;
  stop(): Promise<void>;
}

/** Builds the bot without side effects until `start()`. */
export function buildBot(config: BotConfig, logger: Logger): BotApp {
  const counters = new HealthCounters();
  const platform = new PlatformClient({ apiRoot: config.PLATFORM_API_ROOT, token: config.PLATFORM_BOT_TOKEN, counters, logger });
  let health: HealthServer | undefined;
  let identity: string | undefined;

  return {
    async start() {
      try {
        const me = await platform.call<{ username?: string; id: number }>('getMe');
        identity = me.username ?? String(me.id);
        logger.info({ bot: identity, instance: config.BOT_INSTANCE_ID, ownsUpdates: config.OWNS_UPDATES }, 'platform token accepted');
      } catch (err: unknown) {
        if (err instanceof PlatformError && err.status === 401) throw new Error('PLATFORM_BOT_TOKEN was refused by the platform (401)');
        logger.warn({ err }, 'platform not reachable at start; continuing');
      }
      if (config.BOT_HEALTH_PORT !== undefined) {
        health = await listenHealth(config.BOT_HEALTH_HOST, config.BOT_HEALTH_PORT, () => ({
          status: 'ok',
          instance: config.BOT_INSTANCE_ID,
          bot: identity ?? null,
          platformLastOkUnix: counters.lastOkUnix,
        }));
        logger.info({ url: health.url }, 'bot health probe listening');
      }
      return health ? { healthUrl: health.url } : {};
    },
    async stop() {
      await health?.close();
      health = undefined;
    },
  };
}
