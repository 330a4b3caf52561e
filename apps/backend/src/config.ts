import { z } from 'zod';
import { env, parseConfig } from '@wordgame/config';

/** Backend configuration, parsed once at start; see the README's config table. */
export const backendConfigSchema = z.object({
  /** PostgreSQL URL; unset = embedded PGlite under PGLITE_DIR (dev default). */
  DATABASE_URL: env.url(['postgres:', 'postgresql:']).optional(),
  PGLITE_DIR: z.string().default('.data/pglite'),
  BACKEND_HOST: z.string().default('127.0.0.1'),
  BACKEND_PORT: env.port(4000),
  DB_POOL_MAX: env.int(20, 1, 500),
  DB_STATEMENT_TIMEOUT_MS: env.int(10_000, 100, 600_000),
  LOG_LEVEL: env.logLevel(),
});

export type BackendConfig = z.infer<typeof backendConfigSchema>;

/** Reads the backend's configuration from the environment; throws ConfigError naming bad variables. */
export function loadBackendConfig(source: Record<string, string | undefined> = process.env): BackendConfig {
  return parseConfig(backendConfigSchema, source);
}
