import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import express from 'express';
import { jest } from '@jest/globals';
import { freshDatabase, startBackendProcess, type BackendProcess, type FreshDatabase } from './support/backend-process.js';
import { startEdge, type Edge } from './support/edge.js';
import { silentBackend, type SilentBackend } from './support/silent-backend.js';

/** One request as sent: method, path as written on the request line, headers. */
interface Variant {
  name: string;
  method?: string;
  path?: string;
  headers?: () => Record<string, string>;
  body?: string;
  /** The status both paths must answer (so a variant cannot pass by testing nothing). */
  status: number;
  /** Whether the fast edge answers it without Express's router. */
  direct: boolean;
  /** Whether a handler sees it at all (Node's parser refuses some before any; default yes). */
  handled?: boolean;
}

/** What a client and an operator see of one answer. */
interface Outcome {
  status: number;
  /** Every header as sent, in order, but Date, ETag, Connection and Keep-Alive; a generated request id as `<uuid>`. */
  headers: [string, string][];
  body: string;
  /** The gateway_* series that moved (histogram buckets and sums aside: they hold timings), by how much. */
  metrics: Record<string, number>;
  /** The log lines written, without time and duration; a generated request id as `<uuid>`, an error without its stack. */
  logs: Record<string, unknown>[];
  /** Requests Express's router dispatched at the top. */
  routed: number;
}

const VOLATILE = new Set(['date', 'etag', 'connection', 'keep-alive']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const WALLET = '/api/v1/user/wallet';

/** Top-level dispatches of any Express router: the Express path makes one per request at least, the direct route none. */
const routerHandle = jest.spyOn(express.Router.prototype as { handle: (...args: unknown[]) => unknown }, 'handle');

function send(url: string, v: Variant): Promise<{ status: number; rawHeaders: string[]; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${v.path ?? WALLET}`, { method: v.method ?? 'GET', headers: v.headers?.() ?? {}, agent: false });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, rawHeaders: res.rawHeaders, body }));
    });
    req.on('error', reject);
    req.end(v.body);
  });
}

/** The gateway's own counters and counts of an edge's metrics text (not the runtime's), by series. */
function series(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('gateway_') || /^gateway_(nodejs_|process_|in_flight_requests)|_(bucket|sum)\{/.test(line)) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

const gauge = async (edge: Edge, name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(await edge.metrics())?.[1] ?? Number.NaN);

async function until(check: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 10));
}

function normalizeLog(line: Record<string, unknown>): Record<string, unknown> {
  const { time: _time, ms: _ms, ...rest } = line;
  if (typeof rest['requestId'] === 'string' && UUID.test(rest['requestId'])) rest['requestId'] = '<uuid>';
  const err = rest['err'];
  if (typeof err === 'object' && err !== null) {
    const { stack: _stack, ...kept } = err as Record<string, unknown>;
    rest['err'] = kept;
  }
  return rest;
}

/** Sends `v` to `edge`, waits until the edge has let it go (`inFlightAfter` held by others), and records everything seen of it. */
async function outcome(edge: Edge, v: Variant, inFlightAfter = 0): Promise<Outcome> {
  const before = series(await edge.metrics());
  const logged = edge.logs.length;
  const routed = routerHandle.mock.calls.length;
  const res = await send(edge.url, v);
  await until(async () => (await gauge(edge, 'gateway_in_flight_requests')) === inFlightAfter);
  const metrics: Record<string, number> = {};
  for (const [name, value] of series(await edge.metrics()))
    if (value !== (before.get(name) ?? 0)) metrics[name] = value - (before.get(name) ?? 0);
  const headers: [string, string][] = [];
  for (let i = 0; i < res.rawHeaders.length; i += 2) {
    const name = res.rawHeaders[i] ?? '';
    const value = res.rawHeaders[i + 1] ?? '';
    if (!VOLATILE.has(name.toLowerCase()))
      headers.push([name, name.toLowerCase() === 'x-request-id' && UUID.test(value) ? '<uuid>' : value]);
  }
  return {
    status: res.status,
    headers,
    body: res.body,
    metrics,
    logs: edge.logs.slice(logged).map(normalizeLog),
    routed: routerHandle.mock.calls.length - routed,
  };
}

/** Sends `v` through the fast edge and the Express-only edge; both answers must be the same in every way but the router. */
async function expectSame(fast: Edge, slow: Edge, v: Variant, inFlightAfter = 0): Promise<Outcome> {
  const direct = await outcome(fast, v, inFlightAfter);
  const routed = await outcome(slow, v, inFlightAfter);
  expect({ variant: v.name, status: direct.status }).toEqual({ variant: v.name, status: v.status });
  expect({ variant: v.name, ...direct, routed: undefined }).toEqual({ variant: v.name, ...routed, routed: undefined });
  expect({ variant: v.name, direct: direct.routed === 0, routed: routed.routed > 0 }).toEqual({
    variant: v.name,
    direct: v.direct || v.handled === false,
    routed: v.handled !== false,
  });
  return direct;
}

afterAll(() => routerHandle.mockRestore());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('GET /api/v1/user/wallet: the direct route answers exactly as the Express path', () => {
  let db: FreshDatabase;
  let backend: BackendProcess;
  let fast: Edge;
  let slow: Edge;
  let token = '';
  let untrusted = '';
  let expired = '';
  let blocked = '';

  const signUp = async (email: string) => {
    const res = await fetch(`${fast.url}/api/v1/session/direct`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'wallet password 1', mode: 'signup', subtype: 'web' }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { token: string; account_id: string };
  };
  const sessionRow = async (accountId: string, platform: string | null, expiresIn: string) => {
    const raw = randomBytes(32).toString('base64url');
    await db.query(
      `insert into sessions (token_hash, account_id, platform_kind, platform_subtype, expires_at) values ($1, $2, $3, null, now() + $4::interval)`,
      [createHash('sha256').update(raw).digest('hex'), accountId, platform, expiresIn],
    );
    return raw;
  };

  beforeAll(async () => {
    db = await freshDatabase();
    backend = await startBackendProcess(db.url);
    fast = await startEdge(backend.url, { sessionCacheMs: 5_000 });
    slow = await startEdge(backend.url, { sessionCacheMs: 5_000, directWallet: false });
    const player = await signUp('player@example.test');
    token = player.token;
    await db.query(
      `with s as (update wallet_segments set balance = balance + 25 where account_id = $1 and segment = 'direct')
       insert into ledger_operations (account_id, kind, segment, chips_delta, note) values ($1, 'grant', 'direct', 25, 'test chips')`,
      [player.account_id],
    );
    untrusted = await sessionRow(player.account_id, null, '1 hour');
    expired = await sessionRow(player.account_id, 'direct', '-1 hour');
    const suspended = await signUp('suspended@example.test');
    await db.query(`update accounts set status = 'suspended' where id = $1`, [suspended.account_id]);
    blocked = suspended.token;
  }, 90_000);
  afterAll(async () => {
    await fast?.close();
    await slow?.close();
    await backend?.stop();
    await db?.drop();
  });

  const rid = (n: string) => ({ 'x-request-id': `wallet-fast-${n}` });
  const variants: Variant[] = [
    { name: 'valid token', headers: () => ({ ...bearer(token), ...rid('valid') }), status: 200, direct: true },
    { name: 'valid token again (session cached)', headers: () => ({ ...bearer(token), ...rid('cached') }), status: 200, direct: true },
    { name: 'no request id: a fresh one', headers: () => bearer(token), status: 200, direct: true },
    {
      name: 'malformed request id: replaced',
      headers: () => ({ ...bearer(token), 'x-request-id': 'no spaces allowed' }),
      status: 200,
      direct: true,
    },
    {
      name: 'untrusted session: view-only reads',
      headers: () => ({ ...bearer(untrusted), ...rid('untrusted') }),
      status: 200,
      direct: true,
    },
    { name: 'blocked account', headers: () => ({ ...bearer(blocked), ...rid('blocked') }), status: 403, direct: true },
    {
      name: 'client trust headers are dropped',
      headers: () => ({ ...bearer(token), 'x-account-id': '1', 'x-platform': 'vk', ...rid('trust') }),
      status: 200,
      direct: true,
    },
    { name: 'no token', headers: () => rid('none'), status: 401, direct: true },
    { name: 'not a bearer', headers: () => ({ authorization: `Basic ${token}`, ...rid('basic') }), status: 401, direct: true },
    { name: 'bearer without a token', headers: () => ({ authorization: 'Bearer ', ...rid('empty') }), status: 401, direct: true },
    { name: 'token too long', headers: () => ({ ...bearer('t'.repeat(513)), ...rid('long') }), status: 401, direct: true },
    { name: 'unknown token', headers: () => ({ ...bearer('no-such-session-token'), ...rid('unknown') }), status: 401, direct: true },
    { name: 'expired session', headers: () => ({ ...bearer(expired), ...rid('expired') }), status: 401, direct: true },
    { name: 'HEAD', method: 'HEAD', headers: () => ({ ...bearer(token), ...rid('head') }), status: 200, direct: false },
    { name: 'query string', path: `${WALLET}?x=1`, headers: () => ({ ...bearer(token), ...rid('query') }), status: 200, direct: false },
    { name: 'trailing slash', path: `${WALLET}/`, headers: () => ({ ...bearer(token), ...rid('slash') }), status: 200, direct: false },
    { name: 'upper case', path: WALLET.toUpperCase(), headers: () => ({ ...bearer(token), ...rid('upper') }), status: 200, direct: false },
    { name: 'mixed case', path: '/api/v1/User/Wallet', headers: () => ({ ...bearer(token), ...rid('mixed') }), status: 200, direct: false },
    {
      name: 'a body: malformed JSON',
      headers: () => ({ ...bearer(token), 'content-type': 'application/json', 'content-length': '5', ...rid('badjson') }),
      body: '{"x":',
      status: 400,
      direct: false,
    },
    {
      name: 'an empty body',
      headers: () => ({ ...bearer(token), 'content-type': 'application/json', 'content-length': '0', ...rid('emptybody') }),
      status: 200,
      direct: false,
    },
    {
      name: 'oversized header',
      headers: () => ({ ...bearer(token), 'x-padding': 'p'.repeat(20_000) }),
      status: 431,
      direct: false,
      handled: false,
    },
    { name: 'POST (wallet.buy) is not the direct route', method: 'POST', headers: () => ({ ...rid('post') }), status: 401, direct: false },
  ];

  it.each(variants.map((v) => [v.name, v] as const))('%s', async (_name, v) => {
    const seen = await expectSame(fast, slow, v);
    if (v.status === 200 && v.method !== 'HEAD') expect(JSON.parse(seen.body)).toMatchObject({ segments: expect.any(Array) as unknown[] });
  });

  it('a valid answer names the operation in its metrics and its log line', async () => {
    const seen = await expectSame(fast, slow, {
      name: 'valid, inspected',
      headers: () => ({ ...bearer(token), ...rid('inspected') }),
      status: 200,
      direct: true,
    });
    expect(seen.metrics).toEqual({
      'gateway_api_requests_total{operation="wallet.get",status="200"}': 1,
      'gateway_api_request_duration_seconds_count{operation="wallet.get"}': 1,
    });
    expect(seen.logs).toEqual([
      expect.objectContaining({ msg: 'request done', operation: 'wallet.get', status: 200, requestId: 'wallet-fast-inspected' }),
    ]);
  });
});

describe('GET /api/v1/user/wallet with the backend down, behind, or the door full: both paths alike', () => {
  let silent: SilentBackend;
  const edges: Edge[] = [];

  afterAll(async () => {
    for (const e of edges) await e.close();
    await silent?.close();
  });

  it('backend unreachable: 503 backend_unavailable, logged, counted alike', async () => {
    const fast = await startEdge('http://127.0.0.1:1', { sessionCacheMs: 0 });
    const slow = await startEdge('http://127.0.0.1:1', { sessionCacheMs: 0, directWallet: false });
    edges.push(fast, slow);
    const seen = await expectSame(fast, slow, {
      name: 'backend down',
      headers: () => ({ ...bearer('any-token'), 'x-request-id': 'down' }),
      status: 503,
      direct: true,
    });
    expect(JSON.parse(seen.body)).toMatchObject({ error: { code: 'backend_unavailable' } });
    expect(seen.logs.map((l) => l['msg'])).toEqual(['backend call failed', 'request done']);
  });

  it('the door full: 503 overloaded with Retry-After, counted as shed; the request holding it ends at the deadline, alike', async () => {
    silent = await silentBackend();
    const fast = await startEdge(silent.url, { sessionCacheMs: 0, maxInFlight: 1 });
    const slow = await startEdge(silent.url, { sessionCacheMs: 0, maxInFlight: 1, directWallet: false });
    edges.push(fast, slow);
    const holder: Variant = {
      name: 'behind: the deadline',
      headers: () => ({ ...bearer('held-token'), 'x-request-id': 'held' }),
      status: 503,
      direct: true,
    };
    const held = [outcome(fast, holder), outcome(slow, holder)];
    await until(() => silent.calls() === 2);

    const shed = await expectSame(
      fast,
      slow,
      { name: 'door full', headers: () => ({ ...bearer('shed-token'), 'x-request-id': 'shed' }), status: 503, direct: true },
      1,
    );
    expect(shed.metrics).toEqual({ gateway_shed_total: 1 });
    expect(shed.headers).toContainEqual(['retry-after', '1']);
    expect(JSON.parse(shed.body)).toMatchObject({ error: { code: 'overloaded' } });
    expect(silent.calls()).toBe(2);

    const [direct, routed] = await Promise.all(held);
    expect(direct?.status).toBe(503);
    expect({ ...direct, routed: undefined }).toEqual({ ...routed, routed: undefined });
    expect(JSON.parse(direct?.body ?? '')).toMatchObject({ error: { code: 'backend_unavailable' } });
  }, 30_000);
});
