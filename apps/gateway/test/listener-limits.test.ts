import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { connector } from '@wordgame/contracts';
import { createLogger } from '@wordgame/logging';
import {
  ensureDevCerts,
  openStalled,
  PARTIAL_CLIENT_HELLO,
  PARTIAL_H2_PREFACE,
  PARTIAL_REQUEST_HEAD,
  socketBudget,
  type DevCerts,
} from '@wordgame/testkit';
import { buildGateway, type GatewayApp, type GatewayUrls } from '../src/app.js';
import { loadGatewayConfig } from '../src/config.js';
import { sample } from './support/botlink-gateway.js';
import { TestBot } from './support/botlink-bot.js';
import { testGatewayConfig, testGatewayConfigEnv } from './support/gateway-config.js';

const HANDSHAKE_MS = 1_500;
/** How long the closes of timed-out sockets may take on a loaded machine: derived from the timeout. */
const CLOSE_DEADLINE_MS = HANDSHAKE_MS * 3 + 10_000;

const notify = {
  case: 'notify' as const,
  value: { recipient: { kind: connector.PlatformKind.TELEGRAM, externalId: '42' }, kind: connector.NotificationKind.PAYMENT_CREDITED },
};

interface Started {
  gateway: GatewayApp;
  urls: GatewayUrls;
  certs: DevCerts;
  lines: Record<string, unknown>[];
  bot: TestBot;
  metrics(): Promise<string>;
  stop(): Promise<void>;
}

/** A gateway with `env`, a logger whose warn lines are kept, and a real bot linked over mTLS. */
async function start(env: Record<string, string>): Promise<Started> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-limits-'));
  const certs = ensureDevCerts(dir);
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const gateway = buildGateway(testGatewayConfig(certs, env), createLogger('gateway-test', 'warn', sink));
  const urls = await gateway.start();
  const bot = new TestBot({ url: urls.botlinkUrl, ca: certs.ca.cert, client: certs.bot }).hello('bot-limits', true);
  const until = Date.now() + 15_000;
  while (gateway.hub.snapshot().length === 0) {
    if (Date.now() > until) throw new Error('the bot did not link');
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    gateway,
    urls,
    certs,
    lines,
    bot,
    metrics: async () => (await fetch(urls.metricsUrl)).text(),
    stop: async () => {
      await bot.close();
      await gateway.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The bot link and the public API both answer. */
async function bothAnswer(g: Started): Promise<void> {
  expect(await g.gateway.hub.send(notify, { timeoutMs: 10_000 })).toMatchObject({ status: 'delivered' });
  const health = await fetch(`${g.urls.httpUrl}/livez`);
  expect(health.status).toBe(200);
  await health.body?.cancel();
}

const refusalLines = (g: Started, listener: string) =>
  g.lines.filter((l) => String(l['msg']).startsWith('connections refused') && l['listener'] === listener);

describe('gateway listeners: handshake timeout', () => {
  let g: Started;
  // Each listener is flooded in turn; its cap leaves room for the flood and the real clients.
  const silentCount = socketBudget(2_000, 2, 3_000);
  const stalledCount = socketBudget(500, 2, 3_000 + 2 * silentCount);
  const cap = String(silentCount + stalledCount + 50);
  beforeAll(async () => {
    g = await start({
      GATEWAY_HANDSHAKE_TIMEOUT_MS: String(HANDSHAKE_MS),
      GATEWAY_HTTP_MAX_CONNECTIONS: cap,
      BOTLINK_MAX_CONNECTIONS: cap,
      GATEWAY_INTERNAL_MAX_CONNECTIONS: cap,
      GATEWAY_METRICS_MAX_CONNECTIONS: cap,
    });
  });
  afterAll(async () => g.stop());

  it.each([
    ['botlink', (u: GatewayUrls) => u.botlinkPort, PARTIAL_CLIENT_HELLO],
    ['http', (u: GatewayUrls) => u.httpPort, PARTIAL_REQUEST_HEAD],
    ['internal', (u: GatewayUrls) => u.internalPort, PARTIAL_H2_PREFACE],
    ['metrics', (u: GatewayUrls) => u.metricsPort, PARTIAL_REQUEST_HEAD],
  ] as const)(
    '%s: silent sockets and stalled handshakes are closed within the timeout while the bot link and the public API answer',
    async (listener, portOf, stalledFirst) => {
      const series = `gateway_listener_refused_connections_total{listener="${listener}",reason="timeout"}`;
      const before = sample(await g.metrics(), series) ?? 0;
      const silent = await openStalled(portOf(g.urls), silentCount);
      const stalled = await openStalled(portOf(g.urls), stalledCount, stalledFirst);
      await bothAnswer(g);
      await silent.closedAtLeast(silentCount, CLOSE_DEADLINE_MS);
      await stalled.closedAtLeast(stalledCount, CLOSE_DEADLINE_MS);
      const text = await g.metrics();
      expect(sample(text, series)).toBe(before + silentCount + stalledCount);
      expect(sample(text, `gateway_listener_refused_connections_total{listener="${listener}",reason="cap"}`)).toBe(0);
      // A peer the timeout ended mid-handshake is not a refused certificate.
      expect(sample(text, 'botlink_link_rejections_total{reason="tls_handshake"}')).toBe(0);
      // The bot linked before the flood is still linked and served.
      await bothAnswer(g);
      expect(g.gateway.hub.snapshot()).toHaveLength(1);
      expect(refusalLines(g, listener).length).toBeGreaterThanOrEqual(1);
      expect(refusalLines(g, listener).length).toBeLessThan(10);
    },
  );
});

describe('gateway listeners: connection caps', () => {
  let g: Started;
  const CAP = 10;
  const OVER = 60;
  beforeAll(async () => {
    // A timeout far beyond every wait below: what closes here is the cap's doing.
    g = await start({
      GATEWAY_HANDSHAKE_TIMEOUT_MS: '120000',
      BOTLINK_MAX_CONNECTIONS: String(CAP),
      GATEWAY_INTERNAL_MAX_CONNECTIONS: String(CAP),
    });
  });
  afterAll(async () => g.stop());

  it.each([
    ['botlink', (u: GatewayUrls) => u.botlinkPort],
    ['internal', (u: GatewayUrls) => u.internalPort],
  ] as const)('%s: connections beyond the cap are closed at once, counted and logged once per window', async (listener, portOf) => {
    const held = await openStalled(portOf(g.urls), CAP + OVER);
    // The real bot holds one of the bot-link's places; everything past the cap closes at once.
    const refused = listener === 'botlink' ? OVER + 1 : OVER;
    await held.closedAtLeast(refused, 15_000);
    // The cap is full: the bot link and the public API still answer.
    await bothAnswer(g);
    expect(held.closed()).toBe(refused);
    held.destroy();
    const text = await g.metrics();
    expect(sample(text, `gateway_listener_refused_connections_total{listener="${listener}",reason="cap"}`)).toBe(refused);
    expect(sample(text, `gateway_listener_refused_connections_total{listener="${listener}",reason="timeout"}`)).toBe(0);
    // The first refusal at once; the rest are counted into a line at the end of each 10 s window.
    const lines = refusalLines(g, listener);
    expect(lines[0]).toEqual(expect.objectContaining({ counts: { cap: 1 }, maxConnections: CAP }));
    expect(lines.length).toBeLessThanOrEqual(3);
  });

  it('refuses caps that do not fit under the open-file limit at start', () => {
    expect(() =>
      loadGatewayConfig({ ...testGatewayConfigEnv(g.certs), GATEWAY_HTTP_MAX_CONNECTIONS: '1000000', BOTLINK_MAX_CONNECTIONS: '1000000' }),
    ).toThrow(/GATEWAY_HTTP_MAX_CONNECTIONS: the connection caps .* must fit under the open-file limit/);
  });
});
