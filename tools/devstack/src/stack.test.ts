import { spawnSync } from 'node:child_process';
import net from 'node:net';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '@wordgame/testkit';
import { walletLaunchLinks } from './launch-links.js';
import { startStack, type Stack, type StackPorts } from './stack.js';

const root = resolve(import.meta.dirname, '../../..');

/**
 * The README's run command end to end: all five processes from the built bundles, on free ports,
 * in a throwaway data folder. Needs `nx build` of the three apps (the test target depends on it).
 */
describe('the local stack', () => {
  let stack: Stack;
  let data: string;
  const lines: string[] = [];

  beforeAll(async () => {
    data = mkdtempSync(join(tmpdir(), 'wordgame-stack-'));
    // As root the database runs as `postgres`, who must enter the folder (mkdtemp makes it 0700).
    chmodSync(data, 0o755);
    const ports: StackPorts = {
      database: await freePort(),
      platform: await freePort(),
      provider: await freePort(),
      backend: await freePort(),
      gatewayHttp: await freePort(),
      botlink: await freePort(),
      botHealth: await freePort(),
      gatewayInternal: await freePort(),
      gatewayMetrics: await freePort(),
      backendMetrics: await freePort(),
    };
    stack = await startStack({ root, dataDir: data, ports, write: (l) => lines.push(l), readyTimeoutMs: 60_000, logLevel: 'warn' });
  }, 90_000);

  afterAll(async () => {
    await stack?.stop();
    rmSync(data, { recursive: true, force: true });
  });

  it('brings up every process with healthy backend and gateway', async () => {
    expect(stack.processes.map((p) => p.spec.name)).toEqual(['database', 'platform', 'provider', 'backend', 'gateway', 'bot']);
    const gateway = await fetch(`${stack.urls.gateway}/health`);
    expect(gateway.status).toBe(200);
    expect(await gateway.json()).toMatchObject({ status: 'ok', backend: { database: 'postgres' } });
    expect((await fetch(`${stack.urls.backend}/health`)).status).toBe(200);
    expect((await fetch(`${stack.urls.botHealth}/health`)).status).toBe(200);
    expect(existsSync(join(data, 'certs', 'ca.crt'))).toBe(true);
    expect(existsSync(join(data, 'postgres', 'PG_VERSION'))).toBe(true);
  });

  it('wires the generated service tokens: the gateway reaches the backend, a caller without the token does not', async () => {
    const gateway = (await (await fetch(`${stack.urls.gateway}/health`)).json()) as { backend?: { status?: string } };
    expect(gateway.backend).toMatchObject({ status: 'ok' });
    const stranger = await fetch(`${stack.urls.backend}/backend.v1.SystemService/Check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(stranger.status).toBe(401);
  });

  it('prints wallet links that open each context: the built page, signed Telegram init data and signed VK launch parameters', async () => {
    const links = walletLaunchLinks(stack.urls.gateway);
    const page = await fetch(links.web);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await page.text()).toMatch(/<script type="module" crossorigin src="\/wallet\/assets\/[^"]+\.js"><\/script>/);
    const session = async (path: string, body: unknown) =>
      (await (
        await fetch(`${stack.urls.gateway}/api/v1/session/${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json()) as { platform?: unknown };
    const initData = new URLSearchParams(new URL(links.telegram).hash.slice(1)).get('tgWebAppData');
    expect(await session('telegram', { init_data: initData })).toMatchObject({ platform: { kind: 'telegram' } });
    expect(await session('vk', { launch_params: new URL(links.vk).search.slice(1) })).toMatchObject({
      platform: { kind: 'vk', subtype: 'android' },
    });
  });

  it.each(['telegram', 'vk'])(
    'npm run dev:launch -- %s <user_id> prints a launch string the stack accepts, and --session a session token',
    async (platform) => {
      const run = (args: string[]) =>
        spawnSync('npm', ['run', '--silent', 'dev:launch', '--', platform, '424242', ...args], {
          cwd: root,
          encoding: 'utf8',
          env: { ...process.env, PLATFORM_BOT_TOKEN: '', BACKEND_VK_APP_SECRET: '' },
        });
      const printed = run([]);
      expect(printed.status).toBe(0);
      const launch = printed.stdout.trim();
      const body = platform === 'telegram' ? { init_data: launch } : { launch_params: launch };
      const opened = await fetch(`${stack.urls.gateway}/api/v1/session/${platform}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(opened.status).toBe(200);
      const session = run(['--session', stack.urls.gateway]);
      expect(session.stderr).toBe('');
      expect(session.status).toBe(0);
      const token = session.stdout.trim();
      expect((await fetch(`${stack.urls.gateway}/api/v1/user/wallet`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    },
  );

  it('serves gateway metrics in Prometheus text format on the metrics port only', async () => {
    expect((await fetch(`${stack.urls.gateway}/metrics`)).status).toBe(404);
    const res = await fetch(stack.urls.metrics);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toMatch(/^# HELP /m);
  });

  it('has the bot linked to the gateway over mutual TLS', async () => {
    const deadline = Date.now() + 20_000;
    let text = '';
    while (Date.now() < deadline) {
      text = await (await fetch(stack.urls.metrics)).text();
      if (/^botlink_connected_bots 1$/m.test(text)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(text).toMatch(/^botlink_connected_bots 1$/m);
    expect(text).toMatch(/^# TYPE bot_platform_last_ok_unix gauge$/m);
  }, 30_000);

  it('stops every process cleanly', async () => {
    await stack.stop();
    const codes = await Promise.all(stack.processes.map((p) => p.exited));
    expect(codes).toEqual([0, 0, 0, 0, 0, 0]);
    // PostgreSQL's own last line of a fast shutdown: the next start needs no recovery.
    expect(lines.some((l) => l.startsWith('[database]') && l.includes('database system is shut down'))).toBe(true);
  }, 60_000);
});

/** A database that cannot start stops `npm start` at once with PostgreSQL's own words, not after the readiness wait. */
describe('the local stack when its database cannot start', () => {
  it('fails with the database process’s exit and the server’s log lines, and leaves the cluster for the next start', async () => {
    const data = mkdtempSync(join(tmpdir(), 'wordgame-stack-busy-'));
    // As root the database runs as `postgres`, who must enter the folder (mkdtemp makes it 0700).
    chmodSync(data, 0o755);
    // The port is taken by a listener that drops every connection (so close() below waits for none).
    const taken = net.createServer((socket) => socket.destroy());
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as net.AddressInfo).port;
    const free = async () => freePort();
    const ports: StackPorts = {
      database: port,
      platform: await free(),
      provider: await free(),
      backend: await free(),
      gatewayHttp: await free(),
      botlink: await free(),
      botHealth: await free(),
      gatewayInternal: await free(),
      gatewayMetrics: await free(),
      backendMetrics: await free(),
    };
    const lines: string[] = [];
    try {
      // A wait that the failure must cut short: jest's own timeout below is far shorter.
      await expect(
        startStack({ root, dataDir: data, ports, write: (l) => lines.push(l), readyTimeoutMs: 3_600_000, logLevel: 'warn' }),
      ).rejects.toThrow(
        /database exited with code 1 before it was ready:[\s\S]*could not bind IPv4 address "127\.0\.0\.1": Address already in use/,
      );
      expect(lines.some((l) => l.startsWith('[database]') && l.includes('Address already in use'))).toBe(true);
      expect(existsSync(join(data, 'postgres', 'PG_VERSION'))).toBe(true);
    } finally {
      await new Promise((r) => taken.close(r));
      rmSync(data, { recursive: true, force: true });
    }
  }, 120_000);
});
