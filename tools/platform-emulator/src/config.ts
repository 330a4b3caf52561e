import { env, parseConfig } from '@wordgame/config';
import { z } from 'zod';

/** Every variable the emulator reads (the compose file may set only these). */
export const configSchema = z.object({
  PLATFORM_EMULATOR_PORT: env.port(8081).describe('Port of the emulated Bot API (0 = any free one).'),
  PLATFORM_EMULATOR_HOST: env.str().default('127.0.0.1').describe('Interface the emulator listens on.'),
  PLATFORM_BOT_TOKEN: env
    .token()
    .default('dev-bot-token')
    .describe("The one bot token accepted (the bot's PLATFORM_BOT_TOKEN and the backend's BACKEND_TELEGRAM_BOT_TOKEN use the same)."),
  PLATFORM_PRECHECKOUT_TIMEOUT_MS: env
    .int(10_000, 1)
    .describe(
      "How long a pre_checkout_query waits for the bot's answerPreCheckoutQuery before it expires, in ms (Telegram's window is 10 s).",
    ),
  PLATFORM_STAR_TRANSACTIONS_ORDER: z
    .enum(['oldest_first', 'newest_first'], { message: 'must be oldest_first or newest_first' })
    .default('oldest_first')
    .describe("getStarTransactions' order: oldest_first (the Bot API's documented chronological order) or newest_first."),
  PLATFORM_EMULATOR_STATE_FILE: env
    .str()
    .optional()
    .describe(
      'JSON file keeping the emulated world across restarts (the dev stack: .data/platform-emulator.json, beside its database); unset = memory only.',
    ),
  LOG_LEVEL: env.logLevel().describe('pino log level.'),
});

/** The emulator's settings when run as a process (dev stack). */
export type EmulatorConfig = z.infer<typeof configSchema>;

/**
 * Reads the settings from the environment; throws ConfigError naming each bad variable.
 * PLATFORM_BOT_TOKEN is the one token accepted (the bot's own config uses the same variable).
 */
export function readConfig(source: Record<string, string | undefined> = process.env): EmulatorConfig {
  return parseConfig(configSchema, source);
}
