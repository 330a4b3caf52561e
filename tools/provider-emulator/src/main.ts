import { ConfigError } from '@wordgame/config';
import { createLogger } from '@wordgame/logging';
import { loadConfig, type EmulatorConfig } from './config.js';
import { startProviderEmulator } from './index.js';

/**
 * CLI entry for the dev stack: reads PROVIDER_EMULATOR_* from the environment, listens, logs one
 * JSON line with its URLs, and stops gracefully on SIGTERM/SIGINT. A bad variable exits 1 naming it.
 */
async function main(): Promise<void> {
  let config: EmulatorConfig;
  try {
    config = loadConfig();
  } catch (err: unknown) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`provider-emulator: ${err.message}\n`);
    process.exit(1);
  }
  const logger = createLogger('provider-emulator', config.logLevel);
  const emulator = await startProviderEmulator({
    port: config.port,
    host: config.host,
    shops: config.shops,
    logger,
    ...(config.webhookUrl === undefined ? {} : { webhookUrl: config.webhookUrl }),
    ...(config.stateFile === undefined ? {} : { stateFile: config.stateFile }),
  });
  logger.info({ url: emulator.url, apiUrl: emulator.apiUrl, shops: config.shops.map((s) => s.shopId) }, 'provider emulator listening');

  const shutdown = async (signal: NodeJS.Signals): Promise<void> => {
    logger.info({ signal }, 'provider emulator stopping');
    await emulator.stop();
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, (s) => void shutdown(s));
}

main().catch((err: unknown) => {
  process.stderr.write(`provider-emulator: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
