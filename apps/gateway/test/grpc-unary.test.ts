import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { create, toBinary } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, type HandlerContext } from '@connectrpc/connect';
import { compressionGzip, createGrpcTransport } from '@connectrpc/connect-node';
import { botlink } from '@wordgame/contracts';
import { createLogger } from '@wordgame/logging';
import { parseGrpcTimeout as parseTimeout, serveStreams } from '@wordgame/h2-unary';
import { botlinkServers } from '../src/botlink/grpc-unary.js';

const logger = createLogger('grpc-unary-test', 'silent');
type Forward = (
  req: botlink.ForwardPaymentRequest,
  ctx: HandlerContext,
) => Promise<botlink.ForwardPaymentResponse> | botlink.ForwardPaymentResponse;

describe('bot-link gRPC unary fast path', () => {
  let server: http2.Http2Server;
  let url: string;
  let forward: Forward;
  let served: string[];
  const sessions = new Set<http2.ServerHttp2Session>();
  const impl = {
    forwardPayment: (req: botlink.ForwardPaymentRequest, ctx: HandlerContext) => forward(req, ctx),
    resolveChatEligibility: () => create(botlink.ChatEligibilityResponseSchema, { registered: true, eligible: true }),
    validatePreCheckout: () => create(botlink.PreCheckoutResponseSchema, { ok: true }),
    link: async function* () {
      await Promise.resolve();
      yield* [];
    },
  };

  beforeAll(async () => {
    const { handler: adapter, take: fast } = botlinkServers(botlink.BotLink, impl, logger, true);
    server = http2.createServer();
    const compat = http2.createServer((req, res) => {
      served.push('adapter');
      adapter(req, res);
    });
    serveStreams(
      server,
      (stream, headers) => {
        const taken = fast(stream, headers);
        if (taken) served.push('fast');
        return taken;
      },
      compat,
    );
    server.on('session', (s: http2.ServerHttp2Session) => {
      sessions.add(s);
      s.on('close', () => sessions.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    served = [];
  });
  afterAll(
    () =>
      new Promise<void>((r) => {
        for (const s of sessions) s.destroy();
        server.close(() => r());
      }),
  );

  const client = () => createClient(botlink.BotLink, createGrpcTransport({ baseUrl: url }));

  it('answers a unary call itself with the message and grpc-status 0, with the call headers in the context', async () => {
    let seen: { instance: string | null; protocol: string; timeoutMs: number | undefined } | undefined;
    forward = (req, ctx) => {
      seen = { instance: ctx.requestHeader.get('x-bot-instance'), protocol: ctx.protocolName, timeoutMs: ctx.timeoutMs() };
      return create(botlink.ForwardPaymentResponseSchema, { credited: req.orderId === 'o-1' });
    };
    const res = await client().forwardPayment(
      { orderId: 'o-1', platformPaymentChargeId: 'c', amount: 5n },
      { headers: { 'x-bot-instance': 'b1' }, timeoutMs: 3_000 },
    );
    expect(res.credited).toBe(true);
    expect(seen).toMatchObject({ instance: 'b1', protocol: 'grpc' });
    expect(seen?.timeoutMs).toBeGreaterThan(2_000);
    expect(served).toEqual(['fast']);
  });

  it('answers a ConnectError with its code, message and metadata, and hides any other failure as Internal', async () => {
    forward = () => {
      throw new ConnectError('the backend is unavailable: 100% gone', Code.Unavailable, { 'x-detail': 'd' });
    };
    const err = (await client()
      .forwardPayment({ orderId: 'o' })
      .catch((e: unknown) => e)) as ConnectError;
    expect(err.code).toBe(Code.Unavailable);
    expect(err.rawMessage).toBe('the backend is unavailable: 100% gone');
    expect(err.metadata.get('x-detail')).toBe('d');
    forward = () => {
      throw new Error('secret internals');
    };
    const hidden = (await client()
      .forwardPayment({ orderId: 'o' })
      .catch((e: unknown) => e)) as ConnectError;
    expect(hidden.code).toBe(Code.Internal);
    expect(hidden.rawMessage).toBe('internal error');
  });

  it('answers a body that is not one uncompressed message as connect-node does', async () => {
    const message = toBinary(botlink.ForwardPaymentRequestSchema, create(botlink.ForwardPaymentRequestSchema, { orderId: 'o' }));
    const truncated = Buffer.concat([Buffer.from([0, 0, 0, 0, message.length + 3]), message]);
    expect((await raw(url, truncated)).status).toBe(String(Code.InvalidArgument)); // incomplete envelope
    expect((await raw(url, Buffer.from([0, 0]))).status).toBe(String(Code.InvalidArgument));
    const compressed = Buffer.concat([Buffer.from([1, 0, 0, 0, message.length]), message]);
    expect((await raw(url, compressed)).status).toBe(String(Code.Internal)); // compressed flag on an identity call
  });

  it('aborts the handler signal with DeadlineExceeded at grpc-timeout; its rejection is the answer', async () => {
    let reason: unknown;
    forward = (_req, ctx) =>
      new Promise((_resolve, reject) =>
        ctx.signal.addEventListener('abort', () => {
          reason = ctx.signal.reason;
          reject(ctx.signal.reason as Error);
        }),
      );
    const message = toBinary(botlink.ForwardPaymentRequestSchema, create(botlink.ForwardPaymentRequestSchema, { orderId: 'o' }));
    const res = await raw(url, Buffer.concat([Buffer.from([0, 0, 0, 0, message.length]), message]), { 'grpc-timeout': '100m' });
    expect(res.status).toBe('4');
    expect((reason as ConnectError).code).toBe(Code.DeadlineExceeded);
  });

  it('leaves JSON and compressed calls to connect-node', async () => {
    forward = () => create(botlink.ForwardPaymentResponseSchema, { credited: true });
    const json = createClient(botlink.BotLink, createGrpcTransport({ baseUrl: url, useBinaryFormat: false }));
    expect((await json.forwardPayment({ orderId: 'o' })).credited).toBe(true);
    const gzip = createClient(
      botlink.BotLink,
      createGrpcTransport({ baseUrl: url, sendCompression: compressionGzip, compressMinBytes: 0 }),
    );
    expect((await gzip.forwardPayment({ orderId: 'o' })).credited).toBe(true);
    expect(served).toEqual(['adapter', 'adapter']);
  });

  it('reads grpc-timeout in every unit and ignores malformed values', () => {
    expect(parseTimeout('2S')).toBe(2_000);
    expect(parseTimeout('250m')).toBe(250);
    expect(parseTimeout('1M')).toBe(60_000);
    expect(parseTimeout('1H')).toBe(3_600_000);
    expect(parseTimeout('1500u')).toBe(1.5);
    expect(parseTimeout('5n')).toBeCloseTo(0.000005, 12);
    expect(parseTimeout('10')).toBeNull();
    expect(parseTimeout('123456789S')).toBeNull();
    expect(parseTimeout(undefined)).toBeUndefined();
  });
});

/** One raw gRPC POST of ForwardPayment: the grpc-status from headers or trailers. */
async function raw(url: string, body: Buffer, headers: http2.OutgoingHttpHeaders = {}): Promise<{ status: string | undefined }> {
  const session = http2.connect(url);
  try {
    return await new Promise((resolve, reject) => {
      const stream = session.request({
        ':method': 'POST',
        ':path': '/botlink.v1.BotLink/ForwardPayment',
        'content-type': 'application/grpc',
        te: 'trailers',
        ...headers,
      });
      let status: string | undefined;
      stream.on('response', (h) => (status = (h['grpc-status'] as string | undefined) ?? status));
      stream.on('trailers', (h: http2.IncomingHttpHeaders) => (status = (h['grpc-status'] as string | undefined) ?? status));
      stream.on('data', () => undefined);
      stream.on('close', () => resolve({ status }));
      stream.on('error', reject);
      stream.end(body);
    });
  } finally {
    session.close();
  }
}
