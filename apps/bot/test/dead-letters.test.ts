import { join } from 'node:path';
import { Code, ConnectError } from '@connectrpc/connect';
import type { botlink } from '@wordgame/contracts';
import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import Database from 'better-sqlite3';
import { PaymentOutbox } from '../src/payments/outbox.store.js';
import { openBotDb } from '../src/store/db.js';
import { DeadLetters, type DeadLetter } from '../src/store/dead-letters.js';
import { startBot, type RunningBot } from './support/bot.js';
import { tempCerts, testConfig } from './support/fixture.js';
import { TestGateway } from './support/gateway.js';
import { ERROR } from './support/logs.js';
import { waitFor } from './support/wait.js';

const certs = tempCerts();
let emu: PlatformEmulator;
let gateway: TestGateway;
const bots: RunningBot[] = [];
let forwarded: botlink.ForwardPaymentRequest[];
let pathSeq = 0;

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
  forwarded = [];
  gateway.handlers = {
    forwardPayment: (req) => {
      forwarded.push(req);
      return Promise.resolve({ credited: true });
    },
  };
});
afterEach(async () => {
  for (const bot of bots.splice(0)) await bot.app.stop();
});

async function bot(path: string, overrides: Record<string, string> = {}): Promise<RunningBot> {
  const running = await startBot(
    testConfig(
      certs,
      { botlink: gateway.url, platform: emu.apiRoot },
      { BOT_OUTBOX_PATH: path, BOT_HEALTH_INTERVAL_MS: '100', ...overrides },
    ),
    gateway,
  );
  bots.push(running);
  return running;
}

function read<T>(path: string, fn: (db: Database.Database) => T): T {
  const db = new Database(path, { readonly: true });
  db.defaultSafeIntegers(true);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}
const deadLetters = (path: string): DeadLetter[] => read(path, (db) => new DeadLetters(db).list());
const outboxRows = (path: string) => read(path, (db) => new PaymentOutbox(db).pending());
const reportedDeadLetters = (running: RunningBot): bigint => running.session.healths().reduce((sum, h) => sum + h.deadLetters, 0n);

function paymentMessage(userId: number, payment: Record<string, unknown>): Record<string, unknown> {
  return {
    message_id: 1,
    date: 1,
    from: { id: userId, is_bot: false, first_name: 'Payer' },
    chat: { id: userId, type: 'private' },
    successful_payment: payment,
  };
}
const goodPayment = (charge: string, order: string) => ({
  currency: 'XTR',
  total_amount: 5,
  invoice_payload: order,
  telegram_payment_charge_id: charge,
  provider_payment_charge_id: '',
});

describe('one malformed update never blocks the updates behind it (item 2)', () => {
  it('parks a successful_payment without its fields as a dead letter, moves the offset on and stores the next payment', async () => {
    const path = join(certs.dir, `dl-${++pathSeq}.sqlite`);
    const running = await bot(path);
    const user = emu.control.createUser().user.id;
    const broken = emu.control.injectUpdate({ message: paymentMessage(user, { currency: 'XTR' }) });
    emu.control.injectUpdate({ message: 'not a message' });
    emu.control.injectUpdate({ message: paymentMessage(user, goodPayment('stx-after', 'order-after')) });
    await waitFor(() => forwarded.length === 1, 'the well-formed payment behind the broken ones forwarded');
    expect(forwarded[0]).toMatchObject({ orderId: 'order-after', platformPaymentChargeId: 'stx-after', amount: 5n });
    await waitFor(() => emu.control.state().bots[0]?.pendingUpdates.length === 0, 'every update confirmed');
    const letters = deadLetters(path);
    expect(letters).toHaveLength(2);
    expect(letters[0]).toMatchObject({ source: 'update', ref: String(broken.queued ? broken.update_id : -1) });
    expect(letters[0]?.reason).toMatch(/^malformed update: message\.successful_payment\.total_amount/);
    expect(JSON.parse(letters[0]!.raw)).toMatchObject({ message: { successful_payment: { currency: 'XTR' } } });
    expect(letters[1]?.reason).toMatch(/^malformed update: message:/);
    expect(running.lines.some((l) => l.level === ERROR && l.msg.startsWith('malformed successful_payment parked'))).toBe(true);
    await waitFor(() => reportedDeadLetters(running) === 2n, 'Health carries the two dead letters');
  });
});

describe('one bad outbox row never blocks the payments behind it (item 3)', () => {
  it('keeps a row the gateway refuses as invalid, retrying it, and forwards the rows behind it', async () => {
    const longCharge = `stx-${'x'.repeat(300)}`;
    gateway.handlers.forwardPayment = (req) => {
      forwarded.push(req);
      if (req.platformPaymentChargeId.length > 256)
        return Promise.reject(new ConnectError('platform_payment_charge_id is too long', Code.InvalidArgument));
      return Promise.resolve({ credited: true });
    };
    const path = join(certs.dir, `dl-${++pathSeq}.sqlite`);
    const running = await bot(path);
    const user = emu.control.createUser().user.id;
    emu.control.injectUpdate({ message: paymentMessage(user, goodPayment(longCharge, 'order-long')) });
    emu.control.injectUpdate({ message: paymentMessage(user, goodPayment('stx-ok', 'order-ok')) });
    await waitFor(() => forwarded.some((f) => f.platformPaymentChargeId === 'stx-ok'), 'the row behind the refused one forwarded');
    await waitFor(() => forwarded.filter((f) => f.platformPaymentChargeId === longCharge).length >= 3, 'the refused row retried');
    const rows = read(path, (db) => new PaymentOutbox(db).entries());
    expect(rows).toEqual([
      expect.objectContaining({
        platformChargeId: longCharge,
        orderId: 'order-long',
        lastError: 'InvalidArgument: platform_payment_charge_id is too long',
      }),
    ]);
    expect(rows[0]!.attempts).toBeGreaterThanOrEqual(2);
    expect(deadLetters(path)).toEqual([]);
    expect(
      running.lines.some((l) => l.level === ERROR && l.msg.startsWith('ForwardPayment refused; the payment stays in the outbox')),
    ).toBe(true);
    await waitFor(() => running.session.healths().some((h) => h.outboxFailingRows === 1n), 'Health carries the failing row');
    expect(reportedDeadLetters(running)).toBe(0n);
  });

  it('retries a transiently failing row on its own backoff while later rows go through', async () => {
    gateway.handlers.forwardPayment = (req) => {
      forwarded.push(req);
      if (req.orderId === 'order-stuck') return Promise.reject(new ConnectError('backend unreachable', Code.Unavailable));
      return Promise.resolve({ credited: true });
    };
    const path = join(certs.dir, `dl-${++pathSeq}.sqlite`);
    await bot(path, { BOT_OUTBOX_RETRY_INITIAL_MS: '100', BOT_OUTBOX_RETRY_MAX_MS: '100' });
    const user = emu.control.createUser().user.id;
    emu.control.injectUpdate({ message: paymentMessage(user, goodPayment('stx-stuck', 'order-stuck')) });
    emu.control.injectUpdate({ message: paymentMessage(user, goodPayment('stx-next', 'order-next')) });
    await waitFor(() => forwarded.some((f) => f.orderId === 'order-next'), 'the later row forwarded');
    await waitFor(() => forwarded.filter((f) => f.orderId === 'order-stuck').length >= 3, 'the stuck row retried');
    const rows = outboxRows(path);
    expect(rows.map((r) => r.orderId)).toEqual(['order-stuck']);
    expect(rows[0]!.attempts).toBeGreaterThanOrEqual(2);
    expect(deadLetters(path)).toEqual([]);
  });
});

describe('the bot SQLite file', () => {
  it('migrates an outbox written by an older bot in place, idempotently, keeping its rows', () => {
    const path = join(certs.dir, `old-${++pathSeq}.sqlite`);
    const old = new Database(path);
    old.exec(`CREATE TABLE payment_outbox (charge_id TEXT PRIMARY KEY, order_id TEXT NOT NULL, amount INTEGER NOT NULL,
      platform_user_id INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL) STRICT`);
    old.prepare('INSERT INTO payment_outbox VALUES (?, ?, ?, ?, ?, ?)').run('stx-old', 'order-old', 7, 42, 3, 1);
    old.close();
    for (let i = 0; i < 2; i += 1) openBotDb(path).close();
    const db = openBotDb(path);
    const outbox = new PaymentOutbox(db);
    expect(outbox.due(Date.now())).toEqual([
      { platformChargeId: 'stx-old', orderId: 'order-old', amount: 7n, platformUserId: 42n, attempts: 3, nextAttemptAt: 0 },
    ]);
    new DeadLetters(db).park('update', '1', { update_id: 1 }, 'test');
    expect(new DeadLetters(db).list()).toHaveLength(1);
    db.close();
  });
});
