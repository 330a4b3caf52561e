import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { PaymentOutbox } from '../src/payments/outbox.store.js';
import { openBotDb } from '../src/store/index.js';

const FULL = 2n;

describe('the payment outbox keeps one fsync per payment', () => {
  let dir: string;
  let db: Database.Database;
  let outbox: PaymentOutbox;
  const synchronous = () => db.pragma('synchronous', { simple: true }) as bigint;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'bot-outbox-'));
    db = openBotDb(join(dir, 'bot.sqlite'));
    outbox = new PaymentOutbox(db);
  });
  afterEach(() => {
    outbox.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits the insert with synchronous=FULL and leaves the connection FULL after the lazy remove and failure count', () => {
    expect(synchronous()).toBe(FULL);
    expect(outbox.add({ platformChargeId: 'c1', orderId: 'o1', amount: 5n, platformUserId: 7n })).toBe(true);
    expect(outbox.add({ platformChargeId: 'c1', orderId: 'o1', amount: 5n, platformUserId: 7n })).toBe(false);
    expect(synchronous()).toBe(FULL);
    outbox.recordFailure('c1', 123, 'gateway unavailable');
    expect(synchronous()).toBe(FULL);
    expect(outbox.failing(Date.now()).count).toBe(1);
    expect(outbox.due(123).map((r) => [r.platformChargeId, r.attempts, r.nextAttemptAt])).toEqual([['c1', 1, 123]]);
    expect(outbox.holdsPaymentFor('o1')).toBe(true);
    outbox.remove('c1');
    expect(synchronous()).toBe(FULL);
    expect(outbox.holdsPaymentFor('o1')).toBe(false);
    expect(outbox.pending()).toEqual([]);
    expect(outbox.nextDueAt()).toBeUndefined();
  });

  it('restores FULL even when the lazy write fails', () => {
    db.exec('DROP TABLE payment_outbox');
    expect(() => outbox.remove('c1')).toThrow();
    expect(synchronous()).toBe(FULL);
  });
});
