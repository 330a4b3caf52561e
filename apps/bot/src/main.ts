import { ConfigError } from '@wordgame/config';
import { runService } from '@wordgame/lifecycle';
import { createLogger } from '@wordgame/logging';
import { buildBot } from './app.js';
import { loadBotConfig } from './config.js';

try {
  const config = loadBotConfig();
  const logger = createLogger('bot', config.LOG_LEVEL);
  runService(buildBot(config, logger), logger);
} catch (err: unknown) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`bot: ${err.message}\n`);
  process.exit(1);
}
