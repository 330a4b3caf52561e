import { existsSync } from 'node:fs';
import { ConfigError } from '@wordgame/config';
import { loadOutboxCommandConfig } from '../config.js';
import { PaymentOutbox, type OutboxEntry, type OutboxKind } from './outbox.store.js';

const USAGE = 'usage: outbox list | outbox retry <platform_charge_id> | outbox retry --all';

/** A usage or setup problem: printed with exit code 2. */
class UsageError extends Error {}

/** A unix second as ISO text (an out-of-range one as its number). */
function isoOfUnix(seconds: bigint): string {
  const ms = Number(seconds) * 1000;
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : seconds.toString();
}

/** One waiting payment as `outbox list` prints it (ids and amounts as strings, times as ISO). */
function printable(entry: OutboxEntry, kind: OutboxKind, nowMs: number): Record<string, unknown> {
  return {
    kind,
    platformChargeId: entry.platformChargeId,
    orderId: entry.orderId,
    amount: entry.amount.toString(),
    platformUserId: entry.platformUserId.toString(),
    ...(entry.subscription
      ? { recurring: entry.subscription.first ? 'first' : 'renewal', subscriptionExpiresAt: isoOfUnix(entry.subscription.expirationUnix) }
      : {}),
    attempts: entry.attempts,
    failing: entry.attempts > 0,
    createdAt: new Date(entry.createdAt).toISOString(),
    ageSeconds: Math.max(0, Math.floor((nowMs - entry.createdAt) / 1000)),
    nextAttemptAt: entry.nextAttemptAt === 0 ? null : new Date(entry.nextAttemptAt).toISOString(),
    lastError: entry.lastError ?? null,
  };
}

/**
 * The operator command for the payment outbox, run beside the bot on its SQLite file
 * (BOT_OUTBOX_PATH; WAL lets it read and write while the bot runs):
 * - `outbox list`: every payment still waiting for a ForwardPayment response, oldest first, then every
 *   refund made outside the bot waiting for ForwardRefund, as a JSON array (`kind` payment or refund,
 *   `failing` = at least one attempt failed, `lastError` = why the last one did);
 * - `outbox retry <platform_charge_id>` / `outbox retry --all`: makes that row (of either kind; every row) due now;
 *   the running bot's forwarder sends it within a second. Exit 0 done, 1 no such payment waits,
 *   2 bad arguments or configuration, or no outbox file at that path.
 */
function main(args: string[]): number {
  const [command, target, ...rest] = args;
  const wellFormed =
    (command === 'list' && target === undefined) ||
    (command === 'retry' && target !== undefined && target !== '' && rest.length === 0 && (target === '--all' || !target.startsWith('-')));
  if (!wellFormed) throw new UsageError(USAGE);
  const { BOT_OUTBOX_PATH: path } = loadOutboxCommandConfig();
  if (!existsSync(path)) throw new UsageError(`no outbox file at ${path} (BOT_OUTBOX_PATH)`);
  const outbox = PaymentOutbox.open(path, {
    onTightened: ({ file, was }) => process.stderr.write(`outbox: ${file} was mode ${was} (readable beyond its owner); narrowed to 600\n`),
  });
  const refunds = outbox.sibling('refund');
  try {
    if (command === 'list') {
      const now = Date.now();
      const listed = [
        ...outbox.entries().map((e) => printable(e, 'payment', now)),
        ...refunds.entries().map((e) => printable(e, 'refund', now)),
      ];
      process.stdout.write(`${JSON.stringify(listed, null, 2)}\n`);
      return 0;
    }
    const which = target === '--all' ? undefined : target;
    const made = outbox.retryNow(which) + refunds.retryNow(which);
    process.stdout.write(`${JSON.stringify({ due: made })}\n`);
    if (made === 0 && target !== '--all') {
      process.stderr.write(`outbox: no waiting payment or refund with charge id ${target}\n`);
      return 1;
    }
    return 0;
  } finally {
    outbox.close();
  }
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (err: unknown) {
  const known = err instanceof ConfigError || err instanceof UsageError;
  process.stderr.write(`outbox: ${known ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 2;
}
