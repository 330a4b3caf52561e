import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@wordgame/logging';
import { PaymentForwarder } from '../src/payments/forwarder.js';
import { PaymentOutbox, type OutboxPayment, type OutboxRow } from '../src/payments/outbox.store.js';
import { waitFor } from './support/wait.js';

/**
 * Issue #39 target 3: a payment the bot has just stored is forwarded straight from `notify`, with
 * no read of the outbox file, while slots are free and nothing older waits; rows that queue behind
 * full slots or fail still go through the file, oldest first, exactly once.
 */

const dir = mkdtempSync(join(tmpdir(), 'forwarder-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** An outbox on its own file whose due-row reads are counted. */
function countedOutbox(): { outbox: PaymentOutbox; reads: () => number } {
  const outbox = PaymentOutbox.open(join(dir, `outbox-${(n += 1)}.db`));
  let reads = 0;
  const due = outbox.due.bind(outbox);
  outbox.due = (nowMs: number, limit?: number) => {
    reads += 1;
    return due(nowMs, limit);
  };
  return { outbox, reads: () => reads };
}

const payment = (i: number): OutboxPayment => ({
  platformChargeId: `charge-${i}`,
  orderId: `order-${i}`,
  amount: 5n,
  platformUserId: 42n,
});
const fresh = (p: OutboxPayment): OutboxRow => ({ ...p, attempts: 0, nextAttemptAt: 0 });

/** Stores a payment and tells the forwarder, as the update loop does. */
function store(outbox: PaymentOutbox, forwarder: PaymentForwarder, p: OutboxPayment): void {
  forwarder.notify(outbox.add(p) ? fresh(p) : undefined);
}

describe('payment forwarder', () => {
  it('forwards a just-stored payment without reading the outbox while slots are free', async () => {
    const { outbox, reads } = countedOutbox();
    const forwarded: string[] = [];
    const forwarder = new PaymentForwarder({
      outbox,
      forward: (row) => {
        forwarded.push(row.platformChargeId);
        return Promise.resolve({ credited: true });
      },
      retry: { initialMs: 50, maxMs: 100 },
      logger: createLogger('test', 'silent'),
    });
    forwarder.start();
    // The start-up read finds the empty file and clears the backlog.
    await waitFor(() => reads() >= 1, 'the start-up read');
    const before = reads();
    for (let i = 0; i < 40; i += 1) {
      store(outbox, forwarder, payment(i));
      await waitFor(() => outbox.pending().length === 0, `payment ${i} forwarded`);
    }
    const during = reads() - before;
    await forwarder.stop();
    expect(forwarded).toEqual(Array.from({ length: 40 }, (_, i) => `charge-${i}`));
    // Only the loop's own once-a-second look reads the file; before, every payment read it twice or more.
    expect(during).toBeLessThan(10);
    outbox.close();
  });

  it('queues rows behind full slots through the file, oldest first, each forwarded once', async () => {
    const { outbox } = countedOutbox();
    const forwarded: string[] = [];
    const release: (() => void)[] = [];
    const forwarder = new PaymentForwarder({
      outbox,
      concurrency: 2,
      forward: (row) => {
        forwarded.push(row.platformChargeId);
        return new Promise((resolve) => release.push(() => resolve({ credited: true })));
      },
      retry: { initialMs: 50, maxMs: 100 },
      logger: createLogger('test', 'silent'),
    });
    forwarder.start();
    for (let i = 0; i < 6; i += 1) store(outbox, forwarder, payment(i));
    // A duplicate of a waiting row is not stored again and changes nothing.
    store(outbox, forwarder, payment(3));
    while (forwarded.length < 6 || release.length > 0) {
      await waitFor(() => release.length > 0, 'a call in flight');
      release.splice(0).forEach((r) => r());
    }
    await waitFor(() => outbox.pending().length === 0, 'every row forwarded');
    await forwarder.stop();
    expect(forwarded).toEqual(['charge-0', 'charge-1', 'charge-2', 'charge-3', 'charge-4', 'charge-5']);
    outbox.close();
  });

  it('retries a failed row after its backoff although no call or payment wakes it', async () => {
    const { outbox } = countedOutbox();
    let attempts = 0;
    const forwarder = new PaymentForwarder({
      outbox,
      forward: () => {
        attempts += 1;
        return attempts === 1 ? Promise.reject(new Error('gateway away')) : Promise.resolve({ credited: true });
      },
      retry: { initialMs: 20, maxMs: 40 },
      logger: createLogger('test', 'silent'),
    });
    forwarder.start();
    await waitFor(() => attempts === 0, 'the forwarder started');
    store(outbox, forwarder, payment(1));
    await waitFor(() => outbox.pending().length === 0, 'the row forwarded on its retry');
    await forwarder.stop();
    expect(attempts).toBe(2);
    outbox.close();
  });
});
