import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { backendApi, botlink, decodeTable, encodeTable, fb, gatewayApi } from '@wordgame/contracts';
import type { PlatformEmulator } from '@wordgame/platform-emulator';
import type { Kysely } from 'kysely';
import type { DB } from '../src/db/schema.js';
import { as } from './support/harness.js';
import { newAccount } from './support/wallet.js';

/** Shops of the card tests: direct is a test shop; vk is configured live while the emulator's shop is a test shop. */
export const SHOPS = {
  direct: { shopId: 'shop-direct', secretKey: 'test_direct', test: true },
  vk: { shopId: 'shop-vk', secretKey: 'test_vk', test: true },
};
export const SHOPS_ENV = 'direct:shop-direct:test_direct:test,vk:shop-vk:test_vk:live';

/** What the tiny BotCommandService answers for one command. */
export interface BotAnswer {
  outcome: gatewayApi.Outcome;
  result?: string;
  error?: string;
}

/** Answers one command, at once or after the call it plays (a platform call). */
export type Responder = (command: botlink.Command) => BotAnswer | Promise<BotAnswer>;

/** A real h2c Connect server implementing gateway.v1.BotCommandService, recording every command. */
export interface BotCommandServer {
  url: string;
  commands: botlink.Command[];
  respond: Responder;
  stop(): Promise<void>;
}

export const deliverInvoices: Responder = (c) =>
  c.payload.case === 'createInvoice'
    ? { outcome: gatewayApi.Outcome.DELIVERED, result: `https://t.me/$invoice-${c.payload.value.payload}` }
    : { outcome: gatewayApi.Outcome.DELIVERED };

export async function startBotCommandServer(): Promise<BotCommandServer> {
  const state: BotCommandServer = { url: '', commands: [], respond: deliverInvoices, stop: () => Promise.resolve() };
  const handler = connectNodeAdapter({
    routes: (router) =>
      router.service(gatewayApi.BotCommandService, {
        async send(req) {
          if (!req.command) throw new Error('no command');
          state.commands.push(req.command);
          const r = await state.respond(req.command);
          return { outcome: r.outcome, result: r.result ?? '', error: r.error ?? '' };
        },
      }),
  });
  const server = http2.createServer(handler);
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const s of sessions) s.destroy();
    });
  return state;
}

/**
 * Plays the bot's refund_star_payment against the platform emulator's Bot API, as apps/bot does:
 * `true` is delivered, CHARGE_ALREADY_REFUNDED is delivered as `already_refunded`, any other
 * answer is an Ack error `platform <status>: <description>`. Other commands: `otherwise`.
 */
export function refundThroughPlatform(platform: PlatformEmulator, otherwise: Responder = deliverInvoices): Responder {
  return async (c) => {
    if (c.payload.case !== 'refundStarPayment') return otherwise(c);
    const { userId, platformPaymentChargeId } = c.payload.value;
    const res = await fetch(`${platform.apiRoot}/bot${platform.tokens[0] ?? ''}/refundStarPayment`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user_id: Number(userId), telegram_payment_charge_id: platformPaymentChargeId }),
    });
    const answer = (await res.json()) as { ok: boolean; description?: string };
    if (answer.ok) return { outcome: gatewayApi.Outcome.DELIVERED };
    if (res.status === 400 && answer.description?.includes('CHARGE_ALREADY_REFUNDED'))
      return { outcome: gatewayApi.Outcome.DELIVERED, result: 'already_refunded' };
    return { outcome: gatewayApi.Outcome.FAILED, error: `platform ${res.status}: ${answer.description ?? ''}` };
  };
}

/** A webhook receiver playing the gateway's intake route: body -> NotificationService.Intake -> 200 / 5xx. */
export interface Webhook {
  url: string;
  dispositions: Array<{ disposition: string; detail: string }>;
  stop(): Promise<void>;
}

export async function startWebhook(intake: Client<typeof backendApi.NotificationService>): Promise<Webhook> {
  const dispositions: Webhook['dispositions'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      intakeBody(intake, Buffer.concat(chunks))
        .then((d) => {
          dispositions.push(d);
          res.writeHead(200).end();
        })
        .catch((err: unknown) => {
          res.writeHead(ConnectError.from(err).code === Code.Unavailable ? 503 : 400).end();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/yookassa`,
    dispositions,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Calls Intake with a raw notification body. */
export async function intakeBody(intake: Client<typeof backendApi.NotificationService>, body: Uint8Array | string, provider = 'yookassa') {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const res = await intake.intake({
    body: encodeTable((b) =>
      fb.ProviderNotification.createProviderNotification(b, b.createString(provider), fb.ProviderNotification.createBodyVector(b, bytes)),
    ),
  });
  return decodeTable(
    res.body,
    (bb) => fb.NotificationDisposition.getRootAsNotificationDisposition(bb),
    (t) => ({ disposition: t.disposition() ?? '', detail: t.detail() ?? '' }),
  );
}

/** An account with a telegram identity. */
export async function telegramAccount(
  db: Kysely<DB>,
  externalId: string,
  email?: { address: string; confirmed: boolean },
): Promise<bigint> {
  const id = await newAccount(db, email);
  await db.insertInto('platform_identities').values({ account_id: id, kind: 'telegram', external_id: externalId }).execute();
  return id;
}

/** An order as the client sees it. */
export function readOrder(t: InstanceType<typeof fb.OrderView>) {
  return {
    orderId: t.orderId() ?? '',
    productId: t.productId(),
    title: t.title(),
    rail: t.rail(),
    provider: t.provider(),
    state: t.state(),
    amount: t.amount(),
    currency: t.currency(),
    chips: t.chips(),
    expiresAt: t.expiresAtUnix(),
    paidAt: t.paidAtUnix(),
    invoiceLink: t.invoiceLink(),
    confirmationUrl: t.confirmationUrl(),
    failureReason: t.failureReason(),
    refunded: t.refunded(),
  };
}

export async function createOrder(
  client: Client<typeof backendApi.PaymentsService>,
  accountId: bigint,
  platform: string,
  productId: bigint,
  rail: string,
  locale = '',
) {
  const res = await client.createOrder(
    { body: encodeTable((b) => fb.OrderCreate.createOrderCreate(b, productId, b.createString(rail), b.createString(locale))) },
    as(accountId, platform),
  );
  return decodeTable(res.body, (bb) => fb.OrderView.getRootAsOrderView(bb), readOrder);
}

export async function listOrders(client: Client<typeof backendApi.PaymentsService>, accountId: bigint, platform: string) {
  const res = await client.listOrders({ body: encodeTable((b) => fb.OrderListQuery.createOrderListQuery(b, 0)) }, as(accountId, platform));
  return decodeTable(
    res.body,
    (bb) => fb.OrderList.getRootAsOrderList(bb),
    (t) =>
      Array.from({ length: t.ordersLength() }, (_, i) => {
        const o = t.orders(i);
        if (!o) throw new Error('missing order');
        return readOrder(o);
      }),
  );
}

export async function preCheckout(intake: Client<typeof backendApi.BotIntakeService>, orderId: string, amount: bigint, currency: string) {
  const res = await intake.validatePreCheckout({
    body: encodeTable((b) => fb.PreCheckoutQuery.createPreCheckoutQuery(b, b.createString(orderId), amount, b.createString(currency))),
  });
  return decodeTable(
    res.body,
    (bb) => fb.PreCheckoutVerdict.getRootAsPreCheckoutVerdict(bb),
    (t) => ({ ok: t.ok(), reason: t.reason() ?? '' }),
  );
}

export async function forward(
  intake: Client<typeof backendApi.BotIntakeService>,
  orderId: string,
  platformChargeId: string,
  amount: bigint,
  userId = 777n,
  recurring: { first: boolean; expiresUnix: bigint } | null = null,
) {
  const res = await intake.forwardPayment({
    body: encodeTable((b) =>
      fb.PlatformPayment.createPlatformPayment(
        b,
        b.createString(orderId),
        b.createString(platformChargeId),
        amount,
        userId,
        b.createString('telegram'),
        recurring !== null,
        recurring?.first ?? false,
        recurring?.expiresUnix ?? 0n,
      ),
    ),
  });
  return decodeTable(
    res.body,
    (bb) => fb.PlatformPaymentResult.getRootAsPlatformPaymentResult(bb),
    (t) => t.credited(),
  );
}

export async function refund(client: Client<typeof backendApi.RefundService>, orderId: string) {
  const res = await client.refundOrder({ body: encodeTable((b) => fb.OrderRefund.createOrderRefund(b, b.createString(orderId))) });
  return decodeTable(
    res.body,
    (bb) => fb.OrderRefundResult.getRootAsOrderRefundResult(bb),
    (t) => ({ status: t.status(), refundId: t.refundId(), amount: t.amount() }),
  );
}

/** Polls until `check` holds (for best-effort side effects such as a notify command). */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** ForwardRefund through the intake as the gateway relays it: whether the refund is recorded. */
export async function forwardRefund(
  intake: Client<typeof backendApi.BotIntakeService>,
  orderId: string,
  platformChargeId: string,
  amount: bigint,
  userId = 777n,
  currency = 'XTR',
) {
  const res = await intake.forwardRefund({
    body: encodeTable((b) =>
      fb.PlatformRefund.createPlatformRefund(
        b,
        b.createString('telegram'),
        b.createString(orderId),
        b.createString(platformChargeId),
        amount,
        userId,
        b.createString(currency),
      ),
    ),
  });
  return decodeTable(
    res.body,
    (bb) => fb.PlatformRefundResult.getRootAsPlatformRefundResult(bb),
    (t) => t.recorded(),
  );
}
