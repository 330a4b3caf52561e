import fc from 'fast-check';
import { ERRORS, isErrorCode } from '@wordgame/contracts';
import { databaseFingerprint, startFuzzStack, type FuzzStack } from './support/fuzz-stack.js';
import {
  FUZZ_SCALE,
  FUZZ_SEED,
  absentId,
  badIdString,
  enc,
  hostileBody,
  hostilePathId,
  hostileString,
  notAString,
  nonObject,
} from './support/hostile.js';

type Auth = 'none' | 'session' | 'operator';

/** One hostile request: where, how, and what. */
interface Attempt {
  method: string;
  path: string;
  auth: Auth | { header: string };
  body?: { json: unknown } | { raw: string; type: string };
  headers?: Record<string, string>;
}

/** One REST target: how to make hostile attempts at it. */
interface Target {
  name: string;
  attempts: fc.Arbitrary<Attempt>;
}

const RUNS = 290 * FUZZ_SCALE;
/** Header values stay under Node's 16 KiB header limit (beyond it Node itself answers 431 before the app). */
const headerValue = hostileString.filter((s) => s.length < 1_000);
const id = (p: string) => (i: string) => p.replace(':id', i);

function bodyTarget(name: string, method: string, path: string, auth: Auth, body: fc.Arbitrary<unknown>): Target {
  return { name, attempts: body.map((json) => ({ method, path, auth, body: { json } })) };
}

function pathTarget(name: string, method: string, path: (id: string) => string, auth: Auth, body?: fc.Arbitrary<unknown>): Target {
  return {
    name,
    attempts: fc.tuple(hostilePathId, body ?? fc.constant(undefined)).map(([pid, json]) => ({
      method,
      path: path(pid),
      auth,
      ...(json === undefined ? {} : { body: { json } }),
    })),
  };
}

const productDraft = {
  title: 'Fuzz pack',
  texts: { ru: { title: 'Пачка для фаззинга' } },
  atoms: [{ kind: 'hints', quantity: '1' }],
  prices: [{ method: 'chips', amount: '10', currency: 'CHIPS' }],
};
const draftBreakers = {
  title: fc.oneof(
    notAString,
    fc.constant(''),
    hostileString.map((s) => `${s}&`),
    fc.constant('t'.repeat(65)),
  ),
  atoms: fc.oneof(
    nonObject.filter((v) => !Array.isArray(v)),
    fc.constant([]),
    fc.array(fc.jsonValue({ maxDepth: 2 }), { minLength: 1, maxLength: 3 }).map((a) => [...a, { kind: 'gold', quantity: '1' }]),
  ),
  prices: fc.oneof(
    nonObject.filter((v) => !Array.isArray(v)),
    fc.array(fc.jsonValue({ maxDepth: 2 }), { minLength: 1, maxLength: 3 }).map((a) => [...a, { method: 'chips', amount: 1.5 }]),
  ),
  active: fc.oneof(hostileString, fc.integer(), fc.constant(null)),
};

/** Every REST operation of the gateway, each with bodies, path ids or queries invalid by construction. */
function targets(): Target[] {
  const str = fc.oneof(notAString, fc.constant(''), fc.constant('x'.repeat(9_000)));
  return [
    bodyTarget(
      'session.telegram',
      'post',
      '/api/v1/session/telegram',
      'none',
      fc.oneof(
        hostileBody({ init_data: 'x' }, { init_data: str }, ['init_data']),
        hostileString.filter((s) => s.length > 0 && s.length < 8_000).map((init_data) => ({ init_data })),
      ),
    ),
    bodyTarget(
      'session.vk',
      'post',
      '/api/v1/session/vk',
      'none',
      fc.oneof(
        hostileBody({ launch_params: 'x' }, { launch_params: str }, ['launch_params']),
        hostileString.filter((s) => s.length > 0 && s.length < 8_000).map((launch_params) => ({ launch_params })),
      ),
    ),
    bodyTarget(
      'session.direct',
      'post',
      '/api/v1/session/direct',
      'none',
      hostileBody(
        { email: 'nobody@fuzz.test', password: 'fuzz password 1', mode: 'signup', subtype: 'web' },
        {
          email: fc.oneof(
            notAString,
            hostileString.filter((s) => !s.includes('@')),
          ),
          password: fc.oneof(notAString, fc.constant(''), fc.constant('p'.repeat(257))),
          mode: fc.oneof(
            notAString,
            hostileString.filter((s) => s !== 'signup' && s !== 'signin'),
          ),
          subtype: fc.oneof(
            notAString,
            hostileString.filter((s) => !['web', 'ios', 'android', 'desktop', 'mobile'].includes(s)).map((s) => `~${s}`),
          ),
        },
        ['email', 'password', 'mode'],
      ),
    ),
    {
      name: 'session.close (foreign tokens)',
      attempts: headerValue.map((t) => ({ method: 'delete', path: '/api/v1/session', auth: { header: `Bearer ${t}` } })),
    },
    {
      name: 'profile.get (foreign auth)',
      attempts: headerValue.map((t) => ({ method: 'get', path: '/api/v1/user/profile', auth: { header: t } })),
    },
    bodyTarget(
      'profile.update',
      'patch',
      '/api/v1/user/profile',
      'session',
      hostileBody(
        { display_name: 'Fuzz', email: 'fuzz@example.test' },
        {
          display_name: fc.oneof(notAString, fc.constant(''), fc.constant('d'.repeat(65))),
          email: fc.oneof(
            notAString,
            hostileString.filter((s) => !s.includes('@')),
          ),
        },
        [],
      ),
    ),
    {
      name: 'wallet.catalog / wallet.get / orders (junk query)',
      attempts: fc
        .tuple(
          fc.constantFrom('/api/v1/user/wallet/catalog', '/api/v1/user/wallet', '/api/v1/user/wallet/orders'),
          headerValue,
          headerValue,
        )
        .map(([p, k, v]) => ({ method: 'get', path: `${p}?${enc(k)}=${enc(v)}`, auth: 'session' })),
    },
    {
      name: 'wallet.buy',
      attempts: fc
        .tuple(
          fc.oneof(
            hostileBody({ product_id: '1' }, { product_id: fc.oneof(notAString, badIdString) }, ['product_id']),
            absentId.map((product_id) => ({ product_id })),
          ),
          fc.option(fc.oneof(headerValue, fc.string({ minLength: 1, maxLength: 128 }))),
        )
        .map(([json, key]) => ({
          method: 'post',
          path: '/api/v1/user/wallet',
          auth: 'session',
          body: { json },
          ...(key === null || !/^[\t\x20-\x7e]*$/.test(key) ? {} : { headers: { 'idempotency-key': key } }),
        })),
    },
    bodyTarget(
      'wallet.order_create',
      'post',
      '/api/v1/user/wallet/orders',
      'session',
      fc.oneof(
        hostileBody(
          { product_id: '1', rail: 'card' },
          {
            product_id: fc.oneof(notAString, badIdString),
            rail: fc.oneof(
              notAString,
              hostileString.filter((s) => s !== 'stars' && s !== 'card'),
            ),
          },
          ['product_id', 'rail'],
        ),
        fc.tuple(absentId, fc.constantFrom('stars', 'card')).map(([product_id, rail]) => ({ product_id, rail })),
      ),
    ),
    pathTarget('wallet.order_get', 'get', id('/api/v1/user/wallet/orders/:id'), 'session'),
    bodyTarget(
      'catalog_admin.create',
      'post',
      '/_gm/api/catalog/products',
      'operator',
      hostileBody(productDraft, draftBreakers, ['title', 'atoms', 'prices']),
    ),
    pathTarget('catalog_admin.get', 'get', id('/_gm/api/catalog/products/:id'), 'operator'),
    pathTarget(
      'catalog_admin.update',
      'put',
      id('/_gm/api/catalog/products/:id'),
      'operator',
      hostileBody(productDraft, draftBreakers, ['title', 'atoms', 'prices']),
    ),
    {
      name: 'catalog_admin (foreign tokens)',
      attempts: fc.tuple(headerValue, fc.constantFrom('get', 'post')).map(([t, method]) => ({
        method,
        path: '/_gm/api/catalog/products',
        auth: { header: `Bearer ${t}` },
        ...(method === 'post' ? { body: { json: productDraft } } : {}),
      })),
    },
    pathTarget('orders.refund', 'post', id('/_gm/api/orders/:id/refund'), 'operator'),
    bodyTarget(
      'game.create',
      'post',
      '/api/v1/games',
      'session',
      fc.oneof(
        hostileBody(
          { variant: 'classic', vs_ai: false, opponent_account_id: '1' },
          {
            variant: fc.oneof(
              notAString,
              hostileString.filter((s) => s !== 'classic' && s !== 'no_repeat'),
            ),
            vs_ai: fc.oneof(hostileString, fc.integer(), fc.constant(null)),
            opponent_account_id: fc.oneof(notAString, badIdString),
          },
          ['variant'],
        ),
        absentId.map((opponent_account_id) => ({ variant: 'classic', vs_ai: false, opponent_account_id })),
      ),
    ),
    pathTarget('game.get', 'get', id('/api/v1/games/:id'), 'session'),
    pathTarget('game.events', 'get', id('/api/v1/games/:id/events'), 'session'),
    pathTarget(
      'game.move',
      'post',
      id('/api/v1/games/:id/moves'),
      'session',
      fc.oneof(fc.constant({ word: 'apple' }), hostileBody({ word: 'apple' }, { word: fc.oneof(notAString, fc.constant('')) }, ['word'])),
    ),
    pathTarget('game.hint', 'post', id('/api/v1/games/:id/hints'), 'session'),
    pathTarget('game.resign', 'post', id('/api/v1/games/:id/resign'), 'session'),
    bodyTarget(
      'social.friend_request',
      'post',
      '/api/v1/social/friend-requests',
      'session',
      fc.oneof(
        hostileBody({ account_id: '1' }, { account_id: fc.oneof(notAString, badIdString) }, ['account_id']),
        absentId.map((account_id) => ({ account_id })),
      ),
    ),
    pathTarget('social.friend_accept', 'post', id('/api/v1/social/friend-requests/:id/accept'), 'session'),
    pathTarget('social.block', 'put', id('/api/v1/social/blocks/:id'), 'session'),
    pathTarget('social.unblock', 'delete', id('/api/v1/social/blocks/:id'), 'session'),
    {
      name: 'account.delete (foreign tokens)',
      attempts: headerValue.map((t) => ({ method: 'delete', path: '/api/v1/user/account', auth: { header: `Bearer ${t}` } })),
    },
    bodyTarget(
      'payments.notification.yookassa',
      'post',
      '/api/v1/payments/notifications/yookassa',
      'none',
      fc.oneof(
        fc.jsonValue({ maxDepth: 4 }),
        fc.record({
          type: fc.constantFrom('notification', 'x'),
          event: fc.constantFrom('payment.succeeded', 'payment.canceled', 'payment.waiting_for_capture', 'refund.succeeded', 'junk'),
          object: fc.record({
            id: fc.oneof(fc.uuid(), hostileString),
            status: hostileString,
            metadata: fc.record({ order_id: fc.oneof(fc.uuid(), hostileString, notAString) }),
          }),
        }),
      ),
    ),
    {
      name: 'raw bodies (malformed JSON, wrong media type, oversized)',
      attempts: fc
        .tuple(
          fc.constantFrom(
            ['post', '/api/v1/session/direct'],
            ['patch', '/api/v1/user/profile'],
            ['post', '/api/v1/user/wallet'],
            ['post', '/api/v1/user/wallet/orders'],
            ['post', '/_gm/api/catalog/products'],
            ['post', '/api/v1/games'],
            ['post', '/api/v1/payments/notifications/yookassa'],
          ),
          fc.oneof(
            fc.string({ maxLength: 60 }),
            fc.constantFrom('{', '{"a":', '[1,', 'null', '\u0000', '{"product_id":"1"'),
            fc.constant(`{"a":"${'z'.repeat(70_000)}"}`),
          ),
          fc.constantFrom(
            'application/json',
            'text/plain',
            'application/x-www-form-urlencoded',
            'application/json; charset=utf-16',
            'application/octet-stream',
          ),
        )
        .map(([[method, path], raw, type]) => ({
          method,
          path,
          auth: path.startsWith('/_gm') ? 'operator' : path.includes('session/') || path.includes('notifications') ? 'none' : 'session',
          body: { raw, type },
        })),
    },
    {
      name: 'unknown routes',
      attempts: fc
        .tuple(fc.constantFrom('get', 'post', 'put', 'delete', 'patch'), headerValue)
        .map(([method, p]) => ({ method, path: `/api/v1/${enc(p)}/x`, auth: 'session' })),
    },
  ];
}

describe('hostile input on every REST endpoint (real gateway, real backend process, PostgreSQL)', () => {
  let stack: FuzzStack;
  let token: string;
  let total = 0;

  beforeAll(async () => {
    stack = await startFuzzStack();
    const res = await fetch(`${stack.urls.httpUrl}/api/v1/session/direct`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'fuzzer@example.test', password: 'fuzzer password 1', mode: 'signup', subtype: 'web' }),
    });
    expect(res.status).toBe(200);
    token = ((await res.json()) as { token: string }).token;
  }, 120_000);
  afterAll(async () => {
    process.stdout.write(`hostile REST inputs tried: ${total} (seed ${FUZZ_SEED}, scale ${FUZZ_SCALE})\n`);
    await stack?.stop();
  });

  async function send(a: Attempt): Promise<{ status: number; type: string; text: string }> {
    const headers: Record<string, string> = { ...a.headers };
    if (a.auth === 'session') headers['authorization'] = `Bearer ${token}`;
    else if (a.auth === 'operator') headers['authorization'] = `Bearer ${stack.operatorToken}`;
    else if (typeof a.auth === 'object') headers['authorization'] = a.auth.header.replace(/[^\t\x20-\x7e]/g, '?');
    let body: string | undefined;
    if (a.body && 'json' in a.body) {
      body = JSON.stringify(a.body.json) ?? 'null';
      headers['content-type'] = 'application/json';
    } else if (a.body) {
      body = a.body.raw;
      headers['content-type'] = a.body.type;
    }
    const signal = AbortSignal.timeout(15_000);
    try {
      const res = await fetch(`${stack.urls.httpUrl}${a.path}`, {
        method: a.method.toUpperCase(),
        headers,
        body,
        redirect: 'manual',
        signal,
      });
      const text = await res.text();
      return { status: res.status, type: res.headers.get('content-type') ?? '', text };
    } catch (err: unknown) {
      throw new Error(`request failed or no answer within 15 s: ${a.method} ${a.path.slice(0, 120)} (${String(err)})`);
    }
  }

  /** Never 5xx; every 4xx is exactly `{error:{code,message}}` with a code of the closed table at its own status. */
  function checkAnswer(a: Attempt, res: { status: number; type: string; text: string }): void {
    const where = `${a.method} ${a.path.slice(0, 120)} body ${JSON.stringify(a.body)?.slice(0, 200)} -> ${res.status} ${res.text.slice(0, 200)}`;
    if (res.status >= 500) throw new Error(`5xx: ${where}`);
    if (res.status < 400) return;
    if (!res.type.startsWith('application/json')) throw new Error(`non-JSON error: ${where}`);
    const parsed = JSON.parse(res.text) as { error?: { code?: unknown; message?: unknown } };
    const code = parsed.error?.code;
    if (typeof code !== 'string' || typeof parsed.error?.message !== 'string' || parsed.error.message === '')
      throw new Error(`bad error body: ${where}`);
    if (!isErrorCode(code) || ERRORS[code].audience === 'service') throw new Error(`code outside the closed table: ${where}`);
    const known = ERRORS[code].http;
    if (known !== res.status) throw new Error(`status ${res.status} for ${code} (table says ${known}): ${where}`);
  }

  async function stillUp(): Promise<void> {
    expect((await fetch(`${stack.backend.url}/health`)).status).toBe(200);
    expect((await fetch(`${stack.urls.httpUrl}/health`)).status).toBe(200);
  }

  it(`answers ${RUNS} generated inputs per endpoint without 5xx, with a clear error body, writing nothing`, async () => {
    // Operator API calls are audited (refused ones too), by design.
    const before = await databaseFingerprint(stack.db, ['operator_audit', 'rate_limits']);
    for (const [index, target] of targets().entries()) {
      let tried = 0;
      await fc.assert(
        fc.asyncProperty(target.attempts, async (attempt) => {
          tried++;
          checkAnswer(attempt, await send(attempt));
        }),
        { numRuns: RUNS, seed: FUZZ_SEED + index, endOnFailure: false },
      );
      total += tried;
      if (process.env['FUZZ_VERBOSE']) process.stderr.write(`${target.name}: ${tried}\n`);
      await stillUp();
      expect([target.name, await databaseFingerprint(stack.db, ['operator_audit', 'rate_limits'])]).toEqual([target.name, before]);
    }
    expect(stack.provider.control.payments()).toEqual([]);
    expect(total).toBeGreaterThanOrEqual(RUNS * targets().length);
  }, 240_000);
});
