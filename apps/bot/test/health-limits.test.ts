import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import { openStalled, PARTIAL_REQUEST_HEAD, socketBudget } from '@wordgame/testkit';
import { buildBot } from '../src/app.js';
import { loadBotConfig } from '../src/config.js';
import { POLICY_LINKS, tempCerts, testConfig } from './support/fixture.js';
import { TestGateway } from './support/gateway.js';
import { captureLogs } from './support/logs.js';
import { waitFor } from './support/wait.js';

const HANDSHAKE_MS = 1_000;
/** How long the closes of timed-out sockets may take on a loaded machine: derived from the timeout. */
const CLOSE_DEADLINE_MS = HANDSHAKE_MS * 3 + 10_000;

const certs = tempCerts();
let emu: PlatformEmulator;
let gateway: TestGateway;

beforeAll(async () => {
  emu = await startPlatformEmulator();
  gateway = await TestGateway.start(certs);
});

afterAll(async () => {
  await gateway.close();
  await emu.stop();
  certs.cleanup();
});

interface HealthBody {
  linkConnected: boolean;
  listenerRefused: { cap: number; timeout: number };
}

const health = async (url: string): Promise<HealthBody> => (await fetch(`${url}/health`)).json() as Promise<HealthBody>;

describe('the bot health probe puts the listener limits on its connections', () => {
  it('closes silent connections and stalled request heads within the timeout while /health answers, and counts them', async () => {
    const { logger, lines } = captureLogs('info');
    const count = socketBudget(2_000, 2, 2_000);
    const app = buildBot(
      testConfig(
        certs,
        { botlink: gateway.url, platform: emu.apiRoot },
        {
          OWNS_UPDATES: 'false',
          BOT_HEALTH_PORT: '0',
          BOT_HEALTH_HANDSHAKE_TIMEOUT_MS: String(HANDSHAKE_MS),
          BOT_HEALTH_MAX_CONNECTIONS: String(count + 300),
        },
      ),
      logger,
    );
    const { healthUrl } = await app.start();
    try {
      await waitFor(() => app.linkConnected, 'link connected');
      const port = Number(new URL(healthUrl ?? '').port);
      const silent = await openStalled(port, count);
      const heads = await openStalled(port, 200, PARTIAL_REQUEST_HEAD);
      expect((await health(healthUrl ?? '')).linkConnected).toBe(true);
      await silent.closedAtLeast(count, CLOSE_DEADLINE_MS);
      await heads.closedAtLeast(200, CLOSE_DEADLINE_MS);
      expect((await health(healthUrl ?? '')).listenerRefused).toEqual({ cap: 0, timeout: count + 200 });
      const logged = lines.filter((l) => l.msg.startsWith('connections refused'));
      expect(logged[0]).toMatchObject({ listener: 'health', counts: { timeout: 1 } });
      expect(logged.length).toBeLessThan(10);
    } finally {
      await app.stop();
    }
  });

  it('closes connections over BOT_HEALTH_MAX_CONNECTIONS at once and counts them', async () => {
    const { logger } = captureLogs('info');
    const app = buildBot(
      testConfig(
        certs,
        { botlink: gateway.url, platform: emu.apiRoot },
        { OWNS_UPDATES: 'false', BOT_HEALTH_PORT: '0', BOT_HEALTH_HANDSHAKE_TIMEOUT_MS: '120000', BOT_HEALTH_MAX_CONNECTIONS: '5' },
      ),
      logger,
    );
    const { healthUrl } = await app.start();
    try {
      const port = Number(new URL(healthUrl ?? '').port);
      const held = await openStalled(port, 4);
      const over = await openStalled(port, 30);
      await over.closedAtLeast(29, 15_000);
      held.destroy();
      over.destroy();
      // Once the held ones are gone there is room for the probe itself.
      // A probe that races the server's close of them is refused too, and counted.
      const deadline = Date.now() + 10_000;
      let probesRefused = 0;
      let body: HealthBody | undefined;
      while (body === undefined && Date.now() < deadline)
        body = await health(healthUrl ?? '').catch(() => {
          probesRefused += 1;
          return undefined;
        });
      expect(body?.listenerRefused).toEqual({ cap: 29 + probesRefused, timeout: 0 });
    } finally {
      await app.stop();
    }
  });

  it('refuses a cap that does not fit under the open-file limit', () => {
    expect(() => loadBotConfig({ ...POLICY_LINKS, PLATFORM_BOT_TOKEN: 't', BOT_HEALTH_MAX_CONNECTIONS: '1000000' })).toThrow(
      /BOT_HEALTH_MAX_CONNECTIONS: the connection caps \(BOT_HEALTH_MAX_CONNECTIONS=1000000\) must fit under the open-file limit/,
    );
  });
});
