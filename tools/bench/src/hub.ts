import type { Logger } from '@wordgame/logging';
import { DEV_BOT_CLIENT_NAME, DEV_POLICY_LINKS, TEST_SERVICE_TOKENS, type DevCerts } from '@wordgame/testkit';
// The bench measures the gateway's own code in-process (allowed for tools/bench only, see eslint.config.js).
import { buildGateway } from '../../../apps/gateway/src/app.js';
import { loadGatewayConfig } from '../../../apps/gateway/src/config.js';
import { startBotThread } from './bot-thread.js';
import { runWindowed, type WindowedRun } from './window.js';

/**
 * The real path: a started gateway (hub, Link handler, mTLS listener) and the acking bot thread;
 * each operation is `hub.send` up to its resolved outcome.
 */
export async function runHub(certs: DevCerts, logger: Logger, total: number, window: number, maxSeconds: number): Promise<WindowedRun> {
  const gateway = buildGateway(
    loadGatewayConfig({
      ...TEST_SERVICE_TOKENS,
      BOTLINK_ALLOWED_CLIENTS: DEV_BOT_CLIENT_NAME,
      ...DEV_POLICY_LINKS,
      BACKEND_URL: 'http://127.0.0.1:1',
      GATEWAY_HTTP_PORT: '0',
      BOTLINK_PORT: '0',
      GATEWAY_INTERNAL_PORT: '0',
      GATEWAY_METRICS_PORT: '0',
      BOTLINK_TLS_CA: certs.ca.cert,
      BOTLINK_TLS_CERT: certs.gateway.cert,
      BOTLINK_TLS_KEY: certs.gateway.key,
      BOTLINK_SEND_QUEUE_LIMIT: String(Math.max(window, 1)),
    }),
    logger,
  );
  const urls = await gateway.start();
  const bot = startBotThread(urls.botlinkUrl, certs);
  try {
    while (gateway.hub.connected === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    return await runWindowed(total, window, maxSeconds, async (i) => {
      const outcome = await gateway.hub.send({ case: 'chatGate', value: { externalId: String(i), allow: true } }, { timeoutMs: 30_000 });
      if (outcome.status !== 'delivered') throw new Error(`command ${i}: ${JSON.stringify(outcome)}`);
    });
  } finally {
    await bot.stop();
    await gateway.stop();
  }
}
