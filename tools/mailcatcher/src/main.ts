import { ConfigError } from '@wordgame/config';
import { createLogger } from '@wordgame/logging';
import { loadConfig, type MailCatcherConfig } from './config.js';
import { startMailCatcher } from './index.js';

/**
 * CLI entry for the compose dev profile: reads MAILCATCHER_* from the environment, listens, logs
 * its addresses, and stops on SIGTERM/SIGINT with exit 0. A bad variable exits 1 naming it.
 */
async function main(): Promise<void> {
  let config: MailCatcherConfig;
  try {
    config = loadConfig();
  } catch (err: unknown) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`mailcatcher: ${err.message}\n`);
    process.exit(1);
  }
  const logger = createLogger('mailcatcher', config.LOG_LEVEL);
  const catcher = await startMailCatcher({
    host: config.MAILCATCHER_HOST,
    smtpPort: config.MAILCATCHER_SMTP_PORT,
    httpPort: config.MAILCATCHER_HTTP_PORT,
    maxMessages: config.MAILCATCHER_MAX_MESSAGES,
    maxBytes: config.MAILCATCHER_MAX_BYTES,
    logger,
  });
  logger.info({ smtpPort: catcher.smtpPort, url: catcher.url }, 'mail catcher listening');
  const shutdown = async (signal: NodeJS.Signals): Promise<void> => {
    logger.info({ signal }, 'mail catcher stopping');
    await catcher.stop();
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, (s) => void shutdown(s));
}

main().catch((err: unknown) => {
  process.stderr.write(`mailcatcher: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
