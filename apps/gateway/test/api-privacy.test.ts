import { grantChips, startChain, type Chain } from './support/chain.js';
import { call } from './support/edge.js';

describe('GET /api/v1/user/export through gateway -> backend -> PostgreSQL', () => {
  let chain: Chain;
  let api: string;
  const as = (token: string) => ({ authorization: `Bearer ${token}` });
  const signUp = async (email: string) => {
    const res = await call(`${api}/session/direct`, {
      method: 'POST',
      json: { email, password: 'export password 1', mode: 'signup', subtype: 'web' },
    });
    const body = res.body as { token: string; account_id: string };
    return { token: body.token, accountId: body.account_id };
  };

  beforeAll(async () => {
    chain = await startChain();
    api = `${chain.edge.url}/api/v1`;
  }, 90_000);
  afterAll(async () => {
    await chain?.stop();
  });

  it("answers the caller's data as JSON with every section, money as integer strings", async () => {
    const player = await signUp('exporter@example.test');
    await grantChips(chain.db, player.accountId, 'direct', 120n, 'welcome');
    const res = await call(`${api}/user/export`, { headers: as(player.token) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = res.body as Record<string, unknown>;
    expect(Object.keys(body)).toEqual([
      'format',
      'exported_at',
      'profile',
      'identities',
      'sessions',
      'wallet',
      'orders',
      'ledger',
      'support_cases',
      'subscriptions',
    ]);
    expect(body).toMatchObject({
      format: 1,
      profile: { account_id: player.accountId, email: 'exporter@example.test', status: 'active' },
      identities: [],
      sessions: [{ platform: 'direct', subtype: 'web' }],
      orders: [],
      ledger: [{ kind: 'grant', segment: 'direct', chips_delta: '120', note: 'welcome', money_minor: null }],
      support_cases: [],
      subscriptions: [],
    });
    expect((body['wallet'] as { segments: unknown[] }).segments).toContainEqual({ segment: 'direct', chips: '120' });
    expect(JSON.stringify(body)).not.toMatch(/password|token_hash|scrypt/);
  });

  it('needs a session (401) and is rate-limited per account (429 with Retry-After)', async () => {
    expect((await call(`${api}/user/export`)).status).toBe(401);
    const player = await signUp('often@example.test');
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 11; i += 1) {
      last = await call(`${api}/user/export`, { headers: as(player.token) });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([...Array<number>(10).fill(200), 429]);
    expect(last?.body).toMatchObject({ error: { code: 'rate_limited' } });
    expect(Number(last?.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
