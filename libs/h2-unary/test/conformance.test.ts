import { gzipSync } from 'node:zlib';
import { Code } from '@connectrpc/connect';
import {
  envelope,
  READ_MAX_BYTES,
  requestBytes,
  send,
  service,
  startConnectNode,
  startFast,
  type Answer,
  type Running,
} from './support/echo.js';

/**
 * The fast path's contract: every call below, sent once to a plain connect-node server and once
 * to the fast path (in front of connect-node, built from the same options), gets the same HTTP
 * status, response headers (minus date), trailers and body bytes, and runs the same interceptor.
 * Each case also states whether the fast path serves it or declines it to connect-node.
 */
const PATH = `/${service.typeName}/Check`;
const CODES = Object.values(Code).filter((c): c is Code => typeof c === 'number');

interface Case {
  name: string;
  headers: Record<string, string>;
  body: Uint8Array;
  /** True when the fast path must serve the call itself, false when it must decline it. */
  fast: boolean;
}

const connect = (extra: Record<string, string> = {}) => ({
  'content-type': 'application/proto',
  'connect-protocol-version': '1',
  ...extra,
});
const grpc = (extra: Record<string, string> = {}) => ({ 'content-type': 'application/grpc', te: 'trailers', ...extra });
const oversized = requestBytes(new Uint8Array(READ_MAX_BYTES + 10));

const connectCases: Case[] = [
  { name: 'success with headers and trailers', headers: connect({ 'x-in': 'v' }), body: requestBytes('ok:hello'), fast: true },
  { name: 'success, no protocol version header', headers: { 'content-type': 'application/proto' }, body: requestBytes('ok:x'), fast: true },
  ...CODES.map((c) => ({ name: `error code ${c}`, headers: connect(), body: requestBytes(`err:${c}`), fast: true })),
  { name: 'error details', headers: connect(), body: requestBytes('details'), fast: true },
  { name: 'a failure that is not a ConnectError', headers: connect(), body: requestBytes('throw'), fast: true },
  { name: 'deadline expiring', headers: connect({ 'connect-timeout-ms': '30' }), body: requestBytes('wait'), fast: true },
  { name: 'deadline of zero', headers: connect({ 'connect-timeout-ms': '0' }), body: requestBytes('wait'), fast: true },
  { name: 'malformed deadline', headers: connect({ 'connect-timeout-ms': 'soon' }), body: requestBytes('ok:x'), fast: false },
  { name: 'oversized, no content-length', headers: connect(), body: oversized, fast: true },
  { name: 'oversized, content-length', headers: connect({ 'content-length': String(oversized.length) }), body: oversized, fast: false },
  {
    name: 'content-length matching',
    headers: connect({ 'content-length': String(requestBytes('ok:x').length) }),
    body: requestBytes('ok:x'),
    fast: true,
  },
  { name: 'gzip request', headers: connect({ 'content-encoding': 'gzip' }), body: gzipSync(requestBytes('ok:zipped')), fast: false },
  { name: 'unknown request encoding', headers: connect({ 'content-encoding': 'snappy' }), body: requestBytes('ok:x'), fast: false },
  { name: 'large answer, gzip accepted', headers: connect({ 'accept-encoding': 'gzip' }), body: requestBytes('big'), fast: true },
  { name: 'small answer, gzip accepted', headers: connect({ 'accept-encoding': 'gzip, br' }), body: requestBytes('ok:small'), fast: true },
  { name: 'not a message', headers: connect(), body: Buffer.from([0xff, 0xff, 0xff]), fast: true },
  {
    name: 'JSON',
    headers: { 'content-type': 'application/json', 'connect-protocol-version': '1' },
    body: Buffer.from('{"body":"b2s6eA=="}'),
    fast: false,
  },
  { name: 'unknown protocol version', headers: connect({ 'connect-protocol-version': '2' }), body: requestBytes('ok:x'), fast: false },
];

const grpcCases: Case[] = [
  { name: 'success with headers and trailers', headers: grpc({ 'x-in': 'v' }), body: envelope(requestBytes('ok:hello')), fast: true },
  {
    name: 'success, application/grpc+proto',
    headers: grpc({ 'content-type': 'application/grpc+proto' }),
    body: envelope(requestBytes('ok:x')),
    fast: true,
  },
  ...CODES.map((c) => ({ name: `error code ${c}`, headers: grpc(), body: envelope(requestBytes(`err:${c}`)), fast: true })),
  { name: 'error details (grpc-status-details-bin)', headers: grpc(), body: envelope(requestBytes('details')), fast: true },
  { name: 'a failure that is not a ConnectError', headers: grpc(), body: envelope(requestBytes('throw')), fast: true },
  { name: 'deadline expiring', headers: grpc({ 'grpc-timeout': '30m' }), body: envelope(requestBytes('wait')), fast: true },
  // A malformed grpc-timeout is answered INTERNAL before connect-node (which says InvalidArgument): test/deadline.test.ts.
  { name: 'oversized message', headers: grpc(), body: envelope(oversized), fast: true },
  { name: 'gzip request', headers: grpc({ 'grpc-encoding': 'gzip' }), body: envelope(gzipSync(requestBytes('ok:zipped')), 1), fast: false },
  // An unknown grpc-encoding is answered UNIMPLEMENTED with grpc-accept-encoding before connect-node: test/grpc-edge.test.ts.
  {
    name: 'compressed flag on an identity call',
    headers: grpc({ 'grpc-encoding': 'identity' }),
    body: envelope(gzipSync(requestBytes('ok:x')), 1),
    fast: true,
  },
  { name: 'compressed flag, no encoding', headers: grpc(), body: envelope(gzipSync(requestBytes('ok:x')), 1), fast: true },
  {
    name: 'large answer, gzip accepted',
    headers: grpc({ 'grpc-accept-encoding': 'gzip' }),
    body: envelope(requestBytes('big')),
    fast: true,
  },
  { name: 'no message', headers: grpc(), body: Buffer.alloc(0), fast: true },
  {
    name: 'two messages',
    headers: grpc(),
    body: Buffer.concat([envelope(requestBytes('ok:a')), envelope(requestBytes('ok:b'))]),
    fast: true,
  },
  { name: 'incomplete envelope', headers: grpc(), body: envelope(requestBytes('ok:a')).subarray(0, 7), fast: true },
  { name: 'not a message', headers: grpc(), body: envelope(Buffer.from([0xff, 0xff, 0xff])), fast: true },
  {
    name: 'JSON',
    headers: grpc({ 'content-type': 'application/grpc+json' }),
    body: envelope(Buffer.from('{"body":"b2s6eA=="}')),
    fast: false,
  },
];

describe('fast path conformance with connect-node', () => {
  let reference: Running;
  let fast: Running;

  beforeAll(async () => {
    reference = await startConnectNode();
    fast = await startFast();
  });
  afterAll(async () => {
    await reference.close();
    await fast.close();
  });

  async function both(c: Case): Promise<{ expected: Answer; actual: Answer; took: boolean }> {
    const expected = await send(reference.url, PATH, c.headers, c.body);
    const before = fast.taken.length;
    const actual = await send(fast.url, PATH, c.headers, c.body);
    return { expected, actual, took: fast.taken.length > before };
  }

  describe.each([
    ['Connect', connectCases],
    ['gRPC', grpcCases],
  ] as const)('%s protocol', (_protocol, cases) => {
    it.each(cases.map((c) => [c.name, c] as const))('%s: same status, headers, trailers and bytes', async (_name, c) => {
      const interceptedBefore = [reference.seen.intercepted, fast.seen.intercepted];
      const { expected, actual, took } = await both(c);
      expect(actual).toEqual(expected);
      expect(took).toBe(c.fast);
      expect(fast.seen.intercepted - (interceptedBefore[1] ?? 0)).toBe(reference.seen.intercepted - (interceptedBefore[0] ?? 0));
    });

    it('a call the client cancels mid-call aborts the handler with Canceled on both', async () => {
      const c = cases[0] as Case;
      const body = c.headers['content-type']?.startsWith('application/grpc') ? envelope(requestBytes('wait')) : requestBytes('wait');
      const before = fast.taken.length;
      reference.seen.aborted.length = 0;
      fast.seen.aborted.length = 0;
      const [expected, actual] = await Promise.all([
        send(reference.url, PATH, c.headers, body, 100),
        send(fast.url, PATH, c.headers, body, 100),
      ]);
      expect(actual).toEqual(expected);
      expect(fast.taken.length - before).toBe(1);
      for (let i = 0; i < 50 && (reference.seen.aborted.length === 0 || fast.seen.aborted.length === 0); i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(fast.seen.aborted).toEqual([Code.Canceled]);
      expect(reference.seen.aborted).toEqual([Code.Canceled]);
    });
  });

  it('refuses to make the fast path run different interceptors: `fast: false` takes nothing', async () => {
    const { unaryServers } = await import('../src/index.js');
    const servers = unaryServers({ services: [], readMaxBytes: 1, fast: false }, ['connect', 'grpc'], 'http');
    expect(servers.take({} as never, { ':method': 'POST', ':path': PATH, 'content-type': 'application/proto' })).toBe(false);
  });
});
