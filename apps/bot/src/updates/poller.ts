import type { Logger } from '@wordgame/logging';
import { PlatformError, type PlatformClient } from '../platform/client.js';
import type { TgUpdate } from '../platform/types.js';
import { Backoff } from '../support/backoff.js';
import { sleep } from '../support/time.js';

/** The update types the bot asks for; chat_member must be named explicitly to be delivered. */
export const ALLOWED_UPDATES = ['message', 'chat_member', 'pre_checkout_query'] as const;

/**
 * Handles one update. Whatever must be durable before the update is confirmed (the payment
 * outbox row) is done before the returned promise resolves; slower work is started and tracked
 * by the handler itself, so one slow update never holds up the poll.
 */
export type UpdateHandler = (update: TgUpdate) => Promise<void>;

export interface PollerOptions {
  platform: PlatformClient;
  onUpdate: UpdateHandler;
  /** getUpdates `timeout` in seconds. */
  timeoutSeconds: number;
  logger: Logger;
  /** Delays after a failed poll; default 1 s growing x1.6 up to 30 s. */
  backoff?: Backoff;
}

/**
 * The exclusive long poll (run only by the bot with OWNS_UPDATES=true). Each getUpdates goes
 * through the one platform client flagged as the long poll, so its transport errors and 5xx
 * count as connect_failures and every answer, empty ones included, stamps liveness. The offset
 * advances past an update only after its handler resolved, so an update is confirmed to the
 * platform only once its durable part is done; a handler that throws leaves its update unconfirmed
 * and it is fetched again after a backoff (handlers catch their own non-durable failures). A 409 means a second bot is polling with the same
 * token: it is logged as that misconfiguration and retried with backoff, never fatal. A 429 is
 * waited out by the client's shared pause.
 */
export class UpdatePoller {
  private readonly stopping = new AbortController();
  private readonly backoff: Backoff;
  private running: Promise<void> | undefined;
  private offset: number | undefined;

  constructor(private readonly options: PollerOptions) {
    this.backoff = options.backoff ?? new Backoff({ initialMs: 1_000, maxMs: 30_000 });
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
    const { logger } = this.options;
    while (!this.stopping.signal.aborted) {
      let updates: TgUpdate[];
      try {
        updates = await this.poll();
      } catch (err: unknown) {
        if (this.stopping.signal.aborted) break;
        await this.failed(err);
        continue;
      }
      this.backoff.reset();
      for (const update of updates) {
        try {
          await this.options.onUpdate(update);
        } catch (err: unknown) {
          const delayMs = this.backoff.next();
          logger.error({ updateId: update.update_id, err: err instanceof Error ? err.message : String(err), delayMs }, 'update not handled; it stays unconfirmed and comes again');
          await sleep(delayMs, this.stopping.signal);
          break;
        }
        this.offset = update.update_id + 1;
      }
    }
  }

  private poll(): Promise<TgUpdate[]> {
    const { platform, timeoutSeconds } = this.options;
    const params: Record<string, unknown> = { timeout: timeoutSeconds, allowed_updates: ALLOWED_UPDATES };
    if (this.offset !== undefined) params['offset'] = this.offset;
    return platform.call<TgUpdate[]>('getUpdates', params, {
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
      logger.error(
        { status: 409, description: err.description, delayMs },
        'misconfiguration: another bot instance is polling updates with this token; exactly one bot may have OWNS_UPDATES=true',
      );
    } else {
      logger.warn({ err: err instanceof Error ? err.message : String(err), delayMs }, 'getUpdates failed; retrying');
    }
    await sleep(delayMs, this.stopping.signal);
  }
}
