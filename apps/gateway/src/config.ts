import { z } from 'zod';
import { env, parseConfig } from '@wordgame/config';

/** Gateway configuration, parsed once at start; see the README's config table. */
export const gatewayConfigSchema = z.object({
  /** Where the backend's Connect service listens (h2c). */
  BACKEND_URL: env.url().default('http://127.0.0.1:4000'),
  GATEWAY_HOST: z.string().default('127.0.0.1'),
  /** REST /api/v1, the console /_gm, provider notifications, /metrics, /health. */
  GATEWAY_HTTP_PORT: env.port(8080),
  BOTLINK_HOST: z.string().default('127.0.0.1'),
  /** BotLink gRPC over HTTP/2 with mutual TLS. */
  BOTLINK_PORT: env.port(8443),
  /** CA that signs bot client certificates (PEM path). */
  BOTLINK_TLS_CA: env.str().default('.data/certs/ca.crt'),
  /** The gateway's server certificate and key (PEM paths). */
  BOTLINK_TLS_CERT: env.str().default('.data/certs/gateway.crt'),
  BOTLINK_TLS_KEY: env.str().default('.data/certs/gateway.key'),
  LOG_LEVEL: env.logLevel(),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

/** Reads the gateway's configuration; throws ConfigError naming bad variables. */
export function loadGatewayConfig(source: Record<string, string | undefined> = process.env): GatewayConfig {
  return parseConfig(gatewayConfigSchema, source);
}
