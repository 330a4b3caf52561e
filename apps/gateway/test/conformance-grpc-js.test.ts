import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create, toBinary } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import { botlink } from '@wordgame/contracts';
import { issueLeaf, makeCa } from '@wordgame/testkit';
import { eventually, sample, startTestGateway, type TestGateway } from './support/botlink-gateway.js';
import { GrpcJsLink, grpcJsClient, unary, type Wire } from './support/grpc-js-bot.js';
import { startIntakeBackend } from './support/intake-backend.js';
import { collect, envelope, RawGrpc } from './support/raw-grpc.js';

/**
 * Conformance of the gateway's BotLink server with a gRPC implementation written by others:
 * @grpc/grpc-js with @grpc/proto-loader, loading the spec's proto (proto/botlink/v1/botlink.proto)
 * at run time, plays the bot against a real gateway over mutual TLS. Only what the spec, the gRPC
 * protocol (PROTOCOL-HTTP2.md, compression.md, statuscodes.md) and the README promise is asserted.
 * The backend behind the unary RPCs is a real h2c Connect server recording what it was asked
 * (calls for `slow-*` ids answer after 300 ms).
 */

const payload = (c: Wire): string => String(c['payload']);

describe('conformance: @grpc/grpc-js bot against the gateway BotLink server (mTLS, spec proto)', () => {
  let backend: Awaited<ReturnType<typeof startIntakeBackend>>;
  let gw: TestGateway;
  let target: string;
  let certDir: string;
  let client: grpc.Client;
  const links: GrpcJsLink[] = [];
  const clients: grpc.Client[] = [];

  const bot = (options: Partial<Parameters<typeof grpcJsClient>[0]> = {}): grpc.Client => {
    const c = grpcJsClient({ target, ca: gw.certs.ca.cert, client: gw.certs.bot, ...options });
    clients.push(c);
    return c;
  };
  const open = (c: grpc.Client = client, options: grpc.CallOptions = {}): GrpcJsLink => {
    const link = new GrpcJsLink(c, options);
    links.push(link);
    return link;
  };
  const closeLinks = async (): Promise<void> => {
    for (const l of links.splice(0)) l.cancel();
    await eventually(() => gw.gateway.hub.connected === 0);
  };
  const gate = (externalId: string) => ({
    case: 'chatGate' as const,
    value: create(botlink.ChatGateCommandSchema, { externalId, allow: true }),
  });

  beforeAll(async () => {
    backend = await startIntakeBackend({ delayMs: (id) => (id.startsWith('slow') ? 300 : 0) });
    gw = await startTestGateway({ BACKEND_URL: backend.url });
    target = `localhost:${new URL(gw.urls.botlinkUrl).port}`;
    certDir = mkdtempSync(join(tmpdir(), 'grpc-js-certs-'));
    client = bot();
  });
  afterEach(closeLinks);
  afterAll(async () => {
    for (const c of clients) c.close();
    await gw.stop();
    await backend.close();
    rmSync(certDir, { recursive: true, force: true });
  });

  describe('Link', () => {
    it('Hello first: a first message that is not Hello ends the stream INVALID_ARGUMENT; after Hello the Link is open', async () => {
      const refused = open();
      refused.write({ ack: { command_id: 'x', delivered: true } });
      expect(await refused.ended).toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: 'the first message on Link must be Hello' });

      const link = open().hello('grpc-js-bot', true);
      await eventually(() => gw.gateway.hub.connected === 1);
      expect(gw.gateway.hub.snapshot()).toMatchObject([{ instanceId: 'grpc-js-bot', ownsUpdates: true }]);
      expect(link.received).toEqual([]);
    });

    it('one Ack per Command: each Command carries a fresh command_id and its Ack settles exactly that command', async () => {
      const link = open().hello('grpc-js-acks', true);
      await eventually(() => gw.gateway.hub.connected === 1);
      const outcomes = ['ok', 'clean', 'broken'].map((id) => gw.gateway.hub.send(gate(id), { timeoutMs: 5_000 }));
      const commands = (await link.waitFor(3)).map((m) => m['command'] as Wire);
      expect(commands.map((c) => payload(c))).toEqual(['chat_gate', 'chat_gate', 'chat_gate']);
      expect(new Set(commands.map((c) => c['command_id'])).size).toBe(3);
      // Acks in reverse order, one per command, plus one for an id the gateway never sent.
      const [ok, clean, broken] = commands;
      link.write({ ack: { command_id: broken?.['command_id'], delivered: false, error: 'platform 400: Bad Request: USER_ID_INVALID' } });
      link.write({ ack: { command_id: 'never-sent', delivered: true } });
      link.write({ ack: { command_id: clean?.['command_id'], delivered: false } });
      link.write({ ack: { command_id: ok?.['command_id'], delivered: true, result: 'r' } });
      expect(await Promise.all(outcomes)).toEqual([
        { status: 'delivered', result: 'r' },
        { status: 'not_delivered' },
        { status: 'failed', error: 'platform 400: Bad Request: USER_ID_INVALID' },
      ]);
      await eventually(async () => sample(await gw.metrics(), 'botlink_unknown_acks_total') === 1);
      expect((commands[0]?.['chat_gate'] as Wire)['external_id']).toBe('ok');
    });

    it('Health into metrics: the deltas add to bot_platform_errors_total, last_ok_unix is a gauge that never moves backwards', async () => {
      const link = open().hello('grpc-js-health', true);
      await eventually(() => gw.gateway.hub.connected === 1);
      const now = Math.floor(Date.now() / 1000);
      link.write({ health: { connect_failures: '2', api_errors: '3', rate_limited: '1', last_ok_unix: String(now) } });
      link.write({ health: { connect_failures: '1', api_errors: '0', rate_limited: '0', last_ok_unix: String(now - 100) } });
      const scrape = async () => {
        const text = await gw.metrics();
        return {
          longPoll: sample(text, 'bot_platform_errors_total{kind="long_poll"}'),
          api: sample(text, 'bot_platform_errors_total{kind="api"}'),
          rateLimited: sample(text, 'bot_platform_errors_total{kind="rate_limited"}'),
          lastOk: sample(text, 'bot_platform_last_ok_unix'),
        };
      };
      await eventually(async () => (await scrape()).longPoll === 3);
      expect(await scrape()).toEqual({ longPoll: 3, api: 3, rateLimited: 1, lastOk: now });
    });

    it('a second Link of the same instance on the same connection replaces the first (ABORTED); commands go to the new one, none replayed', async () => {
      const first = open().hello('grpc-js-twice', true);
      await eventually(() => gw.gateway.hub.connected === 1);
      const lost = gw.gateway.hub.send(gate('in-flight'), { timeoutMs: 5_000 });
      await first.waitFor(1);
      const second = open().hello('grpc-js-twice', true);
      expect(await first.ended).toMatchObject({ code: grpc.status.ABORTED, details: 'replaced by a newer Link from the same instance_id' });
      expect(await lost).toEqual({ status: 'error', error: 'link_lost' });
      await eventually(() => gw.gateway.hub.connected === 1);
      const next = gw.gateway.hub.send(gate('after'), { timeoutMs: 5_000 });
      const [command] = await second.waitFor(1);
      const sent = command?.['command'] as Wire;
      expect((sent['chat_gate'] as Wire)['external_id']).toBe('after');
      second.write({ ack: { command_id: sent['command_id'], delivered: true } });
      expect(await next).toEqual({ status: 'delivered', result: '' });
      expect(first.received).toHaveLength(1);
    });

    it('a second Link of another instance is kept beside the first; commands go to the one that owns updates', async () => {
      const owner = open().hello('grpc-js-owner', true);
      const other = open(bot()).hello('grpc-js-other', false);
      await eventually(() => gw.gateway.hub.connected === 2);
      const sent = gw.gateway.hub.send(gate('to-owner'), { timeoutMs: 5_000 });
      const [command] = await owner.waitFor(1);
      owner.write({ ack: { command_id: (command?.['command'] as Wire)['command_id'], delivered: true } });
      expect(await sent).toEqual({ status: 'delivered', result: '' });
      expect(other.received).toEqual([]);
    });
  });

  describe('unary RPCs', () => {
    it('ResolveChatEligibility answers the backend verdict for the telegram identity', async () => {
      expect(await unary(client, 'ResolveChatEligibility', { external_id: '42' })).toEqual({
        ok: true,
        message: { registered: true, eligible: true },
      });
      expect(await unary(client, 'ResolveChatEligibility', { external_id: '404' })).toEqual({
        ok: true,
        message: { registered: false, eligible: false },
      });
      expect(backend.seen.eligibility.slice(-2)).toEqual([
        { platform: 'telegram', externalId: '42' },
        { platform: 'telegram', externalId: '404' },
      ]);
    });

    it('ValidatePreCheckout answers ok, or not ok with the reason', async () => {
      expect(await unary(client, 'ValidatePreCheckout', { order_id: 'order-1', amount: '50', currency: 'XTR' })).toEqual({
        ok: true,
        message: { ok: true, reason: '' },
      });
      expect(await unary(client, 'ValidatePreCheckout', { order_id: 'order-1', amount: '49', currency: 'XTR' })).toEqual({
        ok: true,
        message: { ok: false, reason: 'amount changed' },
      });
    });

    it('ForwardPayment carries every field (int64 beyond 2^53 exactly) and answers credited', async () => {
      const payment = { order_id: 'order-1', platform_payment_charge_id: 'charge-1', amount: '50', platform_user_id: '9007199254740993' };
      expect(await unary(client, 'ForwardPayment', payment)).toEqual({ ok: true, message: { credited: true } });
      expect(await unary(client, 'ForwardPayment', { ...payment, order_id: 'other' })).toEqual({ ok: true, message: { credited: false } });
      expect(backend.seen.payments.at(-2)).toEqual({
        orderId: 'order-1',
        platformChargeId: 'charge-1',
        amount: 50n,
        userId: 9_007_199_254_740_993n,
        platform: 'telegram',
      });
    });
  });

  describe('refused certificates', () => {
    const refusedWith = async (c: grpc.Client): Promise<grpc.status | 'ok'> => {
      const res = await unary(c, 'ResolveChatEligibility', { external_id: '42' }, { deadline: Date.now() + 5_000 });
      return res.ok ? 'ok' : res.code;
    };

    it('a client certificate from another CA never completes the handshake: UNAVAILABLE', async () => {
      const otherCa = makeCa(certDir, 'other-ca');
      const foreign = issueLeaf(certDir, 'foreign-bot', otherCa, { commonName: 'bot', usage: 'client' });
      expect(await refusedWith(bot({ client: foreign }))).toBe(grpc.status.UNAVAILABLE);
    });

    it('no client certificate: UNAVAILABLE', async () => {
      const c = grpcJsClient({ target, ca: gw.certs.ca.cert });
      clients.push(c);
      expect(await refusedWith(c)).toBe(grpc.status.UNAVAILABLE);
    });

    it('a certificate of the right CA naming another identity: PERMISSION_DENIED, on the unary RPCs and on Link', async () => {
      const stranger = issueLeaf(
        certDir,
        'stranger',
        { cert: gw.certs.ca.cert, key: gw.certs.ca.key },
        { commonName: 'stranger', usage: 'client' },
      );
      const c = bot({ client: stranger });
      expect(await refusedWith(c)).toBe(grpc.status.PERMISSION_DENIED);
      const link = open(c).hello('stranger');
      expect((await link.ended).code).toBe(grpc.status.PERMISSION_DENIED);
      expect(gw.gateway.hub.connected).toBe(0);
    });

    it('a certificate of the right CA without the clientAuth usage: UNAUTHENTICATED', async () => {
      const server = issueLeaf(certDir, 'no-eku', { cert: gw.certs.ca.cert, key: gw.certs.ca.key }, { commonName: 'bot', usage: 'none' });
      expect(await refusedWith(bot({ client: server }))).toBe(grpc.status.UNAUTHENTICATED);
    });

    it('a bot that trusts another CA refuses the gateway: UNAVAILABLE', async () => {
      const otherCa = makeCa(certDir, 'bot-trusts');
      expect(await refusedWith(bot({ ca: otherCa.cert }))).toBe(grpc.status.UNAVAILABLE);
    });
  });

  describe('deadlines', () => {
    it('a deadline shorter than the backend is DEADLINE_EXCEEDED', async () => {
      const res = await unary(
        client,
        'ValidatePreCheckout',
        { order_id: 'slow-1', amount: '50', currency: 'XTR' },
        { deadline: Date.now() + 50 },
      );
      expect(res).toMatchObject({ ok: false, code: grpc.status.DEADLINE_EXCEEDED });
    });

    it.each([
      ['1 second', 1_000],
      ['24.8 days (2^31-1 ms)', 2 ** 31 - 1],
      ['30 days', 30 * 86_400_000],
      ['10 years', 3_650 * 86_400_000],
    ])('a %s deadline is answered (the gateway times what it can, not 1 ms)', async (_name, ms) => {
      const res = await unary(
        client,
        'ValidatePreCheckout',
        { order_id: 'slow-2', amount: '50', currency: 'XTR' },
        { deadline: Date.now() + ms },
      );
      expect(res).toEqual({ ok: true, message: { ok: true, reason: '' } });
    });

    it('a Link with a 30-day deadline stays open and carries commands', async () => {
      const link = open(client, { deadline: Date.now() + 30 * 86_400_000 }).hello('grpc-js-long', true);
      await eventually(() => gw.gateway.hub.connected === 1);
      await new Promise((r) => setTimeout(r, 200));
      const sent = gw.gateway.hub.send(gate('long'), { timeoutMs: 5_000 });
      const [command] = await link.waitFor(1);
      link.write({ ack: { command_id: (command?.['command'] as Wire)['command_id'], delivered: true } });
      expect(await sent).toEqual({ status: 'delivered', result: '' });
    });
  });

  describe('compression', () => {
    it('a gzip-compressed bot (requests gzip) is served on the unary RPCs and on Link', async () => {
      const zipped = bot({ channel: { 'grpc.default_compression_algorithm': grpc.compressionAlgorithms.gzip } });
      expect(await unary(zipped, 'ValidatePreCheckout', { order_id: 'order-1', amount: '50', currency: 'XTR' })).toEqual({
        ok: true,
        message: { ok: true, reason: '' },
      });
      const link = open(zipped).hello('grpc-js-gzip', true);
      await eventually(() => gw.gateway.hub.connected === 1);
      const big = 'x'.repeat(4_096);
      const sent = gw.gateway.hub.send(
        { case: 'notify', value: { recipient: { externalId: '7' }, params: { text: big } } },
        { timeoutMs: 5_000 },
      );
      const [command] = await link.waitFor(1);
      const notify = (command?.['command'] as Wire)['notify'] as Wire;
      expect((notify['params'] as Record<string, string>)['text']).toBe(big);
      link.write({ ack: { command_id: (command?.['command'] as Wire)['command_id'], delivered: true, result: big } });
      expect(await sent).toEqual({ status: 'delivered', result: big });
    });

    it('the gateway answers gzip to a bot that accepts it: a large Command arrives compressed (flag 1, grpc-encoding gzip)', async () => {
      const raw = new RawGrpc(gw.urls.botlinkUrl, gw.certs);
      try {
        const stream = raw.open('/botlink.v1.BotLink/Link', { 'grpc-accept-encoding': 'gzip' });
        const answer = collect(stream);
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        const hello = create(botlink.FromBotSchema, { msg: { case: 'hello', value: { instanceId: 'raw-gzip', ownsUpdates: true } } });
        stream.write(envelope(toBinary(botlink.FromBotSchema, hello)));
        await eventually(() => gw.gateway.hub.connected === 1);
        void gw.gateway.hub.send(
          { case: 'notify', value: { recipient: { externalId: '7' }, params: { text: 'y'.repeat(4_096) } } },
          { timeoutMs: 200 },
        );
        await eventually(() => Buffer.concat(chunks).length >= 5);
        const first = Buffer.concat(chunks);
        expect(first[0]).toBe(1);
        expect(first.readUInt32BE(1)).toBeLessThan(1_024);
        stream.close();
        const { headers } = await answer;
        expect(headers['grpc-encoding']).toBe('gzip');
      } finally {
        raw.close();
      }
    });

    it.each(['snappy', 'deflate'])(
      'a request in an encoding the gateway does not support (%s) is UNIMPLEMENTED with grpc-accept-encoding naming what it accepts',
      async (encoding) => {
        const raw = new RawGrpc(gw.urls.botlinkUrl, gw.certs);
        try {
          const body = envelope(
            toBinary(
              botlink.PreCheckoutRequestSchema,
              create(botlink.PreCheckoutRequestSchema, { orderId: 'order-1', amount: 50n, currency: 'XTR' }),
            ),
          );
          body[0] = 1;
          const answer = await raw.call('/botlink.v1.BotLink/ValidatePreCheckout', { 'grpc-encoding': encoding }, body);
          expect(answer.status).toBe(grpc.status.UNIMPLEMENTED);
          expect(String(answer.headers['grpc-accept-encoding'] ?? answer.trailers['grpc-accept-encoding'])).toMatch(/gzip/);
        } finally {
          raw.close();
        }
      },
    );

    it('a grpc-js bot compressing with deflate (unsupported here) gets UNIMPLEMENTED', async () => {
      const deflating = bot({ channel: { 'grpc.default_compression_algorithm': grpc.compressionAlgorithms.deflate } });
      const res = await unary(deflating, 'ValidatePreCheckout', { order_id: 'order-1', amount: '50', currency: 'XTR' });
      expect(res).toMatchObject({ ok: false, code: grpc.status.UNIMPLEMENTED });
    });
  });

  describe('the gRPC protocol around the calls', () => {
    let raw: RawGrpc;
    const preCheckout = envelope(
      toBinary(
        botlink.PreCheckoutRequestSchema,
        create(botlink.PreCheckoutRequestSchema, { orderId: 'order-1', amount: 50n, currency: 'XTR' }),
      ),
    );
    beforeAll(() => {
      raw = new RawGrpc(gw.urls.botlinkUrl, gw.certs);
    });
    afterAll(() => raw.close());

    it('a method the service does not have is UNIMPLEMENTED (HTTP 200, grpc-status 12), also for grpc-js', async () => {
      const answer = await raw.call('/botlink.v1.BotLink/Nope', {}, preCheckout);
      expect({ http: answer.headers[':status'], status: answer.status }).toEqual({ http: 200, status: grpc.status.UNIMPLEMENTED });
      const res = await new Promise<grpc.ServiceError | null>((resolve) =>
        client.makeUnaryRequest(
          '/botlink.v1.BotLink/Nope',
          (x: Buffer) => x,
          (x: Buffer) => x,
          Buffer.alloc(0),
          (err) => resolve(err),
        ),
      );
      expect(res?.code).toBe(grpc.status.UNIMPLEMENTED);
    });

    it('a content-type that is not application/grpc is HTTP 415', async () => {
      const answer = await raw.call('/botlink.v1.BotLink/ValidatePreCheckout', { 'content-type': 'text/plain' }, preCheckout);
      expect(answer.headers[':status']).toBe(415);
    });

    it('no request message on a unary RPC is UNIMPLEMENTED (request cardinality), two messages too', async () => {
      expect((await raw.call('/botlink.v1.BotLink/ValidatePreCheckout', {}, Buffer.alloc(0))).status).toBe(grpc.status.UNIMPLEMENTED);
      expect((await raw.call('/botlink.v1.BotLink/ValidatePreCheckout', {}, Buffer.concat([preCheckout, preCheckout]))).status).toBe(
        grpc.status.UNIMPLEMENTED,
      );
    });

    it('a compressed flag without a grpc-encoding is INTERNAL (compression.md)', async () => {
      const flagged = Buffer.from(preCheckout);
      flagged[0] = 1;
      expect((await raw.call('/botlink.v1.BotLink/ValidatePreCheckout', {}, flagged)).status).toBe(grpc.status.INTERNAL);
    });

    it('a message that is not the request type is INTERNAL (error parsing request proto)', async () => {
      expect((await raw.call('/botlink.v1.BotLink/ValidatePreCheckout', {}, envelope(Buffer.from([0xff, 0xff, 0xff])))).status).toBe(
        grpc.status.INTERNAL,
      );
    });

    it('a message larger than the limit is RESOURCE_EXHAUSTED, also from grpc-js', async () => {
      const res = await unary(client, 'ValidatePreCheckout', { order_id: 'o'.repeat(2 * 1024 * 1024), amount: '50', currency: 'XTR' });
      expect(res).toMatchObject({ ok: false, code: grpc.status.RESOURCE_EXHAUSTED });
    });
  });
});
