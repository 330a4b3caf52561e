import http2 from 'node:http2';
import { Code, ConnectError, createClient, type ServiceImpl } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { backendApi } from '@wordgame/contracts';
import { createLogger } from '@wordgame/logging';
import { unaryServers, type ServiceRegistration } from '@wordgame/h2-unary';
import { errorEdge } from '../src/server/interceptors.js';
import { DomainError } from '../src/rpc/errors.js';
import { listenDual, type DualListener } from '../src/server/listener.js';

const logger = createLogger('fast-path-test', 'silent');

type Check = ServiceImpl<typeof backendApi.SystemService>['check'];

describe('unary fast path (Connect unary straight off the HTTP/2 stream)', () => {
  let listener: DualListener;
  let check: Check;
  let served: string[];

  beforeAll(async () => {
    const services: ServiceRegistration[] = [
      { service: backendApi.SystemService, impl: { check: (req: never, ctx: never) => check(req, ctx) } },
    ];
    const { handler: adapter, take: fast } = unaryServers(
      { services, interceptors: [errorEdge(logger)], readMaxBytes: 4 * 1024 * 1024 },
      ['connect'],
      'http',
    );
    listener = await listenDual(
      (req, res) => {
        served.push('adapter');
        adapter(req, res);
      },
      '127.0.0.1',
      0,
      1_000,
      (stream, headers) => {
        const taken = fast(stream, headers);
        if (taken) served.push('fast');
        return taken;
      },
      { limits: { handshakeTimeoutMs: 10_000, maxConnections: 64 }, logger },
    );
  });
  beforeEach(() => {
    served = [];
  });
  afterAll(() => listener.close());

  const h2 = () => createClient(backendApi.SystemService, createConnectTransport({ baseUrl: listener.url, httpVersion: '2' }));

  it('answers a binary unary call over h2c itself, with the request headers and deadline in the context', async () => {
    let seen: { account: string | null; timeoutMs: number | undefined; protocol: string } | undefined;
    check = (req, ctx) => {
      seen = { account: ctx.requestHeader.get('x-account-id'), timeoutMs: ctx.timeoutMs(), protocol: ctx.protocolName };
      ctx.responseHeader.set('x-served-by', 'fast');
      return { body: Uint8Array.from([...req.body].reverse()) };
    };
    let header: Headers | undefined;
    const res = await h2().check(
      { body: Uint8Array.of(1, 2, 3) },
      { headers: { 'x-account-id': '7' }, timeoutMs: 2_000, onHeader: (h) => (header = h) },
    );
    expect([...res.body]).toEqual([3, 2, 1]);
    expect(seen?.account).toBe('7');
    expect(seen?.protocol).toBe('connect');
    expect(seen?.timeoutMs).toBeGreaterThan(1_000);
    expect(header?.get('x-served-by')).toBe('fast');
    expect(served).toEqual(['fast']);
  });

  it('maps failures through the error edge exactly as the interceptor does (code, message, x-error-code)', async () => {
    check = () => {
      throw new DomainError('insufficient_chips', 'not enough chips');
    };
    const fastErr = (await h2()
      .check({ body: new Uint8Array() })
      .catch((e: unknown) => e)) as ConnectError;
    const h1 = createClient(backendApi.SystemService, createConnectTransport({ baseUrl: listener.url, httpVersion: '1.1' }));
    const adapterErr = (await h1.check({ body: new Uint8Array() }).catch((e: unknown) => e)) as ConnectError;
    expect(served).toEqual(['fast', 'adapter']);
    for (const err of [fastErr, adapterErr]) {
      expect(err).toBeInstanceOf(ConnectError);
      expect(err.code).toBe(Code.FailedPrecondition);
      expect(err.rawMessage).toBe('not enough chips');
      expect(err.metadata.get('x-error-code')).toBe('insufficient_chips');
    }
  });

  it('answers an unknown failure as Internal without detail', async () => {
    check = () => {
      throw new Error('secret database detail');
    };
    const err = (await h2()
      .check({ body: new Uint8Array() })
      .catch((e: unknown) => e)) as ConnectError;
    expect(err.code).toBe(Code.Internal);
    expect(err.rawMessage).toBe('internal error');
    expect(err.metadata.get('x-error-code')).toBe('internal');
  });

  it('answers a database that went away as Unavailable, which the gateway turns into 503', async () => {
    check = () => {
      throw new Error('Connection terminated unexpectedly');
    };
    const err = (await h2()
      .check({ body: new Uint8Array() })
      .catch((e: unknown) => e)) as ConnectError;
    expect(err.code).toBe(Code.Unavailable);
    expect(err.rawMessage).toBe('the database is unavailable');
    expect(err.metadata.get('x-error-code')).toBe('backend_unavailable');
  });

  it('answers a body that is not the request message as connect-node does (Internal "parse binary")', async () => {
    const status = await rawCall(
      listener.url,
      '/backend.v1.SystemService/Check',
      { 'content-type': 'application/proto' },
      Buffer.from([0xff, 0xff, 0xff]),
    );
    expect(status.status).toBe(500);
    expect(JSON.parse(status.body) as { code: string; message: string }).toMatchObject({ code: 'internal' });
  });

  it('aborts the handler signal with DeadlineExceeded at Connect-Timeout-Ms; its rejection is the answer (as connect-node)', async () => {
    let aborted: unknown;
    check = (_req, ctx) =>
      new Promise((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => {
          aborted = ctx.signal.reason;
          reject(ctx.signal.reason as Error);
        });
      });
    // A raw call with no client-side deadline, so the answer is the server's own.
    const res = await rawCall(
      listener.url,
      '/backend.v1.SystemService/Check',
      { 'content-type': 'application/proto', 'connect-timeout-ms': '100' },
      Buffer.alloc(0),
    );
    expect(res.status).toBe(504);
    expect(JSON.parse(res.body) as { code: string }).toMatchObject({ code: 'deadline_exceeded' });
    expect((aborted as ConnectError | undefined)?.code).toBe(Code.DeadlineExceeded);
  });

  it('leaves JSON, compressed and unknown calls to connect-node', async () => {
    check = () => ({ body: Uint8Array.of(9) });
    const json = createClient(
      backendApi.SystemService,
      createConnectTransport({ baseUrl: listener.url, httpVersion: '2', useBinaryFormat: false }),
    );
    expect([...(await json.check({ body: new Uint8Array() })).body]).toEqual([9]);
    const unknown = await rawCall(listener.url, '/backend.v1.SystemService/Nope', { 'content-type': 'application/proto' }, Buffer.alloc(0));
    expect(unknown.status).toBe(404);
    const gzip = await rawCall(
      listener.url,
      '/backend.v1.SystemService/Check',
      { 'content-type': 'application/proto', 'content-encoding': 'gzip' },
      Buffer.from('x'),
    );
    expect(gzip.status).not.toBe(200);
    expect(served).toEqual(['adapter', 'adapter', 'adapter']);
  });
});

/** One raw HTTP/2 POST: status and body text. */
async function rawCall(
  url: string,
  path: string,
  headers: http2.OutgoingHttpHeaders,
  body: Buffer,
): Promise<{ status: number; body: string }> {
  const session = http2.connect(url);
  try {
    return await new Promise((resolve, reject) => {
      const stream = session.request({ ':method': 'POST', ':path': path, ...headers });
      let status = 0;
      const chunks: Buffer[] = [];
      stream.on('response', (h) => (status = Number(h[':status'])));
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => resolve({ status, body: Buffer.concat(chunks).toString('utf8') }));
      stream.on('error', reject);
      stream.end(body);
    });
  } finally {
    session.close();
  }
}
