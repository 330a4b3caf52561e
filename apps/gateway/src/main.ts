import { ConfigError } from '@wordgame/config';
import { runService } from '@wordgame/lifecycle';
import { createLogger } from '@wordgame/logging';
import { buildGateway } from './app.js';
import { loadGatewayConfig } from './config.js';

try {
  const config = loadGatewayConfig();
  const logger = createLogger('gateway', config.LOG_LEVEL);
  runService(buildGateway(config, logger), logger, config.GATEWAY_STOP_GRACE_MS);
} catch (err: unknown) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`gateway: ${err.message}\n`);
  process.exit(1);
}
