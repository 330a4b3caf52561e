import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Code, ConnectError } from '@connectrpc/connect';
import type { botlink } from '@wordgame/contracts';
import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import Database from 'better-sqlite3';
import { PaymentOutbox } from '../src/payments/outbox.store.js';
import { PAYMENT_HELD_REASON, UNAVAILABLE_REASON } from '../src/payments/pre-checkout.js';
import { openBotDb } from '../src/store/db.js';
import { command, startBot, type RunningBot } from './support/bot.js';
import { POLICY_LINKS, tempCerts, testConfig } from './support/fixture.js';
import { TestGateway } from './support/gateway.js';
import { waitFor } from './support/wait.js';

const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const certs = tempCerts();
let emu: PlatformEmulator;
let gateway: TestGateway;
const bots: RunningBot[] = [];
let validations: botlink.PreCheckoutRequest[];
let forwarded: botlink.ForwardPaymentRequest[];

beforeAll(async () => {
  emu = await startPlatformEmulator();
  gateway = await TestGateway.start(certs);
});

afterAll(async () => {
  await gateway.close();
  await emu.stop();
  certs.cleanup();
});

beforeEach(() => {
  emu.control.reset();
  validations = [];
  forwarded = [];
  gateway.handlers = {
    validatePreCheckout: (req) => {
      validations.push(req);
      return Promise.resolve({ ok: true, reason: '' });
    },
    forwardPayment: (req) => {
      forwarded.push(req);
      return Promise.resolve({ credited: true });
    },
  };
});

afterEach(async () => {
  for (const bot of bots.splice(0)) await bot.app.stop();
});

async function bot(overrides: Record<string, string> = {}): Promise<RunningBot> {
  const running = await startBot(
    testConfig(certs, { botlink: gateway.url, platform: emu.apiRoot }, { BOT_PRECHECKOUT_TIMEOUT_MS: '300', ...overrides }),
    gateway,
  );
  bots.push(running);
  return running;
}

/** Mints an invoice through the bot and has a new user pay it; returns the pre-checkout query id. */
async function pay(running: RunningBot, orderId: string, amount: bigint): Promise<{ queryId: string; userId: number; link: string }> {
  const ack = await command(running.session, {
    case: 'createInvoice',
    value: { title: 'Chips', description: '500 chips', payload: orderId, amount },
  });
  expect(ack.delivered).toBe(true);
  const userId = emu.control.createUser({ started: true }).user.id;
  return { queryId: emu.control.pay({ link: ack.result, userId }).preCheckoutQueryId, userId, link: ack.result };
}

/** Another user taps the reusable invoice `link`; resolves with the answered pre-checkout. */
async function payAgain(link: string) {
  const userId = emu.control.createUser({ started: true }).user.id;
  const { preCheckoutQueryId } = emu.control.pay({ link, userId });
  await waitFor(() => outcome(preCheckoutQueryId)?.status !== 'pending', 'the repeat pre-checkout answered');
  return outcome(preCheckoutQueryId);
}

const outcome = (queryId: string) => emu.control.preCheckout(queryId);
const outboxRows = (path: string) => {
  const outbox = PaymentOutbox.open(path);
  try {
    return outbox.pending();
  } finally {
    outbox.close();
  }
};

describe('stars payments through the bot', () => {
  it('approves a validated pre-checkout, stores the payment and forwards it once, then forgets it', async () => {
    const outboxPath = join(certs.dir, 'happy.sqlite');
    const running = await bot({ BOT_OUTBOX_PATH: outboxPath });
    const { queryId, userId } = await pay(running, 'order-happy', 250n);
    await waitFor(() => forwarded.length === 1, 'ForwardPayment');
    expect(validations).toHaveLength(1);
    expect(validations[0]).toMatchObject({ orderId: 'order-happy', amount: 250n, currency: 'XTR' });
    const view = outcome(queryId);
    expect(view).toMatchObject({ status: 'approved' });
    expect(forwarded[0]).toMatchObject({
      orderId: 'order-happy',
      amount: 250n,
      platformUserId: BigInt(userId),
      platformPaymentChargeId: view?.payment?.telegramPaymentChargeId,
    });
    await waitFor(() => outboxRows(outboxPath).length === 0, 'row deleted');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(forwarded).toHaveLength(1);
  });

  it('declines with the backend reason when ValidatePreCheckout says no', async () => {
    gateway.handlers.validatePreCheckout = () => Promise.resolve({ ok: false, reason: 'This order is already paid.' });
    const running = await bot();
    const { queryId } = await pay(running, 'order-paid', 10n);
    await waitFor(() => outcome(queryId)?.status !== 'pending', 'answered');
    expect(outcome(queryId)).toMatchObject({ status: 'rejected', errorMessage: 'This order is already paid.' });
    expect(outcome(queryId)?.payment).toBeUndefined();
  });

  it.each([
    ['an error status from the gateway', () => Promise.reject(new ConnectError('backend down', Code.Unavailable))],
    ['no answer within the deadline', () => new Promise<never>(() => undefined)],
  ])('declines (fail-closed) on %s', async (_what, handler) => {
    gateway.handlers.validatePreCheckout = handler;
    const running = await bot();
    const { queryId } = await pay(running, 'order-x', 10n);
    await waitFor(() => outcome(queryId)?.status !== 'pending', 'answered');
    expect(outcome(queryId)).toMatchObject({ status: 'rejected', errorMessage: UNAVAILABLE_REASON });
    expect(forwarded).toHaveLength(0);
  });

  it('declines (fail-closed) when the gateway cannot be reached at all', async () => {
    const running = await bot();
    const ack = await command(running.session, {
      case: 'createInvoice',
      value: { title: 'Chips', description: 'd', payload: 'order-down', amount: 5n },
    });
    const port = gateway.port;
    await gateway.close();
    try {
      const userId = emu.control.createUser().user.id;
      const { preCheckoutQueryId } = emu.control.pay({ link: ack.result, userId });
      await waitFor(() => outcome(preCheckoutQueryId)?.status !== 'pending', 'answered');
      expect(outcome(preCheckoutQueryId)).toMatchObject({ status: 'rejected', errorMessage: UNAVAILABLE_REASON });
    } finally {
      gateway = await TestGateway.start(certs, port);
    }
  });

  it('retries ForwardPayment with backoff until a response arrives; credited=false still forgets the row', async () => {
    let failures = 0;
    gateway.handlers.forwardPayment = (req) => {
      forwarded.push(req);
      if (++failures <= 3) return Promise.reject(new ConnectError('backend unreachable', Code.Unavailable));
      return Promise.resolve({ credited: false });
    };
    const outboxPath = join(certs.dir, 'retry.sqlite');
    const running = await bot({ BOT_OUTBOX_PATH: outboxPath });
    await pay(running, 'order-retry', 7n);
    await waitFor(() => forwarded.length === 4, 'four attempts');
    await waitFor(() => outboxRows(outboxPath).length === 0, 'row deleted after the response');
    expect(new Set(forwarded.map((f) => f.platformPaymentChargeId)).size).toBe(1);
    expect(running.lines.filter((l) => l.msg === 'ForwardPayment got no response; this row retries after its backoff')).toHaveLength(3);
    expect(running.lines.some((l) => l.msg.startsWith('payment forwarded; it matched no creditable order'))).toBe(true);
  });

  it('forwards several stored payments at once (BOT_OUTBOX_CONCURRENCY), each once', async () => {
    // Every ForwardPayment is held until four are in flight together: one call at a time never gets there.
    let inFlight = 0;
    let most = 0;
    const release: (() => void)[] = [];
    gateway.handlers.forwardPayment = (req) => {
      forwarded.push(req);
      inFlight += 1;
      most = Math.max(most, inFlight);
      const answer = new Promise<{ credited: boolean }>((resolve) =>
        release.push(() => {
          inFlight -= 1;
          resolve({ credited: true });
        }),
      );
      if (inFlight >= 4) for (const go of release.splice(0)) go();
      return answer;
    };
    const outboxPath = join(certs.dir, 'concurrent.sqlite');
    const running = await bot({ BOT_OUTBOX_PATH: outboxPath, BOT_OUTBOX_CONCURRENCY: '4' });
    // Payments arrive while the first calls are held, so the outbox holds several due rows at once.
    for (let i = 0; i < 8; i += 1) {
      const { queryId } = await pay(running, `order-c${i}`, 5n);
      await waitFor(() => outcome(queryId)?.status === 'approved', 'approved');
    }
    await waitFor(() => forwarded.length >= 8 && outboxRows(outboxPath).length === 0, 'all eight forwarded and forgotten');
    expect(most).toBe(4);
    expect(new Set(forwarded.map((f) => f.platformPaymentChargeId)).size).toBe(8);
    expect(forwarded).toHaveLength(8);
  });

  it('stores a successful payment delivered twice as one row and forwards it once', async () => {
    gateway.handlers.forwardPayment = () => Promise.reject(new ConnectError('hold', Code.Unavailable));
    const outboxPath = join(certs.dir, 'dup.sqlite');
    await bot({ BOT_OUTBOX_PATH: outboxPath, BOT_OUTBOX_RETRY_INITIAL_MS: '60000', BOT_OUTBOX_RETRY_MAX_MS: '60000' });
    const user = emu.control.createUser({ started: true }).user;
    const message = {
      message_id: 9,
      date: Math.floor(Date.now() / 1000),
      from: user,
      chat: { id: user.id, type: 'private', first_name: user.first_name },
      successful_payment: {
        currency: 'XTR',
        total_amount: 42,
        invoice_payload: 'order-dup',
        telegram_payment_charge_id: 'stx-dup',
        provider_payment_charge_id: '',
      },
    };
    emu.control.injectUpdate({ message });
    emu.control.injectUpdate({ message });
    await waitFor(() => emu.control.state().bots[0]?.pendingUpdates.length === 0, 'both updates confirmed');
    await waitFor(() => outboxRows(outboxPath)[0]?.attempts === 1, 'the first forwarding attempt failed');
    expect(outboxRows(outboxPath)).toEqual([
      {
        platformChargeId: 'stx-dup',
        orderId: 'order-dup',
        amount: 42n,
        platformUserId: BigInt(user.id),
        attempts: 1,
        nextAttemptAt: expect.any(Number) as number,
      },
    ]);
  });

  it('forwards a payment after the bot was killed with SIGKILL between storing it and forwarding it', async () => {
    gateway.handlers.forwardPayment = (req) => {
      forwarded.push(req);
      return Promise.reject(new ConnectError('backend unreachable', Code.Unavailable));
    };
    const outboxPath = join(certs.dir, 'killed.sqlite');
    const before = gateway.sessions.length;
    const child = spawn(process.execPath, ['--import', 'tsx', main], {
      env: {
        ...process.env,
        BOTLINK_URL: gateway.url,
        BOTLINK_TLS_CA: certs.ca.cert,
        BOTLINK_TLS_CERT: certs.bot.cert,
        BOTLINK_TLS_KEY: certs.bot.key,
        PLATFORM_API_ROOT: emu.apiRoot,
        PLATFORM_BOT_TOKEN: 'dev-bot-token',
        ...POLICY_LINKS,
        BOT_OUTBOX_PATH: outboxPath,
        BOT_OUTBOX_RETRY_INITIAL_MS: '100000',
        BOT_OUTBOX_RETRY_MAX_MS: '100000',
        BOT_POLL_TIMEOUT_S: '1',
        LOG_LEVEL: 'silent',
      },
      stdio: 'ignore',
    });
    try {
      const session = await gateway.session(before + 1, 20_000);
      const { queryId } = await pay({ app: undefined as never, session, lines: [] }, 'order-killed', 99n);
      await waitFor(() => outcome(queryId)?.status === 'approved', 'approved', 15_000);
      await waitFor(() => forwarded.length === 1, 'first (failed) forward', 15_000);
      await waitFor(() => emu.control.state().bots[0]?.pendingUpdates.length === 0, 'payment update confirmed', 15_000);
      expect(outboxRows(outboxPath)).toHaveLength(1);
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    const platformChargeId = forwarded[0]?.platformPaymentChargeId;
    forwarded = [];
    gateway.handlers.forwardPayment = (req) => {
      forwarded.push(req);
      return Promise.resolve({ credited: true });
    };
    await bot({ BOT_OUTBOX_PATH: outboxPath });
    await waitFor(() => forwarded.length === 1, 'forwarded after the restart');
    await waitFor(() => outboxRows(outboxPath).length === 0, 'row deleted');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(forwarded.map((f) => [f.orderId, f.platformPaymentChargeId, f.amount])).toEqual([['order-killed', platformChargeId, 99n]]);
  });

  it('declines a repeat pre-checkout for an order whose payment waits in the outbox, asking no one; once answered, the backend decides again', async () => {
    let backendUp = false;
    gateway.handlers.forwardPayment = (req) => {
      forwarded.push(req);
      return backendUp ? Promise.resolve({ credited: true }) : Promise.reject(new ConnectError('backend unreachable', Code.Unavailable));
    };
    const outboxPath = join(certs.dir, 'held.sqlite');
    const running = await bot({ BOT_OUTBOX_PATH: outboxPath, BOT_OUTBOX_RETRY_INITIAL_MS: '300', BOT_OUTBOX_RETRY_MAX_MS: '300' });
    const { queryId, link } = await pay(running, 'order-held', 30n);
    await waitFor(() => outcome(queryId)?.status === 'approved', 'the first pre-checkout approved');
    await waitFor(() => forwarded.length >= 1, 'the first (failed) forward');
    expect(validations).toHaveLength(1);

    // The backend would approve again (its hold lapsed); the bot holds the payment and declines first.
    const again = await payAgain(link);
    expect(again).toMatchObject({ status: 'rejected', errorMessage: PAYMENT_HELD_REASON });
    expect(again?.payment).toBeUndefined();
    expect(validations).toHaveLength(1);
    expect(outboxRows(outboxPath).map((r) => r.orderId)).toEqual(['order-held']);
    expect(running.lines.some((l) => l.msg === 'pre-checkout declined: a payment for this order waits in the outbox')).toBe(true);

    // A ForwardPaymentResponse releases the order: the next tap is the backend's to decide.
    backendUp = true;
    await waitFor(() => outboxRows(outboxPath).length === 0, 'the row forwarded and forgotten');
    gateway.handlers.validatePreCheckout = (req) => {
      validations.push(req);
      return Promise.resolve({ ok: false, reason: 'This order is already paid.' });
    };
    expect(await payAgain(link)).toMatchObject({ status: 'rejected', errorMessage: 'This order is already paid.' });
    expect(validations).toHaveLength(2);
    expect(emu.control.state().payments.filter((p) => p.link === link)).toHaveLength(1);
  });

  it('declines a pre-checkout for an order whose payment was parked as a dead letter, asking no one', async () => {
    const outboxPath = join(certs.dir, 'parked.sqlite');
    const running = await bot({ BOT_OUTBOX_PATH: outboxPath });
    const ack = await command(running.session, {
      case: 'createInvoice',
      value: { title: 'Chips', description: '500 chips', payload: 'order-parked', amount: 30n },
    });
    // A successful_payment the bot cannot store (no charge id) is parked; the money was taken all the same.
    const user = emu.control.createUser({ started: true }).user;
    emu.control.injectUpdate({
      message: {
        message_id: 1,
        date: 1,
        from: user,
        chat: { id: user.id, type: 'private' },
        successful_payment: { currency: 'XTR', total_amount: 30, invoice_payload: 'order-parked', provider_payment_charge_id: '' },
      },
    });
    await waitFor(() => emu.control.state().bots[0]?.pendingUpdates.length === 0, 'the malformed payment parked');
    expect(await payAgain(ack.result)).toMatchObject({ status: 'rejected', errorMessage: PAYMENT_HELD_REASON });
    expect(validations).toHaveLength(0);
  });

  it('keeps holding orders for outbox rows written by an older bot (its file migrated on open)', () => {
    const path = join(certs.dir, 'older.sqlite');
    const old = new Database(path);
    old.exec(`CREATE TABLE payment_outbox (charge_id TEXT PRIMARY KEY, order_id TEXT NOT NULL, amount INTEGER NOT NULL,
      platform_user_id INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL) STRICT`);
    old.prepare('INSERT INTO payment_outbox VALUES (?, ?, ?, ?, ?, ?)').run('stx-older', 'order-older', 7, 42, 3, 1);
    old.close();
    const db = openBotDb(path);
    try {
      const outbox = new PaymentOutbox(db);
      expect([outbox.holdsPaymentFor('order-older'), outbox.holdsPaymentFor('order-other')]).toEqual([true, false]);
      const plan = db.prepare('EXPLAIN QUERY PLAN SELECT 1 FROM payment_outbox WHERE order_id = ? LIMIT 1').all('order-older') as {
        detail: string;
      }[];
      expect(plan.map((p) => p.detail).join(' ')).toContain('payment_outbox_order');
      outbox.remove('stx-older');
      expect(outbox.holdsPaymentFor('order-older')).toBe(false);
    } finally {
      db.close();
    }
  });
});
