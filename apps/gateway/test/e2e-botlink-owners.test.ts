import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import { DEV_POLICY_LINKS, ensureDevCerts, freePort, type DevCerts } from '@wordgame/testkit';
import { eventually, sample } from './support/botlink-gateway.js';
import { testGatewayConfigEnv } from './support/gateway-config.js';
import { botProcess, serviceProcess, type BotProcess } from './support/payments-stack.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';

const TOKEN = 'owners-bot-token';

/**
 * Real processes throughout: the gateway (`apps/gateway/src/main.ts`) on ports fixed up front so it
 * can be restarted in place, real bot processes, and the platform emulator answering a second
 * concurrent getUpdates with Telegram's 409 "Conflict: terminated by other getUpdates request".
 */
let dir: string;
let certs: DevCerts;
let emu: PlatformEmulator;
const running: BotProcess[] = [];
const proxies: TcpProxy[] = [];
let outboxes = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gw-owners-'));
  certs = ensureDevCerts(dir);
  emu = await startPlatformEmulator({ tokens: [TOKEN] });
});
afterAll(async () => {
  await emu.stop();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  // Proxies first: a frozen relay would hold the processes' graceful stop until its own deadline.
  for (const proxy of proxies.splice(0)) await proxy.close();
  for (const p of running.splice(0).reverse()) await p.stop();
  emu.control.reset();
});

/** A gateway process on fixed ports; `metrics()` scrapes its /metrics. */
async function gatewayProcess(env: Record<string, string> = {}) {
  const botlinkPort = await freePort();
  const metricsPort = await freePort();
  const proc = serviceProcess('apps/gateway/src/main.ts', {
    ...testGatewayConfigEnv(certs),
    BOTLINK_PORT: String(botlinkPort),
    GATEWAY_METRICS_PORT: String(metricsPort),
    LOG_LEVEL: 'info',
    ...env,
  });
  running.push(proc);
  const start = async () => {
    const before = proc.logs.length;
    proc.start();
    await eventually(() => proc.logs.slice(before).some((l) => l['msg'] === 'gateway listening'), 60_000);
  };
  await start();
  return {
    proc,
    botlinkUrl: `https://127.0.0.1:${botlinkPort}`,
    botlinkPort,
    start,
    metrics: async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text(),
  };
}

/** A real bot process linked to `botlinkUrl`; each has its own outbox file. */
function bot(botlinkUrl: string, env: Record<string, string>): BotProcess {
  const proc = botProcess({
    BOTLINK_URL: botlinkUrl,
    BOTLINK_TLS_CA: certs.ca.cert,
    BOTLINK_TLS_CERT: certs.bot.cert,
    BOTLINK_TLS_KEY: certs.bot.key,
    BOTLINK_BACKOFF_INITIAL_MS: '100',
    BOTLINK_BACKOFF_MAX_MS: '300',
    PLATFORM_API_ROOT: emu.apiRoot,
    PLATFORM_BOT_TOKEN: TOKEN,
    ...DEV_POLICY_LINKS,
    BOT_POLL_TIMEOUT_S: '1',
    BOT_POLL_RETRY_INITIAL_MS: '100',
    BOT_POLL_RETRY_MAX_MS: '300',
    BOT_HEALTH_INTERVAL_MS: '500',
    BOT_OUTBOX_PATH: join(dir, `outbox-${++outboxes}.sqlite`),
    LOG_LEVEL: 'info',
    ...env,
  });
  running.push(proc);
  proc.start();
  return proc;
}

const opened = (p: BotProcess) => p.logs.filter((l) => l['msg'] === 'bot-link stream opened').length;

describe('bots with one instance_id (two real bot processes, a gateway process, the platform emulator)', () => {
  // The gateway's own keepalive is out of the way: only the duplicate probe (a PING answered
  // within BOTLINK_PING_TIMEOUT_MS) tells a live Link from a dead one here.
  const gatewayEnv = { BOTLINK_PING_INTERVAL_MS: '600000', BOTLINK_PING_TIMEOUT_MS: '1000' };

  it('flags a second live process with the same BOT_INSTANCE_ID owning updates, and the 409s reach the gateway metric', async () => {
    const gw = await gatewayProcess(gatewayEnv);
    const first = bot(gw.botlinkUrl, { BOT_INSTANCE_ID: 'bot-1' });
    await eventually(async () => sample(await gw.metrics(), 'botlink_connected_bots') === 1, 60_000);
    const second = bot(gw.botlinkUrl, { BOT_INSTANCE_ID: 'bot-1' });
    await eventually(async () => sample(await gw.metrics(), 'botlink_connected_bots') === 2, 60_000);
    await eventually(async () => (sample(await gw.metrics(), 'bot_platform_update_conflicts_total') ?? 0) >= 3, 30_000);
    const text = await gw.metrics();
    // The alert conditions: BotDuplicateUpdateOwners (sum(botlink_update_owners) > 1) and BotUpdateConflicts.
    expect(sample(text, 'botlink_update_owners')).toBe(2);
    expect(sample(text, 'botlink_duplicate_owners_total')).toBe(1);
    expect(sample(text, 'botlink_link_ends_total{reason="replaced"}')).toBe(0);
    const conflicts = emu.control.calls('getUpdates').filter((c) => c.status === 409).length;
    expect(sample(text, 'bot_platform_update_conflicts_total')).toBeLessThanOrEqual(conflicts);
    const flagged = gw.proc.logs.filter((l) => typeof l['msg'] === 'string' && l['msg'].startsWith('a second bot owns updates'));
    expect(flagged).toEqual([expect.objectContaining({ level: 50, instanceId: 'bot-1', otherOwners: ['bot-1'], sameInstanceId: true })]);
    // Each process kept its one stream: neither was replaced and none reconnected.
    expect([opened(first), opened(second)]).toEqual([1, 1]);
  }, 150_000);

  it('does not flag a bot that is killed and comes back with the same instance_id', async () => {
    const gw = await gatewayProcess(gatewayEnv);
    const killed = bot(gw.botlinkUrl, { BOT_INSTANCE_ID: 'bot-k' });
    await eventually(async () => sample(await gw.metrics(), 'botlink_update_owners') === 1, 60_000);
    await eventually(() => opened(killed) === 1 && emu.control.calls('getUpdates').length > 0, 30_000);
    await killed.kill();
    killed.start();
    await eventually(() => opened(killed) === 2, 60_000);
    await eventually(async () => sample(await gw.metrics(), 'botlink_update_owners') === 1, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const text = await gw.metrics();
    expect(sample(text, 'botlink_connected_bots')).toBe(1);
    expect(sample(text, 'botlink_update_owners')).toBe(1);
    expect(sample(text, 'botlink_duplicate_owners_total')).toBe(0);
    expect(sample(text, 'bot_platform_update_conflicts_total')).toBe(0);
  }, 150_000);

  it('replaces, silently, the half-open Link of a bot that reconnected over a new connection', async () => {
    const gw = await gatewayProcess(gatewayEnv);
    const proxy = await startTcpProxy(gw.botlinkPort);
    proxies.push(proxy);
    const blinking = bot(`https://127.0.0.1:${proxy.port}`, { BOT_INSTANCE_ID: 'bot-h', BOTLINK_PING_INTERVAL_MS: '1000' });
    await eventually(async () => sample(await gw.metrics(), 'botlink_update_owners') === 1, 60_000);
    // Bytes stop on the open connection, both sockets stay up: the bot's own PINGs fail, it drops
    // that connection and links again over a new one; the gateway still holds the old Link.
    // Counted from here: under load the bot may have linked more than once before the freeze.
    const streams = opened(blinking);
    const replaced = async () => sample(await gw.metrics(), 'botlink_link_ends_total{reason="replaced"}') ?? 0;
    const replacedBefore = await replaced();
    proxy.freeze();
    await eventually(() => opened(blinking) > streams, 30_000);
    await eventually(async () => (await replaced()) > replacedBefore, 30_000);
    const text = await gw.metrics();
    expect(sample(text, 'botlink_connected_bots')).toBe(1);
    expect(sample(text, 'botlink_update_owners')).toBe(1);
    expect(sample(text, 'botlink_duplicate_owners_total')).toBe(0);
  }, 150_000);

  it('gives each process its own instance_id when BOT_INSTANCE_ID is unset', async () => {
    const gw = await gatewayProcess(gatewayEnv);
    bot(gw.botlinkUrl, { OWNS_UPDATES: 'false' });
    bot(gw.botlinkUrl, { OWNS_UPDATES: 'false' });
    await eventually(async () => sample(await gw.metrics(), 'botlink_connected_bots') === 2, 60_000);
    // Distinct ids of the opened Links (a process that reconnects under load opens again with its own id).
    // The log lines come through the gateway's stdout pipe, which may trail its metrics: wait for them.
    const distinct = () => [...new Set(gw.proc.logs.filter((l) => l['msg'] === 'bot link opened').map((l) => String(l['instanceId'])))];
    await eventually(() => distinct().length >= 2, 30_000);
    const ids = distinct();
    expect(ids).toHaveLength(2);
    const host = `${hostname().slice(0, 100)}-`;
    for (const id of ids) {
      expect(id.startsWith(host)).toBe(true);
      expect(id.slice(host.length)).toMatch(/^[0-9a-f]{8}$/);
    }
  }, 150_000);
});

describe('the liveness gauge across a gateway restart (a real bot process and gateway process)', () => {
  it('has no sample right after the restart and the bot’s last ok as soon as the bot links again, not 30 s later', async () => {
    const gw = await gatewayProcess();
    const proxy = await startTcpProxy(gw.botlinkPort);
    proxies.push(proxy);
    const healthPort = await freePort();
    // Health every 30 s (the spec's interval); no long poll, so the bot's last ok stays the getMe of its start.
    bot(`https://127.0.0.1:${proxy.port}`, {
      BOT_INSTANCE_ID: 'bot-live',
      OWNS_UPDATES: 'false',
      BOT_HEALTH_INTERVAL_MS: '30000',
      BOT_HEALTH_PORT: String(healthPort),
    });
    await eventually(async () => sample(await gw.metrics(), 'botlink_connected_bots') === 1, 60_000);
    const probe = (await (await fetch(`http://127.0.0.1:${healthPort}/health`)).json()) as { platformLastOkUnix: string };
    const lastOk = Number(probe.platformLastOkUnix);
    expect(lastOk).toBeGreaterThan(0);
    await eventually(async () => sample(await gw.metrics(), 'bot_platform_last_ok_unix') === lastOk, 10_000);

    // The bot cannot link while the gateway restarts, so the first scrape sees a gateway no bot reported to.
    proxy.refuse();
    await gw.proc.stop();
    await gw.start();
    const fresh = await gw.metrics();
    expect(sample(fresh, 'botlink_connected_bots')).toBe(0);
    expect(fresh).toMatch(/^# TYPE bot_platform_last_ok_unix gauge$/m);
    expect(fresh).not.toMatch(/^bot_platform_last_ok_unix /m);

    proxy.accept();
    await eventually(async () => sample(await gw.metrics(), 'botlink_connected_bots') === 1, 30_000);
    await eventually(async () => sample(await gw.metrics(), 'bot_platform_last_ok_unix') !== undefined, 30_000);
    expect(sample(await gw.metrics(), 'bot_platform_last_ok_unix')).toBe(lastOk);
  }, 150_000);
});
