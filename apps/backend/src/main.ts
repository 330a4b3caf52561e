import { ConfigError } from '@wordgame/config';
import { createLogger } from '@wordgame/logging';
import { buildBackend } from './app.js';
import { loadBackendConfig } from './config/index.js';
import { runService } from '@wordgame/lifecycle';

try {
  const config = loadBackendConfig();
  const logger = createLogger('backend', config.LOG_LEVEL);
  runService(buildBackend(config, logger), logger, config.BACKEND_STOP_GRACE_MS);
} catch (err: unknown) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`backend: ${err.message}\n`);
  process.exit(1);
}
