import { DEV_BOT_CLIENT_NAME, TEST_SERVICE_TOKENS, type DevCerts } from '@wordgame/testkit';
import { loadGatewayConfig, type GatewayConfig } from '../../src/config.js';

/** The operator's policy links every test gateway states (PRIVACY_POLICY_URL, TERMS_OF_SERVICE_URL). */
export const TEST_POLICY_LINKS = {
  PRIVACY_POLICY_URL: 'https://wordgame.example/legal/privacy?lang=all&v=2',
  TERMS_OF_SERVICE_URL: 'https://wordgame.example/legal/terms',
} as const;

/** The variables every gateway needs and tests fix: the service tokens, the dev bot's name and the policy links. */
export const REQUIRED_TEST_ENV: Record<string, string> = {
  ...TEST_SERVICE_TOKENS,
  BOTLINK_ALLOWED_CLIENTS: DEV_BOT_CLIENT_NAME,
  ...TEST_POLICY_LINKS,
};

/**
 * A gateway config for tests: every listener on an ephemeral port, the given dev certificates for
 * the bot-link, an unreachable backend unless `env` names one; `env` adds or overrides variables.
 */
export function testGatewayConfig(certs: DevCerts, env: Record<string, string> = {}): GatewayConfig {
  return loadGatewayConfig({
    ...testGatewayConfigEnv(certs),
    // The test stacks serve the console over plain HTTP, like the dev stack.
    GATEWAY_CONSOLE_SECURE_COOKIE: 'false',
    ...env,
  });
}

/** The listener and certificate variables of a test gateway, without any console cookie choice. */
export function testGatewayConfigEnv(certs: DevCerts): Record<string, string> {
  return {
    ...REQUIRED_TEST_ENV,
    BACKEND_URL: 'http://127.0.0.1:1',
    GATEWAY_HTTP_PORT: '0',
    BOTLINK_PORT: '0',
    GATEWAY_INTERNAL_PORT: '0',
    GATEWAY_METRICS_PORT: '0',
    BOTLINK_TLS_CA: certs.ca.cert,
    BOTLINK_TLS_CERT: certs.gateway.cert,
    BOTLINK_TLS_KEY: certs.gateway.key,
  };
}
