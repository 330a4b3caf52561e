import { Code, ConnectError } from '@connectrpc/connect';
import type { Logger } from '@wordgame/logging';
import { Backoff, type BackoffOptions, delayAfter, sleep } from '../support/index.js';
import type { OutboxPayment, OutboxRow, PaymentOutbox } from './outbox.store.js';

/**
 * Calls ForwardPayment (or, for the refund outbox, ForwardRefund); resolves with the backend's yes or
 * no once the gateway answered (`credited`, or for a refund `recorded`, as `credited`), throws otherwise.
 */
export type ForwardPayment = (payment: OutboxPayment, signal: AbortSignal) => Promise<{ credited: boolean }>;

export interface ForwarderOptions {
  outbox: PaymentOutbox;
  forward: ForwardPayment;
  /** Each row's retry schedule after a failed attempt (initial, x1.6, capped, ±20 %). */
  retry: BackoffOptions;
  logger: Logger;
  /** ForwardPayment calls in flight at once; default 8. */
  concurrency?: number;
  /**
   * Told each answered row after it left the outbox (at most once per row: a crash between the two
   * loses the call, never repeats it). Its failure is logged and changes nothing.
   */
  onAnswered?: (row: OutboxRow, yes: boolean) => Promise<void>;
}

/** How often the outbox is read again while calls are in flight (each call's end also wakes the loop). */
const IN_FLIGHT_RECHECK_MS = 1_000;

/**
 * The longest the forwarder waits before reading the outbox again when nothing is due: the
 * operator command (`outbox retry`) makes rows due from another process, and they go within this.
 */
export const OUTBOX_RECHECK_MS = 1_000;

/** gRPC codes by which the gateway or backend refuses the row itself (a bad row, or a bad deploy). */
const REFUSALS = new Set<Code>([Code.InvalidArgument, Code.FailedPrecondition]);

/** Why an attempt failed, as kept on the row and logged: the gRPC code and message, or the error's text. */
function failureText(err: unknown): string {
  if (err instanceof ConnectError) return `${Code[err.code]}: ${err.rawMessage}`;
  return err instanceof Error ? err.message : String(err);
}

/**
 * Drains the payment outbox into ForwardPayment: the rows that are due, oldest first, with up to
 * `concurrency` calls in flight, a new row starting as soon as a call ends (a slow call holds only
 * its own slot). Rows are independent (each is idempotent on its charge id), and one call at a time
 * bounded credits by a commit's round trip: under a burst of payments the backlog, and the wait for
 * chips, grew. By the spec a row is retried until a response arrives: only a ForwardPaymentResponse
 * deletes it (credited=false, recorded as unmatched for an operator, is a response too). Every other
 * outcome (any gRPC status, InvalidArgument and FailedPrecondition included, a deadline, a transport
 * failure, an undecodable answer) keeps the row, records why on it and moves its own
 * `next_attempt_at` out by its capped, jittered backoff, forever; later rows go on, so no row blocks
 * the ones behind it. A refusal is logged at error level (a bad deploy, or a row only an operator can
 * understand), the rest at warn. Such rows are visible in Health (fields 6 and 7) and through
 * `outbox list`; `outbox retry` makes them due now, which this loop sees within OUTBOX_RECHECK_MS.
 * Rows left by an earlier process are due at once on start. An unexpected failure (the SQLite file)
 * is logged and the loop goes on after a backoff; it never ends the loop.
 *
 * A row the bot has just stored is handed to `notify` and forwarded at once when a slot is free and
 * no older row waits for one (`backlog`); only then is the file read again, so a payment in steady
 * state costs no outbox read. The file stays the record: every row is read from it again after a
 * failure, on start, within OUTBOX_RECHECK_MS, and whenever rows queued behind full slots.
 */
export class PaymentForwarder {
  private readonly stopping = new AbortController();
  private wake: AbortController = new AbortController();
  private running: Promise<void> | undefined;
  private readonly guard = new Backoff({ initialMs: 1_000, maxMs: 30_000 });
  /** ForwardPayment calls in flight, by charge id. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** An unexpected failure of a call (the SQLite file), for the loop to log and pause on. */
  private failure: unknown;
  /** True while due rows may wait that are not in flight: the loop reads the outbox when a call ends. */
  private backlog = true;
  private readonly limit: number;

  constructor(private readonly options: ForwarderOptions) {
    this.limit = Math.max(1, options.concurrency ?? 8);
  }

  start(): void {
    this.running ??= this.loop();
  }

  /**
   * A row was stored: `row` (the one just added) is forwarded now when a slot is free and no older
   * row waits; otherwise, or without a row, the loop reads the outbox now rather than on its next look.
   */
  notify(row?: OutboxRow): void {
    const direct =
      row !== undefined &&
      !this.backlog &&
      this.running !== undefined &&
      !this.stopping.signal.aborted &&
      this.inFlight.size < this.limit &&
      !this.inFlight.has(row.platformChargeId);
    if (direct) {
      this.launch(row);
      return;
    }
    this.backlog = true;
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
    const limit = this.limit;
    while (!this.stopping.signal.aborted) {
      try {
        // Renewed before reading the outbox: a row added or a call ended after the read wakes the wait below.
        this.renewWake();
        const failure = this.failure;
        this.failure = undefined;
        if (failure !== undefined) throw failure instanceof Error ? failure : new Error('a forwarding call failed unexpectedly');
        const free = limit - this.inFlight.size;
        if (free > 0) {
          // `limit` due rows hold at most inFlight.size rows in flight, so every free slot finds one if any is due.
          const rows = outbox
            .due(Date.now(), limit)
            .filter((row) => !this.inFlight.has(row.platformChargeId))
            .slice(0, free);
          for (const row of rows) this.launch(row);
          if (rows.length === free) continue;
          // Fewer due rows than free slots: every due row is in flight.
          this.backlog = false;
        }
        // Nothing to start now: wait for a new row, a failed or (with a backlog) ended call, or the next row's retry time.
        const next = this.inFlight.size > 0 ? undefined : outbox.nextDueAt();
        const waitMs =
          this.inFlight.size > 0
            ? IN_FLIGHT_RECHECK_MS
            : next === undefined
              ? OUTBOX_RECHECK_MS
              : Math.min(OUTBOX_RECHECK_MS, Math.max(0, next - Date.now()));
        // stop() aborts `wake` too.
        await sleep(waitMs, this.wake.signal);
      } catch (err: unknown) {
        const delayMs = this.guard.next();
        logger.error(
          { err: err instanceof Error ? err.message : String(err), delayMs },
          'payment forwarder pass failed unexpectedly; going on after a pause',
        );
        await sleep(delayMs, this.stopping.signal);
      }
    }
    await Promise.allSettled(this.inFlight.values());
  }

  /**
   * Starts forwarding `row`. Its end wakes the loop when rows wait for a slot, when the attempt
   * failed (for the row's retry time) or failed unexpectedly (for the loop to pause on).
   */
  private launch(row: OutboxRow): void {
    const call = this.forwardOne(row)
      .then(
        (answered) => {
          this.guard.reset();
          return answered;
        },
        (err: unknown) => {
          this.failure ??= err;
          return false;
        },
      )
      .then((answered) => {
        this.inFlight.delete(row.platformChargeId);
        if (this.backlog || !answered) this.wake.abort();
      });
    this.inFlight.set(row.platformChargeId, call);
  }

  /** True when the gateway answered (the row left the outbox), false when the attempt failed. */
  private async forwardOne(row: OutboxRow): Promise<boolean> {
    const { outbox } = this.options;
    const log = this.options.logger.child({ orderId: row.orderId, platformChargeId: row.platformChargeId });
    const attempts = row.attempts + 1;
    try {
      const { credited } = await this.options.forward(row, this.stopping.signal);
      outbox.remove(row.platformChargeId);
      if (outbox.kind === 'refund') {
        if (credited) log.info({ attempts }, 'refund forwarded and recorded');
        else log.warn({ attempts }, 'refund forwarded; it matched no order of ours (an operator follows up)');
      } else if (credited) log.info({ attempts }, 'payment forwarded and credited');
      else log.warn({ attempts }, 'payment forwarded; it matched no creditable order (an operator follows up)');
      await this.options.onAnswered?.(row, credited).catch((err: unknown) => {
        log.warn({ err: failureText(err) }, 'after-answer step failed (the row is forwarded)');
      });
      return true;
    } catch (err: unknown) {
      if (this.stopping.signal.aborted) return false;
      const delayMs = delayAfter(attempts, this.options.retry);
      const reason = failureText(err);
      outbox.recordFailure(row.platformChargeId, Date.now() + delayMs, reason);
      if (err instanceof ConnectError && REFUSALS.has(err.code)) {
        log.error(
          { attempts, delayMs, reason, amount: row.amount.toString(), platformUserId: row.platformUserId.toString() },
          outbox.kind === 'refund'
            ? 'ForwardRefund refused; the refund stays in the outbox and is retried after its backoff (outbox list shows it)'
            : 'ForwardPayment refused; the payment stays in the outbox and is retried after its backoff (outbox list shows it)',
        );
      } else {
        log.warn({ err: reason, attempts, delayMs }, `${this.rpcName} got no response; this row retries after its backoff`);
      }
      return false;
    }
  }

  private get rpcName(): string {
    return this.options.outbox.kind === 'refund' ? 'ForwardRefund' : 'ForwardPayment';
  }

  private renewWake(): void {
    if (this.wake.signal.aborted) this.wake = new AbortController();
  }
}
