import { Code } from '@connectrpc/connect';
import { sql } from 'kysely';
import { chooseWord } from '../src/game/dictionary.js';
import { MAX_MOVES, requiredLetter } from '../src/game/rules.js';
import { auditLedger } from '../src/ledger/audit.js';
import { as, errorOf, failure } from './support/harness.js';
import { newAccount } from './support/wallet.js';
import {
  createBody,
  gameBody,
  gameEvent,
  grantHints,
  hintBody,
  hintGrant,
  moveBody,
  startGameHarness,
  view,
  type GameHarness,
} from './game-support.js';

const MINUTE = 60_000;

describe('the word game over Connect on PostgreSQL (test clock)', () => {
  let h: GameHarness;
  beforeAll(async () => {
    h = await startGameHarness({ GAME_DAILY_HINTS: '3' });
  });
  afterAll(() => h.stop());

  const db = () => h.database.db;
  const create = async (who: bigint, variant: string, vsAi: boolean, opponent = 0n, platform = 'direct;web') =>
    view((await h.games.createGame({ body: createBody(variant, vsAi, opponent) }, as(who, platform))).body);
  const get = async (who: bigint, gameId: bigint) => view((await h.games.getGame({ body: gameBody(gameId) }, as(who, 'direct;web'))).body);
  const move = async (who: bigint, gameId: bigint, word: string) =>
    view((await h.games.playMove({ body: moveBody(gameId, word) }, as(who, 'direct;web'))).body);
  const hint = async (who: bigint, gameId: bigint, platform = 'direct;web') =>
    hintGrant((await h.games.useHint({ body: hintBody(gameId) }, as(who, platform))).body);
  const nextWord = (last: string | null, played: string[]) => chooseWord(requiredLetter(last), new Set(played), true) ?? 'none';
  const counters = async (id: bigint) => ({
    allowance: (
      await sql<{ n: number }>`select coalesce(sum(used), 0)::int as n from hint_allowances where account_id = ${id}`.execute(db())
    ).rows[0]?.n,
    stat:
      (await sql<{ n: bigint | null }>`select hints_used as n from player_stats where account_id = ${id}`.execute(db())).rows[0]?.n ?? 0n,
    benefits: (
      await sql<{ origin: string; hints: bigint }>`select origin, hints from benefits where account_id = ${id} order by origin`.execute(
        db(),
      )
    ).rows,
    ledger: (await sql<{ n: bigint }>`select count(*) as n from ledger_operations where account_id = ${id}`.execute(db())).rows[0]?.n,
  });

  describe('creating games', () => {
    it('sets no_repeat_words from the variant, seats the caller first and the robot second', async () => {
      const me = await newAccount(db());
      const classic = await create(me, 'classic', true);
      expect(classic).toMatchObject({ variant: 'classic', vsAi: true, noRepeatWords: false, yourSeat: 0, words: [] });
      expect(classic.seats).toEqual([
        { seat: 0, accountId: me, displayName: 'tester', deleted: false, robot: false, score: 0, hintsUsed: 0 },
        { seat: 1, accountId: 0n, displayName: 'Robot', deleted: false, robot: true, score: 0, hintsUsed: 0 },
      ]);
      expect(classic.state).toMatchObject({
        turn: 0,
        lastWord: '',
        moves: 0,
        hintUnlockLeftSeconds: 0n,
        status: 'active',
        requiredLetter: '',
        winner: -1,
      });
      expect((await create(me, 'no_repeat', true)).noRepeatWords).toBe(true);
    });

    it('refuses a bad variant, a robot game with an opponent, a human game without one, oneself and unknown accounts', async () => {
      const me = await newAccount(db());
      const other = await newAccount(db());
      const code = (p: Promise<unknown>) => failure(p).then((f) => f.errorCode);
      expect(await code(create(me, 'blitz', true))).toBe('invalid_variant');
      expect(await code(create(me, 'classic', true, other))).toBe('invalid_opponent');
      expect(await code(create(me, 'classic', false))).toBe('invalid_opponent');
      expect(await code(create(me, 'classic', false, me))).toBe('invalid_opponent');
      expect(await failure(create(me, 'classic', false, 9_999_999n))).toEqual({ code: Code.NotFound, errorCode: 'unknown_account' });
      expect(await code(create(9_999_998n, 'classic', true))).toBe('caller_required');
    });
  });

  describe('moves', () => {
    it('the robot answers at once with the first fitting word; rule breaches are refused', async () => {
      const me = await newAccount(db());
      const g = await create(me, 'no_repeat', true);
      const after = await move(me, g.gameId, ' Apple ');
      expect(after.words).toEqual(['apple', 'eagle']);
      expect(after.state).toMatchObject({ turn: 0, lastWord: 'eagle', moves: 2, requiredLetter: 'e' });
      expect(after.seats.map((s) => s.score)).toEqual([5, 5]);
      const code = (p: Promise<unknown>) => failure(p).then((f) => f.errorCode);
      expect(await code(move(me, g.gameId, 'tiger'))).toBe('wrong_letter');
      expect(await code(move(me, g.gameId, 'eagle'))).toBe('word_repeated');
      expect(await code(move(me, g.gameId, 'elephantine'))).toBe('unknown_word');
      expect(await code(move(me, g.gameId, 'e1'))).toBe('invalid_word');
      expect(await failure(move(await newAccount(db()), g.gameId, 'echo'))).toEqual({ code: Code.NotFound, errorCode: 'unknown_game' });
    });

    it('a human game alternates turns and refuses a move out of turn', async () => {
      const a = await newAccount(db());
      const b = await newAccount(db());
      const g = await create(a, 'classic', false, b);
      expect(await failure(move(b, g.gameId, 'apple'))).toEqual({ code: Code.FailedPrecondition, errorCode: 'not_your_turn' });
      await move(a, g.gameId, 'apple');
      const seenByB = await get(b, g.gameId);
      expect(seenByB).toMatchObject({ yourSeat: 1, state: { turn: 1, requiredLetter: 'e' } });
    });

    it(`ends after ${MAX_MOVES} moves with the higher score winning`, async () => {
      const me = await newAccount(db());
      let g = await create(me, 'classic', true);
      while (g.state.status === 'active') g = await move(me, g.gameId, nextWord(g.state.lastWord || null, g.words));
      expect(g.state).toMatchObject({ status: 'finished', turn: -1, moves: MAX_MOVES, finishReason: 'moves_exhausted' });
      const [mine, robot] = g.seats.map((s) => s.score ?? 0);
      expect(g.state.winner).toBe(mine === robot ? -1 : (mine ?? 0) > (robot ?? 0) ? 0 : 1);
    });
  });

  describe('hints against the robot: free, idle-gated from the server clock', () => {
    it('a first move (no robot move yet) is not locked: 0 seconds and a free hint', async () => {
      const me = await newAccount(db());
      const g = await create(me, 'classic', true);
      expect(g.state.hintUnlockLeftSeconds).toBe(0n);
      expect(await hint(me, g.gameId)).toMatchObject({
        word: 'acorn',
        source: 'free',
        benefitOrigin: '',
        allowanceLeft: 0,
        state: { hintUnlockLeftSeconds: 0n },
      });
    });

    it('locked with hint_locked until the robot move + 30 min, counting down in the state view; unlocked at the mark', async () => {
      const me = await newAccount(db());
      const g = await create(me, 'classic', true);
      const after = await move(me, g.gameId, 'apple');
      expect(after.state.hintUnlockLeftSeconds).toBe(1800n);

      const locked = await h.games.useHint({ body: hintBody(g.gameId) }, as(me, 'direct;web')).catch((err: unknown) => err);
      expect(errorOf(locked)).toEqual({ code: Code.FailedPrecondition, errorCode: 'hint_locked' });
      expect((locked as { metadata: Headers }).metadata.get('x-hint-unlock-left-seconds')).toBe('1800');

      h.clock.advance(10 * MINUTE);
      expect((await get(me, g.gameId)).state.hintUnlockLeftSeconds).toBe(1200n);
      h.clock.advance(20 * MINUTE - 500);
      expect((await get(me, g.gameId)).state.hintUnlockLeftSeconds).toBe(1n);
      expect((await failure(hint(me, g.gameId))).errorCode).toBe('hint_locked');

      h.clock.advance(500);
      expect((await get(me, g.gameId)).state.hintUnlockLeftSeconds).toBe(0n);
      expect(await hint(me, g.gameId)).toMatchObject({ word: 'echo', source: 'free', state: { hintUnlockLeftSeconds: 0n } });

      const again = await move(me, g.gameId, 'echo');
      expect(again.state.hintUnlockLeftSeconds).toBe(1800n);
    });

    it('uses no allowance, no wallet and no statistic, even with hints in the wallet and none left today', async () => {
      const me = await newAccount(db());
      await grantHints(db(), me, 'direct', 2n);
      const before = await counters(me);
      const g = await create(me, 'classic', true);
      for (let i = 0; i < 5; i += 1) {
        const current = await get(me, g.gameId);
        expect((await hint(me, g.gameId)).source).toBe('free');
        await move(me, g.gameId, nextWord(current.state.lastWord || null, current.words));
        h.clock.advance(30 * MINUTE);
      }
      expect(await counters(me)).toEqual(before);
      expect((await get(me, g.gameId)).seats[0]?.hintsUsed).toBe(0);
    });

    it('shows 0 once the game is over, although the robot just moved, and a hint is game_finished', async () => {
      const me = await newAccount(db());
      let g = await create(me, 'classic', true);
      while (g.state.status === 'active') g = await move(me, g.gameId, nextWord(g.state.lastWord || null, g.words));
      expect(g.state.hintUnlockLeftSeconds).toBe(0n);
      expect((await failure(hint(me, g.gameId))).errorCode).toBe('game_finished');
    });
  });

  describe('hints in a human game: daily allowance, then the wallet benefit in gate order', () => {
    it('3 free per UTC day, then wallet hints drawn in order (ledger spend row, statistic up), then no_hints_left; the next day is free again', async () => {
      const a = await newAccount(db());
      const b = await newAccount(db());
      await grantHints(db(), a, 'telegram', 1n);
      await grantHints(db(), a, 'vk', 1n);
      const g = await create(a, 'classic', false, b);
      expect(g.state.hintUnlockLeftSeconds).toBe(0n);

      const sources = [];
      for (let i = 0; i < 3; i += 1) sources.push(await hint(a, g.gameId));
      expect(sources.map((s) => [s.source, s.allowanceLeft])).toEqual([
        ['allowance', 2],
        ['allowance', 1],
        ['allowance', 0],
      ]);
      expect(await counters(a)).toMatchObject({ allowance: 3, stat: 3n });

      const ledgerBefore = (await counters(a)).ledger ?? 0n;
      expect(await hint(a, g.gameId)).toMatchObject({ source: 'wallet', benefitOrigin: 'telegram', word: 'acorn' });
      expect(await hint(a, g.gameId)).toMatchObject({ source: 'wallet', benefitOrigin: 'vk' });
      expect(await failure(hint(a, g.gameId))).toEqual({ code: Code.FailedPrecondition, errorCode: 'no_hints_left' });
      const after = await counters(a);
      expect(after).toMatchObject({
        stat: 5n,
        benefits: [
          { origin: 'telegram', hints: 0n },
          { origin: 'vk', hints: 0n },
        ],
      });
      expect(after.ledger).toBe(ledgerBefore + 2n);
      const rows = await db()
        .selectFrom('ledger_operations')
        .select(['kind', 'benefit_origin', 'hints_delta', 'chips_delta', 'segment'])
        .where('account_id', '=', a)
        .where('hints_delta', '<', 0n)
        .orderBy('id')
        .execute();
      expect(rows).toEqual([
        { kind: 'spend', benefit_origin: 'telegram', hints_delta: -1n, chips_delta: 0n, segment: null },
        { kind: 'spend', benefit_origin: 'vk', hints_delta: -1n, chips_delta: 0n, segment: null },
      ]);
      expect((await get(a, g.gameId)).seats[0]?.hintsUsed).toBe(5);
      expect((await auditLedger(db())).problems).toEqual([]);

      h.clock.advance(24 * 60 * MINUTE);
      expect(await hint(a, g.gameId)).toMatchObject({ source: 'allowance', allowanceLeft: 2 });
    });

    it('a host context draws only its own origin; vk on iOS (frozen) draws nothing and an untrusted context takes no hint', async () => {
      const a = await newAccount(db());
      const b = await newAccount(db());
      await grantHints(db(), a, 'direct', 1n);
      await grantHints(db(), a, 'vk', 1n);
      const g = await create(a, 'classic', false, b);
      for (let i = 0; i < 3; i += 1) await hint(a, g.gameId);
      expect((await failure(hint(a, g.gameId, 'telegram'))).errorCode).toBe('no_hints_left');
      expect((await failure(hint(a, g.gameId, 'vk;ios'))).errorCode).toBe('no_hints_left');
      expect((await failure(hint(a, g.gameId, 'none'))).errorCode).toBe('untrusted_session');
      expect(await hint(a, g.gameId, 'vk;android')).toMatchObject({ source: 'wallet', benefitOrigin: 'vk' });
      expect(await hint(a, g.gameId, 'telegram').catch(() => 'refused')).toBe('refused');
      expect(await hint(a, g.gameId, 'direct')).toMatchObject({ source: 'wallet', benefitOrigin: 'direct' });
    });

    it('is refused out of turn without spending anything, and the opponent sees 0 seconds', async () => {
      const a = await newAccount(db());
      const b = await newAccount(db());
      const g = await create(a, 'classic', false, b);
      const before = await counters(b);
      expect((await failure(hint(b, g.gameId))).errorCode).toBe('not_your_turn');
      expect(await counters(b)).toEqual(before);
      expect((await get(b, g.gameId)).state.hintUnlockLeftSeconds).toBe(0n);
    });
  });

  describe('an untrusted session (X-Platform none) is view-only here too, not only at the gateway', () => {
    it('CreateGame, PlayMove, UseHint and Resign are PermissionDenied untrusted_session and change nothing; GetGame and WatchGame still answer', async () => {
      const a = await newAccount(db());
      const b = await newAccount(db());
      await grantHints(db(), a, 'direct', 1n);
      const g = await create(a, 'classic', false, b);
      const ids = [a, b];
      const snapshot = async () => ({
        seats: await db().selectFrom('game_seats').selectAll().where('account_id', 'in', ids).orderBy(['game_id', 'seat']).execute(),
        games: await db().selectFrom('games').selectAll().where('id', '=', g.gameId).execute(),
        moves: await db().selectFrom('game_moves').selectAll().where('game_id', '=', g.gameId).execute(),
        counters: await counters(a),
      });
      const before = await snapshot();

      const none = as(a, 'none');
      const outcome = (call: Promise<unknown>) => call.then(() => 'done', errorOf);
      const refused = { code: Code.PermissionDenied, errorCode: 'untrusted_session' };
      expect({
        createVsAi: await outcome(h.games.createGame({ body: createBody('classic', true) }, none)),
        createVsHuman: await outcome(h.games.createGame({ body: createBody('no_repeat', false, b) }, none)),
        move: await outcome(h.games.playMove({ body: moveBody(g.gameId, 'apple') }, none)),
        hint: await outcome(h.games.useHint({ body: hintBody(g.gameId) }, none)),
        resign: await outcome(h.games.resign({ body: gameBody(g.gameId) }, none)),
      }).toEqual({ createVsAi: refused, createVsHuman: refused, move: refused, hint: refused, resign: refused });
      expect(await snapshot()).toEqual(before);

      expect(view((await h.games.getGame({ body: gameBody(g.gameId) }, none)).body)).toMatchObject({ gameId: g.gameId, yourSeat: 0 });
      const abort = new AbortController();
      const stream = h.games.watchGame({ body: gameBody(g.gameId) }, { ...none, signal: abort.signal })[Symbol.asyncIterator]();
      try {
        const first = await stream.next();
        expect(first.done ? null : gameEvent(first.value.body)).toMatchObject({ kind: 'snapshot', gameId: g.gameId });
      } finally {
        abort.abort();
      }
      expect((await move(a, g.gameId, 'apple')).state.moves).toBe(1);
    });
  });

  describe('WatchGame: live events', () => {
    const watch = (who: bigint, gameId: bigint) => {
      const abort = new AbortController();
      const stream = h.games
        .watchGame({ body: gameBody(gameId) }, { ...as(who, 'direct;web'), signal: abort.signal })
        [Symbol.asyncIterator]();
      return {
        next: async () => {
          const r = await stream.next();
          if (r.done) throw new Error('stream ended');
          return gameEvent(r.value.body);
        },
        stop: () => abort.abort(),
      };
    };

    it('vs_ai: a snapshot, then opponent_moved with the robot move and the hint unlock seconds', async () => {
      const me = await newAccount(db());
      const g = await create(me, 'classic', true);
      const events = watch(me, g.gameId);
      try {
        expect(await events.next()).toMatchObject({ kind: 'snapshot', gameId: g.gameId, view: { state: { moves: 0 } } });
        await move(me, g.gameId, 'apple');
        expect(await events.next()).toMatchObject({
          kind: 'opponent_moved',
          move: { moveNo: 2, seat: 1, word: 'eagle', points: 5, byRobot: true },
          state: { turn: 0, lastWord: 'eagle', moves: 2, hintUnlockLeftSeconds: 1800n, requiredLetter: 'e' },
        });
      } finally {
        events.stop();
      }
    });

    it('a human game: the other seat gets opponent_moved with 0 seconds, the mover gets nothing of its own; resigning is opponent_resigned', async () => {
      const a = await newAccount(db());
      const b = await newAccount(db());
      const g = await create(a, 'classic', false, b);
      const forA = watch(a, g.gameId);
      const forB = watch(b, g.gameId);
      try {
        await forA.next();
        await forB.next();
        await move(a, g.gameId, 'apple');
        expect(await forB.next()).toMatchObject({
          kind: 'opponent_moved',
          move: { seat: 0, word: 'apple', byRobot: false },
          state: { turn: 1, hintUnlockLeftSeconds: 0n },
        });
        await move(b, g.gameId, 'eagle');
        expect(await forA.next()).toMatchObject({ kind: 'opponent_moved', move: { moveNo: 2, seat: 1, word: 'eagle' } });
        await h.games.resign({ body: gameBody(g.gameId) }, as(b, 'direct;web'));
        expect(await forA.next()).toMatchObject({
          kind: 'opponent_resigned',
          state: { status: 'finished', winner: 0, finishReason: 'resigned' },
        });
      } finally {
        forA.stop();
        forB.stop();
      }
    });

    it('an outsider is refused with unknown_game', async () => {
      const a = await newAccount(db());
      const g = await create(a, 'classic', true);
      const outsider = watch(await newAccount(db()), g.gameId);
      expect(errorOf(await outsider.next().catch((err: unknown) => err))).toEqual({ code: Code.NotFound, errorCode: 'unknown_game' });
    });
  });
});
