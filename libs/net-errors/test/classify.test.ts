import http2 from 'node:http2';
import net from 'node:net';
import { CAUSE_LEVELS, MAX_ERRORS, causeChain, isNetworkFailure, networkFailure, neverReached } from '../src/index.js';

const coded = (code: string, message = code): Error => Object.assign(new Error(message), { code });

/** `inner` wrapped `levels` times in plain errors, each the cause of the one above. */
function wrapped(inner: unknown, levels: number): unknown {
  let e = inner;
  for (let i = 0; i < levels; i++) e = new Error(`level ${levels - i}`, { cause: e });
  return e;
}

/** A TCP port nothing listens on (bound, read, closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function failureOf(emitter: NodeJS.EventEmitter): Promise<unknown> {
  return new Promise((resolve) => emitter.once('error', resolve));
}

describe('networkFailure: each code', () => {
  it.each([
    'ECONNREFUSED',
    'ENOTFOUND',
    'EAI_AGAIN',
    'EHOSTUNREACH',
    'ENETUNREACH',
    'ERR_HTTP2_GOAWAY_SESSION',
    'ERR_HTTP2_INVALID_SESSION',
    'ERR_HTTP2_REFUSED_STREAM',
    'ERR_H2_CONNECT_TIMEOUT',
  ])('%s never reached a server', (code) => {
    expect(networkFailure(coded(code))).toBe('never-reached');
    expect(neverReached(coded(code))).toBe(true);
    expect(isNetworkFailure(coded(code))).toBe(true);
  });

  it.each(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ERR_HTTP2_SESSION_ERROR', 'ERR_HTTP2_STREAM_ERROR', 'ERR_HTTP2_STREAM_CANCEL'])(
    '%s is a connection that broke mid-call (maybe reached)',
    (code) => {
      expect(networkFailure(coded(code))).toBe('interrupted');
      expect(neverReached(coded(code))).toBe(false);
      expect(isNetworkFailure(coded(code))).toBe(true);
    },
  );

  it('counts a stream error naming REFUSED_STREAM as never reached', () => {
    expect(networkFailure(coded('ERR_HTTP2_STREAM_ERROR', 'Stream closed with error code NGHTTP2_REFUSED_STREAM'))).toBe('never-reached');
  });

  it.each([
    ['a file error', coded('ENOENT')],
    ['a SQLSTATE', coded('57P01')],
    ['a numeric code (a Connect code)', Object.assign(new Error('unavailable'), { code: 14 })],
    ['an error without a code', new Error('ECONNREFUSED in the message only')],
    ['a thrown string', 'ECONNREFUSED'],
    ['undefined', undefined],
    ['null', null],
  ])('is undefined for %s', (_name, err) => {
    expect(networkFailure(err)).toBeUndefined();
    expect(isNetworkFailure(err)).toBe(false);
    expect(neverReached(err)).toBe(false);
  });

  it('reads a code from any object, not only an Error of this realm', () => {
    expect(networkFailure({ code: 'ECONNRESET' })).toBe('interrupted');
    expect(networkFailure({ message: 'wrapper', cause: { code: 'ECONNREFUSED' } })).toBe('never-reached');
  });
});

describe('networkFailure: the depth rule', () => {
  it(`follows cause down to ${CAUSE_LEVELS} levels below the error, not one further`, () => {
    expect(networkFailure(wrapped(coded('ECONNRESET'), 1))).toBe('interrupted');
    expect(networkFailure(wrapped(coded('ECONNRESET'), CAUSE_LEVELS))).toBe('interrupted');
    expect(networkFailure(wrapped(coded('ECONNRESET'), CAUSE_LEVELS + 1))).toBeUndefined();
  });

  it('looks into the members of an AggregateError, also below a cause', () => {
    const aggregate = new AggregateError([new Error('first'), coded('ECONNREFUSED')], 'every address failed');
    expect(networkFailure(aggregate)).toBe('never-reached');
    expect(networkFailure(wrapped(aggregate, 2))).toBe('never-reached');
    expect(networkFailure(new AggregateError([new Error('a'), new Error('b')]))).toBeUndefined();
  });

  it('counts an AggregateError member as one level, as a cause is', () => {
    const atLimit = wrapped(new AggregateError([coded('EPIPE')]), CAUSE_LEVELS - 1);
    const past = wrapped(new AggregateError([coded('EPIPE')]), CAUSE_LEVELS);
    expect(networkFailure(atLimit)).toBe('interrupted');
    expect(networkFailure(past)).toBeUndefined();
  });

  it('ends on a cycle in cause', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(networkFailure(a)).toBeUndefined();
    const self = new Error('self');
    (self as { cause?: unknown }).cause = self;
    expect(networkFailure(self)).toBeUndefined();
    const loopWithCode = new Error('top', { cause: coded('ETIMEDOUT') });
    (loopWithCode.cause as Error as { cause?: unknown }).cause = loopWithCode;
    expect(networkFailure(loopWithCode)).toBe('interrupted');
    expect(causeChain(a)).toEqual([a, b]);
  });

  it('reads each error of a cycle once (a cycle through AggregateError members would otherwise multiply per level)', () => {
    let reads = 0;
    const a: { code: string; readonly cause: unknown } = {
      code: 'ENOENT',
      get cause() {
        reads++;
        return b;
      },
    };
    const b: { readonly cause: unknown; errors: unknown[] } = {
      get cause() {
        reads++;
        return a;
      },
      errors: [],
    };
    b.errors.push(a, b, a);
    expect(networkFailure(a)).toBeUndefined();
    expect(reads).toBe(2);
  });

  it('visits each error once and at most MAX_ERRORS of them', () => {
    const shared = coded('ECONNRESET');
    expect(causeChain(new AggregateError([shared, shared, new Error('x', { cause: shared })]))).toHaveLength(3);
    const wide = new AggregateError(Array.from({ length: MAX_ERRORS * 2 }, (_, i) => new Error(`member ${i}`)));
    expect(causeChain(wide)).toHaveLength(MAX_ERRORS);
  });

  it('lets a never-reached code anywhere win over an interrupted one above it', () => {
    expect(
      networkFailure(new Error('cancelled', { cause: Object.assign(coded('ERR_HTTP2_STREAM_CANCEL'), { cause: coded('ECONNREFUSED') }) })),
    ).toBe('never-reached');
    expect(networkFailure(new AggregateError([coded('ECONNRESET'), coded('EHOSTUNREACH')]))).toBe('never-reached');
  });
});

describe('networkFailure on real socket failures', () => {
  it('classifies a refused TCP connection as never reached', async () => {
    const port = await closedPort();
    const socket = net.connect(port, '127.0.0.1');
    expect(neverReached(await failureOf(socket))).toBe(true);
  });

  it('classifies an HTTP/2 stream cancelled by a refused connection as never reached', async () => {
    const port = await closedPort();
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on('error', () => undefined);
    const stream = session.request({ ':path': '/' });
    const err = (await failureOf(stream)) as { code?: unknown };
    expect(err.code).toBe('ERR_HTTP2_STREAM_CANCEL');
    expect(networkFailure(err)).toBe('never-reached');
    session.destroy();
  });

  it('classifies a connection the server reset as interrupted', async () => {
    const server = net.createServer((socket) => socket.resetAndDestroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
      const err = await failureOf(socket);
      expect((err as { code?: unknown }).code).toBe('ECONNRESET');
      expect(networkFailure(err)).toBe('interrupted');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
