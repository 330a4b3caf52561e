import { Code } from '@connectrpc/connect';
import { call, startEdge, type Edge } from './support/edge.js';
import { startRecordingBackend, type RecordingBackend } from './support/recording-backend.js';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('gateway trust: session auth and the headers the backend sees', () => {
  let backend: RecordingBackend;
  let edge: Edge;

  beforeAll(async () => {
    backend = await startRecordingBackend();
    edge = await startEdge(backend.url, { sessionCacheMs: 60_000 });
  });
  afterAll(async () => {
    await edge.close();
    await backend.close();
  });
  beforeEach(() => {
    backend.calls.length = 0;
    backend.failBuyWith = undefined;
    backend.sessions.clear();
    backend.sessions.set('tg-ios', { accountId: 7n, kind: 'telegram', subtype: '' });
    backend.sessions.set('vk-android', { accountId: 8n, kind: 'vk', subtype: 'android' });
    backend.sessions.set('untrusted', { accountId: 9n, kind: '', subtype: '' });
    backend.sessions.set('odd-kind', { accountId: 10n, kind: 'myspace', subtype: 'web' });
  });

  it('a client-sent X-Platform / X-Account-Id never reaches the backend: the session record decides', async () => {
    const forged = { 'x-platform': 'direct;web', 'x-account-id': '1' };
    const res = await call(`${edge.url}/api/v1/user/wallet`, { headers: { ...bearer('tg-ios'), ...forged } });
    expect(res.status).toBe(200);
    const res2 = await call(`${edge.url}/api/v1/user/wallet`, { headers: { ...bearer('vk-android'), ...forged } });
    expect(res2.status).toBe(200);
    const seen = backend.callsTo('GetWallet').map((c) => [c.headers['x-account-id'], c.headers['x-platform']]);
    expect(seen).toEqual([
      ['7', 'telegram'],
      ['8', 'vk;android'],
    ]);
  });

  it('an untrusted session is sent as X-Platform none whatever the client claims, and an unknown kind is untrusted', async () => {
    await call(`${edge.url}/api/v1/user/wallet`, { headers: { ...bearer('untrusted'), 'x-platform': 'direct;web' } });
    await call(`${edge.url}/api/v1/user/wallet`, { headers: { ...bearer('odd-kind'), 'x-platform': 'telegram' } });
    expect(backend.callsTo('GetWallet').map((c) => c.headers['x-platform'])).toEqual(['none', 'none']);
  });

  it('unauthenticated calls carry no trust headers at all, even when the client sends them', async () => {
    const res = await call(`${edge.url}/api/v1/session/telegram`, {
      method: 'POST',
      headers: { 'x-platform': 'direct;web', 'x-account-id': '1' },
      json: { init_data: 'query_id=1&hash=ab' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token: 'tg-token', platform: { kind: 'telegram', subtype: null }, account_id: '5' });
    const [open] = backend.callsTo('OpenTelegramSession');
    expect(open?.headers['x-platform']).toBeUndefined();
    expect(open?.headers['x-account-id']).toBeUndefined();
  });

  it('an untrusted session may look but not buy: 403 untrusted_session and Buy is never called', async () => {
    expect((await call(`${edge.url}/api/v1/user/wallet`, { headers: bearer('untrusted') })).status).toBe(200);
    const res = await call(`${edge.url}/api/v1/user/wallet`, { method: 'POST', headers: bearer('untrusted'), json: { product_id: '1' } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: { code: 'untrusted_session', message: expect.any(String) as string } });
    expect(backend.callsTo('Buy')).toHaveLength(0);
  });

  it('an untrusted session may read its profile but never write: profile change, account delete and social writes are 403 untrusted_session at the edge', async () => {
    expect(backend.callsTo('UpdateProfile')).toHaveLength(0);
    const writes: Array<[method: 'PATCH' | 'DELETE' | 'POST' | 'PUT', path: string, json?: unknown]> = [
      ['PATCH', '/api/v1/user/profile', { display_name: 'Mallory' }],
      ['PATCH', '/api/v1/user/profile', { email: 'mallory@example.test' }],
      ['DELETE', '/api/v1/user/account'],
      ['POST', '/api/v1/social/friend-requests', { account_id: '8' }],
      ['POST', '/api/v1/social/friend-requests/8/accept'],
      ['PUT', '/api/v1/social/blocks/8'],
      ['DELETE', '/api/v1/social/blocks/8'],
    ];
    for (const [method, path, json] of writes) {
      const res = await call(`${edge.url}${path}`, { method, headers: bearer('untrusted'), ...(json === undefined ? {} : { json }) });
      expect({ method, path, status: res.status, body: res.body }).toEqual({
        method,
        path,
        status: 403,
        body: { error: { code: 'untrusted_session', message: expect.any(String) as string } },
      });
    }
    expect(backend.calls.map((c) => c.method).filter((m) => m !== 'ResolveSession')).toEqual([]);
    const trusted = await call(`${edge.url}/api/v1/user/profile`, {
      method: 'PATCH',
      headers: bearer('vk-android'),
      json: { display_name: 'Vera' },
    });
    expect(trusted.status).not.toBe(403);
    expect(backend.callsTo('UpdateProfile')).toHaveLength(1);
  });

  it('refuses a missing, malformed or unknown token with 401 before any wallet call', async () => {
    const none = await call(`${edge.url}/api/v1/user/wallet`);
    expect(none).toMatchObject({ status: 401, body: { error: { code: 'unauthenticated' } } });
    const basic = await call(`${edge.url}/api/v1/user/wallet`, { headers: { authorization: 'Basic dXNlcjpwdw==' } });
    expect(basic).toMatchObject({ status: 401, body: { error: { code: 'unauthenticated' } } });
    const unknown = await call(`${edge.url}/api/v1/user/wallet`, { headers: bearer('nope') });
    expect(unknown).toMatchObject({ status: 401, body: { error: { code: 'session_invalid' } } });
    expect(backend.callsTo('GetWallet')).toHaveLength(0);
  });

  it('caches a resolved session briefly and forgets it on sign-out', async () => {
    backend.sessions.set('cached', { accountId: 11n, kind: 'direct', subtype: 'web' });
    for (let i = 0; i < 3; i++) expect((await call(`${edge.url}/api/v1/user/wallet`, { headers: bearer('cached') })).status).toBe(200);
    expect(backend.callsTo('ResolveSession')).toHaveLength(1);
    const out = await call(`${edge.url}/api/v1/session`, { method: 'DELETE', headers: bearer('cached') });
    expect(out.status).toBe(204);
    expect(backend.callsTo('CloseSession')).toHaveLength(1);
    const after = await call(`${edge.url}/api/v1/user/wallet`, { headers: bearer('cached') });
    expect(after).toMatchObject({ status: 401, body: { error: { code: 'session_invalid' } } });
  });

  it('concurrent requests with one uncached token share a single ResolveSession call', async () => {
    backend.sessions.set('burst', { accountId: 12n, kind: 'vk', subtype: 'web' });
    const results = await Promise.all(
      Array.from({ length: 10 }, () => call(`${edge.url}/api/v1/user/wallet`, { headers: bearer('burst') })),
    );
    expect(results.map((r) => r.status)).toEqual(Array<number>(10).fill(200));
    expect(backend.callsTo('ResolveSession')).toHaveLength(1);
    expect(backend.callsTo('GetWallet')).toHaveLength(10);
  });

  it('echoes a well-formed x-request-id, passes it to the backend, logs the operation name; replaces a bad one', async () => {
    const res = await call(`${edge.url}/api/v1/user/wallet`, { headers: { ...bearer('tg-ios'), 'x-request-id': 'req-abc.1' } });
    expect(res.headers.get('x-request-id')).toBe('req-abc.1');
    expect(backend.callsTo('GetWallet')[0]?.headers['x-request-id']).toBe('req-abc.1');
    const line = edge.logs.find((l) => l['requestId'] === 'req-abc.1' && l['msg'] === 'request done');
    expect(line).toMatchObject({ operation: 'wallet.get', status: 200, accountId: '7', platformKind: 'telegram' });
    const bad = await call(`${edge.url}/api/v1/user/wallet`, { headers: { ...bearer('tg-ios'), 'x-request-id': 'a b\u00e9' } });
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('counts requests per operation name and status in /metrics, without ids in labels', async () => {
    await call(`${edge.url}/api/v1/user/wallet`, { headers: bearer('tg-ios') });
    await call(`${edge.url}/api/v1/user/wallet`, { method: 'POST', headers: bearer('untrusted'), json: { product_id: '1' } });
    const text = await edge.metrics();
    expect(text).toMatch(/^gateway_api_requests_total\{operation="wallet\.get",status="200"\} [1-9]\d*$/m);
    expect(text).toMatch(/^gateway_api_requests_total\{operation="wallet\.buy",status="403"\} [1-9]\d*$/m);
    expect(text).toMatch(/^gateway_api_request_duration_seconds_count\{operation="wallet\.get"\} [1-9]\d*$/m);
    expect(text).not.toMatch(/tg-ios|account_?id|untrusted|vk-android/i);
  });

  it('writes amounts as decimal strings, exact beyond 2^53', async () => {
    const res = await call(`${edge.url}/api/v1/user/wallet`, { headers: bearer('tg-ios') });
    expect(res.body).toMatchObject({
      segments: [{ segment: 'direct', balance: '9007199254740993' }],
      spend_order: ['direct'],
      can_spend: true,
    });
  });

  it('maps backend machine codes once, at the edge, and never leaks an unknown one', async () => {
    const cases: [Code, string, number, string][] = [
      [Code.FailedPrecondition, 'insufficient_chips', 409, 'insufficient_chips'],
      [Code.NotFound, 'unknown_product', 404, 'unknown_product'],
      [Code.PermissionDenied, 'purchase_forbidden', 403, 'purchase_forbidden'],
      [Code.FailedPrecondition, 'idempotency_key_reused', 409, 'idempotency_key_reused'],
      [Code.InvalidArgument, 'some_new_check', 400, 'invalid_request'],
      [Code.Internal, 'internal', 500, 'internal'],
      [Code.Internal, 'db_password_is_hunter2', 500, 'internal'],
      [Code.Unavailable, 'overloaded', 503, 'backend_unavailable'],
      [Code.FailedPrecondition, 'platform_not_configured', 503, 'platform_not_configured'],
      [Code.Unauthenticated, 'caller_required', 401, 'unauthenticated'],
    ];
    for (const [code, errorCode, status, edgeCode] of cases) {
      backend.failBuyWith = { code, errorCode, message: `backend says ${errorCode}` };
      const res = await call(`${edge.url}/api/v1/user/wallet`, {
        method: 'POST',
        headers: bearer('vk-android'),
        json: { product_id: '3' },
      });
      expect([res.status, res.body]).toEqual([status, { error: { code: edgeCode, message: expect.any(String) as string } }]);
      if (edgeCode === 'internal' || edgeCode === 'backend_unavailable') expect(JSON.stringify(res.body)).not.toContain('backend says');
    }
  });

  it('passes the Idempotency-Key and product id through to Buy', async () => {
    const res = await call(`${edge.url}/api/v1/user/wallet`, {
      method: 'POST',
      headers: { ...bearer('vk-android'), 'idempotency-key': 'k-1' },
      json: { product_id: '9223372036854775807' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      product_id: '9223372036854775807',
      price: '10',
      draws: [{ segment: 'direct', amount: '10' }],
      replayed: false,
    });
  });
});

describe('gateway with an unreachable backend', () => {
  it('answers 503 backend_unavailable, not 500 or 401', async () => {
    const edge = await startEdge('http://127.0.0.1:1');
    try {
      const res = await call(`${edge.url}/api/v1/user/wallet`, { headers: bearer('whatever') });
      expect(res).toMatchObject({ status: 503, body: { error: { code: 'backend_unavailable' } } });
    } finally {
      await edge.close();
    }
  });
});

describe('operator guard of the catalog editor', () => {
  let backend: RecordingBackend;
  beforeAll(async () => {
    backend = await startRecordingBackend();
  });
  afterAll(async () => {
    await backend.close();
  });

  it('a missing or malformed operator token is 401 and nothing reaches the backend; a well-formed one names the operator to the backend', async () => {
    const edge = await startEdge(backend.url);
    try {
      for (const headers of [{}, { authorization: 'Basic abc' }, bearer('x'.repeat(129)), { authorization: 'Bearer ' }]) {
        const res = await call(`${edge.url}/_gm/api/catalog/products`, { headers });
        expect(res).toMatchObject({ status: 401, body: { error: { code: 'operator_unauthenticated' } } });
      }
      const post = await call(`${edge.url}/_gm/api/catalog/products`, {
        method: 'POST',
        headers: { 'x-operator-session': 'forged' },
        json: { title: 'x' },
      });
      expect(post.status).toBe(401);
      expect(backend.calls).toHaveLength(0);
      await call(`${edge.url}/_gm/api/catalog/products`, { headers: { ...bearer('op-session-token'), 'x-operator-session': 'forged' } });
      expect(backend.callsTo('ListProducts').map((c) => c.headers['x-operator-session'])).toEqual(['op-session-token']);
    } finally {
      await edge.close();
    }
  });
});
