import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { Code, ConnectError } from '@connectrpc/connect';
import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import type { ChildService } from '@wordgame/testkit';
import Database from 'better-sqlite3';
import { PaymentOutbox, type OutboxEntry } from '../src/payments/outbox.store.js';
import { DeadLetters } from '../src/store/dead-letters.js';
import { command, repoRoot, startBotProcess } from './support/bot.js';
import { tempCerts } from './support/fixture.js';
import { TestGateway, type LinkSession } from './support/gateway.js';
import { waitFor } from './support/wait.js';

/**
 * Issue #26 item 2: a ForwardPayment refused with InvalidArgument or FailedPrecondition is kept and
 * retried like any other failure, never dead-lettered, until a response arrives. The bot runs as
 * a real process (src/main.ts through tsx) against a test gateway; the operator command runs as a
 * second process on the same SQLite file.
 */

const cli = join(repoRoot, 'apps/bot/src/payments/outbox-cli.ts');
const certs = tempCerts();
let emu: PlatformEmulator;
let gateway: TestGateway;
const children: ChildService[] = [];

/** Every ForwardPayment call the test gateway got, with when and how it answered. */
const calls: { at: number; platformChargeId: string; answer: 'refused' | 'credited' }[] = [];
let refusing = true;

beforeAll(async () => {
  emu = await startPlatformEmulator();
  gateway = await TestGateway.start(certs);
  gateway.handlers = {
    validatePreCheckout: () => Promise.resolve({ ok: true, reason: '' }),
    forwardPayment: (req) => {
      const at = Date.now();
      if (refusing) {
        const code = calls.length % 2 === 0 ? Code.InvalidArgument : Code.FailedPrecondition;
        calls.push({ at, platformChargeId: req.platformPaymentChargeId, answer: 'refused' });
        return Promise.reject(new ConnectError('refused by a bad deploy', code));
      }
      calls.push({ at, platformChargeId: req.platformPaymentChargeId, answer: 'credited' });
      return Promise.resolve({ credited: true });
    },
  };
});

afterAll(async () => {
  for (const child of children.splice(0)) await child.stop();
  await gateway.close();
  await emu.stop();
  certs.cleanup();
});

/** Starts the bot as its own process on `outboxPath` with that retry schedule. */
async function startBot(
  outboxPath: string,
  retry: { initialMs: number; maxMs: number },
): Promise<{ child: ChildService; session: LinkSession }> {
  const started = await startBotProcess(gateway, certs, emu.apiRoot, {
    BOT_OUTBOX_PATH: outboxPath,
    BOT_OUTBOX_RETRY_INITIAL_MS: String(retry.initialMs),
    BOT_OUTBOX_RETRY_MAX_MS: String(retry.maxMs),
  });
  children.push(started.child);
  return started;
}

async function stopBotProcess(child: ChildService): Promise<void> {
  children.splice(children.indexOf(child), 1);
  await child.stop();
}

/** Runs the operator command `outbox <args>` as its own process on `outboxPath`. */
function outboxCommand(outboxPath: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', cli, ...args],
      { cwd: repoRoot, env: { PATH: process.env['PATH'] ?? '', BOT_OUTBOX_PATH: outboxPath } },
      (err, stdout, stderr) => resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr }),
    );
  });
}

function stored<T>(path: string, fn: (db: Database.Database) => T): T {
  const db = new Database(path, { readonly: true });
  db.defaultSafeIntegers(true);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}
const entries = (path: string): OutboxEntry[] => stored(path, (db) => new PaymentOutbox(db).entries());
const deadLetterCount = (path: string): number => stored(path, (db) => new DeadLetters(db).list().length);

/** The base delay (before ±20 % jitter) after `failures` failed attempts: initial x1.6^(n-1), capped. */
const baseDelay = (failures: number, initialMs: number, maxMs: number): number => Math.min(initialMs * 1.6 ** (failures - 1), maxMs);

describe('a ForwardPayment the gateway refuses (InvalidArgument, FailedPrecondition)', () => {
  it('is kept and retried with growing capped delays, visible in Health and to the operator command, and forwarded once when the gateway recovers', async () => {
    const outboxPath = join(certs.dir, 'refused.sqlite');
    const retry = { initialMs: 150, maxMs: 1_000 };

    // A real payment through the platform emulator: invoice, pre-checkout, successful_payment.
    const first = await startBot(outboxPath, retry);
    const ack = await command(first.session, {
      case: 'createInvoice',
      value: { title: 'Chips', description: '500 chips', payload: 'order-refused', amount: 50n },
    });
    expect(ack.delivered).toBe(true);
    const userId = emu.control.createUser({ started: true }).user.id;
    const { preCheckoutQueryId } = emu.control.pay({ link: ack.result, userId });
    await waitFor(() => emu.control.preCheckout(preCheckoutQueryId)?.status === 'approved', 'pre-checkout approved');
    const platformChargeId = emu.control.preCheckout(preCheckoutQueryId)?.payment?.telegramPaymentChargeId ?? '';
    expect(platformChargeId).not.toBe('');

    // Refused again and again: kept, each delay x1.6 up to the cap (±20 % jitter), never parked.
    await waitFor(() => calls.length >= 9, 'nine refused attempts', 20_000);
    const times = calls.slice(0, 9).map((c) => c.at);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    gaps.forEach((gap, i) => {
      const base = baseDelay(i + 1, retry.initialMs, retry.maxMs);
      expect(gap).toBeGreaterThanOrEqual(base * 0.8 - 10);
      expect(gap).toBeLessThanOrEqual(base * 1.2 + 600);
    });
    expect(Math.min(...gaps.slice(-3))).toBeGreaterThanOrEqual(retry.maxMs * 0.8 - 10);
    expect(Math.max(...gaps.slice(-3))).toBeLessThanOrEqual(retry.maxMs * 1.2 + 600);
    expect(calls.every((c) => c.platformChargeId === platformChargeId && c.answer === 'refused')).toBe(true);
    expect(deadLetterCount(outboxPath)).toBe(0);
    expect(entries(outboxPath)).toEqual([
      expect.objectContaining({ platformChargeId, orderId: 'order-refused', amount: 50n, platformUserId: BigInt(userId) }),
    ]);

    // Health carries the failing row (field 6) and its age (field 7); no dead letter (field 5).
    await waitFor(
      () => first.session.healths().some((h) => h.outboxFailingRows === 1n && h.outboxOldestFailingAgeSeconds >= 2n),
      'Health with one failing row at least 2 s old',
    );
    expect(first.session.healths().reduce((sum, h) => sum + h.deadLetters, 0n)).toBe(0n);

    // The operator command lists it while the bot runs.
    const listed = await outboxCommand(outboxPath, 'list');
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    const rows = JSON.parse(listed.stdout) as Record<string, unknown>[];
    expect(rows).toEqual([
      expect.objectContaining({ platformChargeId, orderId: 'order-refused', amount: '50', platformUserId: String(userId), failing: true }),
    ]);
    expect(rows[0]!['attempts']).toBeGreaterThanOrEqual(8);
    expect(rows[0]!['lastError']).toMatch(/^(InvalidArgument|FailedPrecondition): refused by a bad deploy$/);
    expect(await outboxCommand(outboxPath, 'retry', 'stx-no-such-charge')).toMatchObject({ code: 1, stdout: '{"due":0}\n' });
    await stopBotProcess(first.child);

    // A bot whose next retry is minutes away: `outbox retry <charge id>` makes it go at once.
    const refusedBefore = calls.length;
    const second = await startBot(outboxPath, { initialMs: 120_000, maxMs: 120_000 });
    await waitFor(() => calls.length === refusedBefore + 1, 'the left-over row tried on start');
    await waitFor(() => (entries(outboxPath)[0]?.nextAttemptAt ?? 0) > Date.now() + 60_000, 'its next attempt minutes away');
    const scheduledAt = entries(outboxPath)[0]!.nextAttemptAt;
    const retried = await outboxCommand(outboxPath, 'retry', platformChargeId);
    expect(retried).toMatchObject({ code: 0, stdout: '{"due":1}\n' });
    // At once: long before the attempt it had scheduled (minutes away), whatever the machine's load.
    await waitFor(() => calls.length === refusedBefore + 2, 'the row tried again at once', 60_000);
    expect(calls.at(-1)!.at).toBeLessThan(scheduledAt);
    expect(calls.at(-1)!.answer).toBe('refused');

    // The gateway recovers: the next attempt (made due with --all) is answered, the row deleted, once.
    refusing = false;
    await waitFor(() => (entries(outboxPath)[0]?.nextAttemptAt ?? 0) > Date.now() + 60_000, 'the next attempt minutes away again');
    expect(await outboxCommand(outboxPath, 'retry', '--all')).toMatchObject({ code: 0, stdout: '{"due":1}\n' });
    await waitFor(() => entries(outboxPath).length === 0, 'row deleted after the response', 5_000);
    await waitFor(() => second.session.healths().at(-1)?.outboxFailingRows === 0n, 'Health with no failing row');
    expect(second.session.healths().at(-1)?.outboxOldestFailingAgeSeconds).toBe(0n);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(calls.filter((c) => c.answer === 'credited')).toEqual([expect.objectContaining({ platformChargeId })]);
    expect(calls.at(-1)!.answer).toBe('credited');
    expect(deadLetterCount(outboxPath)).toBe(0);
    expect(JSON.parse((await outboxCommand(outboxPath, 'list')).stdout)).toEqual([]);
  }, 90_000);
});
