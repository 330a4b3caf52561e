import { Code, ConnectError } from '@connectrpc/connect';
import type { Logger } from '@wordgame/logging';
import type { DeadLetters } from '../store/dead-letters.js';
import { Backoff, delayAfter, type BackoffOptions } from '../support/backoff.js';
import { sleep } from '../support/time.js';
import type { OutboxPayment, OutboxRow, PaymentOutbox } from './outbox.js';

/** Calls ForwardPayment; resolves with `credited` once the gateway answered, throws otherwise. */
export type ForwardPayment = (payment: OutboxPayment, signal: AbortSignal) => Promise<{ credited: boolean }>;

export interface ForwarderOptions {
  outbox: PaymentOutbox;
  deadLetters: DeadLetters;
  forward: ForwardPayment;
  /** Each row's retry schedule after a transient failure (initial, x1.6, capped, ±20 %). */
  retry: BackoffOptions;
  logger: Logger;
  /** Rows taken per pass; default 50. */
  batch?: number;
}

/** gRPC codes by which the gateway or backend refuses a row itself: retrying it can never succeed. */
const PERMANENT = new Set<Code>([Code.InvalidArgument, Code.FailedPrecondition]);

/** True when `err` is a refusal of the request itself (InvalidArgument, FailedPrecondition). */
export function isPermanentRefusal(err: unknown): err is ConnectError {
  return err instanceof ConnectError && PERMANENT.has(err.code);
}

/**
 * Drains the payment outbox into ForwardPayment: every pass takes the rows that are due, oldest
 * first, one call at a time. A row is deleted once a ForwardPaymentResponse arrived
 * (credited=false, recorded as unmatched for an operator, is a response too). A refusal of the row
 * itself (InvalidArgument or FailedPrecondition: empty ids, an over-long charge id) can never
 * succeed, so the row moves to the dead letters in one transaction, logged at error level and
 * counted in Health. Anything else (Unavailable, DeadlineExceeded, transport, other statuses) is
 * transient: the row's own `next_attempt_at` moves out by its backoff and later rows go on, so no
 * row blocks the ones behind it. Rows left by an earlier process are due at once on start. An unexpected
 * failure of a pass (the SQLite file) is logged and the loop goes on after a backoff; it never
 * ends the loop.
 */
export class PaymentForwarder {
  private readonly stopping = new AbortController();
  private wake: AbortController = new AbortController();
  private running: Promise<void> | undefined;
  private readonly guard = new Backoff({ initialMs: 1_000, maxMs: 30_000 });

  constructor(private readonly options: ForwarderOptions) {}

  start(): void {
    this.running ??= this.loop();
  }

  /** A new row was added: forward it now rather than on the next retry. */
  notify(): void {
    this.wake.abort();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    this.wake.abort();
    await this.running;
  }

  private async loop(): Promise<void> {
    const { outbox, logger } = this.options;
    try {
      outbox.makeAllDue();
    } catch (err: unknown) {
      logger.error(
        { err: err instanceof Error ? err.message : String(err) },
        'could not make left-over outbox rows due; they wait for their own backoff',
      );
    }
    while (!this.stopping.signal.aborted) {
      try {
        const rows = outbox.due(Date.now(), this.options.batch ?? 50);
        if (rows.length === 0) {
          const next = outbox.nextDueAt();
          const waitMs = next === undefined ? 60_000 : Math.min(60_000, Math.max(0, next - Date.now()));
          await sleep(waitMs, AbortSignal.any([this.stopping.signal, this.wake.signal]));
          this.renewWake();
          continue;
        }
        for (const row of rows) {
          if (this.stopping.signal.aborted) break;
          await this.forwardOne(row);
        }
        this.guard.reset();
      } catch (err: unknown) {
        const delayMs = this.guard.next();
        logger.error(
          { err: err instanceof Error ? err.message : String(err), delayMs },
          'payment forwarder pass failed unexpectedly; going on after a pause',
        );
        await sleep(delayMs, this.stopping.signal);
      }
    }
  }

  private async forwardOne(row: OutboxRow): Promise<void> {
    const { outbox, deadLetters } = this.options;
    const log = this.options.logger.child({ orderId: row.orderId, chargeId: row.chargeId });
    const attempts = row.attempts + 1;
    try {
      const { credited } = await this.options.forward(row, this.stopping.signal);
      outbox.remove(row.chargeId);
      if (credited) log.info({ attempts }, 'payment forwarded and credited');
      else log.warn({ attempts }, 'payment forwarded; it matched no creditable order (an operator follows up)');
    } catch (err: unknown) {
      if (this.stopping.signal.aborted) return;
      if (isPermanentRefusal(err)) {
        const reason = `ForwardPayment refused: ${Code[err.code]}: ${err.rawMessage}`;
        deadLetters.parkOutboxRow(row.chargeId, row, reason);
        log.error(
          { attempts, amount: row.amount.toString(), platformUserId: row.platformUserId.toString(), reason },
          'payment refused by the gateway as invalid; parked as a dead letter for an operator',
        );
        return;
      }
      const delayMs = delayAfter(attempts, this.options.retry);
      outbox.recordFailure(row.chargeId, Date.now() + delayMs);
      log.warn(
        { err: err instanceof Error ? err.message : String(err), attempts, delayMs },
        'ForwardPayment got no response; this row retries after its backoff',
      );
    }
  }

  private renewWake(): void {
    if (this.wake.signal.aborted) this.wake = new AbortController();
  }
}
