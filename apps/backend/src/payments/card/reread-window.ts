import type { Kysely } from 'kysely';
import type { Logger } from '@wordgame/logging';
import type { DB } from '../../db/index.js';
import type { PaymentMetrics } from '../../metrics/index.js';
import { paymentError } from '../errors.js';
import { handled, type Disposition } from './disposition.js';
import { claimReread, deleteRereadsBefore, markRereadFailed, rereadFailed, type RereadKey } from './card.store.js';

export type { RereadKey };

/** What a window needs: the shared table, its length, the clock, and where it reports. */
export interface RereadWindowOptions {
  db: Kysely<DB>;
  /** PROVIDER_REREAD_WINDOW_MS. */
  windowMs: number;
  now(): Date;
  metrics: Pick<PaymentMetrics, 'rereadCoalesced'>;
  logger: Logger;
}

/** The disposition of a notification answered without a re-read of its own. */
export const COALESCED = 'reread_coalesced';

/** How long after its window ends a trailing re-read starts (clocks of replicas differ a little). */
const TRAIL_MARGIN_MS = 100;

/**
 * At most one provider re-read per payment or refund per window, for notifications (a notification
 * is never evidence: the object is always re-read, but a forged stream of them must not turn into
 * a stream of provider calls). A notification whose object is being re-read on this replica shares
 * that re-read's outcome; otherwise the replica claims the object's row in `provider_rereads` with
 * one atomic upsert that succeeds only when the last re-read (on any replica) started a window ago
 * or more, and a notification that cannot claim it is answered `reread_coalesced` with no provider
 * call; when the window's re-read failed (provider unreachable, database), they are answered
 * intake_unavailable instead, so the provider redelivers them, still without a provider call. Both
 * are counted. Money is never left behind: a notification that met a re-read it did not
 * start (the provider may have changed after that re-read began) schedules one trailing run of the
 * whole notification handling for its object on this replica, a window later, which claims again (and waits another
 * window if a later re-read holds it, which then began after the notification). So a genuine
 * notification that met a forged one is acted on within about two windows; if the replica stops
 * first, the reaper re-checks the order once it is a minute old (REAPER_INTERVAL_MS).
 */
export class RereadWindow {
  private readonly flights = new Map<string, Promise<Disposition>>();
  private readonly trailing = new Map<string, NodeJS.Timeout>();
  private stopped = false;

  constructor(private readonly options: RereadWindowOptions) {}

  /**
   * Re-reads `key`'s object with `reread` when this notification may, else shares or skips it (see
   * the class). `again` re-runs the whole notification handling for the object: what a trailing run calls.
   */
  run(key: RereadKey, reread: () => Promise<Disposition>, again: () => Promise<Disposition>): Promise<Disposition> {
    const id = `${key.shop}\u0000${key.kind}\u0000${key.objectId}`;
    const shared = this.flights.get(id);
    if (shared) {
      this.options.metrics.rereadCoalesced(key.kind, 'in_flight');
      this.trail(id, key, again);
      return shared;
    }
    const attempt = this.attempt(id, key, reread, again);
    this.flights.set(id, attempt);
    const forget = (): void => {
      if (this.flights.get(id) === attempt) this.flights.delete(id);
    };
    void attempt.then(forget, forget);
    return attempt;
  }

  /** Cancels the trailing runs not started yet (the reaper covers their orders). */
  stop(): void {
    this.stopped = true;
    for (const timer of this.trailing.values()) clearTimeout(timer);
    this.trailing.clear();
  }

  private async attempt(
    id: string,
    key: RereadKey,
    reread: () => Promise<Disposition>,
    again: () => Promise<Disposition>,
  ): Promise<Disposition> {
    const claimedAt = await this.claim(key);
    if (claimedAt === undefined) {
      this.options.metrics.rereadCoalesced(key.kind, 'window');
      if (await this.lastFailed(key)) throw paymentError('intake_unavailable', 'the last re-read failed; redeliver later');
      this.trail(id, key, again);
      return handled(COALESCED);
    }
    try {
      return await reread();
    } catch (err: unknown) {
      await this.markFailed(key, claimedAt).catch((markErr: unknown) =>
        this.options.logger.warn({ ...key, err: markErr }, 'could not record a failed provider re-read'),
      );
      throw err;
    }
  }

  /**
   * Claims `key` for a re-read now, answering the claim time: its row was absent or last claimed a
   * window ago or more (on any replica). Undefined when another re-read holds the window.
   */
  private async claim(key: RereadKey): Promise<Date | undefined> {
    const now = this.options.now();
    const before = new Date(now.getTime() - this.options.windowMs);
    return (await claimReread(this.options.db, key, now, before)) ? now : undefined;
  }

  /** True when the re-read holding `key`'s window failed. */
  private async lastFailed(key: RereadKey): Promise<boolean> {
    return rereadFailed(this.options.db, key);
  }

  /** Records that the re-read claimed at `claimedAt` failed (unless a later claim took the row). */
  private async markFailed(key: RereadKey, claimedAt: Date): Promise<void> {
    await markRereadFailed(this.options.db, key, claimedAt);
  }

  /** Schedules one trailing run of `again` for `key` on this replica, unless one is scheduled. */
  private trail(id: string, key: RereadKey, again: () => Promise<Disposition>): void {
    if (this.stopped || this.trailing.has(id)) return;
    const { logger } = this.options;
    const timer = setTimeout(() => {
      this.trailing.delete(id);
      void again().then(
        (d) => {
          if (d.detail !== COALESCED) logger.info({ ...key, ...d }, 'trailing provider re-read after coalesced notifications');
        },
        (err: unknown) => logger.warn({ ...key, err }, 'trailing provider re-read failed; the reaper re-checks the order'),
      );
    }, this.options.windowMs + TRAIL_MARGIN_MS);
    timer.unref();
    this.trailing.set(id, timer);
  }
}

/** Claim rows older than this hold no window (PROVIDER_REREAD_WINDOW_MS is at most a minute). */
const REREAD_ROW_TTL_MS = 3_600_000;

/** Deletes up to `limit` claim rows that hold no window any more (the reaper's tick calls it). */
export async function pruneRereads(db: Kysely<DB>, now: Date, limit = 1_000): Promise<number> {
  const before = new Date(now.getTime() - REREAD_ROW_TTL_MS);
  return deleteRereadsBefore(db, before, limit);
}
