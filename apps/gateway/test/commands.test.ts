import { readFileSync } from 'node:fs';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport } from '@connectrpc/connect-node';
import { botlink, connector, gatewayApi } from '@wordgame/contracts';
import { withServiceToken } from '@wordgame/h2-unary';
import { TEST_SERVICE_TOKENS } from '@wordgame/testkit';
import type { CommandPayload } from '../src/commands/outcome.js';
import { eventually, sample, startTestGateway, type TestGateway } from './support/botlink-gateway.js';
import { TestBot, type TestBotOptions } from './support/botlink-bot.js';
import { startTcpProxy } from './support/tcp-proxy.js';

const gate = (externalId: string): CommandPayload => ({ case: 'chatGate', value: { externalId, allow: true } });
const gateIdOf = (command: botlink.Command) => (command.payload.case === 'chatGate' ? command.payload.value.externalId : '');

describe('command hub over a real Link', () => {
  let gw: TestGateway;
  const bots: TestBot[] = [];
  const bot = (options: Partial<TestBotOptions> = {}) => {
    const b = new TestBot({ url: gw.urls.botlinkUrl, ca: gw.certs.ca.cert, client: gw.certs.bot, ...options });
    bots.push(b);
    return b;
  };
  const linked = (n: number) => eventually(() => gw.gateway.hub.connected === n);

  beforeEach(async () => {
    gw = await startTestGateway();
  });
  afterEach(async () => {
    await Promise.all(bots.splice(0).map((b) => b.close()));
    await gw.stop();
  });

  it('answers no_bot at once when no bot is connected', async () => {
    expect(await gw.gateway.hub.send(gate('1'), { timeoutMs: 60_000 })).toEqual({ status: 'no_bot' });
    expect(sample(await gw.metrics(), 'botlink_commands_total{kind="chat_gate",outcome="no_bot"}')).toBe(1);
  });

  it('correlates 1,000 pipelined commands with 1,000 Acks', async () => {
    bot({ answer: (c) => ({ delivered: true, result: `ok:${gateIdOf(c)}` }) }).hello('bot-1k', true);
    await linked(1);
    const outcomes = await Promise.all(
      Array.from({ length: 1_000 }, (_, i) => gw.gateway.hub.send(gate(String(i)), { timeoutMs: 20_000 })),
    );
    expect(outcomes).toEqual(Array.from({ length: 1_000 }, (_, i) => ({ status: 'delivered', result: `ok:${i}` })));
    const ids = new Set(bots[0]?.received.map((c) => c.commandId));
    expect(ids.size).toBe(1_000);
    const text = await gw.metrics();
    expect(sample(text, 'botlink_commands_total{kind="chat_gate",outcome="delivered"}')).toBe(1_000);
    expect(sample(text, 'botlink_ack_latency_seconds_count{kind="chat_gate"}')).toBe(1_000);
    expect(sample(text, 'botlink_unknown_acks_total')).toBe(0);
  });

  it('maps each Ack shape to its outcome', async () => {
    bot({
      answer: (c) => {
        const id = gateIdOf(c);
        if (id === 'clean') return { delivered: false };
        if (id === 'broken') return { delivered: false, error: 'render failed' };
        return { delivered: true, result: 'https://t.me/invoice/x' };
      },
    }).hello('bot-shapes');
    await linked(1);
    expect(await gw.gateway.hub.send(gate('clean'), { timeoutMs: 5_000 })).toEqual({ status: 'not_delivered' });
    expect(await gw.gateway.hub.send(gate('broken'), { timeoutMs: 5_000 })).toEqual({ status: 'failed', error: 'render failed' });
    expect(await gw.gateway.hub.send(gate('fine'), { timeoutMs: 5_000 })).toEqual({
      status: 'delivered',
      result: 'https://t.me/invoice/x',
    });
  });

  it('resolves in-flight commands as link_lost when the bot dies, and never re-sends them', async () => {
    const proxy = await startTcpProxy(gw.urls.botlinkPort);
    try {
      const doomed = bot({ url: `https://127.0.0.1:${proxy.port}`, answer: () => undefined }).hello('bot-k', true);
      await linked(1);
      const inFlight = Array.from({ length: 5 }, (_, i) => gw.gateway.hub.send(gate(`old-${i}`), { timeoutMs: 60_000 }));
      await doomed.waitForCommands(5);
      proxy.cut();
      expect(await Promise.all(inFlight)).toEqual(Array.from({ length: 5 }, () => ({ status: 'error', error: 'link_lost' })));
      expect(gw.gateway.hub.connected).toBe(0);

      const revived = bot().hello('bot-k', true);
      await linked(1);
      expect(await gw.gateway.hub.send(gate('new'), { timeoutMs: 5_000 })).toMatchObject({ status: 'delivered' });
      expect(revived.received.map(gateIdOf)).toEqual(['new']);
      expect(sample(await gw.metrics(), 'botlink_commands_total{kind="chat_gate",outcome="link_lost"}')).toBe(5);
    } finally {
      await proxy.close();
    }
  });

  it('times out a command without an Ack and counts its late Ack, and any unknown id, as unknown', async () => {
    const b = bot({ answer: () => undefined }).hello('bot-late');
    await linked(1);
    expect(await gw.gateway.hub.send(gate('slow'), { timeoutMs: 100 })).toEqual({ status: 'timeout' });
    const [late] = await b.waitForCommands(1);
    b.ack(late?.commandId ?? '', { delivered: true });
    b.ack('no-such-command', { delivered: true });
    await eventually(async () => sample(await gw.metrics(), 'botlink_unknown_acks_total') === 2);
    const text = await gw.metrics();
    expect(sample(text, 'botlink_commands_total{kind="chat_gate",outcome="timeout"}')).toBe(1);
    expect(sample(text, 'botlink_commands_total{kind="chat_gate",outcome="delivered"}')).toBeUndefined();
  });

  it('prefers the bot that owns updates, else any connected bot', async () => {
    const plain = bot().hello('bot-plain', false);
    await linked(1);
    const owner = bot().hello('bot-owner', true);
    await linked(2);
    for (let i = 0; i < 3; i++) await gw.gateway.hub.send(gate(`o${i}`), { timeoutMs: 5_000 });
    expect(owner.received.map(gateIdOf)).toEqual(['o0', 'o1', 'o2']);
    expect(plain.received).toHaveLength(0);
    await owner.close();
    await linked(1);
    expect(await gw.gateway.hub.send(gate('p'), { timeoutMs: 5_000 })).toMatchObject({ status: 'delivered' });
    expect(plain.received.map(gateIdOf)).toEqual(['p']);
  });

  it('fails sends beyond the Link queue bound with queue_full instead of buffering', async () => {
    await gw.stop();
    gw = await startTestGateway({ BOTLINK_SEND_QUEUE_LIMIT: '2' });
    bot().hello('bot-q');
    await linked(1);
    const burst = Array.from({ length: 5 }, (_, i) => gw.gateway.hub.send(gate(`q${i}`), { timeoutMs: 5_000 }));
    const outcomes = await Promise.all(burst);
    expect(outcomes.filter((o) => o.status === 'delivered')).toHaveLength(2);
    expect(outcomes.slice(2)).toEqual(Array.from({ length: 3 }, () => ({ status: 'error', error: 'queue_full' })));
  });
});

describe('internal BotCommandService', () => {
  it('carries a backend command through the hub to a real bot over mTLS and returns its outcome', async () => {
    const gw = await startTestGateway();
    const internal = createClient(
      gatewayApi.BotCommandService,
      createConnectTransport({
        baseUrl: gw.urls.internalUrl,
        httpVersion: '2',
        interceptors: [withServiceToken(TEST_SERVICE_TOKENS.GATEWAY_INTERNAL_TOKEN)],
      }),
    );
    const b = new TestBot({
      url: gw.urls.botlinkUrl,
      ca: gw.certs.ca.cert,
      client: gw.certs.bot,
      answer: (c) =>
        c.payload.case === 'createInvoice' ? { delivered: true, result: `https://t.me/$${c.payload.value.payload}` } : { delivered: false },
    });
    try {
      expect(await internal.send({ command: { payload: gate('1') }, timeoutMs: 1_000 })).toMatchObject({
        outcome: gatewayApi.Outcome.NO_BOT,
        result: '',
        error: '',
      });
      b.hello('bot-internal', true);
      await eventually(() => gw.gateway.hub.connected === 1);
      const invoice = await internal.send({
        command: {
          commandId: 'ignored',
          payload: { case: 'createInvoice', value: { title: 'Chips', description: '100 chips', payload: 'order-1', amount: 50n } },
        },
        timeoutMs: 5_000,
      });
      expect(invoice).toMatchObject({ outcome: gatewayApi.Outcome.DELIVERED, result: 'https://t.me/$order-1', error: '' });
      const [received] = await b.waitForCommands(1);
      expect(received?.commandId).not.toBe('ignored');
      expect(received?.commandId).toMatch(/^[0-9a-f-]{36}$/);
      const notify = await internal.send({
        command: {
          payload: {
            case: 'notify',
            value: { recipient: { kind: connector.PlatformKind.TELEGRAM, externalId: '7' }, kind: connector.NotificationKind.YOUR_TURN },
          },
        },
      });
      expect(notify.outcome).toBe(gatewayApi.Outcome.NOT_DELIVERED);
      const empty = await internal.send({ command: {} }).catch((err: unknown) => ConnectError.from(err));
      expect(empty).toBeInstanceOf(ConnectError);
      expect((empty as ConnectError).code).toBe(Code.InvalidArgument);
    } finally {
      await b.close();
      await gw.stop();
    }
  });

  it('carries refund_star_payment to the bot and returns its Ack result, labelled refund_star_payment in the metrics', async () => {
    const gw = await startTestGateway();
    const internal = createClient(
      gatewayApi.BotCommandService,
      createConnectTransport({
        baseUrl: gw.urls.internalUrl,
        httpVersion: '2',
        interceptors: [withServiceToken(TEST_SERVICE_TOKENS.GATEWAY_INTERNAL_TOKEN)],
      }),
    );
    const b = new TestBot({
      url: gw.urls.botlinkUrl,
      ca: gw.certs.ca.cert,
      client: gw.certs.bot,
      answer: (c) => {
        if (c.payload.case !== 'refundStarPayment') return { delivered: false, error: 'unexpected kind' };
        const charge = c.payload.value.platformPaymentChargeId;
        if (charge === 'stx-missing') return { delivered: false, error: 'platform 400: Bad Request: CHARGE_NOT_FOUND' };
        return { delivered: true, result: charge === 'stx-again' ? 'already_refunded' : '' };
      },
    });
    const refund = (platformPaymentChargeId: string) =>
      internal.send({
        command: { payload: { case: 'refundStarPayment', value: { userId: 9_007_199_254_740_991n, platformPaymentChargeId } } },
        timeoutMs: 5_000,
      });
    try {
      b.hello('bot-refunds', true);
      await eventually(() => gw.gateway.hub.connected === 1);
      expect(await refund('stx-first')).toMatchObject({ outcome: gatewayApi.Outcome.DELIVERED, result: '', error: '' });
      expect(await refund('stx-again')).toMatchObject({ outcome: gatewayApi.Outcome.DELIVERED, result: 'already_refunded', error: '' });
      expect(await refund('stx-missing')).toMatchObject({
        outcome: gatewayApi.Outcome.FAILED,
        result: '',
        error: 'platform 400: Bad Request: CHARGE_NOT_FOUND',
      });
      const payloads = b.received.map((c) => c.payload);
      expect(payloads).toEqual(
        ['stx-first', 'stx-again', 'stx-missing'].map((charge) => ({
          case: 'refundStarPayment',
          value: expect.objectContaining({ userId: 9_007_199_254_740_991n, platformPaymentChargeId: charge }) as unknown,
        })),
      );
      const text = await gw.metrics();
      expect(sample(text, 'botlink_commands_total{kind="refund_star_payment",outcome="delivered"}')).toBe(2);
      expect(sample(text, 'botlink_commands_total{kind="refund_star_payment",outcome="error"}')).toBe(1);
      expect(sample(text, 'botlink_ack_latency_seconds_count{kind="refund_star_payment"}')).toBe(3);
    } finally {
      await b.close();
      await gw.stop();
    }
  });

  it('is served only on the internal listener, not on the bot-link or HTTP port', async () => {
    const gw = await startTestGateway();
    try {
      const viaBotlink = createClient(
        gatewayApi.BotCommandService,
        createGrpcTransport({
          baseUrl: gw.urls.botlinkUrl,
          nodeOptions: { ca: readFileSync(gw.certs.ca.cert), cert: readFileSync(gw.certs.bot.cert), key: readFileSync(gw.certs.bot.key) },
        }),
      );
      const err = await viaBotlink.send({ command: { payload: gate('1') } }).catch((e: unknown) => ConnectError.from(e));
      expect((err as ConnectError).code).toBe(Code.Unimplemented);
      const viaHttp = await fetch(`${gw.urls.httpUrl}/gateway.v1.BotCommandService/Send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(viaHttp.status).toBe(404);
      expect(gw.urls.internalPort).not.toBe(gw.urls.httpPort);
    } finally {
      await gw.stop();
    }
  });
});
