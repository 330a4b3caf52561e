import { Code } from '@connectrpc/connect';
import { decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { insertSession } from '../src/accounts/sessions/sessions.store.js';
import { eventually, startBotCommandServer, telegramAccount, type BotCommandServer } from './payments-support.js';
import { as, failure } from './support/harness.js';
import { newAccount } from './support/wallet.js';
import { createBody, gameBody, gameEvent, moveBody, startGameHarness, targetBody, view, type GameHarness } from './game-support.js';

describe('social layer and account soft delete over Connect on PostgreSQL', () => {
  let h: GameHarness;
  let bot: BotCommandServer;
  beforeAll(async () => {
    bot = await startBotCommandServer();
    h = await startGameHarness({ GATEWAY_INTERNAL_URL: bot.url });
  });
  afterAll(async () => {
    await h.stop();
    await bot.stop();
  });

  const db = () => h.database.db;
  const me = (id: bigint) => as(id, 'direct;web');
  const friendship = (body: Uint8Array) =>
    decodeTable(
      body,
      (bb) => fb.FriendshipView.getRootAsFriendshipView(bb),
      (t) => ({ accountId: t.accountId(), status: t.status() }),
    );
  const befriend = async (from: bigint, to: bigint) =>
    friendship((await h.social.sendFriendRequest({ body: targetBody(to) }, me(from))).body);
  const accept = async (by: bigint, from: bigint) =>
    friendship((await h.social.acceptFriendRequest({ body: targetBody(from) }, me(by))).body);
  const block = (by: bigint, target: bigint) => h.social.block({ body: targetBody(target) }, me(by));
  const unblock = (by: bigint, target: bigint) => h.social.unblock({ body: targetBody(target) }, me(by));
  const deleteAccount = async (id: bigint) =>
    decodeTable(
      (await h.social.deleteAccount({ body: encodeTable((b) => fb.AccountDeletion.createAccountDeletion(b)) }, me(id))).body,
      (bb) => fb.AccountDeleted.getRootAsAccountDeleted(bb),
      (t) => ({ accountId: t.accountId(), sessionsRevoked: t.sessionsRevoked() }),
    );
  const resolve = (token: string) =>
    h.account.resolveSession({ body: encodeTable((b) => fb.SessionLookup.createSessionLookup(b, b.createString(token))) });

  describe('friend requests', () => {
    it('pending until accepted; asking back accepts; repeats are idempotent', async () => {
      const a = await newAccount(db());
      const b = await newAccount(db());
      const c = await newAccount(db());
      expect(await befriend(a, b)).toEqual({ accountId: b, status: 'pending_outgoing' });
      expect(await befriend(a, b)).toEqual({ accountId: b, status: 'pending_outgoing' });
      expect(await accept(b, a)).toEqual({ accountId: a, status: 'friends' });
      expect(await befriend(b, a)).toEqual({ accountId: a, status: 'friends' });
      await befriend(c, a);
      expect(await befriend(a, c)).toEqual({ accountId: c, status: 'friends' });
    });

    it('refuses oneself, unknown accounts, a request that was never made, and a block either way', async () => {
      const a = await newAccount(db());
      const b = await newAccount(db());
      expect(await failure(befriend(a, a))).toEqual({ code: Code.InvalidArgument, errorCode: 'invalid_target' });
      expect(await failure(befriend(a, 987_654_321n))).toEqual({ code: Code.NotFound, errorCode: 'unknown_account' });
      expect(await failure(accept(a, b))).toEqual({ code: Code.NotFound, errorCode: 'unknown_friend_request' });
      await block(b, a);
      expect(await failure(befriend(a, b))).toEqual({ code: Code.PermissionDenied, errorCode: 'blocked' });
      expect(await failure(befriend(b, a))).toEqual({ code: Code.PermissionDenied, errorCode: 'blocked' });
      expect(await failure(h.games.createGame({ body: createBody('classic', false, b) }, me(a)))).toEqual({
        code: Code.PermissionDenied,
        errorCode: 'blocked',
      });
      await unblock(b, a);
      expect((await befriend(a, b)).status).toBe('pending_outgoing');
    });

    it('a block ends a friendship', async () => {
      const a = await newAccount(db());
      const b = await newAccount(db());
      await befriend(a, b);
      await accept(b, a);
      await block(a, b);
      await block(a, b);
      await unblock(a, b);
      expect((await befriend(b, a)).status).toBe('pending_outgoing');
    });
  });

  describe('an untrusted session (X-Platform none) is view-only', () => {
    it('every social write and DeleteAccount is PermissionDenied untrusted_session and changes nothing', async () => {
      const viewer = await telegramAccount(db(), '5550100');
      const asker = await newAccount(db());
      const stranger = await newAccount(db());
      const blocked = await newAccount(db());
      await befriend(asker, viewer);
      await block(viewer, blocked);
      const session = await insertSession(db(), viewer, { kind: 'direct', subtype: 'web' }, 24, h.clock.now());
      const ids = [viewer, asker, stranger, blocked];
      const snapshot = async () => ({
        accounts: await db().selectFrom('accounts').select(['id', 'status', 'deleted_at']).where('id', 'in', ids).orderBy('id').execute(),
        friendships: await db()
          .selectFrom('friendships')
          .selectAll()
          .where((eb) => eb.or([eb('requester_id', 'in', ids), eb('addressee_id', 'in', ids)]))
          .orderBy(['requester_id', 'addressee_id'])
          .execute(),
        blocks: await db().selectFrom('blocks').selectAll().where('blocker_id', 'in', ids).orderBy(['blocker_id', 'blocked_id']).execute(),
        sessions: await db().selectFrom('sessions').select(['token_hash', 'expires_at']).where('account_id', '=', viewer).execute(),
      });
      const before = await snapshot();

      const none = as(viewer, 'none');
      const refused = { code: Code.PermissionDenied, errorCode: 'untrusted_session' };
      expect(await failure(h.social.sendFriendRequest({ body: targetBody(stranger) }, none))).toEqual(refused);
      expect(await failure(h.social.acceptFriendRequest({ body: targetBody(asker) }, none))).toEqual(refused);
      expect(await failure(h.social.block({ body: targetBody(stranger) }, none))).toEqual(refused);
      expect(await failure(h.social.unblock({ body: targetBody(blocked) }, none))).toEqual(refused);
      expect(
        await failure(h.social.deleteAccount({ body: encodeTable((b) => fb.AccountDeletion.createAccountDeletion(b)) }, none)),
      ).toEqual(refused);

      expect(await snapshot()).toEqual(before);
      await expect(resolve(session.token)).resolves.toBeDefined();
      expect(await accept(viewer, asker)).toEqual({ accountId: asker, status: 'friends' });
    });
  });

  describe('aimed at a deleted account: account_deleted', () => {
    it('SendFriendRequest, AcceptFriendRequest, Block and a game invitation are refused; Unblock still cleans up', async () => {
      const a = await newAccount(db());
      const gone = await newAccount(db());
      await befriend(gone, a);
      await block(a, gone);
      await unblock(a, gone);
      await deleteAccount(gone);
      const deleted = { code: Code.FailedPrecondition, errorCode: 'account_deleted' };
      expect(await failure(befriend(a, gone))).toEqual(deleted);
      expect(await failure(accept(a, gone))).toEqual(deleted);
      expect(await failure(block(a, gone))).toEqual(deleted);
      expect(await failure(h.games.createGame({ body: createBody('classic', false, gone) }, me(a)))).toEqual(deleted);
      await expect(unblock(a, gone)).resolves.toBeDefined();
    });
  });

  describe('DeleteAccount (soft delete)', () => {
    it('revokes the chat write permission of its telegram identities (ChatGateCommand allow=false)', async () => {
      const leaving = await telegramAccount(db(), '5550001');
      await deleteAccount(leaving);
      await eventually(() => bot.commands.some((c) => c.payload.case === 'chatGate' && c.payload.value.externalId === '5550001'));
      const gate = bot.commands.find((c) => c.payload.case === 'chatGate' && c.payload.value.externalId === '5550001');
      expect(gate?.payload.value).toMatchObject({ externalId: '5550001', allow: false });
    });

    it('revokes every session, shows the seat as deleted to the opponent, forfeits active games and tells watchers', async () => {
      const alice = await newAccount(db());
      const bob = await newAccount(db());
      const s1 = await insertSession(db(), bob, { kind: 'telegram', subtype: null }, 24, h.clock.now());
      const s2 = await insertSession(db(), bob, { kind: 'direct', subtype: 'web' }, 24, h.clock.now());
      const keep = await insertSession(db(), alice, { kind: 'direct', subtype: 'web' }, 24, h.clock.now());
      const g = view((await h.games.createGame({ body: createBody('classic', false, bob) }, me(alice))).body);
      await h.games.playMove({ body: moveBody(g.gameId, 'apple') }, me(alice));
      const finished = view((await h.games.createGame({ body: createBody('classic', false, bob) }, me(alice))).body);
      await h.games.resign({ body: gameBody(finished.gameId) }, me(bob));

      const abort = new AbortController();
      const events = h.games.watchGame({ body: gameBody(g.gameId) }, { ...me(alice), signal: abort.signal })[Symbol.asyncIterator]();
      try {
        await events.next();
        expect(await deleteAccount(bob)).toEqual({ accountId: bob, sessionsRevoked: 2 });
        const next = await events.next();
        expect(next.done).toBe(false);
        if (!next.done) {
          expect(gameEvent(next.value.body)).toMatchObject({
            kind: 'opponent_deleted',
            state: { status: 'finished', winner: 0, finishReason: 'opponent_deleted' },
          });
        }
      } finally {
        abort.abort();
      }

      for (const s of [s1, s2])
        expect(await failure(resolve(s.token))).toEqual({ code: Code.Unauthenticated, errorCode: 'session_invalid' });
      await expect(resolve(keep.token)).resolves.toBeDefined();

      for (const id of [g.gameId, finished.gameId]) {
        const seen = view((await h.games.getGame({ body: gameBody(id) }, me(alice))).body);
        expect(seen.seats[1]).toMatchObject({ accountId: bob, deleted: true, displayName: 'Deleted player', robot: false });
        expect(seen.seats[0]).toMatchObject({ deleted: false });
      }
      expect(view((await h.games.getGame({ body: gameBody(g.gameId) }, me(alice))).body).state).toMatchObject({
        status: 'finished',
        winner: 0,
        finishReason: 'opponent_deleted',
      });
      expect(await failure(h.games.getGame({ body: gameBody(g.gameId) }, me(bob)))).toEqual({
        code: Code.Unauthenticated,
        errorCode: 'caller_required',
      });
      expect(await failure(deleteAccount(bob))).toEqual({ code: Code.Unauthenticated, errorCode: 'caller_required' });
      const row = await db().selectFrom('accounts').select(['status', 'deleted_at']).where('id', '=', bob).executeTakeFirstOrThrow();
      expect(row.status).toBe('deleted');
      expect(row.deleted_at).toEqual(h.clock.now());
    });
  });
});
