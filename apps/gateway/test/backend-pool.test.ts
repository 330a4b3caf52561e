import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { Code, ConnectError, createClient, type Transport } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { backendApi } from '@wordgame/contracts';
import { freePort } from '@wordgame/testkit';
import { createBackendPool } from '../src/backend/pool.js';
import { createConnectUnaryTransport } from '@wordgame/h2-unary';

/** How a replica treats each call: answer it, refuse the stream (never processed) or reset it after reading (may have run). */
type Mode = 'answer' | 'refuse' | 'reset';

/** A real h2c Connect server (SystemService.Check) counting the calls it ran. */
async function replica(mode: Mode): Promise<{ url: string; ran: () => number; close(): Promise<void> }> {
  let ran = 0;
  const adapter = connectNodeAdapter({
    routes: (r) =>
      r.service(backendApi.SystemService, {
        check: () => {
          ran += 1;
          return { body: new Uint8Array() };
        },
      }),
  });
  const server = http2.createServer();
  server.on('stream', (stream, headers) => {
    if (mode === 'refuse') {
      stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
      return;
    }
    if (mode === 'reset') {
      ran += 1;
      stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
      return;
    }
    void headers;
  });
  server.on('request', (req, res) => {
    if (mode === 'answer') adapter(req, res);
  });
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (s: http2.ServerHttp2Session) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ran: () => ran,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sessions) s.destroy();
        server.close(() => resolve());
      }),
  };
}

const TOKEN = 'pool-test-service-token-0123456789abcdef';
const noStreams: Transport = { unary: () => Promise.reject(new Error('unused')), stream: () => Promise.reject(new Error('unused')) };

function client(urls: string[]) {
  const pool = createBackendPool({
    urls,
    refreshMs: 0,
    factory: (baseUrl) => createConnectUnaryTransport({ baseUrl, token: TOKEN, defaultTimeoutMs: 5_000, streams: noStreams }),
  });
  return { pool, system: createClient(backendApi.SystemService, pool) };
}

const calls = async (c: ReturnType<typeof client>, n: number) => {
  for (let i = 0; i < n; i += 1) await c.system.check({ body: new Uint8Array() });
};

describe('backend pool: calls spread over replicas, retried elsewhere only when they never reached one', () => {
  const open: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const r of open) await r.close();
  });

  it('spreads calls over every replica of BACKEND_URL', async () => {
    const a = await replica('answer');
    const b = await replica('answer');
    open.push(a, b);
    const c = client([a.url, b.url]);
    await calls(c, 20);
    expect(a.ran() + b.ran()).toBe(20);
    expect(a.ran()).toBeGreaterThanOrEqual(5);
    expect(b.ran()).toBeGreaterThanOrEqual(5);
    c.pool.close();
  });

  it('a replica that refuses connections or streams costs no call: each goes to a live one', async () => {
    const live = await replica('answer');
    const refusing = await replica('refuse');
    open.push(live, refusing);
    const down = `http://127.0.0.1:${await freePort()}`;
    const c = client([down, refusing.url, live.url]);
    await calls(c, 15);
    expect(live.ran()).toBe(15);
    c.pool.close();
  });

  it('a call reset after it reached a replica is never sent again: it fails Unavailable', async () => {
    const live = await replica('answer');
    const resetting = await replica('reset');
    open.push(live, resetting);
    const c = client([resetting.url, live.url]);
    const outcomes: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      outcomes.push(
        await c.system.check({ body: new Uint8Array() }).then(
          () => 'ok',
          (e: unknown) => (e instanceof ConnectError ? Code[e.code] : 'other'),
        ),
      );
    }
    // Every call ran exactly once somewhere: the resets were not replayed on the live replica.
    expect(live.ran() + resetting.ran()).toBe(10);
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(live.ran());
    expect(outcomes.filter((o) => o !== 'ok').every((o) => o === 'Unavailable')).toBe(true);
    expect(resetting.ran()).toBeGreaterThan(0);
    c.pool.close();
  });

  it('follows a host name: every DNS address is a replica, re-resolved on refresh', async () => {
    const a = await replica('answer');
    open.push(a);
    const port = new URL(a.url).port;
    let addresses = ['127.0.0.1'];
    const pool = createBackendPool({
      urls: [`http://backend.test:${port}`],
      refreshMs: 0,
      resolve: () => Promise.resolve(addresses),
      factory: (baseUrl) => createConnectUnaryTransport({ baseUrl, token: TOKEN, defaultTimeoutMs: 5_000, streams: noStreams }),
    });
    await createClient(backendApi.SystemService, pool).check({ body: new Uint8Array() });
    expect(pool.replicas()).toEqual([`http://127.0.0.1:${port}`]);
    addresses = ['127.0.0.1', '127.0.0.2'];
    await pool.refresh();
    expect(pool.replicas()).toEqual([`http://127.0.0.1:${port}`, `http://127.0.0.2:${port}`]);
    addresses = ['127.0.0.2'];
    await pool.refresh();
    expect(pool.replicas()).toEqual([`http://127.0.0.2:${port}`]);
    pool.close();
  });
});
