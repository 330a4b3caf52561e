import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { OPENAPI_FILE } from '../src/api/openapi/generate.js';
import { templatePath } from '../src/api/openapi/json-schema.js';
import { documentedRoutes, operationTable } from '../src/api/router.js';
import { backendSessionResolver } from '../src/auth/resolver.js';
import { SessionCache } from '../src/auth/session-cache.js';
import { createBackendClients } from '../src/backend/client.js';
import type { DocumentedRoute } from '../src/api/doc.js';
import { grantChips, startChain, type Chain } from './support/chain.js';
import { call } from './support/edge.js';

type Obj = Record<string, unknown>;
const document = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../..', OPENAPI_FILE), 'utf8')) as {
  paths: Record<string, Record<string, Obj>>;
};

const unused = createBackendClients('http://127.0.0.1:9', 'openapi-responses-test');
const routes = new Map<string, DocumentedRoute>(
  documentedRoutes(operationTable(unused, backendSessionResolver(unused.account, new SessionCache(0)))).map((r) => [
    `${r.name} ${r.method}`,
    r,
  ]),
);
unused.close();

/** The error codes the document lists for one operation and status. */
function documentedCodes(route: DocumentedRoute, status: number): string[] {
  const response = document.paths[templatePath(route.path)]?.[route.method]?.['responses'] as Record<string, Obj> | undefined;
  const schema = (response?.[String(status)]?.['content'] as Record<string, { schema: Obj }> | undefined)?.['application/json']?.schema;
  const code = ((schema?.['properties'] as Obj | undefined)?.['error'] as Obj | undefined)?.['properties'] as Obj | undefined;
  return (code?.['code'] as { enum?: string[] } | undefined)?.enum ?? [];
}

describe('real answers match the API document (gateway -> backend -> PostgreSQL)', () => {
  let chain: Chain;
  let api: string;
  const seen = new Set<string>();

  /** Calls a route and checks the answer against its document entry: the success schema, or an error code listed for the status. */
  const check = async (
    operation: string,
    method: DocumentedRoute['method'],
    url: string,
    init: { headers?: Record<string, string>; json?: unknown } = {},
    expected?: number,
  ) => {
    const route = routes.get(`${operation} ${method}`);
    if (route === undefined) throw new Error(`no documented route ${operation} ${method}`);
    const res = await call(url, { ...init, method: method.toUpperCase() });
    // The body rides along so a wrong status shows what came back.
    if (expected !== undefined)
      expect([operation, res.status, res.status === expected ? 'as expected' : res.body]).toEqual([operation, expected, 'as expected']);
    if (res.status === route.doc.success.status) {
      if (route.doc.success.body === undefined) expect([operation, res.body]).toEqual([operation, undefined]);
      else {
        const parsed = route.doc.success.body.safeParse(res.body);
        expect([operation, parsed.success ? 'matches' : parsed.error.issues]).toEqual([operation, 'matches']);
      }
    } else {
      const code = (res.body as { error?: { code?: string } } | undefined)?.error?.code ?? '(no error code)';
      expect([operation, res.status, documentedCodes(route, res.status)]).toEqual([
        operation,
        res.status,
        expect.arrayContaining([code]) as unknown,
      ]);
    }
    seen.add(`${operation} ${res.status}`);
    return res.body as Obj;
  };
  const as = (token: string) => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    chain = await startChain();
    api = `${chain.edge.url}/api/v1`;
  }, 90_000);
  afterAll(async () => {
    await chain?.stop();
  });

  it('sessions, profile, wallet, catalog editor, orders, games, social and the document itself', async () => {
    const signup = (email: string) =>
      check(
        'session.direct',
        'post',
        `${api}/session/direct`,
        { json: { email, password: 'document password 1', mode: 'signup', subtype: 'web' } },
        200,
      );
    const me = await signup('doc-reader@example.test');
    const other = await signup('doc-friend@example.test');
    const token = me['token'] as string;
    await check(
      'session.direct',
      'post',
      `${api}/session/direct`,
      { json: { email: 'not an address', password: 'x', mode: 'signin' } },
      400,
    );
    await check(
      'session.direct',
      'post',
      `${api}/session/direct`,
      { json: { email: 'doc-reader@example.test', password: 'wrong password 1', mode: 'signin' } },
      401,
    );
    await check('session.telegram', 'post', `${api}/session/telegram`, { json: { init_data: 'hash=forged' } });

    await check('profile.get', 'get', `${api}/user/profile`, { headers: as(token) }, 200);
    await check('profile.update', 'patch', `${api}/user/profile`, { headers: as(token), json: { display_name: 'Reader' } }, 200);
    await check('wallet.get', 'get', `${api}/user/wallet`, {}, 401);

    const op = as(chain.operatorToken);
    await check('catalog_admin.list', 'get', `${chain.edge.url}/_gm/api/catalog/products`, { headers: op }, 200);
    const product = await check(
      'catalog_admin.create',
      'post',
      `${chain.edge.url}/_gm/api/catalog/products`,
      {
        headers: op,
        json: {
          title: 'Hints x3',
          texts: { ru: { title: 'Подсказки x3' } },
          atoms: [{ kind: 'hints', quantity: '3' }],
          prices: [{ method: 'chips', amount: '30', currency: 'CHIPS' }],
        },
      },
      201,
    );
    const productId = product['product_id'] as string;
    await check('catalog_admin.get', 'get', `${chain.edge.url}/_gm/api/catalog/products/${productId}`, { headers: op }, 200);
    await check('catalog_admin.get', 'get', `${chain.edge.url}/_gm/api/catalog/products/999999`, { headers: op }, 404);
    await check(
      'catalog_admin.create',
      'post',
      `${chain.edge.url}/_gm/api/catalog/products`,
      { headers: op, json: { title: '<b>', atoms: [], prices: [] } },
      400,
    );

    await check('wallet.catalog', 'get', `${api}/user/wallet/catalog`, { headers: as(token) }, 200);
    await check('wallet.buy', 'post', `${api}/user/wallet`, { headers: as(token), json: { product_id: productId } }, 409);
    await grantChips(chain.db, me['account_id'] as string, 'direct', 100n);
    await check(
      'wallet.buy',
      'post',
      `${api}/user/wallet`,
      { headers: { ...as(token), 'idempotency-key': 'doc-buy-1' }, json: { product_id: productId } },
      200,
    );
    await check('wallet.get', 'get', `${api}/user/wallet`, { headers: as(token) }, 200);
    await check('wallet.orders', 'get', `${api}/user/wallet/orders?limit=5`, { headers: as(token) }, 200);
    await check('wallet.orders', 'get', `${api}/user/wallet/orders?limit=500`, { headers: as(token) }, 400);
    await check('wallet.order_get', 'get', `${api}/user/wallet/orders/${crypto.randomUUID()}`, { headers: as(token) }, 404);
    await check(
      'wallet.order_create',
      'post',
      `${api}/user/wallet/orders`,
      { headers: as(token), json: { product_id: productId, rail: 'bank' } },
      400,
    );

    const game = await check('game.create', 'post', `${api}/games`, { headers: as(token), json: { variant: 'classic', vs_ai: true } }, 201);
    const gameId = game['game_id'] as string;
    await check('game.get', 'get', `${api}/games/${gameId}`, { headers: as(token) }, 200);
    await check('game.get', 'get', `${api}/games/0x1`, { headers: as(token) }, 400);
    await check('game.move', 'post', `${api}/games/${gameId}/moves`, { headers: as(token), json: { word: 'apple' } });
    await check('game.hint', 'post', `${api}/games/${gameId}/hints`, { headers: as(token) });
    await check('game.resign', 'post', `${api}/games/${gameId}/resign`, { headers: as(token) }, 200);
    await check('game.move', 'post', `${api}/games/${gameId}/moves`, { headers: as(token), json: { word: 'eagle' } }, 409);

    const events = await fetch(`${api}/games/${gameId}/events`, { headers: as(token) });
    expect(events.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = events.body?.getReader();
    let frame = '';
    while (!frame.includes('\n\n')) {
      const chunk = await reader?.read();
      if (!chunk || chunk.done) break;
      frame += new TextDecoder().decode(chunk.value as Uint8Array);
    }
    await reader?.cancel();
    const data = JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? 'null') as unknown;
    const snapshot = routes.get('game.events get')?.doc.success.body?.safeParse(data);
    expect(snapshot?.success ? 'matches' : snapshot?.error.issues).toBe('matches');

    const friend = other['account_id'] as string;
    await check(
      'social.friend_request',
      'post',
      `${api}/social/friend-requests`,
      { headers: as(token), json: { account_id: friend } },
      200,
    );
    await check(
      'social.friend_accept',
      'post',
      `${api}/social/friend-requests/${me['account_id'] as string}/accept`,
      { headers: as(other['token'] as string) },
      200,
    );
    await check('social.block', 'put', `${api}/social/blocks/${friend}`, { headers: as(token) }, 200);
    await check('social.unblock', 'delete', `${api}/social/blocks/${friend}`, { headers: as(token) }, 204);

    await check('api.openapi', 'get', `${api}/openapi.json`, {}, 200);
    await check('account.delete', 'delete', `${api}/user/account`, { headers: as(other['token'] as string) }, 204);
    await check('session.close', 'delete', `${api}/session`, { headers: as(token) }, 204);
    await check('session.close', 'delete', `${api}/session`, { headers: as(token) }, 401);

    expect(seen.size).toBeGreaterThanOrEqual(35);
  }, 120_000);
});
