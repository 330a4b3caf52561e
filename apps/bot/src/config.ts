import { hostname } from 'node:os';
import { z } from 'zod';
import { env, parseConfig } from '@wordgame/config';

/** Bot configuration, parsed once at start; see the README's config table. */
export const botConfigSchema = z.object({
  /** The gateway's BotLink address (https, mutual TLS). */
  BOTLINK_URL: env.url(['https:']).default('https://127.0.0.1:8443'),
  BOTLINK_TLS_CA: env.str().default('.data/certs/ca.crt'),
  BOTLINK_TLS_CERT: env.str().default('.data/certs/bot.crt'),
  BOTLINK_TLS_KEY: env.str().default('.data/certs/bot.key'),
  /** Identifies this bot process in the gateway's logs. */
  BOT_INSTANCE_ID: env.str().default(hostname()),
  /** Chat-platform Bot API root, e.g. https://api.telegram.org. */
  PLATFORM_API_ROOT: env.url().default('http://127.0.0.1:8081'),
  PLATFORM_BOT_TOKEN: env.str(),
  /** Exactly one bot runs the long-poll for updates. */
  OWNS_UPDATES: env.bool(true),
  /** SQLite file of the durable payment outbox. */
  BOT_OUTBOX_PATH: env.str().default('.data/bot-outbox.sqlite'),
  /** Loopback-only health probe; unset = no listener at all (the bot has no inbound port). */
  BOT_HEALTH_PORT: env.port().optional(),
  BOT_HEALTH_HOST: z.enum(['127.0.0.1', '::1', 'localhost'], { message: 'must be a loopback address' }).default('127.0.0.1'),
  LOG_LEVEL: env.logLevel(),
});

export type BotConfig = z.infer<typeof botConfigSchema>;

/** Reads the bot's configuration; throws ConfigError naming bad variables. */
export function loadBotConfig(source: Record<string, string | undefined> = process.env): BotConfig {
  return parseConfig(botConfigSchema, source);
}
