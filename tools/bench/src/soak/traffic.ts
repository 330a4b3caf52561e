import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createClient, type Client } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { connector, gatewayApi } from '@wordgame/contracts';
import { TEST_SERVICE_TOKENS } from '@wordgame/testkit';
import { BuyKeys, duplicatePairProblem } from './buy-keys.js';
import type { Customer, Customers } from './customers.js';
import { call, expectStatus, field, until } from './http.js';
import type { SoakStack } from './stack.js';
import type { Tally } from './tally.js';

/** The kinds of operation the soak counts. The paced ones have a rate; payments follow some of the orders. */
export const KINDS = [
  'wallet.get',
  'wallet.buy',
  'stars.order',
  'stars.payment',
  'card.order',
  'card.payment',
  'botlink.command',
  'health',
] as const;
export type Kind = (typeof KINDS)[number];
type PacedKind = Exclude<Kind, 'stars.payment' | 'card.payment'>;

/** Operations per second of each paced kind at SOAK_RATE=1. */
export const BASE_RATES: Readonly<Record<PacedKind, number>> = {
  'wallet.get': 25,
  'wallet.buy': 10,
  'stars.order': 3,
  'card.order': 2,
  'botlink.command': 8,
  health: 1,
};

/** An order the soak settled, and what must become of it: paid (credited exactly once) or failed (nothing credited). */
export interface Settled {
  orderId: string;
  expect: 'paid' | 'failed';
}

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)] as T;
const PAYMENT_TIMEOUT_MS = 45_000;

/**
 * The mixed load: each paced kind runs on its own fixed schedule (open loop: an operation starts
 * on time whether or not earlier ones finished, at most 20 s worth in flight per kind), every
 * operation checks its answer, and each is counted in the tally with its latency and any error.
 * Stars orders go to the bot as create_invoice and three in four are paid through the platform
 * emulator (pre-checkout, successful payment, the bot's outbox, ForwardPayment); card orders go to
 * the provider emulator and are settled through its control API, 60 % paid and 20 % canceled (its
 * notification reaches the gateway's intake), 20 % left pending for the reaper's re-checks.
 */
export class Traffic {
  /** Orders settled with a known expected end, for the final exactly-once check. */
  readonly settled: Settled[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly perKind = new Map<Kind, number>();
  private readonly commands: Client<typeof gatewayApi.BotCommandService>;
  private readonly buyKeys = new BuyKeys();
  private commandSeq = 0;

  constructor(
    private readonly stack: SoakStack,
    private readonly customers: Customers,
    private readonly products: { hints: string; pack: string },
    private readonly tally: Tally,
    private readonly rate: number,
  ) {
    this.commands = createClient(
      gatewayApi.BotCommandService,
      createConnectTransport({
        baseUrl: stack.internal,
        httpVersion: '2',
        interceptors: [
          (next) => (req) => (req.header.set('authorization', `Bearer ${TEST_SERVICE_TOKENS.GATEWAY_INTERNAL_TOKEN}`), next(req)),
        ],
      }),
    );
  }

  /** Runs every paced kind until `endAt` (performance.now() time), then waits for every operation still running. */
  async run(endAt: number): Promise<void> {
    await Promise.all((Object.keys(BASE_RATES) as PacedKind[]).map((kind) => this.pace(kind, BASE_RATES[kind] * this.rate, endAt)));
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async pace(kind: PacedKind, perSecond: number, endAt: number): Promise<void> {
    if (perSecond <= 0) return;
    const gap = 1000 / perSecond;
    let next = performance.now() + Math.random() * gap;
    while (next < endAt) {
      const wait = next - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      this.launch(kind, Math.ceil(perSecond * 20), () => this.operation(kind));
      next += gap;
    }
  }

  /** Starts one counted operation, unless `cap` of its kind are already in flight (then it counts as an error). */
  private launch(kind: Kind, cap: number, op: () => Promise<void>): void {
    const running = this.perKind.get(kind) ?? 0;
    if (running >= cap) {
      this.tally.record(kind, 0, `overloaded: ${running} in flight`);
      return;
    }
    this.perKind.set(kind, running + 1);
    const t0 = performance.now();
    const done = op().then(
      () => this.tally.record(kind, performance.now() - t0),
      (err: unknown) => this.tally.record(kind, performance.now() - t0, err instanceof Error ? err.message : String(err)),
    );
    const tracked = done.finally(() => {
      this.perKind.set(kind, (this.perKind.get(kind) ?? 1) - 1);
      this.inFlight.delete(tracked);
    });
    this.inFlight.add(tracked);
  }

  private operation(kind: PacedKind): Promise<void> {
    switch (kind) {
      case 'wallet.get':
        return this.walletGet();
      case 'wallet.buy':
        return this.walletBuy();
      case 'stars.order':
        return this.starsOrder();
      case 'card.order':
        return this.cardOrder();
      case 'botlink.command':
        return this.command();
      case 'health':
        return this.health();
    }
  }

  private async walletGet(): Promise<void> {
    const who = pick([...this.customers.direct, ...this.customers.telegram]);
    const res = await call(`${this.stack.gateway}/api/v1/user/wallet`, { token: who.token });
    expectStatus(res, 200, 'wallet.get');
  }

  /**
   * A buy of the chips-priced product. One in ten repeats the customer's last key whose first request
   * was answered 200 and must come back replayed; one in twenty sends a fresh key twice at once, and
   * exactly one of the two must spend (see buy-keys.ts for why a key still in flight, or one whose
   * request failed, is never expected to come back replayed).
   */
  private async walletBuy(): Promise<void> {
    const who = pick(this.customers.direct);
    const plan = this.buyKeys.plan(who.accountId, Math.random(), randomUUID);
    const send = () =>
      call(`${this.stack.gateway}/api/v1/user/wallet`, {
        token: who.token,
        json: { product_id: this.products.hints },
        headers: { 'idempotency-key': plan.key },
      });
    if (plan.mode === 'twice') {
      const answers = await Promise.all([send(), send()]);
      for (const res of answers) expectStatus(res, 200, 'wallet.buy');
      this.buyKeys.answered(who.accountId, plan.key);
      const problem = duplicatePairProblem([answers[0].body, answers[1].body]);
      if (problem !== undefined) throw new Error(`wallet.buy: ${problem}`);
      return;
    }
    const res = await send();
    expectStatus(res, 200, 'wallet.buy');
    this.buyKeys.answered(who.accountId, plan.key);
    if (plan.mode === 'repeat' && field(res.body, 'replayed') !== true)
      throw new Error('wallet.buy: a repeated Idempotency-Key was not answered as replayed');
  }

  private async newOrder(who: Customer, rail: 'stars' | 'card'): Promise<Record<string, unknown>> {
    const res = await call(`${this.stack.gateway}/api/v1/user/wallet/orders`, {
      token: who.token,
      json: { product_id: this.products.pack, rail },
    });
    expectStatus(res, 201, `${rail} order`);
    return res.body as Record<string, unknown>;
  }

  /** Resolves once the customer's order shows `state`. */
  private orderReaches(who: Customer, orderId: string, state: string): Promise<true> {
    return until(
      async () => {
        const res = await call(`${this.stack.gateway}/api/v1/user/wallet/orders/${orderId}`, { token: who.token });
        expectStatus(res, 200, 'wallet.order_get');
        return field(res.body, 'state') === state ? true : undefined;
      },
      `order ${orderId} to be ${state}`,
      PAYMENT_TIMEOUT_MS,
      250,
    );
  }

  private async starsOrder(): Promise<void> {
    const who = pick(this.customers.telegram);
    const order = await this.newOrder(who, 'stars');
    const link = order['invoice_link'];
    if (typeof link !== 'string' || link === '')
      throw new Error('stars order: no invoice_link (create_invoice did not come back from the bot)');
    if (Math.random() < 0.75)
      this.launch('stars.payment', Number.POSITIVE_INFINITY, () => this.payStars(who, String(order['order_id']), link));
  }

  /** The payer pays through the platform emulator; the bot must approve the pre-checkout and the order must end paid. */
  private async payStars(who: Customer, orderId: string, link: string): Promise<void> {
    const paid = await call(`${this.stack.platform}/_control/pay`, { json: { link, userId: who.platformUserId } });
    expectStatus(paid, 200, 'platform pay');
    const queryId = String(field(paid.body, 'preCheckoutQueryId'));
    const checkout = await until(
      async () => {
        const res = await call(`${this.stack.platform}/_control/precheckouts/${queryId}`);
        expectStatus(res, 200, 'pre-checkout');
        return field(res.body, 'status') === 'pending' ? undefined : (res.body as Record<string, unknown>);
      },
      'the bot to answer the pre-checkout',
      15_000,
      100,
    );
    if (checkout['status'] !== 'approved')
      throw new Error(`pre-checkout ${JSON.stringify(checkout['status'])}: ${JSON.stringify(checkout['errorMessage'] ?? '')}`);
    this.settled.push({ orderId, expect: 'paid' });
    await this.orderReaches(who, orderId, 'paid');
  }

  private async cardOrder(): Promise<void> {
    const who = pick(this.customers.direct);
    const order = await this.newOrder(who, 'card');
    const url = order['confirmation_url'];
    const paymentId = typeof url === 'string' ? new URL(url).searchParams.get('orderId') : null;
    if (!paymentId) throw new Error('card order: no confirmation_url with the provider payment id');
    const orderId = String(order['order_id']);
    const roll = Math.random();
    if (roll < 0.6) this.launch('card.payment', Number.POSITIVE_INFINITY, () => this.settleCard(who, orderId, paymentId, 'succeed'));
    else if (roll < 0.8) this.launch('card.payment', Number.POSITIVE_INFINITY, () => this.settleCard(who, orderId, paymentId, 'cancel'));
  }

  /** The provider settles the payment (its notification goes to the gateway's intake, which must answer 200); the order must follow. */
  private async settleCard(who: Customer, orderId: string, paymentId: string, how: 'succeed' | 'cancel'): Promise<void> {
    const body = how === 'succeed' ? {} : { party: 'payment_network', reason: 'insufficient_funds' };
    const res = await call(`${this.stack.provider}/_control/payments/${paymentId}/${how}`, { json: body });
    expectStatus(res, 200, `provider ${how}`);
    const attempts = field(field(res.body, 'notification'), 'attempts');
    const statuses = Array.isArray(attempts) ? attempts.map((a) => field(a, 'status')) : [];
    if (!statuses.includes(200)) throw new Error(`the intake answered the ${how} notification with ${JSON.stringify(statuses)}`);
    this.settled.push({ orderId, expect: how === 'succeed' ? 'paid' : 'failed' });
    await this.orderReaches(who, orderId, how === 'succeed' ? 'paid' : 'failed');
  }

  /** One bot-link command through the gateway's internal BotCommandService, in turn notify, send_to_user and chat_gate; each must be delivered. */
  private async command(): Promise<void> {
    const who = pick(this.customers.telegram);
    const externalId = String(who.platformUserId);
    const recipient = { kind: connector.PlatformKind.TELEGRAM, externalId };
    const n = this.commandSeq++;
    const payloads = [
      {
        case: 'notify' as const,
        value: {
          recipient,
          kind: connector.NotificationKind.PAYMENT_CREDITED,
          params: { order_id: randomUUID(), product_title: 'Handful of chips', chips: '100' },
        },
      },
      { case: 'sendToUser' as const, value: { recipient, text: `soak message ${n}` } },
      { case: 'chatGate' as const, value: { externalId, allow: n % 2 === 0 } },
    ];
    const payload = payloads[n % payloads.length] as (typeof payloads)[number];
    const res = await this.commands.send({ command: { payload }, timeoutMs: 10_000 }, { timeoutMs: 12_000 });
    if (res.outcome !== gatewayApi.Outcome.DELIVERED)
      throw new Error(`${payload.case}: ${gatewayApi.Outcome[res.outcome] ?? res.outcome} ${res.error}`);
  }

  /** The bot is linked and its Health reports keep the platform liveness fresh; every service answers its health check. */
  private async health(): Promise<void> {
    const metrics = await call(this.stack.metrics);
    expectStatus(metrics, 200, 'metrics');
    const text = String(metrics.body);
    const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
    if (!(gauge('botlink_connected_bots') >= 1)) throw new Error('no bot connected');
    const age = Date.now() / 1000 - gauge('bot_platform_last_ok_unix');
    if (!(age <= 15)) throw new Error(`bot_platform_last_ok_unix is ${age.toFixed(0)} s old: Health reports are not arriving`);
    const bot = await call(`${this.stack.botHealth}/health`);
    expectStatus(bot, 200, 'bot health');
    if (field(bot.body, 'linkConnected') !== true) throw new Error('the bot reports its Link down');
    expectStatus(await call(`${this.stack.backend}/health`), 200, 'backend health');
  }
}
