import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import { PlatformClient, PlatformError } from '../src/platform/client.js';
import { HealthCounters, type HealthDeltas } from '../src/platform/health-counters.js';
import { UpdatePoller } from '../src/updates/poller.js';
import { captureLogs } from './support/logs.js';
import { waitFor } from './support/wait.js';

const TOKEN = 'dev-bot-token';
let emu: PlatformEmulator;

beforeAll(async () => {
  emu = await startPlatformEmulator({ tokens: [TOKEN] });
});
afterAll(() => emu.stop());
beforeEach(() => emu.control.reset());
// A stopped poller's aborted getUpdates can still be finishing inside the emulator (and would take
// the next test's fault); let it settle before the next test arranges anything.
afterEach(async () => {
  await waitFor(() => emu.control.state().bots[0]?.polling === false, 'no poll pending');
  await new Promise((resolve) => setTimeout(resolve, 50));
});

/** A client with counters whose clock ticks once per stamp, so every stamp is visible. */
function client(maxRetryAfterMs = 60_000): { platform: PlatformClient; counters: HealthCounters; stamps: () => number } {
  let clock = 1_700_000_000;
  const counters = new HealthCounters(() => ++clock);
  const { logger } = captureLogs();
  const platform = new PlatformClient({ apiRoot: emu.apiRoot, token: TOKEN, counters, logger, maxRetryAfterMs, requestTimeoutMs: 5_000 });
  return { platform, counters, stamps: () => clock - 1_700_000_000 };
}

function totals(counters: HealthCounters): Pick<HealthDeltas, 'connectFailures' | 'apiErrors' | 'rateLimited'> {
  const { connectFailures, apiErrors, rateLimited } = counters.take();
  return { connectFailures, apiErrors, rateLimited };
}

async function failure(call: Promise<unknown>): Promise<PlatformError> {
  try {
    await call;
  } catch (err: unknown) {
    if (err instanceof PlatformError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

describe('the one platform-API client (Bot behaviour toward the chat-platform API)', () => {
  it('keeps its connections alive: calls in a row reuse one, concurrent calls open one each and keep them', async () => {
    const { platform } = client();
    for (let i = 0; i < 20; i += 1) await platform.call('getMe');
    expect(platform.connectionsOpened).toBe(1);
    await Promise.all(Array.from({ length: 4 }, () => platform.call('getMe')));
    const afterBurst = platform.connectionsOpened;
    expect(afterBurst).toBeLessThanOrEqual(4);
    for (let i = 0; i < 3; i += 1) await Promise.all(Array.from({ length: 4 }, () => platform.call('getMe')));
    expect(platform.connectionsOpened).toBe(afterBurst);
    platform.close();
  });

  it('stamps liveness on any 2xx', async () => {
    const { platform, counters } = client();
    expect(counters.lastOkUnix).toBe(0n);
    await platform.call('getMe');
    expect(counters.lastOkUnix).toBe(1_700_000_001n);
    await platform.call('getChatMember', { chat_id: -1, user_id: 1 }).catch(() => undefined);
    expect(counters.lastOkUnix).toBe(1_700_000_001n);
    expect(totals(counters)).toEqual({ connectFailures: 0n, apiErrors: 0n, rateLimited: 0n });
  });

  it('keeps liveness fresh on an idle bot: every empty long-poll answer stamps it', async () => {
    const { platform, counters, stamps } = client();
    const { logger } = captureLogs();
    const poller = new UpdatePoller({ platform, onUpdate: () => Promise.resolve(), timeoutSeconds: 1, logger });
    poller.start();
    await waitFor(() => stamps() >= 2, 'two idle polls answered and stamped', 10_000);
    await poller.stop();
    const answered = emu.control.calls('getUpdates').filter((c) => c.status === 200);
    expect(answered.every((c) => (c.durationMs ?? 0) >= 900)).toBe(true);
    expect(counters.lastOkUnix).toBe(BigInt(1_700_000_000 + stamps()));
    expect(totals(counters)).toEqual({ connectFailures: 0n, apiErrors: 0n, rateLimited: 0n });
  });

  it.each([
    ['a 5xx with an HTML body', { status: 502 }, 'server'],
    ['a dropped connection', { drop: true }, 'transport'],
  ] as const)('counts %s on the long poll as connect_failures', async (_what, fault, kind) => {
    const { platform, counters } = client();
    emu.control.addFault({ method: 'getUpdates', ...fault });
    const err = await failure(platform.call('getUpdates', { timeout: 0 }, { longPoll: true }));
    expect(err.kind).toBe(kind);
    expect(err.message).not.toContain(TOKEN);
    expect(totals(counters)).toEqual({ connectFailures: 1n, apiErrors: 0n, rateLimited: 0n });
    expect(counters.lastOkUnix).toBe(0n);
  });

  it.each([
    ['a 5xx with an HTML body', { status: 500 }, 'server'],
    ['a dropped connection', { drop: true }, 'transport'],
  ] as const)('counts %s on any other call as api_errors', async (_what, fault, kind) => {
    const { platform, counters } = client();
    emu.control.addFault({ method: 'sendMessage', ...fault });
    const err = await failure(platform.call('sendMessage', { chat_id: 1, text: 'hi' }));
    expect(err.kind).toBe(kind);
    expect(totals(counters)).toEqual({ connectFailures: 0n, apiErrors: 1n, rateLimited: 0n });
  });

  it('counts a failed long poll inside the real poll loop as a connect_failure and polls on', async () => {
    const { platform, counters } = client();
    const { logger } = captureLogs();
    emu.control.addFault({ method: 'getUpdates', status: 503 });
    const seen: number[] = [];
    const poller = new UpdatePoller({ platform, onUpdate: (u) => Promise.resolve(void seen.push(u.update_id)), timeoutSeconds: 1, logger });
    poller.start();
    await waitFor(() => emu.control.calls('getUpdates').some((c) => c.status === 503), 'the failed poll');
    emu.control.sendUserMessage({ userId: emu.control.createUser().user.id, text: 'hello' });
    await waitFor(() => seen.length === 1, 'the update after the failure', 10_000);
    await poller.stop();
    expect(totals(counters)).toMatchObject({ connectFailures: 1n, apiErrors: 0n });
  });

  it('counts a 429, pauses every further call for its retry_after, then proceeds', async () => {
    const { platform, counters } = client();
    emu.control.addFault({ method: 'getMe', status: 429, retryAfter: 1 });
    const err = await failure(platform.call('getMe'));
    expect(err).toMatchObject({ kind: 'rate_limited', status: 429 });
    expect(platform.pauseLeftMs()).toBeGreaterThan(500);
    const user = emu.control.createUser({ started: true }).user.id;
    await platform.call('sendMessage', { chat_id: user, text: 'after the pause' });
    const [limited, next] = emu.control.calls();
    expect(next?.method).toBe('sendMessage');
    expect(Date.parse(next!.at) - Date.parse(limited!.at)).toBeGreaterThanOrEqual(1_000);
    expect(totals(counters)).toEqual({ connectFailures: 0n, apiErrors: 0n, rateLimited: 1n });
  });

  it('bounds the honoured retry_after by the configured maximum', async () => {
    const { platform, counters } = client(200);
    emu.control.addFault({ method: 'getMe', status: 429, retryAfter: 3_600 });
    await failure(platform.call('getMe'));
    expect(platform.pauseLeftMs()).toBeLessThanOrEqual(200);
    await expect(platform.call('getMe')).resolves.toMatchObject({ is_bot: true });
    expect(totals(counters).rateLimited).toBe(1n);
  });

  it('counts a 400 (and other 4xx) nowhere', async () => {
    const { platform, counters } = client();
    const bad = await failure(platform.call('sendMessage', { chat_id: 1, text: '' }));
    expect(bad).toMatchObject({ kind: 'client', status: 400, description: 'Bad Request: message text is empty' });
    const never = emu.control.createUser({ started: false }).user.id;
    const forbidden = await failure(platform.call('sendMessage', { chat_id: never, text: 'hi' }));
    expect(forbidden).toMatchObject({ kind: 'client', status: 403 });
    emu.control.addFault({ method: 'sendMessage', status: 409 });
    expect(await failure(platform.call('sendMessage', { chat_id: never, text: 'hi' }))).toMatchObject({ kind: 'client', status: 409 });
    expect(counters.take()).toMatchObject({ connectFailures: 0n, apiErrors: 0n, rateLimited: 0n, updateConflicts: 0n });
    expect(counters.lastOkUnix).toBe(0n);
  });
});

describe('the update long poll', () => {
  it('delivers each update once in order, confirms it by offset and asks for chat_member updates', async () => {
    const { platform } = client();
    const { logger } = captureLogs();
    const user = emu.control.createUser().user.id;
    const seen: number[] = [];
    const poller = new UpdatePoller({ platform, onUpdate: (u) => Promise.resolve(void seen.push(u.update_id)), timeoutSeconds: 1, logger });
    poller.start();
    await waitFor(() => emu.control.state().bots[0]?.polling === true, 'polling');
    const ids = [1, 2, 3].map(() => {
      const { updates } = emu.control.sendUserMessage({ userId: user, text: 'hi' });
      const [queued] = updates;
      return queued?.queued ? queued.update_id : -1;
    });
    await waitFor(() => seen.length === 3, 'three updates');
    await waitFor(() => emu.control.state().bots[0]?.pendingUpdates.length === 0, 'confirmed');
    await poller.stop();
    expect(seen).toEqual(ids);
    expect(emu.control.state().bots[0]?.allowedUpdates).toEqual([
      'message',
      'chat_member',
      'pre_checkout_query',
      'callback_query',
      'chat_join_request',
    ]);
  });

  it('leaves an update whose handler failed unconfirmed and gets it again', async () => {
    const { platform } = client();
    const { logger, lines } = captureLogs();
    const user = emu.control.createUser().user.id;
    let attempts = 0;
    const poller = new UpdatePoller({
      platform,
      onUpdate: () => (++attempts === 1 ? Promise.reject(new Error('disk full')) : Promise.resolve()),
      timeoutSeconds: 1,
      logger,
    });
    emu.control.sendUserMessage({ userId: user, text: 'pay' });
    poller.start();
    await waitFor(() => attempts === 2, 'redelivery', 10_000);
    await waitFor(() => emu.control.state().bots[0]?.pendingUpdates.length === 0, 'confirmed');
    await poller.stop();
    expect(lines.some((l) => l.msg.includes('stays unconfirmed'))).toBe(true);
  });

  it('logs a 409 as the misconfiguration it is and keeps polling with backoff', async () => {
    const { platform, counters } = client();
    const { logger, lines } = captureLogs();
    const seen: number[] = [];
    const poller = new UpdatePoller({ platform, onUpdate: (u) => Promise.resolve(void seen.push(u.update_id)), timeoutSeconds: 2, logger });
    poller.start();
    await waitFor(() => emu.control.state().bots[0]?.polling === true, 'polling');
    const rival = await fetch(`${emu.apiRoot}/bot${TOKEN}/getUpdates`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ timeout: 0 }),
    });
    expect(rival.status).toBe(200);
    await waitFor(() => lines.some((l) => l.level === 50 && l.msg.startsWith('misconfiguration')), 'the 409 logged at error level');
    const logged = lines.find((l) => l.msg.startsWith('misconfiguration'));
    expect(logged).toMatchObject({ status: 409, conflicts: 1 });
    expect(logged?.msg).toContain('set OWNS_UPDATES=false on every bot but one');
    expect(logged?.msg).toContain('no other process');
    expect(poller.conflicts).toBe(1);
    const user = emu.control.createUser().user.id;
    emu.control.sendUserMessage({ userId: user, text: 'still there?' });
    await waitFor(() => seen.length === 1, 'polling resumed', 10_000);
    await poller.stop();
    expect(emu.control.calls('getUpdates').filter((c) => c.status === 409)).toHaveLength(1);
    // Health field 8: the 409 goes up as an update conflict, and in no spec counter.
    expect(counters.take()).toMatchObject({ connectFailures: 0n, apiErrors: 0n, rateLimited: 0n, updateConflicts: 1n });
    expect(counters.take().updateConflicts).toBe(0n);
  });

  it('stop() aborts the pending long poll promptly and counts nothing', async () => {
    const { platform, counters } = client();
    const { logger } = captureLogs();
    const poller = new UpdatePoller({ platform, onUpdate: () => Promise.resolve(), timeoutSeconds: 30, logger });
    poller.start();
    await waitFor(() => emu.control.calls('getUpdates')[0]?.status === null, 'the poll waiting');
    await poller.stop();
    await waitFor(() => emu.control.calls('getUpdates')[0]?.outcome === 'client_closed', 'the poll closed by the bot');
    expect(emu.control.state().bots[0]?.polling).toBe(false);
    expect(totals(counters)).toEqual({ connectFailures: 0n, apiErrors: 0n, rateLimited: 0n });
  });
});
