import type { Logger } from '@wordgame/logging';

/** Anything with the build()/start()/stop() shape the services share. */
export interface Service {
  start(): Promise<unknown>;
  stop(): Promise<void>;
}

/**
 * Runs a built service as a process: starts it (exit 1 on failure), and on SIGTERM or SIGINT
 * stops it gracefully and exits 0. A second signal, or a stop that overruns `graceMs`, exits 1 at
 * once so an orchestrator never waits on a wedged shutdown.
 */
export function runService(service: Service, logger: Logger, graceMs = 10_000): void {
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal, exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'stopping');
    const force = setTimeout(() => {
      logger.error({ graceMs }, 'graceful stop overran, exiting');
      process.exit(1);
    }, graceMs);
    force.unref();
    service.stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  service.start().catch((err: unknown) => {
    logger.fatal({ err }, 'start failed');
    process.exit(1);
  });
}
