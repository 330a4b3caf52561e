import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Code, ConnectError } from '@connectrpc/connect';
import type { botlink } from '@wordgame/contracts';
import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import Database from 'better-sqlite3';
import { PaymentOutbox } from '../src/payments/outbox.store.js';
import { BOT_DB_FILE_MODE, openBotDb } from '../src/store/db.js';
import { DeadLetters } from '../src/store/dead-letters.js';
import { command, repoRoot, startBot, type RunningBot } from './support/bot.js';
import { tempCerts, testConfig } from './support/fixture.js';
import { TestGateway } from './support/gateway.js';
import { ERROR } from './support/logs.js';
import { waitFor } from './support/wait.js';

/**
 * A refund made outside the bot (issue #37 part 3), against the platform emulator: its
 * refunded_payment is read, made durable in the outbox's refund kind, forwarded with ForwardRefund
 * until answered, and the payer is told in their language once the backend recorded it.
 */
const certs = tempCerts();
let emu: PlatformEmulator;
let gateway: TestGateway;
const bots: RunningBot[] = [];
let refunds: botlink.ForwardRefundRequest[];
let seq = 0;

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
  refunds = [];
  gateway.handlers = {
    validatePreCheckout: () => Promise.resolve({ ok: true, reason: '' }),
    forwardPayment: () => Promise.resolve({ credited: true }),
    forwardRefund: (req) => {
      refunds.push(req);
      return Promise.resolve({ recorded: true });
    },
  };
});
afterEach(async () => {
  for (const bot of bots.splice(0)) await bot.app.stop();
});

async function bot(path: string): Promise<RunningBot> {
  const running = await startBot(
    testConfig(certs, { botlink: gateway.url, platform: emu.apiRoot }, { BOT_OUTBOX_PATH: path, BOT_HEALTH_INTERVAL_MS: '100' }),
    gateway,
  );
  bots.push(running);
  return running;
}

const newPath = () => join(certs.dir, `refunded-${++seq}.sqlite`);

function read<T>(path: string, fn: (db: Database.Database) => T): T {
  const db = new Database(path, { readonly: true });
  db.defaultSafeIntegers(true);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}
const refundRows = (path: string) => read(path, (db) => new PaymentOutbox(db, 'refund').pending());
const paymentRows = (path: string) => read(path, (db) => new PaymentOutbox(db).pending());

/** A stars payment made through the bot by a user speaking `language`; its charge id and payer. */
async function paid(running: RunningBot, orderId: string, amount: bigint, language = 'en') {
  const invoice = await command(running.session, {
    case: 'createInvoice',
    value: { title: 'Chips', description: '500 chips', payload: orderId, amount },
  });
  const userId = emu.control.createUser({ started: true, languageCode: language }).user.id;
  const { preCheckoutQueryId } = emu.control.pay({ link: invoice.result, userId });
  let charge: string | undefined;
  await waitFor(() => (charge = emu.control.preCheckout(preCheckoutQueryId)?.payment?.telegramPaymentChargeId) !== undefined, 'paid');
  return { charge: charge ?? '', userId };
}

const toldInChat = (userId: number) => emu.control.messages({ chatId: userId, direction: 'from_bot' }).map((m) => m.message.text);

describe('refunded_payment: a refund made outside the bot', () => {
  it('forwards the refund once with its charge, amount, currency and payer, and tells the payer in their language', async () => {
    const path = newPath();
    const running = await bot(path);
    const { charge, userId } = await paid(running, 'order-ru', 70n, 'ru');
    emu.control.supportRefund(charge);
    await waitFor(() => refunds.length === 1, 'ForwardRefund');
    expect(refunds[0]).toMatchObject({
      orderId: 'order-ru',
      platformPaymentChargeId: charge,
      amount: 70n,
      platformUserId: BigInt(userId),
      currency: 'XTR',
    });
    await waitFor(() => toldInChat(userId).length === 1, 'the payer told');
    expect(toldInChat(userId)).toEqual(['Покупка (заказ order-ru) возвращена.']);
    await waitFor(() => refundRows(path).length === 0, 'the refund row gone once answered');
    await waitFor(() => emu.control.state().bots[0]?.pendingUpdates.length === 0, 'every update confirmed');
    expect(refunds).toHaveLength(1);
    expect(statSync(path).mode & 0o777).toBe(BOT_DB_FILE_MODE);

    // Telegram delivers the same refunded_payment again: forwarded again (the backend changes nothing), told no more.
    const again = emu.control.messages({ chatId: userId, direction: 'to_bot' }).find((m) => m.message.refunded_payment !== undefined);
    emu.control.injectUpdate({ message: again?.message });
    await waitFor(() => refunds.length === 2 && refundRows(path).length === 0, 'the second delivery forwarded and answered');
    await waitFor(() => running.lines.filter((l) => l.msg === 'refund forwarded and recorded').length === 2, 'answered twice');
    expect(toldInChat(userId)).toEqual(['Покупка (заказ order-ru) возвращена.']);
  });

  it('keeps the refund durable and retries it while the gateway cannot answer, then tells the payer once', async () => {
    const path = newPath();
    let failures = 0;
    gateway.handlers.forwardRefund = (req) => {
      refunds.push(req);
      if (refunds.length <= 3) {
        failures += 1;
        return Promise.reject(new ConnectError('backend down', Code.Unavailable));
      }
      return Promise.resolve({ recorded: true });
    };
    const running = await bot(path);
    const { charge, userId } = await paid(running, 'order-retry', 20n);
    emu.control.supportRefund(charge);
    await waitFor(() => failures === 3 && refunds.length === 4, 'three failed attempts, then an answer');
    expect(new Set(refunds.map((r) => r.platformPaymentChargeId))).toEqual(new Set([charge]));
    await waitFor(() => toldInChat(userId).length === 1, 'told once');
    await waitFor(() => refundRows(path).length === 0, 'row gone');
    expect(toldInChat(userId)).toEqual(['Your purchase (order order-retry) was refunded.']);
    expect(running.lines.filter((l) => l.msg === 'ForwardRefund got no response; this row retries after its backoff')).toHaveLength(3);
  });

  it('says nothing to the payer when the backend recorded it only for an operator (recorded=false)', async () => {
    const path = newPath();
    gateway.handlers.forwardRefund = (req) => {
      refunds.push(req);
      return Promise.resolve({ recorded: false });
    };
    const running = await bot(path);
    const { charge, userId } = await paid(running, 'order-unknown', 5n);
    emu.control.supportRefund(charge);
    await waitFor(() => refunds.length === 1 && refundRows(path).length === 0, 'forwarded and answered');
    await waitFor(
      () => running.lines.some((l) => l.msg === 'refund forwarded; it matched no order of ours (an operator follows up)'),
      'logged',
    );
    expect(toldInChat(userId)).toEqual([]);
  });

  it('a refund delivered while its payment still waits in the outbox is its own row: neither hides nor removes the other', async () => {
    const path = newPath();
    const down = () => Promise.reject(new ConnectError('backend down', Code.Unavailable));
    const payments: botlink.ForwardPaymentRequest[] = [];
    gateway.handlers.forwardPayment = down;
    gateway.handlers.forwardRefund = down;
    const running = await bot(path);
    const { charge } = await paid(running, 'order-both', 9n);
    await waitFor(() => paymentRows(path).length === 1, 'payment waiting');
    emu.control.supportRefund(charge);
    await waitFor(() => refundRows(path).length === 1, 'refund waiting beside it');
    gateway.handlers.forwardPayment = (req) => {
      payments.push(req);
      return Promise.resolve({ credited: true });
    };
    await waitFor(() => payments.length > 0 && paymentRows(path).length === 0, 'payment forwarded');
    expect(refundRows(path).map((r) => r.platformChargeId)).toEqual([charge]);
    gateway.handlers.forwardRefund = (req) => {
      refunds.push(req);
      return Promise.resolve({ recorded: true });
    };
    await waitFor(() => refunds.length === 1 && refundRows(path).length === 0, 'refund forwarded after its payment');
    expect(refunds[0]).toMatchObject({ platformPaymentChargeId: charge, amount: 9n });
  });

  it('parks a malformed refunded_payment as a dead letter, counted, and stores the well-formed one behind it', async () => {
    const path = newPath();
    const running = await bot(path);
    const user = emu.control.createUser().user.id;
    const message = (refunded: Record<string, unknown>) => ({
      message_id: 1,
      date: 1,
      from: { id: user, is_bot: false, first_name: 'Payer' },
      chat: { id: user, type: 'private' },
      refunded_payment: refunded,
    });
    const good = { currency: 'XTR', total_amount: 5, invoice_payload: 'order-ok', telegram_payment_charge_id: 'stx-ok' };
    emu.control.injectUpdate({ message: message({ ...good, currency: 'USD', telegram_payment_charge_id: 'stx-usd' }) });
    emu.control.injectUpdate({ message: message({ ...good, total_amount: -5 }) });
    emu.control.injectUpdate({ message: message({ ...good, telegram_payment_charge_id: 'x'.repeat(300) }) });
    emu.control.injectUpdate({ message: message(good) });
    await waitFor(() => refunds.length === 1, 'the well-formed refund forwarded');
    expect(refunds[0]).toMatchObject({ platformPaymentChargeId: 'stx-ok', amount: 5n, orderId: 'order-ok' });
    await waitFor(() => emu.control.state().bots[0]?.pendingUpdates.length === 0, 'every update confirmed');
    const letters = read(path, (db) => new DeadLetters(db).list());
    expect(letters.map((l) => l.reason)).toEqual([
      expect.stringMatching(/^malformed update: message\.refunded_payment\.currency/),
      expect.stringMatching(/^malformed update: message\.refunded_payment\.total_amount/),
      expect.stringMatching(/^malformed update: message\.refunded_payment\.telegram_payment_charge_id/),
    ]);
    expect(running.lines.filter((l) => l.level === ERROR && l.msg.startsWith('malformed refunded_payment parked'))).toHaveLength(3);
    await waitFor(() => running.session.healths().reduce((sum, h) => sum + h.deadLetters, 0n) === 3n, 'Health counts them');
  });

  it('migrates an outbox file of an earlier release in place: its waiting payment stays, the refund kind is added, mode 0600', () => {
    const path = newPath();
    const old = new Database(path);
    old.exec(`CREATE TABLE payment_outbox (
      charge_id TEXT PRIMARY KEY, order_id TEXT NOT NULL, amount INTEGER NOT NULL, platform_user_id INTEGER NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL
    ) STRICT`);
    old
      .prepare('INSERT INTO payment_outbox (charge_id, order_id, amount, platform_user_id, created_at) VALUES (?, ?, ?, ?, ?)')
      .run('stx-old', 'o', 3, 7, 1);
    old.close();
    const db = openBotDb(path);
    try {
      expect(new PaymentOutbox(db).pending().map((r) => r.platformChargeId)).toEqual(['stx-old']);
      const refunds = new PaymentOutbox(db, 'refund');
      expect(refunds.add({ platformChargeId: 'stx-old', orderId: 'o', amount: 3n, platformUserId: 7n })).toBe(true);
      expect(refunds.add({ platformChargeId: 'stx-old', orderId: 'o', amount: 3n, platformUserId: 7n })).toBe(false);
      expect(refunds.pending().map((r) => r.platformChargeId)).toEqual(['stx-old']);
      expect(new PaymentOutbox(db).pending()).toHaveLength(1);
    } finally {
      db.close();
    }
    expect(statSync(path).mode & 0o777).toBe(BOT_DB_FILE_MODE);
  });

  it("tells the payer in the chat's next paced slot: a refund notice and a command answer to one chat keep BOT_CHAT_SEND_GAP_MS apart", async () => {
    const running = await startBot(
      testConfig(certs, { botlink: gateway.url, platform: emu.apiRoot }, { BOT_OUTBOX_PATH: newPath(), BOT_CHAT_SEND_GAP_MS: '1500' }),
      gateway,
    );
    bots.push(running);
    const { charge, userId } = await paid(running, 'order-paced', 10n);
    emu.control.sendUserMessage({ userId, text: '/privacy' });
    emu.control.supportRefund(charge);
    await waitFor(() => toldInChat(userId).length === 2, 'the answer and the notice');
    expect(toldInChat(userId)).toEqual(expect.arrayContaining(['Your purchase (order order-paced) was refunded.']));
    const times = emu.control
      .calls('sendMessage')
      .filter((c) => c.params['chat_id'] === userId && c.status === 200)
      .map((c) => Date.parse(c.at))
      .sort((a, b) => a - b);
    expect(times).toHaveLength(2);
    // A lower bound only: a loaded machine makes the gap longer, never shorter.
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(1_000);
  });

  it('the outbox command lists waiting refunds beside payments (kind refund) and makes them due', async () => {
    const path = newPath();
    const db = openBotDb(path);
    try {
      new PaymentOutbox(db).add({ platformChargeId: 'stx-pay', orderId: 'o-1', amount: 4n, platformUserId: 7n });
      const waiting = new PaymentOutbox(db, 'refund');
      waiting.add({ platformChargeId: 'stx-ref', orderId: 'o-2', amount: 6n, platformUserId: 8n });
      waiting.recordFailure('stx-ref', Date.now() + 3_600_000, 'Unavailable: backend down');
    } finally {
      db.close();
    }
    const run = (...args: string[]) =>
      new Promise<{ code: number; stdout: string }>((resolve) => {
        execFile(
          process.execPath,
          ['--import', 'tsx', join(repoRoot, 'apps/bot/src/payments/outbox-cli.ts'), ...args],
          { cwd: repoRoot, env: { PATH: process.env['PATH'] ?? '', BOT_OUTBOX_PATH: path } },
          (err, stdout) => resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout }),
        );
      });
    const listed = await run('list');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ kind: 'payment', platformChargeId: 'stx-pay', amount: '4', failing: false }),
      expect.objectContaining({
        kind: 'refund',
        platformChargeId: 'stx-ref',
        amount: '6',
        failing: true,
        lastError: 'Unavailable: backend down',
      }),
    ]);
    expect(await run('retry', 'stx-ref')).toEqual({ code: 0, stdout: '{"due":1}\n' });
    expect(refundRows(path)[0]?.nextAttemptAt).toBe(0);
  }, 60_000);
});
