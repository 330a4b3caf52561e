import { ConfigError, env, parseConfig } from '@wordgame/config';
import { z } from 'zod';
import type { ShopConfig } from './index.js';

/** Every variable the emulator reads (the compose file may set only these). */
export const configSchema = z.object({
  PROVIDER_EMULATOR_PORT: env.port(8082).describe('Port of the emulated YooKassa API (0 = any free one).'),
  PROVIDER_EMULATOR_HOST: env.str().default('127.0.0.1').describe('Interface the emulator listens on.'),
  PROVIDER_EMULATOR_SHOPS: env
    .secret(z.string())
    .default('dev-shop:dev-secret:test')
    .describe('The shops the emulator accepts: `shopId:secretKey:test|live`, comma-separated.'),
  PROVIDER_EMULATOR_WEBHOOK_URL: env
    .url()
    .optional()
    .describe('Where payment and refund notifications are posted; unset = none are posted.'),
  PROVIDER_EMULATOR_STATE_FILE: env
    .str()
    .optional()
    .describe("JSON file keeping payments and refunds across restarts (beside the stack's data); unset = memory only."),
  LOG_LEVEL: env.logLevel().describe('pino log level.'),
});

/** The CLI's settings, from the environment. */
export interface EmulatorConfig {
  port: number;
  host: string;
  shops: ShopConfig[];
  webhookUrl: string | undefined;
  stateFile: string | undefined;
  logLevel: z.infer<typeof configSchema>['LOG_LEVEL'];
}

/**
 * Reads the CLI configuration. PROVIDER_EMULATOR_SHOPS is `id:key:test|live` entries separated
 * by commas; it holds secret keys, so its problems never quote the value. Every problem (of any
 * variable) is reported together in one {@link ConfigError}.
 */
export function loadConfig(source: Record<string, string | undefined> = process.env): EmulatorConfig {
  const problems: string[] = [];
  let parsed: z.infer<typeof configSchema> | null = null;
  try {
    parsed = parseConfig(configSchema, source);
  } catch (err: unknown) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...err.problems);
  }
  const shops = parseShops(source.PROVIDER_EMULATOR_SHOPS || 'dev-shop:dev-secret:test', problems);
  if (!parsed || problems.length > 0) throw new ConfigError(problems);
  return {
    port: parsed.PROVIDER_EMULATOR_PORT,
    host: parsed.PROVIDER_EMULATOR_HOST,
    shops,
    webhookUrl: parsed.PROVIDER_EMULATOR_WEBHOOK_URL,
    stateFile: parsed.PROVIDER_EMULATOR_STATE_FILE,
    logLevel: parsed.LOG_LEVEL,
  };
}

function parseShops(raw: string, problems: string[]): ShopConfig[] {
  const shops: ShopConfig[] = [];
  const seen = new Set<string>();
  for (const [index, entry] of raw.split(',').entries()) {
    const parts = entry.trim().split(':');
    const [shopId = '', secretKey = '', mode = ''] = parts;
    const where = `PROVIDER_EMULATOR_SHOPS: entry ${index + 1}`;
    if (parts.length !== 3 || !shopId || !secretKey || (mode !== 'test' && mode !== 'live')) {
      problems.push(`${where} must be shopId:secretKey:test or shopId:secretKey:live (value not shown: it holds keys)`);
    } else if (seen.has(shopId)) {
      problems.push(`${where} repeats the shop id of an earlier entry (value not shown)`);
    } else {
      seen.add(shopId);
      shops.push({ shopId, secretKey, test: mode === 'test' });
    }
  }
  return shops;
}
