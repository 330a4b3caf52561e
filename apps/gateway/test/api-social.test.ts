import { startChain, type Chain } from './support/chain.js';
import { call } from './support/edge.js';

describe('social layer and account deletion through gateway -> backend -> PostgreSQL', () => {
  let chain: Chain;
  let api: string;
  const as = (token: string) => ({ authorization: `Bearer ${token}` });
  const session = async (email: string, mode: 'signup' | 'signin' = 'signup') => {
    const res = await call(`${api}/session/direct`, {
      method: 'POST',
      json: { email, password: 'social password 1', mode, subtype: 'web' },
    });
    const body = res.body as { token: string; account_id: string };
    return { token: body.token, accountId: body.account_id };
  };
  const befriend = (token: string, accountId: string) =>
    call(`${api}/social/friend-requests`, { method: 'POST', headers: as(token), json: { account_id: accountId } });
  const block = (token: string, accountId: string) => call(`${api}/social/blocks/${accountId}`, { method: 'PUT', headers: as(token) });
  const deleteAccount = (token: string) => call(`${api}/user/account`, { method: 'DELETE', headers: as(token) });

  beforeAll(async () => {
    chain = await startChain();
    api = `${chain.edge.url}/api/v1`;
  }, 90_000);
  afterAll(async () => {
    await chain?.stop();
  });

  it('friend requests: pending, accepted by the addressee; blocks end them and stop new ones', async () => {
    const a = await session('f-a@example.test');
    const b = await session('f-b@example.test');
    expect(await befriend(a.token, b.accountId)).toMatchObject({
      status: 200,
      body: { account_id: b.accountId, status: 'pending_outgoing' },
    });
    expect(await call(`${api}/social/friend-requests/${a.accountId}/accept`, { method: 'POST', headers: as(b.token) })).toMatchObject({
      status: 200,
      body: { account_id: a.accountId, status: 'friends' },
    });
    expect(await block(b.token, a.accountId)).toMatchObject({ status: 200, body: { account_id: a.accountId, blocked: true } });
    expect(await befriend(a.token, b.accountId)).toMatchObject({ status: 403, body: { error: { code: 'blocked' } } });
    expect((await call(`${api}/social/blocks/${a.accountId}`, { method: 'DELETE', headers: as(b.token) })).status).toBe(204);
    expect((await befriend(a.token, b.accountId)).body).toMatchObject({ status: 'pending_outgoing' });
  });

  it('validates targets at the edge and maps backend refusals', async () => {
    const a = await session('v-a@example.test');
    expect((await befriend(a.token, a.accountId)).body).toMatchObject({ error: { code: 'invalid_target' } });
    expect(await befriend(a.token, '42x')).toMatchObject({ status: 400, body: { error: { code: 'invalid_target' } } });
    expect(await befriend(a.token, '987654321')).toMatchObject({ status: 404, body: { error: { code: 'unknown_account' } } });
    expect(await block(a.token, '0')).toMatchObject({ status: 400, body: { error: { code: 'invalid_target' } } });
    expect((await call(`${api}/social/friend-requests`, { method: 'POST', json: { account_id: '1' } })).status).toBe(401);
  });

  it('DELETE /api/v1/user/account: 204, every session revoked, friend request and block to it are 410 account_deleted, its seat shows deleted', async () => {
    const alice = await session('alice-social@example.test');
    const bob = await session('bob-social@example.test');
    const bobElsewhere = await session('bob-social@example.test', 'signin');
    const game = (
      await call(`${api}/games`, {
        method: 'POST',
        headers: as(alice.token),
        json: { variant: 'classic', opponent_account_id: bob.accountId },
      })
    ).body as {
      game_id: string;
    };
    expect((await call(`${api}/user/profile`, { headers: as(bob.token) })).status).toBe(200);

    expect((await deleteAccount(bob.token)).status).toBe(204);
    expect(await call(`${api}/user/profile`, { headers: as(bob.token) })).toMatchObject({
      status: 401,
      body: { error: { code: 'session_invalid' } },
    });
    expect((await call(`${api}/user/profile`, { headers: as(bobElsewhere.token) })).status).toBe(401);
    expect(
      (await chain.db.query<{ n: string }>('select count(*) as n from sessions where account_id = $1', [bob.accountId])).rows[0]?.n,
    ).toBe('0');

    const gone = { status: 410, body: { error: { code: 'account_deleted', message: 'the account is deleted' } } };
    expect(await befriend(alice.token, bob.accountId)).toMatchObject(gone);
    expect(await block(alice.token, bob.accountId)).toMatchObject(gone);

    const seen = (await call(`${api}/games/${game.game_id}`, { headers: as(alice.token) })).body as { seats: unknown[]; state: unknown };
    expect(seen.seats[1]).toMatchObject({ account_id: bob.accountId, deleted: true, display_name: 'Deleted player' });
    expect(seen.seats[0]).toMatchObject({ account_id: alice.accountId, deleted: false });
    expect(seen.state).toMatchObject({ status: 'finished', winner: 0, finish_reason: 'opponent_deleted' });
  });
});
