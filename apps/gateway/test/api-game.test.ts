import { startChain, untrustedSession, type Chain } from './support/chain.js';
import { call } from './support/edge.js';

interface State {
  turn: number | null;
  last_word: string | null;
  moves: number;
  hint_unlock_left_seconds: number;
  status: string;
  required_letter: string | null;
  winner: number | null;
  finish_reason: string | null;
}
interface Seat {
  seat: number;
  account_id: string | null;
  display_name: string;
  deleted: boolean;
  robot: boolean;
  score: number;
  hints_used: number;
}
interface Game {
  game_id: string;
  variant: string;
  vs_ai: boolean;
  no_repeat_words: boolean;
  your_seat: number;
  seats: Seat[];
  state: State;
  words: string[];
}
interface SseEvent {
  event: string;
  id: string | undefined;
  data: Record<string, unknown>;
}

/** An open server-sent events response read frame by frame. */
async function openEvents(url: string, token: string) {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: abort.signal });
  const reader = res.body?.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    res,
    async next(): Promise<SseEvent> {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const raw = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (raw.startsWith(':')) continue;
          const fields = Object.fromEntries(raw.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]));
          return { event: fields['event'] ?? '', id: fields['id'], data: JSON.parse(fields['data'] ?? 'null') as Record<string, unknown> };
        }
        const chunk = await reader?.read();
        if (!chunk || chunk.done) throw new Error('event stream ended');
        buffer += decoder.decode(chunk.value as Uint8Array, { stream: true });
      }
    },
    close: () => abort.abort(),
  };
}

describe('word game through gateway -> backend -> PostgreSQL', () => {
  let chain: Chain;
  let api: string;
  const as = (token: string) => ({ authorization: `Bearer ${token}` });
  const session = async (email: string) => {
    const res = await call(`${api}/session/direct`, {
      method: 'POST',
      json: { email, password: 'game password 1', mode: 'signup', subtype: 'web' },
    });
    const body = res.body as { token: string; account_id: string };
    return { token: body.token, accountId: body.account_id };
  };
  const create = (token: string, json: unknown) => call(`${api}/games`, { method: 'POST', headers: as(token), json });
  const move = (token: string, gameId: string, word: string) =>
    call(`${api}/games/${gameId}/moves`, { method: 'POST', headers: as(token), json: { word } });
  const hint = (token: string, gameId: string) => call(`${api}/games/${gameId}/hints`, { method: 'POST', headers: as(token) });
  const get = async (token: string, gameId: string) => (await call(`${api}/games/${gameId}`, { headers: as(token) })).body as Game;
  const shiftRobotMove = (gameId: string, minutes: number) =>
    chain.db.query(`update games set last_robot_move_at = last_robot_move_at - make_interval(mins => $2) where id = $1`, [gameId, minutes]);

  beforeAll(async () => {
    chain = await startChain();
    api = `${chain.edge.url}/api/v1`;
  }, 90_000);
  afterAll(async () => {
    await chain?.stop();
  });

  it('creates a vs_ai game: 201, no_repeat_words from the variant, the robot in seat 1, ids as strings', async () => {
    const me = await session('creator@example.test');
    const res = await create(me.token, { variant: 'no_repeat', vs_ai: true });
    expect(res.status).toBe(201);
    const game = res.body as Game;
    expect(game).toMatchObject({ variant: 'no_repeat', vs_ai: true, no_repeat_words: true, your_seat: 0, words: [] });
    expect(game.game_id).toMatch(/^[1-9][0-9]*$/);
    expect(game.seats).toEqual([
      expect.objectContaining({ seat: 0, account_id: me.accountId, robot: false, deleted: false }),
      expect.objectContaining({ seat: 1, account_id: null, robot: true, display_name: 'Robot' }),
    ]);
    expect(game.state).toEqual({
      turn: 0,
      last_word: null,
      moves: 0,
      hint_unlock_left_seconds: 0,
      status: 'active',
      required_letter: null,
      winner: null,
      finish_reason: null,
    });
    expect(((await create(me.token, { variant: 'classic', vs_ai: true })).body as Game).no_repeat_words).toBe(false);
  });

  it('vs_ai hints: free on the first move, then 423 hint_locked with Retry-After until the robot move + 30 min, then free again', async () => {
    const me = await session('hinter@example.test');
    const game = (await create(me.token, { variant: 'classic', vs_ai: true })).body as Game;
    const first = await hint(me.token, game.game_id);
    expect(first).toMatchObject({
      status: 200,
      body: { word: 'acorn', source: 'free', benefit_origin: null, allowance_left: 0, state: { hint_unlock_left_seconds: 0 } },
    });

    const after = (await move(me.token, game.game_id, 'apple')).body as Game;
    expect(after.words).toEqual(['apple', 'eagle']);
    expect(after.state.hint_unlock_left_seconds).toBeGreaterThan(1790);
    expect(after.state.hint_unlock_left_seconds).toBeLessThanOrEqual(1800);

    const locked = await hint(me.token, game.game_id);
    expect(locked.status).toBe(423);
    expect((locked.body as { error: { code: string } }).error.code).toBe('hint_locked');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(1790);

    await shiftRobotMove(game.game_id, 20);
    const seen = await get(me.token, game.game_id);
    expect(seen.state.hint_unlock_left_seconds).toBeGreaterThan(590);
    expect(seen.state.hint_unlock_left_seconds).toBeLessThanOrEqual(600);

    await shiftRobotMove(game.game_id, 10);
    expect((await get(me.token, game.game_id)).state.hint_unlock_left_seconds).toBe(0);
    expect(await hint(me.token, game.game_id)).toMatchObject({ status: 200, body: { word: 'echo', source: 'free' } });
    const stats = await chain.db.query<{ n: number }>(
      `select (select count(*) from hint_allowances where account_id = $1) + (select count(*) from player_stats where account_id = $1) as n`,
      [me.accountId],
    );
    expect(Number(stats.rows[0]?.n)).toBe(0);
  });

  it('a human game: the invitee sees seat 1, hints use the daily allowance, errors map to codes', async () => {
    const a = await session('alice@example.test');
    const b = await session('bob@example.test');
    const created = await create(a.token, { variant: 'classic', opponent_account_id: b.accountId });
    expect(created.status).toBe(201);
    const game = created.body as Game;
    expect((await move(b.token, game.game_id, 'apple')).body).toEqual({ error: { code: 'not_your_turn', message: 'it is not your turn' } });
    expect((await move(b.token, game.game_id, 'apple')).status).toBe(409);
    expect((await move(a.token, game.game_id, 'zzz')).status).toBe(409);
    expect((await move(a.token, game.game_id, '1')).status).toBe(400);
    expect(await hint(a.token, game.game_id)).toMatchObject({
      status: 200,
      body: { source: 'allowance', allowance_left: 2, state: { hint_unlock_left_seconds: 0 } },
    });
    await move(a.token, game.game_id, 'apple');
    expect(await get(b.token, game.game_id)).toMatchObject({
      your_seat: 1,
      state: { turn: 1, required_letter: 'e', hint_unlock_left_seconds: 0 },
    });
    expect((await move(b.token, game.game_id, 'tiger')).body).toMatchObject({ error: { code: 'wrong_letter' } });

    const outsider = await session('carol@example.test');
    expect((await call(`${api}/games/${game.game_id}`, { headers: as(outsider.token) })).status).toBe(404);
    expect((await call(`${api}/games/abc`, { headers: as(a.token) })).body).toMatchObject({ error: { code: 'invalid_game_id' } });
    expect((await create(a.token, { variant: 'blitz', vs_ai: true })).body).toMatchObject({ error: { code: 'invalid_variant' } });
    expect((await create(a.token, { variant: 'classic', opponent_account_id: '99999999' })).body).toMatchObject({
      error: { code: 'unknown_account' },
    });
    expect((await call(`${api}/games/${game.game_id}/resign`, { method: 'POST', headers: as(b.token) })).body).toMatchObject({
      state: { status: 'finished', winner: 0, finish_reason: 'resigned' },
    });
  });

  it('a view-only (untrusted) session may read a game but not play', async () => {
    const me = await session('viewer@example.test');
    const game = (await create(me.token, { variant: 'classic', vs_ai: true })).body as Game;
    const viewOnly = await untrustedSession(chain.db, me.accountId);
    expect((await call(`${api}/games/${game.game_id}`, { headers: as(viewOnly) })).status).toBe(200);
    expect((await move(viewOnly, game.game_id, 'apple')).body).toMatchObject({ error: { code: 'untrusted_session' } });
  });

  describe('GET /api/v1/games/:id/events (server-sent events)', () => {
    it('sends a snapshot, then opponent_moved with the move delta and hint_unlock_left_seconds', async () => {
      const me = await session('watcher@example.test');
      const game = (await create(me.token, { variant: 'classic', vs_ai: true })).body as Game;
      const events = await openEvents(`${api}/games/${game.game_id}/events`, me.token);
      try {
        expect(events.res.status).toBe(200);
        expect(events.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
        const snapshot = await events.next();
        expect(snapshot).toMatchObject({
          event: 'snapshot',
          data: { kind: 'snapshot', game_id: game.game_id, game: { game_id: game.game_id, state: { moves: 0 } } },
        });
        await move(me.token, game.game_id, 'apple');
        const moved = await events.next();
        expect(moved).toMatchObject({
          event: 'opponent_moved',
          id: '2',
          data: {
            kind: 'opponent_moved',
            move: { move_no: 2, seat: 1, word: 'eagle', points: 5, by_robot: true },
            state: { turn: 0, last_word: 'eagle', required_letter: 'e' },
          },
        });
        const left = (moved.data['state'] as State).hint_unlock_left_seconds;
        expect(left).toBeGreaterThan(1790);
        expect(left).toBeLessThanOrEqual(1800);
      } finally {
        events.close();
      }
    });

    it('a human opponent gets opponent_moved with 0 seconds', async () => {
      const a = await session('sse-a@example.test');
      const b = await session('sse-b@example.test');
      const game = (await create(a.token, { variant: 'classic', opponent_account_id: b.accountId })).body as Game;
      const events = await openEvents(`${api}/games/${game.game_id}/events`, b.token);
      try {
        await events.next();
        await move(a.token, game.game_id, 'apple');
        expect(await events.next()).toMatchObject({
          event: 'opponent_moved',
          data: { move: { seat: 0, word: 'apple' }, state: { turn: 1, hint_unlock_left_seconds: 0 } },
        });
      } finally {
        events.close();
      }
    });

    it('refuses before streaming: 401 without a session, 404 for a game the caller does not sit in', async () => {
      const me = await session('nosy@example.test');
      const other = await session('owner@example.test');
      const game = (await create(other.token, { variant: 'classic', vs_ai: true })).body as Game;
      expect((await call(`${api}/games/${game.game_id}/events`)).status).toBe(401);
      const res = await call(`${api}/games/${game.game_id}/events`, { headers: as(me.token) });
      expect(res).toMatchObject({ status: 404, body: { error: { code: 'unknown_game' } } });
    });
  });
});
