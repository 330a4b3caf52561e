import { Code, ConnectError, createClient, type Transport } from '@connectrpc/connect';
import { compressionGzip, createConnectTransport, createGrpcTransport } from '@connectrpc/connect-node';
import {
  clampTimeoutMs,
  clampTransportDeadlines,
  createConnectUnaryTransport,
  encodeGrpcTimeout,
  MAX_TIMER_MS,
  parseGrpcTimeout,
  specGrpcTimeout,
} from '../src/index.js';
import { envelope, requestBytes, send, service, startFast, type Running } from './support/echo.js';

const THIRTY_DAYS_MS = 30 * 24 * 3_600_000;

describe('grpc-timeout grammar (1-8 digits, unit H M S m u n)', () => {
  it.each([
    ['99999999H', 99_999_999 * 3_600_000],
    ['1M', 60_000],
    ['2147484S', 2_147_484_000],
    ['99999999m', 99_999_999],
    ['1000u', 1],
    ['0n', 0],
  ])('parses %s', (value, ms) => expect(parseGrpcTimeout(value)).toBe(ms));

  it.each(['123456789m', '2147483647m', '1', 'S', '-1S', '1.5S', '1h', ' 1S', '1S '])('refuses %j', (value) =>
    expect(parseGrpcTimeout(value)).toBeNull(),
  );

  it.each([
    [0, '0m'],
    [0.4, '1m'],
    [99_999_999, '99999999m'],
    [100_000_000, '100000S'],
    [100_000_001, '100001S'], // rounded up: never shortens the deadline
    [MAX_TIMER_MS - 647, '2147483S'],
    [THIRTY_DAYS_MS, '2592000S'],
    [99_999_999_001, '1666667M'],
    [1e14, '27777778H'],
    [1e20, '99999999H'],
  ])('encodes %d ms as %s, at most 8 digits, that parses back to at least as long', (ms, value) => {
    expect(encodeGrpcTimeout(ms)).toBe(value);
    expect(parseGrpcTimeout(value)).toBeGreaterThanOrEqual(Math.min(Math.ceil(ms), 99_999_999 * 3_600_000));
  });

  it.each([
    [MAX_TIMER_MS, '2147483S'],
    [MAX_TIMER_MS - 646, '2147483S'],
  ])('encodes %d ms (a timer can wait it) as %s, never past 2^31-1 ms, which a grpc-js server wraps negative', (ms, value) => {
    expect(encodeGrpcTimeout(ms)).toBe(value);
    expect(parseGrpcTimeout(value)).toBeLessThanOrEqual(MAX_TIMER_MS);
    expect(parseGrpcTimeout(value)).toBeGreaterThan(ms - 1_000);
  });

  it('clamps to what a Node timer can wait (2^31-1 ms)', () => {
    expect([clampTimeoutMs(undefined), clampTimeoutMs(-1), clampTimeoutMs(MAX_TIMER_MS), clampTimeoutMs(MAX_TIMER_MS + 1)]).toEqual([
      undefined,
      -1,
      2 ** 31 - 1,
      2 ** 31 - 1,
    ]);
  });
});

/** Calls `sleep:40` (the server answers after 40 ms unless the call's deadline ends it) with `timeoutMs`. */
async function sleep40(transport: Transport, timeoutMs: number): Promise<string> {
  try {
    const res = await createClient(service, transport).check({ body: new TextEncoder().encode('sleep:40') }, { timeoutMs });
    return new TextDecoder().decode(res.body);
  } catch (err: unknown) {
    return `failed: ${Code[ConnectError.from(err).code]}`;
  }
}

describe('a deadline longer than a timer can wait, over real h2c (client and server clamp it)', () => {
  let server: Running;
  const closers: Array<() => void> = [];
  beforeAll(async () => {
    server = await startFast();
  });
  afterAll(async () => {
    for (const close of closers) close();
    await server.close();
  });

  it.each([THIRTY_DAYS_MS, MAX_TIMER_MS + 1, 9_999_999_999])('the fast Connect client, %d ms: answered', async (ms) => {
    const reference = createConnectTransport({ baseUrl: server.url, httpVersion: '2' });
    const fast = createConnectUnaryTransport({ baseUrl: server.url, token: 't', defaultTimeoutMs: 5_000, streams: reference });
    closers.push(() => fast.close());
    expect(await sleep40(fast, ms)).toBe(`slept ${MAX_TIMER_MS}`);
  });

  it('connect-node Connect client, 30 days (clampTransportDeadlines): answered', async () => {
    const transport = clampTransportDeadlines(createConnectTransport({ baseUrl: server.url, httpVersion: '2' }));
    expect(await sleep40(transport, THIRTY_DAYS_MS)).toBe(`slept ${MAX_TIMER_MS}`);
  });

  it.each([
    ['fast path', undefined],
    ['connect-node (gzip request)', compressionGzip],
  ])('connect-node gRPC client with specGrpcTimeout, 30 days, %s: answered, sent as 2147483S', async (_name, send) => {
    const transport = clampTransportDeadlines(
      createGrpcTransport({
        baseUrl: server.url,
        interceptors: [specGrpcTimeout()],
        ...(send ? { sendCompression: send, compressMinBytes: 0 } : {}),
      }),
    );
    expect(await sleep40(transport, THIRTY_DAYS_MS)).toBe('slept 2147483S');
  });

  it('a connect-node gRPC client without specGrpcTimeout sends 2147483647m, refused as INTERNAL (not a grpc-timeout)', async () => {
    const transport = clampTransportDeadlines(createGrpcTransport({ baseUrl: server.url }));
    expect(await sleep40(transport, THIRTY_DAYS_MS)).toBe('failed: Internal');
  });

  it('a short deadline still ends the call: DeadlineExceeded', async () => {
    const transport = clampTransportDeadlines(createGrpcTransport({ baseUrl: server.url, interceptors: [specGrpcTimeout()] }));
    expect(await sleep40(transport, 5)).toBe('failed: DeadlineExceeded');
  });

  it.each(['soon', '123456789m', '2147483647m'])(
    'a malformed grpc-timeout %j is answered trailers-only INTERNAL (the gRPC library never generates INVALID_ARGUMENT)',
    async (value) => {
      const answer = await send(
        server.url,
        '/backend.v1.SystemService/Check',
        { 'content-type': 'application/grpc', te: 'trailers', 'grpc-timeout': value },
        envelope(requestBytes('ok:x')),
      );
      expect(answer).toMatchObject({
        status: 200,
        headers: [
          ['content-type', 'application/grpc'],
          ['grpc-message', encodeURIComponent(`malformed grpc-timeout: ${value}`)],
          ['grpc-status', '13'],
        ],
        trailers: [],
      });
    },
  );
});
