import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@wordgame/logging';
import { ensureDevCerts, type DevCerts } from '@wordgame/testkit';
import { buildGateway, type GatewayApp, type GatewayUrls } from '../../src/app.js';
import { testGatewayConfig } from './gateway-config.js';

/** A started gateway on ephemeral ports with fresh dev certificates. */
export interface TestGateway {
  gateway: GatewayApp;
  urls: GatewayUrls;
  certs: DevCerts;
  dir: string;
  /** GET /metrics text (from the metrics listener). */
  metrics(): Promise<string>;
  stop(): Promise<void>;
}

/** Starts a gateway for a test; `env` overrides configuration variables; `logTo` receives its log lines (info and up). */
export async function startTestGateway(env: Record<string, string> = {}, logTo?: Parameters<typeof createLogger>[2]): Promise<TestGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-botlink-'));
  const certs = ensureDevCerts(dir);
  const gateway = buildGateway(
    testGatewayConfig(certs, env),
    logTo
      ? createLogger('gateway-test', 'info', logTo)
      : createLogger('gateway-test', process.env.TEST_LOG_LEVEL === 'debug' ? 'debug' : 'silent'),
  );
  const urls = await gateway.start();
  return {
    gateway,
    urls,
    certs,
    dir,
    metrics: async () => (await fetch(urls.metricsUrl)).text(),
    stop: async () => {
      await gateway.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The value of one sample (`name` or `name{labels}` exactly as exposed), or undefined. */
export function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return undefined;
}

/** Polls until `check` returns true (for state that settles asynchronously on the server). */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
