import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { Code, type Transport } from '@connectrpc/connect';
import { createGrpcTransport, Http2SessionManager } from '@connectrpc/connect-node';
import { createGrpcUnaryTransport } from '../src/index.js';
import { startConnectNode, type Running } from './support/echo.js';
import { call } from './support/outcome.js';

/**
 * The gRPC unary client fast path's contract (the bot's ForwardPayment, ValidatePreCheckout, …):
 * the same server's answers, read by connect-node's gRPC transport and by createGrpcUnaryTransport,
 * end the same way: the message with the same headers and trailers, or a ConnectError with the
 * same code, message, metadata and details. First a connect-node server's own answers, then a raw
 * HTTP/2 server's hostile ones (trailers-only, missing status, bad content type or HTTP status,
 * two messages, a cut envelope, compression, resets, a message that does not parse).
 */

/** connect-node's gRPC transport and the fast one, each on its own connection to `url`. */
function transports(url: string): { reference: Transport; fast: Transport; close: () => void } {
  const reference = createGrpcTransport({ baseUrl: url });
  const sessions = new Http2SessionManager(url);
  const fast = createGrpcUnaryTransport({
    baseUrl: url,
    openStream: (method, path, headers, options) => sessions.request(method, path, headers, options),
    streams: reference,
  });
  return { reference, fast, close: () => sessions.abort() };
}

describe('gRPC unary fast client against a connect-node server', () => {
  let server: Running;
  let t: ReturnType<typeof transports>;
  beforeAll(async () => {
    server = await startConnectNode();
    t = transports(server.url);
  });
  afterAll(async () => {
    t.close();
    await server.close();
  });

  const commands = ['ok:hello', 'ok:', 'big', 'details', 'throw', ...Array.from({ length: 16 }, (_, i) => `err:${i + 1}`)];
  it.each(commands)('%s ends the same way', async (command) => {
    expect(await call(t.fast, command)).toEqual(await call(t.reference, command));
  });

  it('sends the spec grpc-timeout the server reads, and a deadline expiring ends both as DeadlineExceeded', async () => {
    // 48 hours: connect-node writes 172800000m (9 digits, which the spec refuses).
    expect(await call(t.fast, 'sleep:0', 86_400_000 * 2)).toMatchObject({ ok: true, body: 'slept 172800S' });
    const expected = await call(t.reference, 'wait', 50);
    expect(await call(t.fast, 'wait', 50)).toEqual(expected);
    expect(expected).toMatchObject({ ok: false, code: Code.DeadlineExceeded });
  });

  it('a call the caller cancels ends both as Canceled', async () => {
    const cancelled = async (transport: Transport) => {
      const abort = new AbortController();
      setTimeout(() => abort.abort(), 50);
      return call(transport, 'wait', undefined, abort.signal);
    };
    const expected = await cancelled(t.reference);
    expect(await cancelled(t.fast)).toEqual(expected);
    expect(expected).toMatchObject({ ok: false, code: Code.Canceled });
  });
});

/** A length-prefixed gRPC message. */
const framed = (payload: Buffer, flags = 0) => {
  const head = Buffer.alloc(5);
  head[0] = flags;
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
};
/** A StringValue-shaped Check response: field 1, bytes. */
const response = (text: string) => {
  const b = Buffer.from(text);
  return framed(Buffer.concat([Buffer.from([0x0a, b.length]), b]));
};
const GRPC = { ':status': 200, 'content-type': 'application/grpc+proto' };

/** How the raw server answers each command (the request body's text). */
const answers: Record<string, (s: http2.ServerHttp2Stream) => void> = {
  ok: (s) => {
    s.respond(GRPC, { waitForTrailers: true });
    s.on('wantTrailers', () => s.sendTrailers({ 'grpc-status': '0', 'x-t': 't' }));
    s.end(response('fine'));
  },
  'trailers-only error': (s) => s.respond({ ...GRPC, 'grpc-status': '9', 'grpc-message': 'no%20way' }, { endStream: true }),
  'trailers-only ok without message': (s) => s.respond({ ...GRPC, 'grpc-status': '0' }, { endStream: true }),
  'no status at all': (s) => {
    s.respond(GRPC);
    s.end(response('x'));
  },
  'html 503': (s) => {
    s.respond({ ':status': 503, 'content-type': 'text/html' });
    s.end('<h1>down</h1>');
  },
  'http 404 with grpc type': (s) => {
    s.respond({ ':status': 404, 'content-type': 'application/grpc' });
    s.end();
  },
  'wrong content type': (s) => {
    s.respond({ ':status': 200, 'content-type': 'application/json' });
    s.end('{}');
  },
  'two messages': (s) => {
    s.respond(GRPC, { waitForTrailers: true });
    s.on('wantTrailers', () => s.sendTrailers({ 'grpc-status': '0' }));
    s.end(Buffer.concat([response('a'), response('b')]));
  },
  'cut envelope': (s) => {
    s.respond(GRPC, { waitForTrailers: true });
    s.on('wantTrailers', () => s.sendTrailers({ 'grpc-status': '0' }));
    s.end(response('abcdef').subarray(0, 8));
  },
  'compressed without encoding': (s) => {
    s.respond(GRPC, { waitForTrailers: true });
    s.on('wantTrailers', () => s.sendTrailers({ 'grpc-status': '0' }));
    s.end(framed(gzipSync(Buffer.from([0x0a, 1, 0x41])), 1));
  },
  'gzip message': (s) => {
    s.respond({ ...GRPC, 'grpc-encoding': 'gzip' }, { waitForTrailers: true });
    s.on('wantTrailers', () => s.sendTrailers({ 'grpc-status': '0' }));
    s.end(framed(gzipSync(Buffer.from([0x0a, 1, 0x41])), 1));
  },
  'unknown encoding': (s) => {
    s.respond({ ...GRPC, 'grpc-encoding': 'snappy' }, { waitForTrailers: true });
    s.on('wantTrailers', () => s.sendTrailers({ 'grpc-status': '0' }));
    s.end(response('x'));
  },
  'message then error status': (s) => {
    s.respond(GRPC, { waitForTrailers: true });
    s.on('wantTrailers', () => s.sendTrailers({ 'grpc-status': '13', 'grpc-message': 'late' }));
    s.end(response('x'));
  },
  'unparseable message': (s) => {
    s.respond(GRPC, { waitForTrailers: true });
    s.on('wantTrailers', () => s.sendTrailers({ 'grpc-status': '0' }));
    s.end(framed(Buffer.from([0x0a, 0x7f])));
  },
  'status with details': (s) =>
    s.respond({ ...GRPC, 'grpc-status': '5', 'grpc-message': 'gone', 'grpc-status-details-bin': 'CAUSBGdvbmU' }, { endStream: true }),
  'reset refused': (s) => s.close(http2.constants.NGHTTP2_REFUSED_STREAM),
  'reset cancel': (s) => s.close(http2.constants.NGHTTP2_CANCEL),
  'reset internal after headers': (s) => {
    s.respond(GRPC);
    s.write(response('x').subarray(0, 3), () => s.close(http2.constants.NGHTTP2_INTERNAL_ERROR));
  },
  'reset enhance your calm': (s) => s.close(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM),
};

describe('gRPC unary fast client against hostile answers', () => {
  let server: http2.Http2Server;
  let t: ReturnType<typeof transports>;
  beforeAll(async () => {
    server = http2.createServer();
    server.on('stream', (s) => {
      const chunks: Buffer[] = [];
      s.on('data', (c: Buffer) => chunks.push(c));
      s.on('end', () => {
        // The request's one message: 5-byte prefix, then field 1 (bytes) holding the command.
        const command = Buffer.concat(chunks).subarray(7).toString();
        (answers[command] ?? answers['ok'])?.(s);
      });
      s.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t = transports(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    t.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it.each(Object.keys(answers))('%s ends the same way', async (command) => {
    const expected = await call(t.reference, command);
    expect(await call(t.fast, command)).toEqual(expected);
  });
});
