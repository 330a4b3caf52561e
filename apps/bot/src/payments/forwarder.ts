import type { Logger } from '@wordgame/logging';
import type { Backoff } from '../support/backoff.js';
import { sleep } from '../support/time.js';
import type { OutboxPayment, PaymentOutbox } from './outbox.js';

/** Calls ForwardPayment; resolves with `credited` once the gateway answered, throws otherwise. */
export type ForwardPayment = (payment: OutboxPayment, signal: AbortSignal) => Promise<{ credited: boolean }>;

export interface ForwarderOptions {
  outbox: PaymentOutbox;
  forward: ForwardPayment;
  backoff: Backoff;
  logger: Logger;
}

/**
 * Drains the payment outbox into ForwardPayment, oldest first, one at a time. A row is deleted
 * only once a ForwardPaymentResponse arrived: credited=false (recorded as unmatched for an
 * operator) is a response too. Any error (transport, deadline, or a gRPC status from the gateway
 * such as Unavailable) leaves the row and retries it after an exponential backoff with jitter;
 * rows left by an earlier process are sent on start, so a payment survives a restart.
 */
export class PaymentForwarder {
  private readonly stopping = new AbortController();
  private wake: AbortController = new AbortController();
  private running: Promise<void> | undefined;

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
    const { outbox, backoff, logger } = this.options;
    while (!this.stopping.signal.aborted) {
      const waiting = AbortSignal.any([this.stopping.signal, this.wake.signal]);
      const [row] = outbox.pending(1);
      if (!row) {
        await sleep(60_000, waiting);
        this.renewWake();
        continue;
      }
      const log = logger.child({ orderId: row.orderId, chargeId: row.chargeId });
      try {
        const { credited } = await this.options.forward(row, this.stopping.signal);
        outbox.remove(row.chargeId);
        backoff.reset();
        if (credited) log.info({ attempts: row.attempts + 1 }, 'payment forwarded and credited');
        else log.warn({ attempts: row.attempts + 1 }, 'payment forwarded; it matched no creditable order (an operator follows up)');
      } catch (err: unknown) {
        if (this.stopping.signal.aborted) break;
        outbox.recordFailure(row.chargeId);
        const delayMs = backoff.next();
        log.warn({ err: err instanceof Error ? err.message : String(err), attempts: row.attempts + 1, delayMs }, 'ForwardPayment got no response; retrying');
        await sleep(delayMs, this.stopping.signal);
      }
    }
  }

  private renewWake(): void {
    if (this.wake.signal.aborted) this.wake = new AbortController();
  }
}
