import { ConfigError } from '@wordgame/config';
import { createLogger } from '@wordgame/logging';
import { readConfig, type EmulatorConfig } from './config.js';
import { startPlatformEmulator } from './index.js';

/**
 * CLI entry for the dev stack: reads the environment (see config.ts), starts the emulator, logs
 * one JSON line with its URL, and stops gracefully on SIGTERM or SIGINT. A bad environment exits 1
 * with a message naming the variable.
 */
async function main(): Promise<void> {
  let config: EmulatorConfig;
  try {
    config = readConfig();
  } catch (err: unknown) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
  const logger = createLogger('platform-emulator', config.LOG_LEVEL);
  const emulator = await startPlatformEmulator({
    port: config.PLATFORM_EMULATOR_PORT,
    host: config.PLATFORM_EMULATOR_HOST,
    tokens: [config.PLATFORM_BOT_TOKEN],
    preCheckoutTimeoutMs: config.PLATFORM_PRECHECKOUT_TIMEOUT_MS,
    starTransactionsOrder: config.PLATFORM_STAR_TRANSACTIONS_ORDER,
    ...(config.PLATFORM_EMULATOR_STATE_FILE === undefined ? {} : { stateFile: config.PLATFORM_EMULATOR_STATE_FILE }),
    logger,
  });
  logger.info({ url: emulator.url, apiRoot: emulator.apiRoot }, 'platform emulator listening');
  const stop = (signal: NodeJS.Signals): void => {
    logger.info({ signal }, 'platform emulator stopping');
    emulator.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'platform emulator failed to stop');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`platform emulator failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
