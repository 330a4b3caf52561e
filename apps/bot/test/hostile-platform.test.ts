import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import { freePort } from '@wordgame/testkit';
import { PlatformClient, PlatformError } from '../src/platform/client.js';
import { HealthCounters } from '../src/platform/health-counters.js';
import { Backoff } from '../src/support/backoff.js';
import { MAX_UPDATE_ATTEMPTS, UpdatePoller } from '../src/updates/poller.js';
import type { RawUpdate } from '../src/platform/shapes.js';
import { POLICY_LINKS, tempCerts } from './support/fixture.js';
import { captureLogs } from './support/logs.js';
import { waitFor } from './support/wait.js';

const TOKEN = 'dev-bot-token';
let emu: PlatformEmulator;

beforeAll(async () => {
  emu = await startPlatformEmulator({ tokens: [TOKEN] });
});
afterAll(() => emu.stop());
beforeEach(() => emu.control.reset());
afterEach(async () => {
  await waitFor(() => emu.control.state().bots[0]?.polling === false, 'no poll pending');
  await new Promise((resolve) => setTimeout(resolve, 50));
});

function client(): { platform: PlatformClient; counters: HealthCounters } {
  const counters = new HealthCounters();
  const { logger } = captureLogs();
  return { platform: new PlatformClient({ apiRoot: emu.apiRoot, token: TOKEN, counters, logger, requestTimeoutMs: 5_000 }), counters };
}

const MALFORMED_BODIES = [
  ['an HTML page', '<html><body>Welcome to nginx!</body></html>'],
  ['an empty object', '{}'],
  ['an empty body', ''],
  ['a string result', '{"ok":true,"result":"abc"}'],
  ['ok:false with 200', '{"ok":false,"description":"nope"}'],
  ['updates without integer ids', '{"ok":true,"result":[{"update_id":"7"}]}'],
] as const;

describe('a 2xx answer that is not a Bot API envelope', () => {
  it.each(MALFORMED_BODIES)(
    'on the long poll (%s): stamps liveness, counted as unreadable, backed off, and the poll goes on',
    async (_what, body) => {
      const { platform, counters } = client();
      const { logger, lines } = captureLogs();
      const seen: number[] = [];
      emu.control.addFault({ method: 'getUpdates', body, times: 3 });
      const poller = new UpdatePoller({
        platform,
        onUpdate: (u) => Promise.resolve(void seen.push(u.update_id)),
        timeoutSeconds: 1,
        logger,
        backoff: new Backoff({ initialMs: 100, maxMs: 200 }),
      });
      poller.start();
      await waitFor(() => emu.control.faults().length === 0, 'the three malformed answers taken');
      const stampedByGarbage = counters.lastOkUnix;
      const user = emu.control.createUser().user.id;
      const { updates } = emu.control.sendUserMessage({ userId: user, text: 'after the garbage' });
      const updateId = updates[0]?.queued === true ? updates[0].update_id : -1;
      await waitFor(() => seen.includes(updateId), 'the next real update handled');
      await poller.stop();
      expect(stampedByGarbage).toBeGreaterThan(0n);
      const deltas = counters.take();
      expect(deltas.platformUnreadableResponses).toBe(3n);
      expect(deltas.connectFailures).toBe(0n);
      expect(deltas.apiErrors).toBe(0n);
      const polls = emu.control.calls('getUpdates');
      expect(polls.every((c) => c.params['offset'] === undefined || Number.isInteger(c.params['offset']))).toBe(true);
      const gaps = polls.slice(1, 4).map((c, i) => Date.parse(c.at) - Date.parse(polls[i]!.at));
      expect(gaps.every((ms) => ms >= 70)).toBe(true);
      expect(lines.some((l) => l.msg === 'getUpdates failed; retrying')).toBe(true);
    },
  );

  it.each(MALFORMED_BODIES.slice(0, 4))(
    'on any other call (%s): a malformed failure for the caller, liveness stamped, counted as unreadable only',
    async (_what, body) => {
      const { platform, counters } = client();
      emu.control.addFault({ method: 'getMe', body });
      const err = await platform.call('getMe').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(PlatformError);
      expect((err as PlatformError).kind).toBe('malformed');
      expect(counters.lastOkUnix).toBeGreaterThan(0n);
      expect(counters.take()).toMatchObject({ connectFailures: 0n, apiErrors: 0n, platformUnreadableResponses: 1n });
      await expect(platform.call('getMe')).resolves.toMatchObject({ is_bot: true });
      expect(counters.take()).toMatchObject({ connectFailures: 0n, apiErrors: 0n, platformUnreadableResponses: 0n });
    },
  );
});

describe('an update whose handler keeps failing', () => {
  it(`is parked after ${MAX_UPDATE_ATTEMPTS} attempts and the updates behind it are handled`, async () => {
    const { platform } = client();
    const { logger } = captureLogs();
    const user = emu.control.createUser().user.id;
    const first = emu.control.sendUserMessage({ userId: user, text: 'poison' }).updates[0];
    emu.control.sendUserMessage({ userId: user, text: 'fine' });
    const poisonId = first?.queued === true ? first.update_id : -1;
    const handled: number[] = [];
    const parked: { update: RawUpdate; reason: string }[] = [];
    const poller = new UpdatePoller({
      platform,
      onUpdate: (u) =>
        u.update_id === poisonId ? Promise.reject(new Error('cannot handle this one')) : Promise.resolve(void handled.push(u.update_id)),
      park: (update, reason) => void parked.push({ update, reason }),
      timeoutSeconds: 1,
      logger,
      backoff: new Backoff({ initialMs: 10, maxMs: 20 }),
    });
    poller.start();
    await waitFor(() => handled.length === 1, 'the update behind the poison handled');
    await waitFor(() => emu.control.state().bots[0]?.pendingUpdates.length === 0, 'both confirmed');
    await poller.stop();
    expect(parked).toHaveLength(1);
    expect(parked[0]?.update.update_id).toBe(poisonId);
    expect(parked[0]?.reason).toBe(`handler failed ${MAX_UPDATE_ATTEMPTS} times: cannot handle this one`);
  });
});

describe('a platform that answers getUpdates at once with nothing', () => {
  const GAP_MS = 500;
  const EMPTY = '{"ok":true,"result":[]}';

  it('follows an answer that carried updates at once, and holds only after an empty one', async () => {
    // A gap far longer than any wait below: a held poll would come a minute later, so the next
    // poll arriving at all shows it was not held, and the throttle count says which answers were.
    const HELD_MS = 60_000;
    const { platform } = client();
    const { logger } = captureLogs();
    const user = emu.control.createUser().user;
    const update = {
      update_id: 4242,
      message: { message_id: 1, date: 1, from: user, chat: { id: user.id, type: 'private' }, text: 'hi' },
    };
    const carrying = emu.control.addFault({ method: 'getUpdates', body: JSON.stringify({ ok: true, result: [update] }) });
    emu.control.addFault({ method: 'getUpdates', body: EMPTY, times: 1_000_000 });
    const seen: number[] = [];
    const poller = new UpdatePoller({
      platform,
      onUpdate: (u) => Promise.resolve(void seen.push(u.update_id)),
      timeoutSeconds: 30,
      minGapMs: HELD_MS,
      logger,
    });
    const polls = () => emu.control.calls('getUpdates');
    poller.start();
    try {
      await waitFor(() => polls().some((c) => c.faultId === carrying.id), 'the answer that carries an update');
      const answered = polls().find((c) => c.faultId === carrying.id)!;
      const after = () => polls().filter((c) => c.seq > answered.seq);
      await waitFor(() => after().length >= 1, 'the poll after the answer that carried an update', HELD_MS / 2);
      expect(seen).toEqual([4242]);
      expect(after()[0]?.params['offset']).toBe(4243);
      // That poll's empty answer is the first one held; nothing before it was.
      await waitFor(() => poller.throttled === 1, 'the empty answer held', HELD_MS / 2);
      expect(after()).toHaveLength(1);
    } finally {
      await poller.stop();
      emu.control.clearFaults();
    }
  }, 120_000);

  it('is polled at most once per BOT_POLL_MIN_GAP_MS by the bot process, counted', async () => {
    const certs = tempCerts();
    const healthPort = await freePort();
    emu.control.addFault({ method: 'getUpdates', body: EMPTY, times: 1_000_000 });
    const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', main], {
      env: {
        PATH: process.env['PATH'] ?? '',
        BOTLINK_URL: `https://127.0.0.1:${await freePort()}`,
        BOTLINK_TLS_CA: certs.ca.cert,
        BOTLINK_TLS_CERT: certs.bot.cert,
        BOTLINK_TLS_KEY: certs.bot.key,
        PLATFORM_API_ROOT: emu.apiRoot,
        PLATFORM_BOT_TOKEN: TOKEN,
        ...POLICY_LINKS,
        BOT_INSTANCE_ID: 'hostile-empty',
        BOT_OUTBOX_PATH: join(certs.dir, 'outbox.sqlite'),
        BOT_POLL_TIMEOUT_S: '30',
        BOT_POLL_MIN_GAP_MS: String(GAP_MS),
        BOT_HEALTH_PORT: String(healthPort),
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const polls = () => emu.control.calls('getUpdates');
    const health = async () =>
      (await (await fetch(`http://127.0.0.1:${healthPort}/health`)).json()) as { pollsThrottled: number; instance: string };
    try {
      await waitFor(() => polls().length >= 2, 'the bot process polling', 20_000);
      await waitFor(() => out.includes('bot health probe listening'), 'the health probe', 20_000);
      const before = polls().length;
      const throttledBefore = (await health()).pollsThrottled;
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      const made = polls().length - before;
      expect(made).toBeGreaterThanOrEqual(5);
      expect(made).toBeLessThanOrEqual(5_000 / GAP_MS + 2);
      // The throttle is held by counts, not by arrival times (on a loaded machine a late arrival
      // shortens the gap after it): at most one poll per gap over the window, and every empty
      // answer the bot re-polled sooner than the gap counted as throttled.
      expect((await health()).pollsThrottled - throttledBefore).toBeGreaterThanOrEqual(made - 1);
      expect(out).toContain('getUpdates answered empty sooner than the minimum gap');
    } finally {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
      emu.control.clearFaults();
      certs.cleanup();
    }
  }, 60_000);
});
