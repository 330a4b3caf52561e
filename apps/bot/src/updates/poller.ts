import type { Logger } from '@wordgame/logging';
import { PlatformError, type PlatformClient } from '../platform/client.js';
import { updatesResult, type RawUpdate } from '../platform/shapes.js';
import { Backoff } from '../support/backoff.js';
import { sleep } from '../support/time.js';

/** The update types the bot asks for; chat_member must be named explicitly to be delivered. */
export const ALLOWED_UPDATES = ['message', 'chat_member', 'pre_checkout_query'] as const;

/** How often one update may fail its handler before it is parked as a dead letter. */
export const MAX_UPDATE_ATTEMPTS = 5;

/** The error a 409 on the long poll is logged with: what is wrong and exactly what to change. */
export const CONFLICT_ADVICE =
  'misconfiguration: another process is polling updates with this bot token (platform 409); set OWNS_UPDATES=false on every bot but one, and check that no other process (an old deployment, a developer machine, a webhook tool) polls with the same PLATFORM_BOT_TOKEN';

/**
 * Handles one update. Whatever must be durable before the update is confirmed (the payment
 * outbox row, a dead letter) is done before the returned promise resolves; slower work is started
 * and tracked by the handler itself, so one slow update never holds up the poll.
 */
export type UpdateHandler = (update: RawUpdate) => Promise<void>;

export interface PollerOptions {
  platform: PlatformClient;
  onUpdate: UpdateHandler;
  /**
   * Parks an update whose handler failed MAX_UPDATE_ATTEMPTS times, durably (throws when it
   * cannot, and the update then stays unconfirmed). Without it such an update is retried forever.
   */
  park?: (update: RawUpdate, reason: string) => void;
  /** getUpdates `timeout` in seconds. */
  timeoutSeconds: number;
  logger: Logger;
  /** Delays after a failed poll; default 1 s growing x1.6 up to 30 s. */
  backoff?: Backoff;
}

/**
 * The exclusive long poll (run only by the bot with OWNS_UPDATES=true). Each getUpdates goes
 * through the one platform client flagged as the long poll with the `updatesResult` shape, so its
 * transport errors and 5xx count as connect_failures, every 2xx (empty ones included) stamps
 * liveness, and a 2xx it cannot read is counted as unreadable; every failure backs off. The offset advances past an
 * update only after its handler resolved, and never moves backwards. A handler that throws leaves
 * its update unconfirmed and it is fetched again after a backoff; after MAX_UPDATE_ATTEMPTS
 * failures it is parked as a dead letter and the offset moves on, so no update blocks the ones
 * behind it. A 409 means a second process is polling with the same token: it is logged at error
 * level with what to change (CONFLICT_ADVICE), counted (`conflicts`) and retried with backoff,
 * never fatal. A 429 is waited out by the client's shared pause. An unexpected error anywhere in
 * the loop is logged and the loop goes on after a backoff: it never ends until stop().
 */
export class UpdatePoller {
  private readonly stopping = new AbortController();
  private readonly backoff: Backoff;
  private running: Promise<void> | undefined;
  private offset: number | undefined;
  private failing: { updateId: number; attempts: number } | undefined;
  private conflictCount = 0;

  constructor(private readonly options: PollerOptions) {
    this.backoff = options.backoff ?? new Backoff({ initialMs: 1_000, maxMs: 30_000 });
  }

  /** 409 answers to the long poll since start (another process polls with this token). */
  get conflicts(): number {
    return this.conflictCount;
  }

  start(): void {
    this.running ??= this.loop();
  }

  /** Aborts the pending getUpdates and resolves once the loop has exited. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  private async loop(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      try {
        await this.cycle();
      } catch (err: unknown) {
        if (this.stopping.signal.aborted) break;
        const delayMs = this.backoff.next();
        this.options.logger.error({ err: errorText(err), delayMs }, 'update loop failed unexpectedly; going on after a pause');
        await sleep(delayMs, this.stopping.signal);
      }
    }
  }

  private async cycle(): Promise<void> {
    let updates: RawUpdate[];
    try {
      updates = await this.poll();
    } catch (err: unknown) {
      if (!this.stopping.signal.aborted) await this.failed(err);
      return;
    }
    this.backoff.reset();
    for (const update of updates) {
      if (this.stopping.signal.aborted) return;
      if (!(await this.handle(update))) return;
      this.confirm(update.update_id);
    }
  }

  /** True once the update may be confirmed (handled, or parked after too many failures). */
  private async handle(update: RawUpdate): Promise<boolean> {
    const { logger } = this.options;
    try {
      await this.options.onUpdate(update);
      this.failing = undefined;
      return true;
    } catch (err: unknown) {
      const attempts = this.failing?.updateId === update.update_id ? this.failing.attempts + 1 : 1;
      this.failing = { updateId: update.update_id, attempts };
      const { park } = this.options;
      if (park && attempts >= MAX_UPDATE_ATTEMPTS) {
        park(update, `handler failed ${attempts} times: ${errorText(err)}`);
        this.failing = undefined;
        logger.error(
          { updateId: update.update_id, attempts, err: errorText(err) },
          'update handler keeps failing; update parked as a dead letter',
        );
        return true;
      }
      const delayMs = this.backoff.next();
      logger.error(
        { updateId: update.update_id, attempts, err: errorText(err), delayMs },
        'update not handled; it stays unconfirmed and comes again',
      );
      await sleep(delayMs, this.stopping.signal);
      return false;
    }
  }

  private confirm(updateId: number): void {
    const next = updateId + 1;
    if (this.offset === undefined || next > this.offset) this.offset = next;
  }

  private poll(): Promise<RawUpdate[]> {
    const { platform, timeoutSeconds } = this.options;
    const params: Record<string, unknown> = { timeout: timeoutSeconds, allowed_updates: ALLOWED_UPDATES };
    if (this.offset !== undefined) params['offset'] = this.offset;
    return platform.call('getUpdates', params, {
      longPoll: true,
      signal: this.stopping.signal,
      extraTimeoutMs: timeoutSeconds * 1000,
      result: updatesResult,
    });
  }

  private async failed(err: unknown): Promise<void> {
    const { logger } = this.options;
    if (err instanceof PlatformError && err.kind === 'rate_limited') return;
    const delayMs = this.backoff.next();
    if (err instanceof PlatformError && err.status === 409) {
      this.conflictCount += 1;
      logger.error({ status: 409, description: err.description, conflicts: this.conflictCount, delayMs }, CONFLICT_ADVICE);
    } else {
      logger.warn({ err: errorText(err), delayMs }, 'getUpdates failed; retrying');
    }
    await sleep(delayMs, this.stopping.signal);
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
