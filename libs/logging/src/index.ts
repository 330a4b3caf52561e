import { pino, type Logger, type LevelWithSilent, type DestinationStream } from 'pino';

export type { Logger } from 'pino';

/** Paths never written to logs: credentials, tokens, card data, cookies. */
export const REDACT_PATHS = [
  'password',
  'token',
  'secret',
  '*.password',
  '*.token',
  '*.secret',
  '*.authorization',
  '*.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-platform"]',
  'card',
  '*.card',
];

/**
 * Creates a service's structured JSON logger. Each line carries `service`; request and command ids
 * are added by child loggers where the work happens. Secrets are redacted by path.
 */
export function createLogger(service: string, level: LevelWithSilent = 'info', destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}
