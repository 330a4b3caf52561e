import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { Code, ConnectError } from '@connectrpc/connect';
import { headersOf, serveUnary, takeStreamsFirst, type UnaryProtocol } from '../src/index.js';

/** A toy protocol: the body echoed back reversed; errors as `x-code` + message in a 400. */
function echo(handle: UnaryProtocol['handle']): UnaryProtocol {
  return {
    handle,
    succeed: (s, message, x) => {
      const out: http2.OutgoingHttpHeaders = { ':status': 200 };
      x.responseHeader.forEach((v, k) => (out[k] = v));
      s.respond(out);
      s.end(message);
    },
    fail: (s, err) => {
      s.respond({ ':status': 400, 'x-code': String(err.code) });
      s.end(err.rawMessage);
    },
    toError: (err) => ConnectError.from(err, Code.Internal),
  };
}

describe('h2-unary', () => {
  let server: http2.Http2Server;
  let url: string;
  let protocol: UnaryProtocol;
  let timeoutMs: number | undefined;
  const compat: string[] = [];
  const sessions = new Set<http2.ServerHttp2Session>();

  beforeAll(async () => {
    server = http2.createServer((req, res) => {
      compat.push(req.url);
      res.end('compat');
    });
    takeStreamsFirst(server, (stream, headers) => {
      if (headers[':path'] !== '/fast') return false;
      serveUnary(stream, timeoutMs, 16, protocol);
      return true;
    });
    server.on('session', (s: http2.ServerHttp2Session) => {
      sessions.add(s);
      s.on('close', () => sessions.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(
    () =>
      new Promise<void>((r) => {
        for (const s of sessions) s.destroy();
        server.close(() => r());
      }),
  );

  it('serves taken streams itself and hands the rest to the compat layer', async () => {
    timeoutMs = undefined;
    protocol = echo((body, x) => {
      x.responseHeader.set('x-left', String(x.timeoutMs()));
      return Promise.resolve(Uint8Array.from([...body].reverse()));
    });
    const fast = await call(url, '/fast', Buffer.from('abc'));
    expect(fast).toMatchObject({ status: 200, body: 'cba' });
    expect(fast.headers['x-left']).toBe('undefined');
    expect(await call(url, '/other', Buffer.alloc(0))).toMatchObject({ status: 200, body: 'compat' });
    expect(compat).toEqual(['/other']);
  });

  it('answers a failed handler once, through toError', async () => {
    protocol = echo(() => Promise.reject(new ConnectError('nope', Code.NotFound)));
    expect(await call(url, '/fast', Buffer.from('x'))).toMatchObject({ status: 400, body: 'nope', headers: { 'x-code': String(Code.NotFound) } });
  });

  it('refuses a body over the limit with ResourceExhausted', async () => {
    protocol = echo((body) => Promise.resolve(body));
    expect(await call(url, '/fast', Buffer.alloc(64, 1))).toMatchObject({ status: 400, headers: { 'x-code': String(Code.ResourceExhausted) } });
  });

  it('answers DeadlineExceeded at the deadline and aborts the handler', async () => {
    timeoutMs = 50;
    let reason: unknown;
    protocol = echo(
      (_body, x) =>
        new Promise((resolve) =>
          x.signal.addEventListener('abort', () => {
            reason = x.signal.reason;
            resolve(new Uint8Array());
          }),
        ),
    );
    expect(await call(url, '/fast', Buffer.from('x'))).toMatchObject({ status: 400, headers: { 'x-code': String(Code.DeadlineExceeded) } });
    expect((reason as ConnectError).code).toBe(Code.DeadlineExceeded);
  });

  it('aborts the handler with Canceled when the client resets the stream, and finishes a normal call without aborting', async () => {
    timeoutMs = undefined;
    let reason: unknown = 'not aborted';
    let started: () => void = () => undefined;
    const running = new Promise<void>((r) => (started = r));
    protocol = echo(
      (_body, x) =>
        new Promise((resolve) => {
          started();
          x.signal.addEventListener('abort', () => {
            reason = x.signal.reason;
            resolve(new Uint8Array());
          });
        }),
    );
    const session = http2.connect(url);
    const stream = session.request({ ':method': 'POST', ':path': '/fast' });
    stream.on('error', () => undefined);
    stream.end(Buffer.from('x'));
    await running;
    stream.close(http2.constants.NGHTTP2_CANCEL);
    for (let i = 0; i < 50 && reason === 'not aborted'; i++) await new Promise((r) => setTimeout(r, 10));
    session.close();
    expect((reason as ConnectError).code).toBe(Code.Canceled);

    let signal: AbortSignal | undefined;
    protocol = echo((body, x) => {
      signal = x.signal;
      return Promise.resolve(body);
    });
    await call(url, '/fast', Buffer.from('y'));
    expect(signal?.aborted).toBe(false);
  });

  it('reads HTTP/2 headers into Fetch Headers without pseudo-headers, joining repeated fields', () => {
    const h = headersOf({ ':path': '/x', 'x-a': '1', 'x-b': ['1', '2'] });
    expect(h.get('x-a')).toBe('1');
    expect([...h.keys()]).toEqual(['x-a', 'x-b']);
    expect(h.get('x-b')).toBe('1, 2');
  });
});

async function call(url: string, path: string, body: Buffer): Promise<{ status: number; body: string; headers: http2.IncomingHttpHeaders }> {
  const session = http2.connect(url);
  try {
    return await new Promise((resolve, reject) => {
      const stream = session.request({ ':method': 'POST', ':path': path });
      let status = 0;
      let headers: http2.IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      stream.on('response', (h) => {
        status = Number(h[':status']);
        headers = h;
      });
      stream.on('data', (c: Buffer) => chunks.push(c));
      // Resolved on close: a refused body is answered, then the stream is reset.
      stream.on('close', () => (status === 0 ? reject(new Error('no answer')) : resolve({ status, headers, body: Buffer.concat(chunks).toString('utf8') })));
      stream.on('error', () => undefined);
      stream.end(body);
    });
  } finally {
    session.close();
  }
}
