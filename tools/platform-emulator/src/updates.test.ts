import { CONFLICT_DESCRIPTION, type PlatformEmulator, type TgUpdate } from './index.js';
import { callApi, isPolling, waitFor, startCheckedEmulator } from './test-helpers.js';

let emu: PlatformEmulator;

beforeAll(async () => {
  emu = await startCheckedEmulator();
});
afterAll(() => emu.stop());
beforeEach(() => emu.control.reset());

const getUpdates = (params: Record<string, unknown> = {}, signal?: AbortSignal) =>
  callApi<TgUpdate[]>(emu, 'getUpdates', params, signal ? { signal } : {});

function inject(n: number): number[] {
  const ids: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const result = emu.control.injectUpdate({ message: { message_id: i + 1, text: `m${i}` } });
    if (!result.queued) throw new Error(result.reason);
    ids.push(result.update_id);
  }
  return ids;
}

describe('getUpdates offsets', () => {
  it('returns pending updates in order until an offset confirms them', async () => {
    const ids = inject(3);
    const [a, b, c] = ids as [number, number, number];
    expect(b).toBe(a + 1);
    const all = await getUpdates();
    expect(all.body.result?.map((u) => u.update_id)).toEqual(ids);
    expect(all.body.result?.[0]).toMatchObject({ message: { text: 'm0' } });
    // Not confirmed yet: asking again returns the same.
    expect((await getUpdates()).body.result?.map((u) => u.update_id)).toEqual(ids);
    // offset = b confirms a only.
    expect((await getUpdates({ offset: b })).body.result?.map((u) => u.update_id)).toEqual([b, c]);
    expect((await getUpdates()).body.result?.map((u) => u.update_id)).toEqual([b, c]);
    expect((await getUpdates({ offset: c + 1 })).body.result).toEqual([]);
    expect((await getUpdates()).body.result).toEqual([]);
  });

  it('honours limit (1-100) and a negative offset', async () => {
    const ids = inject(5);
    expect((await getUpdates({ limit: 2 })).body.result?.map((u) => u.update_id)).toEqual(ids.slice(0, 2));
    expect((await getUpdates({ limit: 0 })).body.result).toHaveLength(5);
    expect((await getUpdates({ offset: -2 })).body.result?.map((u) => u.update_id)).toEqual(ids.slice(3));
    expect((await getUpdates()).body.result?.map((u) => u.update_id)).toEqual(ids.slice(3));
  });

  it('keeps update ids growing across a reset', () => {
    const [before] = inject(1) as [number];
    emu.control.reset();
    const [after] = inject(1) as [number];
    expect(after).toBeGreaterThan(before);
  });
});

describe('getUpdates long polling', () => {
  it('waits up to timeout when nothing is pending and then returns []', async () => {
    const poll = getUpdates({ timeout: 1 });
    await waitFor(() => isPolling(emu));
    const answer = await poll;
    expect(answer.body).toEqual({ ok: true, result: [] });
    expect(isPolling(emu)).toBe(false);
  });

  it('returns as soon as an update is injected', async () => {
    const poll = getUpdates({ timeout: 20 });
    await waitFor(() => isPolling(emu));
    const [id] = inject(1);
    const answer = await poll;
    expect(answer.body.result?.map((u) => u.update_id)).toEqual([id]);
  }, 10_000);

  it('terminates the older of two concurrent polls with 409 and serves the newer', async () => {
    const first = getUpdates({ timeout: 20 });
    await waitFor(() => isPolling(emu));
    const second = getUpdates({ timeout: 1 });
    const older = await first;
    expect(older.status).toBe(409);
    expect(older.body).toEqual({ ok: false, error_code: 409, description: CONFLICT_DESCRIPTION });
    const newer = await second;
    expect(newer.body).toEqual({ ok: true, result: [] });
  }, 10_000);

  it('unregisters a poll whose client disconnects', async () => {
    const abort = new AbortController();
    const poll = getUpdates({ timeout: 20 }, abort.signal);
    await waitFor(() => isPolling(emu));
    abort.abort();
    await expect(poll).rejects.toThrow();
    await waitFor(() => !isPolling(emu));
    await waitFor(() => emu.control.calls('getUpdates')[0]?.outcome === 'client_closed');
    // The next poller is not in conflict with anybody and gets the update.
    const [id] = inject(1);
    expect((await getUpdates({ timeout: 1 })).body.result?.map((u) => u.update_id)).toEqual([id]);
  });

  it('stop() ends a pending poll promptly', async () => {
    const other = await startCheckedEmulator();
    const poll = callApi(other, 'getUpdates', { timeout: 20 });
    await waitFor(() => isPolling(other));
    await other.stop();
    // Either answered [] or cut off; it must not hang for 20 s.
    await poll.then(
      (answer) => expect(answer.body.result).toEqual([]),
      (err: unknown) => expect(String(err)).toMatch(/fetch failed|terminated|socket/i),
    );
  }, 10_000);
});

describe('allowed_updates', () => {
  it('leaves chat_member out by default and includes it once asked for', async () => {
    const chat = emu.control.createChat({ type: 'supergroup' });
    const user = emu.control.createUser();
    expect(emu.control.join({ chatId: chat.id, userId: user.user.id }).updates[0]).toMatchObject({ queued: false });
    await getUpdates({ allowed_updates: ['message', 'chat_member'] });
    emu.control.leave({ chatId: chat.id, userId: user.user.id });
    const updates = (await getUpdates()).body.result ?? [];
    expect(updates).toHaveLength(1);
    expect(updates[0]).toHaveProperty('chat_member');
    // An empty list restores the default.
    await getUpdates({ allowed_updates: [], offset: (updates[0]?.update_id ?? 0) + 1 });
    expect(emu.control.join({ chatId: chat.id, userId: user.user.id }).updates[0]).toMatchObject({ queued: false });
  });

  it('accepts allowed_updates as JSON text in a form and rejects garbage', async () => {
    const ok = await callApi(emu, 'getUpdates', { allowed_updates: '["chat_member"]' }, { encoding: 'form' });
    expect(ok.body.ok).toBe(true);
    expect(emu.control.state().bots[0]?.allowedUpdates).toEqual(['chat_member']);
    const bad = await callApi(emu, 'getUpdates', { allowed_updates: '[nope' }, { encoding: 'form' });
    expect(bad.body).toEqual({
      ok: false,
      error_code: 400,
      description: "Bad Request: can't parse allowed updates JSON object",
    });
  });
});
