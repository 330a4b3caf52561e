import { create, toBinary } from '@bufbuild/protobuf';
import { Code } from '@connectrpc/connect';
import { botlink } from '@wordgame/contracts';
import { startTestGateway, eventually, type TestGateway } from './support/botlink-gateway.js';
import { startIntakeBackend } from './support/intake-backend.js';
import { collect, envelope, RawGrpc } from './support/raw-grpc.js';

/**
 * grpc-timeout at the edges of its grammar (1-8 digits, unit H M S m u n), sent as given over
 * real HTTP/2 with mutual TLS to a real gateway relaying to a real h2c backend that answers after
 * BACKEND_DELAY_MS. A deadline longer than a Node timer can wait (2^31-1 ms) used to fire after
 * 1 ms and answer UNAVAILABLE "the backend is unavailable"; it is clamped on every path now.
 */
const BACKEND_DELAY_MS = 40;
const PRE_CHECKOUT = '/botlink.v1.BotLink/ValidatePreCheckout';
const LINK = '/botlink.v1.BotLink/Link';

const request = envelope(
  toBinary(botlink.PreCheckoutRequestSchema, create(botlink.PreCheckoutRequestSchema, { orderId: 'o-1', amount: 5n, currency: 'XTR' })),
);

describe('bot-link deadlines (grpc-timeout edges, real HTTP/2 + mTLS)', () => {
  let backend: Awaited<ReturnType<typeof startIntakeBackend>>;
  let gw: TestGateway;
  let raw: RawGrpc;

  beforeAll(async () => {
    backend = await startIntakeBackend({ delayMs: () => BACKEND_DELAY_MS });
    gw = await startTestGateway({ BACKEND_URL: backend.url });
    raw = new RawGrpc(gw.urls.botlinkUrl, gw.certs);
  });
  afterAll(async () => {
    raw.close();
    await gw.stop();
    await backend.close();
  });

  // The fast path answers identity calls; a gzip-encoded call goes through connect-node.
  const paths: Array<[string, Record<string, string>, Buffer]> = [
    ['fast path', {}, request],
    [
      'connect-node',
      { 'grpc-encoding': 'gzip' },
      envelope(
        toBinary(
          botlink.PreCheckoutRequestSchema,
          create(botlink.PreCheckoutRequestSchema, { orderId: 'o-1', amount: 5n, currency: 'XTR' }),
        ),
        true,
      ),
    ],
  ];

  describe.each(paths)('%s', (_name, extra, body) => {
    it.each([
      '99999999H', // 11,415 years: clamped
      '99999999M',
      '99999999S',
      '596H', // 2,145,600,000 ms: below what a timer can wait (2^31-1 ms)
      '597H', // 2,149,200,000 ms: above it, clamped
      '35791M', // below
      '35792M', // above
      '2147483S', // below
      '2147484S', // above
      '99999999m', // 27.8 hours
      '99999999u', // 100 s
      '1H',
      '1M',
      '1S',
    ])('grpc-timeout %s answers OK after the backend does', async (timeout) => {
      const answer = await raw.call(PRE_CHECKOUT, { ...extra, 'grpc-timeout': timeout }, body);
      expect({ status: answer.status, message: answer.message }).toEqual({ status: 0, message: '' });
      expect(answer.body.length).toBeGreaterThan(5);
    });

    it.each(['0n', '0H', '0m', '1n', '1u', '999u'])(
      'grpc-timeout %s (expired or shorter than the backend) is DEADLINE_EXCEEDED',
      async (timeout) => {
        const answer = await raw.call(PRE_CHECKOUT, { ...extra, 'grpc-timeout': timeout }, body);
        expect(answer.status).toBe(Code.DeadlineExceeded);
      },
    );

    // 2^31-1 and 2^31 in milliseconds are 10 digits: not a grpc-timeout at all (1-8 digits).
    it.each(['2147483647m', '2147483648m', '123456789m', '100000000H', '1', 'S', '-1S', '1.5S', '1h', '1 S', '1SS'])(
      'malformed grpc-timeout %j is INTERNAL, as the gRPC spec has the library answer (never INVALID_ARGUMENT)',
      async (timeout) => {
        const answer = await raw.call(PRE_CHECKOUT, { ...extra, 'grpc-timeout': timeout }, body);
        expect(answer.status).toBe(Code.Internal);
        expect(answer.message).toContain('grpc-timeout');
      },
    );
  });

  it('a Link opened with grpc-timeout 99999999H stays open and carries commands', async () => {
    const stream = raw.open(LINK, { 'grpc-timeout': '99999999H' });
    const answer = collect(stream);
    const hello = create(botlink.FromBotSchema, { msg: { case: 'hello', value: { instanceId: 'deadline-bot' } } });
    stream.write(envelope(toBinary(botlink.FromBotSchema, hello)));
    await eventually(() => gw.gateway.hub.connected === 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(gw.gateway.hub.connected).toBe(1);
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    const sent = gw.gateway.hub.send(
      { case: 'chatGate', value: create(botlink.ChatGateCommandSchema, { externalId: '7', allow: true }) },
      { timeoutMs: 200 },
    );
    await eventually(() => Buffer.concat(chunks).length > 5);
    expect(await sent).toMatchObject({ status: 'timeout' });
    stream.close();
    await answer;
  });
});
