import { env, parseConfig } from '@wordgame/config';
import { z } from 'zod';

/** Every variable the mail catcher reads (the compose file may set only these). */
export const configSchema = z.object({
  MAILCATCHER_HOST: env.str().default('127.0.0.1').describe('Interface both listeners (SMTP and HTTP) bind.'),
  MAILCATCHER_SMTP_PORT: env.port(1025).describe('SMTP port the backend and Alertmanager send to.'),
  MAILCATCHER_HTTP_PORT: env.port(1080).describe('The web/JSON view of the caught mail, plus /livez and /readyz.'),
  MAILCATCHER_MAX_MESSAGES: env.int(500, 1).describe('Messages kept (the oldest is dropped beyond).'),
  MAILCATCHER_MAX_BYTES: env.int(10 * 1024 * 1024, 1024).describe('Largest message accepted (SMTP 552 beyond).'),
  LOG_LEVEL: env.logLevel().describe('pino log level.'),
});

export type MailCatcherConfig = z.infer<typeof configSchema>;

/** Reads the configuration; throws ConfigError naming bad variables. */
export function loadConfig(source: Record<string, string | undefined> = process.env): MailCatcherConfig {
  return parseConfig(configSchema, source);
}
