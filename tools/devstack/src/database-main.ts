import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { claimFolder, ConfigError, env, FolderInUseError, parseConfig } from '@wordgame/config';
import { createLogger } from '@wordgame/logging';
import { z } from 'zod';
import { serveOverWire } from './pg-wire.js';

const configSchema = z.object({
  PGLITE_DIR: env.str().describe('The PGlite data folder this process serves and claims (`.data/pglite`).'),
  DEV_DATABASE_HOST: env
    .str()
    .default('127.0.0.1')
    .describe('Interface of the PostgreSQL-protocol listener (loopback: trust, no password).'),
  DEV_DATABASE_PORT: env.port(5433).describe('Port of the PostgreSQL-protocol listener (0 = any free one).'),
  LOG_LEVEL: env.logLevel().describe('pino log level.'),
});

/**
 * The dev stack's database: opens PGlite on PGLITE_DIR (claiming the folder, so no command opens
 * a second PGlite on it) and serves it over the PostgreSQL protocol on DEV_DATABASE_HOST:PORT;
 * the backend and every command connect with a DATABASE_URL. SIGTERM closes the connections
 * (rolling back what they left open), then PGlite, then releases the folder.
 */
async function main(): Promise<void> {
  const config = parseConfig(configSchema, process.env);
  const logger = createLogger('database', config.LOG_LEVEL);
  const release = claimFolder(config.PGLITE_DIR, 'the dev stack database server, `npm start`');
  try {
    mkdirSync(config.PGLITE_DIR, { recursive: true });
    const pglite = await PGlite.create(config.PGLITE_DIR);
    const server = await serveOverWire(pglite, { host: config.DEV_DATABASE_HOST, port: config.DEV_DATABASE_PORT, logger });
    logger.info({ host: server.host, port: server.port, dir: config.PGLITE_DIR }, 'database listening');
    const stop = (signal: NodeJS.Signals): void => {
      logger.info({ signal, connections: server.connections() }, 'database stopping');
      server
        .close()
        .then(() => pglite.close())
        .then(
          () => {
            release();
            process.exit(0);
          },
          (err: unknown) => {
            logger.error({ err }, 'database failed to stop cleanly');
            release();
            process.exit(1);
          },
        );
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  } catch (err) {
    release();
    throw err;
  }
}

main().catch((err: unknown) => {
  const known = err instanceof ConfigError || err instanceof FolderInUseError;
  process.stderr.write(`database: ${known ? err.message : String(err instanceof Error ? (err.stack ?? err.message) : err)}\n`);
  process.exit(1);
});
