import http2 from 'node:http2';
import { Code, ConnectError, createClient, type ServiceImpl, type Transport } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { backendApi } from '@wordgame/contracts';
import { freePort } from '@wordgame/testkit';
import { createConnectUnaryTransport as createLeanConnectTransport, type ClosableTransport } from '@wordgame/h2-unary';

type Check = ServiceImpl<typeof backendApi.SystemService>['check'];

/** When set, the server reads each call and never answers it (a hung backend). */
let hang = false;

/** A real Connect server (connect-node over h2c) on a fixed port, so it can go away and come back. */
async function serve(port: number, check: Check): Promise<{ close(): Promise<void> }> {
  const adapter = connectNodeAdapter({ routes: (r) => r.service(backendApi.SystemService, { check }) });
  const server = http2.createServer((req, res) => {
    if (hang) req.resume();
    else adapter(req, res);
  });
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (s: http2.ServerHttp2Session) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sessions) s.destroy();
        server.close(() => resolve());
      }),
  };
}

const SERVICE_TOKEN = 'transport-test-service-token-0123456789';

const unusedStreams: Transport = {
  unary: () => Promise.reject(new Error('unary calls must not reach the streams transport')),
  stream: () => Promise.reject(new Error('no streams here')),
};

describe('lean Connect unary transport (gateway -> backend)', () => {
  let port: number;
  let transport: ClosableTransport;
  let handler: Check;
  let server: { close(): Promise<void> } | undefined;

  beforeEach(async () => {
    hang = false;
    port = await freePort();
    transport = createLeanConnectTransport({
      baseUrl: `http://127.0.0.1:${port}`,
      token: SERVICE_TOKEN,
      defaultTimeoutMs: 2_000,
      streams: unusedStreams,
    });
    server = await serve(port, (req, ctx) => handler(req, ctx));
  });
  afterEach(async () => {
    transport.close();
    await server?.close();
  });

  it('sends the message, the call headers and the service token, and decodes the answer', async () => {
    let seen: { account: string | null; requestId: string | null; authorization: string | null; timeoutMs: number | undefined } | undefined;
    handler = (req, ctx) => {
      seen = {
        account: ctx.requestHeader.get('x-account-id'),
        requestId: ctx.requestHeader.get('x-request-id'),
        authorization: ctx.requestHeader.get('authorization'),
        timeoutMs: ctx.timeoutMs(),
      };
      return { body: Uint8Array.from([...req.body].reverse()) };
    };
    const client = createClient(backendApi.SystemService, transport);
    const res = await client.check(
      { body: Uint8Array.of(1, 2, 3) },
      { headers: { 'x-account-id': '42', 'X-Request-Id': 'req-1' }, timeoutMs: 1_500 },
    );
    expect([...res.body]).toEqual([3, 2, 1]);
    expect(seen?.account).toBe('42');
    expect(seen?.requestId).toBe('req-1');
    expect(seen?.authorization).toBe(`Bearer ${SERVICE_TOKEN}`);
    expect(seen?.timeoutMs).toBeGreaterThan(1_000);
    expect(seen?.timeoutMs).toBeLessThanOrEqual(1_500);
  });

  it('carries a Connect error with its code, message and metadata (x-error-code)', async () => {
    handler = () => {
      throw new ConnectError('not enough chips', Code.FailedPrecondition, { 'x-error-code': 'insufficient_chips' });
    };
    const client = createClient(backendApi.SystemService, transport);
    const err = await client.check({ body: new Uint8Array() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    const ce = err as ConnectError;
    expect(ce.code).toBe(Code.FailedPrecondition);
    expect(ce.rawMessage).toBe('not enough chips');
    expect(ce.metadata.get('x-error-code')).toBe('insufficient_chips');
  });

  it('keeps its connection across many error answers (an answered stream is never reset)', async () => {
    // Node's server closes a connection after 1,000 invalid frames; a RST_STREAM on a stream it
    // had already ended is one, so resetting answered streams broke every 1,000th call.
    handler = () => {
      throw new ConnectError('no such thing', Code.NotFound, { 'x-error-code': 'not_found' });
    };
    const client = createClient(backendApi.SystemService, transport);
    const codes = new Map<Code, number>();
    for (let i = 0; i < 1_500; i++) {
      const err = (await client.check({ body: new Uint8Array() }).catch((e: unknown) => e)) as ConnectError;
      codes.set(err.code, (codes.get(err.code) ?? 0) + 1);
    }
    expect([...codes]).toEqual([[Code.NotFound, 1_500]]);
  });

  it('gives up at the deadline with DeadlineExceeded', async () => {
    hang = true;
    const client = createClient(backendApi.SystemService, transport);
    const err = (await client.check({ body: new Uint8Array() }, { timeoutMs: 100 }).catch((e: unknown) => e)) as ConnectError;
    expect(err.code).toBe(Code.DeadlineExceeded);
  });

  it('stops at an aborted signal with Canceled', async () => {
    hang = true;
    const client = createClient(backendApi.SystemService, transport);
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 50);
    const err = (await client.check({ body: new Uint8Array() }, { signal: abort.signal }).catch((e: unknown) => e)) as ConnectError;
    expect(err.code).toBe(Code.Canceled);
  });

  it('reports a backend that is down as Unavailable with the network error as cause, and reconnects when it is back', async () => {
    handler = () => ({ body: Uint8Array.of(7) });
    const client = createClient(backendApi.SystemService, transport);
    expect([...(await client.check({ body: new Uint8Array() })).body]).toEqual([7]);
    await server?.close();
    server = undefined;
    // The first call may still meet the dying connection; the next one dials and is refused.
    const first = (await client.check({ body: new Uint8Array() }).catch((e: unknown) => e)) as ConnectError;
    expect(first).toBeInstanceOf(ConnectError);
    expect(first.code).toBe(Code.Unavailable);
    const err = (await client.check({ body: new Uint8Array() }).catch((e: unknown) => e)) as ConnectError;
    expect(err.code).toBe(Code.Unavailable);
    expect((err.cause as { code?: string } | undefined)?.code).toBe('ECONNREFUSED');
    server = await serve(port, (req, ctx) => handler(req, ctx));
    expect([...(await client.check({ body: new Uint8Array() })).body]).toEqual([7]);
  });

  it('multiplexes concurrent calls on one connection and keeps each answer with its call', async () => {
    handler = async (req) => {
      await new Promise((r) => setTimeout(r, (req.body[0] ?? 0) % 7));
      return { body: req.body };
    };
    const client = createClient(backendApi.SystemService, transport);
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => client.check({ body: Uint8Array.of(i % 256, i >> 8) })));
    answers.forEach((a, i) => expect([...a.body]).toEqual([i % 256, i >> 8]));
  });

  it('hands streaming methods to the streams transport', async () => {
    const calls: string[] = [];
    const streams: Transport = {
      unary: () => Promise.reject(new Error('unexpected')),
      stream: (method) => {
        calls.push(method.name);
        return Promise.reject(new ConnectError('recorded', Code.Unimplemented));
      },
    };
    const lean = createLeanConnectTransport({
      baseUrl: `http://127.0.0.1:${port}`,
      token: SERVICE_TOKEN,
      defaultTimeoutMs: 1_000,
      streams,
    });
    const game = createClient(backendApi.GameService, lean);
    const it = game.watchGame({ body: new Uint8Array() })[Symbol.asyncIterator]();
    await expect(it.next()).rejects.toThrow('recorded');
    expect(calls).toEqual(['WatchGame']);
    lean.close();
  });
});
