import type { Logger } from '@wordgame/logging';
import { HANDLED_KINDS, type MethodParams, type PlatformClient, PlatformError, type RawUpdate } from '../platform/index.js';
import { Backoff, sleep } from '../support/index.js';

/**
 * The update types the bot asks for: exactly the kinds its parser handles (one list), since
 * chat_member must be named explicitly to be delivered and an unasked kind would only be ignored.
 */
export const ALLOWED_UPDATES = HANDLED_KINDS;

/** Least time between the starts of two long polls when the first answered empty sooner (BOT_POLL_MIN_GAP_MS). */
export const DEFAULT_POLL_MIN_GAP_MS = 500;

/** How often one update may fail its handler before it is parked as a dead letter. */
export const MAX_UPDATE_ATTEMPTS = 5;

/** A held empty poll is logged the first time and then once every this many (the total is in /health). */
const THROTTLE_LOG_EVERY = 100;

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
  /**
   * Least time from the start of a poll that answered empty to the start of the next one; default
   * DEFAULT_POLL_MIN_GAP_MS. A platform (or proxy) that ignores the long-poll timeout and answers
   * empty at once is then polled at most once per gap, never in a tight loop.
   */
  minGapMs?: number;
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
 * never fatal. A 429 is waited out by the client's shared pause. An empty answer that came
 * sooner than `minGapMs` after its poll started is held until the gap is over before the next poll
 * (counted in `throttled` and logged), so an answer-at-once-with-nothing platform never makes the
 * loop spin; an answer that carries updates is handled and followed by the next poll at once. An
 * unexpected error anywhere in the loop is logged and the loop goes on after a backoff: it never
 * ends until stop().
 */
export class UpdatePoller {
  private readonly stopping = new AbortController();
  private readonly backoff: Backoff;
  private running: Promise<void> | undefined;
  private offset: number | undefined;
  private failing: { updateId: number; attempts: number } | undefined;
  private conflictCount = 0;
  private throttledCount = 0;
  private readonly minGapMs: number;

  constructor(private readonly options: PollerOptions) {
    this.backoff = options.backoff ?? new Backoff({ initialMs: 1_000, maxMs: 30_000 });
    this.minGapMs = options.minGapMs ?? DEFAULT_POLL_MIN_GAP_MS;
  }

  /** 409 answers to the long poll since start (another process polls with this token). */
  get conflicts(): number {
    return this.conflictCount;
  }

  /** Empty long-poll answers since start that came sooner than the minimum gap and were held to it. */
  get throttled(): number {
    return this.throttledCount;
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
    const started = performance.now();
    try {
      updates = await this.poll();
    } catch (err: unknown) {
      if (!this.stopping.signal.aborted) await this.failed(err);
      return;
    }
    this.backoff.reset();
    if (updates.length === 0) {
      await this.holdEmpty(performance.now() - started);
      return;
    }
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

  /** Waits out the rest of the minimum gap after an empty answer that took `elapsedMs`; counted and logged. */
  private async holdEmpty(elapsedMs: number): Promise<void> {
    const waitMs = Math.ceil(this.minGapMs - elapsedMs);
    if (waitMs <= 0 || this.stopping.signal.aborted) return;
    this.throttledCount += 1;
    if (this.throttledCount === 1 || this.throttledCount % THROTTLE_LOG_EVERY === 0) {
      const { logger, timeoutSeconds } = this.options;
      const fields = { throttled: this.throttledCount, elapsedMs: Math.round(elapsedMs), waitMs, timeoutSeconds };
      const msg = 'getUpdates answered empty sooner than the minimum gap; next poll held until the gap is over';
      // With BOT_POLL_TIMEOUT_S=0 every empty answer is immediate by design; otherwise the platform ignores the timeout.
      if (timeoutSeconds > 0) logger.warn(fields, msg);
      else logger.debug(fields, msg);
    }
    await sleep(waitMs, this.stopping.signal);
  }

  private confirm(updateId: number): void {
    const next = updateId + 1;
    if (this.offset === undefined || next > this.offset) this.offset = next;
  }

  private poll(): Promise<RawUpdate[]> {
    const { platform, timeoutSeconds } = this.options;
    const params: MethodParams<'getUpdates'> = { timeout: timeoutSeconds, allowed_updates: ALLOWED_UPDATES };
    if (this.offset !== undefined) params.offset = this.offset;
    return platform.call('getUpdates', params, {
      longPoll: true,
      signal: this.stopping.signal,
      extraTimeoutMs: timeoutSeconds * 1000,
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
