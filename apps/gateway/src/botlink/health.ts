import type { botlink } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import type { BotlinkMetrics } from '../metrics/botlink-metrics.js';

/** How far ahead of the gateway's clock a last_ok stamp may be before it is ignored. */
export const MAX_CLOCK_SKEW_SECONDS = 300n;

/**
 * Turns Health reports into the platform metrics. The counter grows by each report's deltas
 * (kind long_poll <- connect_failures, api <- api_errors, rate_limited <- rate_limited), and
 * `bot_dead_letters_total` by the additive `dead_letters` delta (updates and outbox rows the bot
 * parked), `bot_platform_update_conflicts_total` by the additive `update_conflicts` delta (409s on
 * the bot's long poll: another poller with the same token); an older bot never sets either, which
 * reads as 0. The last-ok stamp is the maximum seen by this gateway across every Link and
 * reconnect, so the gauge never moves backwards; before the first report carrying a stamp it has
 * no sample at all (a restarted gateway exposing 0 would move it backwards). A stamp further in the
 * future than MAX_CLOCK_SKEW_SECONDS is ignored, because a bot with a broken clock would otherwise
 * pin the gauge forever.
 */
export class PlatformHealth {
  private lastOk = 0n;

  constructor(
    private readonly metrics: BotlinkMetrics,
    private readonly logger: Logger,
    private readonly nowUnix: () => bigint = () => BigInt(Math.floor(Date.now() / 1000)),
  ) {}

  /** The highest accepted last_ok_unix so far (0 when none). */
  get lastOkUnix(): bigint {
    return this.lastOk;
  }

  /** Adds one report; `instanceId` is for logging only. */
  record(report: botlink.Health, instanceId: string): void {
    this.add('long_poll', report.connectFailures);
    this.add('api', report.apiErrors);
    this.add('rate_limited', report.rateLimited);
    if (report.deadLetters > 0n) {
      this.metrics.deadLetters.inc(Number(report.deadLetters));
      this.logger.warn(
        { instanceId, deadLetters: report.deadLetters.toString() },
        'the bot parked updates or payments as dead letters; an operator must look at its dead_letters table',
      );
    }
    if (report.updateConflicts > 0n) {
      this.metrics.updateConflicts.inc(Number(report.updateConflicts));
      this.logger.warn(
        { instanceId, updateConflicts: report.updateConflicts.toString() },
        'the platform answered 409 Conflict to the bot long poll: another process polls updates with the same bot token',
      );
    }
    const stamp = report.lastOkUnix;
    if (stamp <= this.lastOk) return;
    if (stamp > this.nowUnix() + MAX_CLOCK_SKEW_SECONDS) {
      this.logger.warn({ instanceId, lastOkUnix: stamp.toString() }, 'health last_ok_unix is in the future; ignored');
      return;
    }
    this.lastOk = stamp;
    this.metrics.platformLastOk.set(Number(stamp));
  }

  private add(kind: 'long_poll' | 'api' | 'rate_limited', delta: bigint): void {
    if (delta > 0n) this.metrics.platformErrors.inc({ kind }, Number(delta));
  }
}
