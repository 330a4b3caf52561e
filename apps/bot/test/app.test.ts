import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import { buildBot } from '../src/app.js';
import { loadBotConfig } from '../src/config.js';
import { POLICY_LINKS, tempCerts, testConfig } from './support/fixture.js';
import { TestGateway } from './support/gateway.js';
import { captureLogs } from './support/logs.js';
import { waitFor } from './support/wait.js';

const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const tsx = fileURLToPath(new URL('../../../node_modules/tsx/dist/cli.mjs', import.meta.url));
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

describe('bot configuration', () => {
  it.each([
    ['BOTLINK_URL', 'abc', /BOTLINK_URL: must be a URL \(https:\)/],
    ['BOTLINK_URL', 'http://127.0.0.1:8443', /BOTLINK_URL: must be a URL \(https:\)/],
    ['BOT_HEALTH_INTERVAL_MS', 'soon', /BOT_HEALTH_INTERVAL_MS: must be a whole number/],
    ['OWNS_UPDATES', 'maybe', /OWNS_UPDATES: must be true or false/],
    ['BOT_DISCUSSION_CHAT_ID', 'my chat', /BOT_DISCUSSION_CHAT_ID: must be a numeric chat id or @username/],
    ['BOT_PRECHECKOUT_TIMEOUT_MS', '12000', /BOT_PRECHECKOUT_TIMEOUT_MS: must be between 100 and 8000/],
  ])('names %s when it is %p', (name, value, problem) => {
    expect(() => loadBotConfig({ ...POLICY_LINKS, PLATFORM_BOT_TOKEN: 't', [name]: value })).toThrow(problem);
  });

  it('gives every process its own instance id unless BOT_INSTANCE_ID pins one', () => {
    const a = loadBotConfig({ ...POLICY_LINKS, PLATFORM_BOT_TOKEN: 't' }).BOT_INSTANCE_ID;
    const b = loadBotConfig({ ...POLICY_LINKS, PLATFORM_BOT_TOKEN: 't' }).BOT_INSTANCE_ID;
    const host = `${hostname().slice(0, 100)}-`;
    expect(a.startsWith(host)).toBe(true);
    expect(a.slice(host.length)).toMatch(/^[0-9a-f]{8}$/);
    expect(b).not.toBe(a);
    expect(loadBotConfig({ ...POLICY_LINKS, PLATFORM_BOT_TOKEN: 't', BOT_INSTANCE_ID: 'bot-1' }).BOT_INSTANCE_ID).toBe('bot-1');
    expect(() => loadBotConfig({ ...POLICY_LINKS, PLATFORM_BOT_TOKEN: 't', BOT_INSTANCE_ID: 'x'.repeat(129) })).toThrow(
      /BOT_INSTANCE_ID: must be at most 128 characters/,
    );
  });

  it('requires PLATFORM_BOT_TOKEN and never echoes it', () => {
    expect(() => loadBotConfig({})).toThrow(/PLATFORM_BOT_TOKEN: .*\(missing\)/);
  });

  it.each(['PRIVACY_POLICY_URL', 'TERMS_OF_SERVICE_URL'])(
    'refuses to start without %s, naming it, and takes only an https link',
    (name) => {
      const { [name as keyof typeof POLICY_LINKS]: _dropped, ...others } = POLICY_LINKS;
      expect(() => loadBotConfig({ ...others, PLATFORM_BOT_TOKEN: 't' })).toThrow(new RegExp(`${name}: .*\\(missing\\)`));
      expect(() => loadBotConfig({ ...POLICY_LINKS, PLATFORM_BOT_TOKEN: 't', [name]: 'http://wordgame.example/policy' })).toThrow(
        new RegExp(`${name}: must be a URL \\(https:\\)`),
      );
      expect(() => loadBotConfig({ ...POLICY_LINKS, PLATFORM_BOT_TOKEN: 't', BOT_MINI_APP_URL: 'http://wallet.example' })).toThrow(
        /BOT_MINI_APP_URL: must be a URL \(https:\)/,
      );
    },
  );

  it('accepts chat ids as numbers or @usernames and applies the spec defaults', () => {
    const config = loadBotConfig({
      ...POLICY_LINKS,
      PLATFORM_BOT_TOKEN: 't',
      BOT_GAME_CHANNEL_ID: '@wordgame_news',
      BOT_DISCUSSION_CHAT_ID: '-1001234567890',
    });
    expect(config).toMatchObject({
      BOT_GAME_CHANNEL_ID: '@wordgame_news',
      BOT_DISCUSSION_CHAT_ID: '-1001234567890',
      BOT_HEALTH_INTERVAL_MS: 30_000,
      BOTLINK_BACKOFF_INITIAL_MS: 1_000,
      OWNS_UPDATES: true,
    });
  });
});

describe('bot main', () => {
  it('exits non-zero naming a missing policy link', () => {
    const run = spawnSync(process.execPath, [tsx, main], {
      env: { ...process.env, PLATFORM_BOT_TOKEN: 't', TERMS_OF_SERVICE_URL: POLICY_LINKS.TERMS_OF_SERVICE_URL, PRIVACY_POLICY_URL: '' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/PRIVACY_POLICY_URL/);
  });

  it('exits non-zero naming a bad variable', () => {
    const run = spawnSync(process.execPath, [tsx, main], {
      env: { ...process.env, ...POLICY_LINKS, PLATFORM_BOT_TOKEN: 't', BOTLINK_URL: 'abc', BOT_POLL_TIMEOUT_S: '99' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/BOTLINK_URL: must be a URL/);
    expect(run.stderr).toMatch(/BOT_POLL_TIMEOUT_S: must be between 0 and 50/);
  });

  it('runs as a process: connects, polls, and stops cleanly on SIGTERM', async () => {
    const before = gateway.sessions.length;
    const env = {
      ...process.env,
      BOTLINK_URL: gateway.url,
      BOTLINK_TLS_CA: certs.ca.cert,
      BOTLINK_TLS_CERT: certs.bot.cert,
      BOTLINK_TLS_KEY: certs.bot.key,
      PLATFORM_API_ROOT: emu.apiRoot,
      PLATFORM_BOT_TOKEN: 'dev-bot-token',
      ...POLICY_LINKS,
      BOT_INSTANCE_ID: 'proc-bot',
      BOT_OUTBOX_PATH: `${certs.dir}/outbox-proc.sqlite`,
      LOG_LEVEL: 'info',
    };
    const child = spawn(process.execPath, ['--import', 'tsx', main], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const session = await gateway.session(before + 1, 20_000);
    await waitFor(() => session.received[0]?.msg.case === 'hello', 'hello from the process', 20_000);
    await waitFor(() => emu.control.state().bots[0]?.polling === true, 'the process polling', 20_000);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    await waitFor(() => session.requestEnded, 'stream closed by the process');
    expect(out).not.toContain('dev-bot-token');
  });
});

describe('bot start', () => {
  it('fails start with a clear error when the platform refuses the token', async () => {
    const { logger } = captureLogs();
    const app = buildBot(testConfig(certs, { botlink: gateway.url, platform: emu.apiRoot }, { PLATFORM_BOT_TOKEN: 'wrong-token' }), logger);
    await expect(app.start()).rejects.toThrow('PLATFORM_BOT_TOKEN was refused by the platform (401)');
    await app.stop();
  });

  it('names the variable of a certificate file it cannot read', async () => {
    const { logger } = captureLogs();
    const app = buildBot(
      testConfig(certs, { botlink: gateway.url, platform: emu.apiRoot }, { BOTLINK_TLS_KEY: '/nonexistent/bot.key' }),
      logger,
    );
    await expect(app.start()).rejects.toThrow('BOTLINK_TLS_KEY: cannot read /nonexistent/bot.key (ENOENT)');
    await app.stop();
  });

  it('does not poll when it does not own updates, and serves its loopback health probe', async () => {
    emu.control.reset();
    const { logger } = captureLogs();
    const app = buildBot(
      testConfig(certs, { botlink: gateway.url, platform: emu.apiRoot }, { OWNS_UPDATES: 'false', BOT_HEALTH_PORT: '0' }),
      logger,
    );
    const { healthUrl } = await app.start();
    await waitFor(() => app.linkConnected, 'link connected');
    const res = await fetch(`${healthUrl}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      status: 'ok',
      linkConnected: true,
      platformLastOkUnix: expect.stringMatching(/^\d+$/) as string,
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(emu.control.calls('getUpdates')).toHaveLength(0);
    expect((await fetch(`${healthUrl}/livez`)).status).toBe(200);
    const ready = await fetch(`${healthUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ok', linkConnected: true, platformRecent: true });
    await app.stop();
    expect(app.linkConnected).toBe(false);
  });

  it('is live but not ready while no gateway accepted its link', async () => {
    const { logger } = captureLogs();
    const app = buildBot(
      testConfig(certs, { botlink: 'https://127.0.0.1:1', platform: emu.apiRoot }, { OWNS_UPDATES: 'false', BOT_HEALTH_PORT: '0' }),
      logger,
    );
    const { healthUrl } = await app.start();
    try {
      expect((await fetch(`${healthUrl}/livez`)).status).toBe(200);
      const ready = await fetch(`${healthUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: 'degraded', linkConnected: false });
    } finally {
      await app.stop();
    }
  });
});
